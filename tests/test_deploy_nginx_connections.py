"""deploy/nginx/agentrank-connections.conf in front of a real `agentrank serve`: nginx closes a
connection that does not send its headers in time, and caps the requests one client has in
flight. Skipped when nginx is not installed (`apt-get install nginx`)."""

from __future__ import annotations

import socket

import httpx
import pytest

from tests.nginx_helpers import DEPLOY, NGINX, running_nginx, shipped_http_conf
from tests.publish_helpers import free_port

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


@pytest.fixture(scope="module")
def proxy(live_server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nginx-connections")
    http_conf = shipped_http_conf(tmp, live_server.url.removeprefix("http://"))
    connections = (DEPLOY / "agentrank-connections.conf").read_text()
    assert "client_header_timeout 10s;" in connections and "limit_conn agentrank_conn 32;" in connections
    # The same settings with a 1 s header timeout and 2 requests per client, so the test is short.
    connections = connections.replace("client_header_timeout 10s;", "client_header_timeout 1s;")
    (tmp / "agentrank-connections.conf").write_text(connections.replace("agentrank_conn 32;", "agentrank_conn 2;"))
    port = free_port()
    with running_nginx(tmp, port, [http_conf, tmp / "agentrank-connections.conf"]) as url:
        yield url, port


def test_a_connection_that_does_not_send_its_headers_in_time_is_closed(proxy):
    url, port = proxy
    slow = socket.create_connection(("127.0.0.1", port))
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the rest
    slow.settimeout(15)
    try:
        closed = slow.recv(1024)
    except ConnectionResetError:
        closed = b""
    finally:
        slow.close()
    assert closed == b"" or closed.startswith(b"HTTP/1.1 408")
    assert httpx.get(url + "/", timeout=30).status_code == 200


def test_a_client_gets_429_with_retry_after_past_its_requests_in_flight(proxy):
    # It was nginx's 503 HTML page, without Retry-After, even on a .json URL.
    url, _ = proxy
    import asyncio

    async def many() -> list[httpx.Response]:
        async with httpx.AsyncClient(timeout=60) as client:
            # Uncached, distinct pages (the proxy must ask the server for each): 12 at once.
            pages = [f"{url}/agentrank/repos.json?_size={n}&_sort_desc=stars" for n in range(1, 13)]
            return list(await asyncio.gather(*(client.get(page) for page in pages)))

    answers = asyncio.run(many())
    statuses = [r.status_code for r in answers]
    assert 429 in statuses and 200 in statuses, statuses
    refused = next(r for r in answers if r.status_code == 429)
    assert refused.headers.get("retry-after") and refused.headers["content-type"].startswith("text/plain")
