"""deploy/nginx/agentrank-connections.conf in front of a real `agentrank serve`: nginx closes a
connection that does not send its headers in time, and caps the requests one client has in
flight. Skipped when nginx is not installed (`apt-get install nginx`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.publish_helpers import free_port

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "nginx"
NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


@pytest.fixture(scope="module")
def proxy(live_server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nginx-connections")
    http_conf = (DEPLOY / "agentrank-http.conf").read_text()
    http_conf = http_conf.replace("/var/cache/nginx/agentrank", str(tmp / "cache"))
    http_conf = http_conf.replace("server 127.0.0.1:8001;", f"server {live_server.url.removeprefix('http://')};")
    (tmp / "agentrank-http.conf").write_text(http_conf)
    connections = (DEPLOY / "agentrank-connections.conf").read_text()
    assert "client_header_timeout 10s;" in connections and "limit_conn agentrank_conn 32;" in connections
    # The same settings with a 1 s header timeout and 2 requests per client, so the test is short.
    connections = connections.replace("client_header_timeout 10s;", "client_header_timeout 1s;")
    (tmp / "agentrank-connections.conf").write_text(connections.replace("agentrank_conn 32;", "agentrank_conn 2;"))
    port = free_port()
    temp_paths = "\n".join(
        f"  {kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (tmp / "nginx.conf").write_text(
        f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
error_log {tmp / "error.log"};
pid {tmp / "nginx.pid"};
events {{ worker_connections 256; }}
http {{
  access_log {tmp / "access.log"};
{temp_paths}
  include {tmp / "agentrank-http.conf"};
  include {tmp / "agentrank-connections.conf"};
  server {{
    listen 127.0.0.1:{port};
    include {DEPLOY / "agentrank-site.conf"};
  }}
}}
"""
    )
    assert NGINX is not None
    check = subprocess.run([NGINX, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen(
        [NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/", timeout=5)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    try:
        yield url, port
    finally:
        process.terminate()
        process.wait(timeout=10)


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


def test_a_client_gets_503_past_its_requests_in_flight(proxy):
    url, _ = proxy
    import asyncio

    async def many() -> list[int]:
        async with httpx.AsyncClient(timeout=60) as client:
            # Uncached, distinct pages (the proxy must ask the server for each): 12 at once.
            pages = [f"{url}/agentrank/repos.json?_size={n}&_sort_desc=stars" for n in range(1, 13)]
            return [r.status_code for r in await asyncio.gather(*(client.get(page) for page in pages))]

    statuses = asyncio.run(many())
    assert 503 in statuses and 200 in statuses, statuses
