"""deploy/nginx in front of a real `agentrank serve`: cached pages, the security headers, gzip and
the per-IP limit on arbitrary SQL. Skipped when nginx is not installed (`apt-get install nginx`)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.nginx_helpers import NGINX, running_nginx, shipped_http_conf
from tests.publish_helpers import free_port

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


@pytest.fixture(scope="module")
def proxy(live_server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nginx")
    http_conf = shipped_http_conf(tmp, live_server.url.removeprefix("http://"))
    with running_nginx(tmp, free_port(), [http_conf]) as url:
        yield url


def test_a_published_page_is_served_from_the_cache_with_the_security_headers(proxy):
    first = httpx.get(f"{proxy}/agentrank/agents")
    second = httpx.get(f"{proxy}/agentrank/agents")
    assert first.status_code == second.status_code == 200
    assert first.headers["x-cache-status"] == "MISS"
    assert second.headers["x-cache-status"] == "HIT"
    assert second.text == first.text
    assert second.headers["etag"] == first.headers["etag"]
    assert second.headers["cache-control"].startswith("public, max-age=")
    csp = second.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert second.headers["strict-transport-security"].startswith("max-age=")
    assert second.headers["x-content-type-options"] == "nosniff"
    assert second.headers["x-frame-options"] == "DENY"
    # The browser's revalidation reaches the same 304 through the proxy.
    again = httpx.get(f"{proxy}/agentrank/agents", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304


def test_pages_are_gzipped(proxy):
    response = httpx.get(f"{proxy}/agentrank/agents.json", headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip"
    assert response.json()["rows"]  # httpx decompressed it


def test_arbitrary_sql_is_not_cached_and_is_rate_limited_per_client(proxy):
    # One client's spike of queries, on the HTML and the JSON endpoint (one budget for both).
    paths = ["/agentrank?sql=select+1", "/agentrank.json?sql=select+2"] * 15

    async def spike() -> list[int]:
        async with httpx.AsyncClient(timeout=60) as client:
            responses = await asyncio.gather(*(client.get(proxy + path) for path in paths))
        return [r.status_code for r in responses]

    statuses = asyncio.run(spike())
    assert set(statuses) == {200, 429}, statuses  # the burst is answered, the rest refused
    assert statuses.count(200) <= 15
    answered = httpx.get(f"{proxy}/agentrank.json?sql=select+3")
    assert answered.headers.get("x-cache-status", "") in ("BYPASS", "")  # or refused (429): never HIT
    # Pages without SQL are not held back by the SQL limit.
    assert httpx.get(f"{proxy}/agentrank/agents").status_code == 200


def client_from(address: str) -> httpx.AsyncClient:
    """A client whose requests come from ``address`` (any 127.x.y.z): nginx sees a separate IP."""
    return httpx.AsyncClient(timeout=60, transport=httpx.AsyncHTTPTransport(local_address=address))


# Every way a request runs SQL the visitor wrote: Datasette decodes the parameter's name first, so
# each spelling is the same request to it; the canned queries run heavy SQL of their own.
RAW_SQL_SPELLINGS = [
    "/agentrank.json?sql=select+1",
    "/agentrank.json?%73ql=select+1",
    "/agentrank.json?%73%71%6C=select+1",
    "/agentrank?x=1&s%71%6C=select+1",
    "/agentrank/agents.json?_where=1",
    "/agentrank/agents.json?%5Fwhere=1",
    "/agentrank/agents.json?%5f%77here=1",
    "/agentrank/agents?_where=rank+in+(select+1)",
    "/agentrank/agents.json?_search=agent",
    "/agentrank/agents.json?%5Fsearch=agent&_searchmode=raw",
    "/agentrank/agents.json?_search_description=agent",
    "/agentrank/agents.json?_through=x",
    "/agentrank/agents.json?_fts_table=repos_fts",
    "/agentrank/top_agents.json",
    "/agentrank/%72ecompute_summary.json",
    "/agentrank/my_agents?owner=x",
]


@pytest.mark.parametrize("number", range(len(RAW_SQL_SPELLINGS)), ids=RAW_SQL_SPELLINGS)
def test_every_raw_sql_spelling_meets_the_per_ip_limit_and_is_never_cached(proxy, number):
    path = RAW_SQL_SPELLINGS[number]
    address = f"127.0.{number // 200 + 1}.{number % 200 + 10}"  # a client of its own for each spelling

    async def run() -> tuple[list[httpx.Response], list[httpx.Response]]:
        async with client_from(address) as client:
            first = [await client.get(proxy + path), await client.get(proxy + path)]
            spike = await asyncio.gather(*(client.get(proxy + path) for _ in range(15)))
        return first, list(spike)

    first, spike = asyncio.run(run())
    assert first[0].status_code != 429
    for response in first:  # answered by the server each time, never from the cache
        assert response.headers.get("x-cache-status", "BYPASS") == "BYPASS", response.headers
    statuses = [r.status_code for r in spike]
    assert 429 in statuses, statuses
    assert len([s for s in statuses if s != 429]) <= 10  # the burst, then refused
    refused = next(r for r in spike if r.status_code == 429)
    assert int(refused.headers["retry-after"]) >= 1
    # The refusal carries the site's headers (a location's add_header replaced them) and CORS, so a
    # script elsewhere can read Retry-After; it is plain text even on a .json address.
    assert "frame-ancestors 'none'" in refused.headers["content-security-policy"]
    assert refused.headers["strict-transport-security"].startswith("max-age=")
    assert refused.headers["x-frame-options"] == "DENY"
    assert refused.headers["access-control-allow-origin"] == "*"
    assert "Retry-After" in refused.headers["access-control-expose-headers"]
    assert refused.headers["content-type"].startswith("text/plain")


def test_javascript_is_gzipped_and_static_files_are_cached(proxy):
    js = "/-/static-plugins/agentrank/agentrank.js"
    for path in (js, "/-/static/app.css"):
        first = httpx.get(proxy + path, headers={"accept-encoding": "gzip"})
        second = httpx.get(proxy + path, headers={"accept-encoding": "gzip"})
        assert first.status_code == 200
        assert first.headers["cache-control"].startswith("public, max-age=")
        assert second.headers["x-cache-status"] == "HIT"
    # Datasette's own scripts (text/javascript) too: the SQL page's editor is the largest.
    response = httpx.get(proxy + "/-/static/sql-formatter-2.3.3.min.js", headers={"accept-encoding": "gzip"})
    assert response.status_code == 200 and response.headers["content-encoding"] == "gzip"


def test_public_pages_are_cached_whatever_cookies_a_visitor_has(proxy):
    path = "/agentrank/categories"
    httpx.get(proxy + path)
    for cookie in ("_ga=GA1.2.3", "theme=dark; _ga=other"):
        response = httpx.get(proxy + path, headers={"cookie": cookie})
        assert response.status_code == 200
        assert response.headers["x-cache-status"] == "HIT", cookie


def test_datasette_introspection_pages_are_not_public(proxy):
    assert httpx.get(f"{proxy}/-/versions.json").status_code == 404
    assert httpx.get(f"{proxy}/-/plugins").status_code == 404
    assert httpx.get(f"{proxy}/-/patterns").status_code == 404  # Datasette's pattern portfolio


@pytest.mark.parametrize("length", [1_700, 3_000, 7_000, 7_900, 8_050])
def test_a_long_query_string_is_served_through_the_proxy(proxy, length):
    # nginx's 4 kB proxy buffer could not hold Datasette's Link header (it repeats the query) nor the
    # cache key: 502 from about 1,700 characters; at 16 kB, from about 7,800 (the Link header can
    # name the query twice), and the HTML page then came as a 200 with no body.
    filler = "a" * length
    for path in (
        f"/agentrank/agents?x={filler}",
        f"/agentrank/agents.json?x={filler}",
        f"/agentrank/agents.json?_size=5&x={filler}",
        f"/agentrank/categories?x={filler}",
    ):
        response = httpx.get(proxy + path, timeout=30)
        assert response.status_code == 200, (path[:40], response.status_code)
        assert len(response.content) > 1_000, path[:40]


def test_two_servers_restarted_in_turn_leave_no_gap(published_db, tmp_path):
    """docs/publishing.md's restart without a gap: the shipped upstream with its backup line
    uncommented, both servers restarted one after the other under a stream of uncached requests."""
    import subprocess
    import threading

    from tests.publish_helpers import agentrank_command, agentrank_serve, wait_until_up

    snapshot = tmp_path / "site.db"
    made = subprocess.run(agentrank_command(published_db.path, "snapshot", "--out", str(snapshot)), capture_output=True)
    assert made.returncode == 0, made.stderr
    ports = (free_port(), free_port())

    def start(port: int) -> subprocess.Popen:
        log = tmp_path / f"serve-{port}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                agentrank_serve(snapshot, port, "--immutable"), stdout=out, stderr=subprocess.STDOUT
            )
        wait_until_up(f"http://127.0.0.1:{port}", process, log)
        return process

    servers = [start(port) for port in ports]
    http_conf = shipped_http_conf(tmp_path, f"127.0.0.1:{ports[0]}", backup=f"127.0.0.1:{ports[1]}")
    statuses: list[int] = []
    try:
        with running_nginx(tmp_path, free_port(), [http_conf]) as url:
            done = threading.Event()

            def visit() -> None:  # about 15 requests a second, each a page not cached yet
                with httpx.Client(timeout=30) as client:
                    n = 0
                    while not done.is_set():
                        n += 1
                        statuses.append(client.get(f"{url}/site/agents?_size=5&n={n}").status_code)
                        done.wait(0.06)

            visitor = threading.Thread(target=visit)
            visitor.start()
            for i, port in enumerate(ports):  # restart the first, then the backup
                servers[i].terminate()
                servers[i].wait(timeout=10)
                servers[i] = start(port)
            done.set()
            visitor.join(timeout=60)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
    assert len(statuses) > 10 and set(statuses) == {200}, sorted(set(statuses))
