"""deploy/nginx in front of a real `agentrank serve`: cached pages, the security headers, gzip and
the per-IP limit on arbitrary SQL. Skipped when nginx is not installed (`apt-get install nginx`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.nginx_helpers import NGINX, running_nginx, shipped_http_conf, shipped_server_blocks
from tests.publish_helpers import Server, free_port

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
ROOT = Path(__file__).resolve().parent.parent


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
                # How long a stop takes is not what this test is about: on a loaded machine (the whole
                # suite on two cores) one took over 10 s once. A stop that never ends still fails.
                try:
                    servers[i].wait(timeout=60)
                except subprocess.TimeoutExpired:
                    pytest.fail((tmp_path / f"serve-{port}.log").read_text(errors="replace")[-3000:])
                servers[i] = start(port)
            done.set()
            visitor.join(timeout=60)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=60)
    assert len(statuses) > 10 and set(statuses) == {200}, sorted(set(statuses))


def test_nginx_does_not_show_its_version(proxy):
    version = subprocess.run([NGINX, "-v"], capture_output=True, text=True).stderr.split("/")[-1].strip()
    assert version and version[0].isdigit()
    page = httpx.get(f"{proxy}/agentrank/agents")
    assert page.headers["server"] == "nginx"
    hidden = httpx.get(f"{proxy}/-/versions.json")  # nginx's own 404 page
    assert hidden.status_code == 404
    assert hidden.headers["server"] == "nginx"
    assert version not in hidden.text


@pytest.fixture(scope="module")
def week_one(tmp_path_factory):
    """A database with its first weekly run published, and that week's saved search results (the
    second week is published by a test, as the weekly refresh would)."""
    from tests.publish_helpers import build_published_db

    db = build_published_db(tmp_path_factory.mktemp("week-one") / "agentrank.db", n=120, weeks=1)
    return db.path


# Long enough for a page with max-age 1 to have expired in nginx's cache (its clock is in seconds).
NGINX_MAX_AGE_PAST = 2.5


@contextmanager
def served_behind_nginx(db_path: Path, tmp: Path) -> Iterator[tuple[str, Server]]:
    """`agentrank serve` on ``db_path`` with a 1 s max-age (the documented 600 s, shortened so a
    page expires within the test), behind the shipped config; yields nginx's URL and the server."""
    from tests.publish_helpers import agentrank_serve, running

    port = free_port()
    command = agentrank_serve(db_path, port, "--setting", "cache_max_age", "1")
    with running(command, port, tmp / "serve.log") as server:
        http_conf = shipped_http_conf(tmp, server.url.removeprefix("http://"))
        with running_nginx(tmp, free_port(), [http_conf]) as url:
            yield url, server


def test_after_a_publish_the_first_visit_past_max_age_gets_the_new_run(week_one, tmp_path):
    # nginx served an expired page from the previous visit ("updating" with background updates):
    # a page visited less than once per max-age showed the old run once more after every publish.
    import json

    from agentrank.config import Config
    from db.store import open_store
    from tests.publish_helpers import _second_week

    db_path = tmp_path / "agentrank.db"
    shutil.copy(week_one, db_path)
    page = "/agentrank/agents.json?_size=3&_sort=rank"
    with served_behind_nginx(db_path, tmp_path) as (url, _):
        before = httpx.get(url + page)
        assert before.status_code == 200 and before.headers["x-cache-status"] == "MISS"
        assert httpx.get(url + page).headers["x-cache-status"] == "HIT"
        # The second week is published (stars move, ranks change), as the weekly refresh does.
        db = open_store(db_path)
        items = json.loads((week_one.parent / "first-week.json").read_text())
        _second_week(db, tmp_path, items, Config())
        db.close()
        # Past the page's max-age of 1 s: nginx counts it in whole seconds from its cached clock, so
        # a page stored late in a second stays fresh until the second after next (1.5 s gave a HIT).
        time.sleep(NGINX_MAX_AGE_PAST)
        after = httpx.get(url + page)
        assert after.status_code == 200
        assert after.headers["x-cache-status"] != "STALE"
        assert after.headers["etag"] != before.headers["etag"]
        assert after.json()["rows"] != before.json()["rows"]
        again = httpx.get(url + page)  # and the new page is what the cache holds now
        assert again.headers["x-cache-status"] == "HIT"
        assert again.json()["rows"] == after.json()["rows"]


def test_with_the_server_down_cached_pages_are_served_and_others_get_a_short_503(week_one, tmp_path):
    with served_behind_nginx(week_one, tmp_path) as (url, server):
        cached = httpx.get(url + "/agentrank/agents.json?_size=3")
        assert cached.status_code == 200
        time.sleep(NGINX_MAX_AGE_PAST)  # expired: kept only for when the server cannot answer
        server.process.terminate()
        server.process.wait(timeout=60)

        stale = httpx.get(url + "/agentrank/agents.json?_size=3")
        assert stale.status_code == 200
        assert stale.headers["x-cache-status"] == "STALE"
        assert stale.json()["rows"] == cached.json()["rows"]

        # Not cached: nginx's stock 502 was text/html even on .json, without Retry-After.
        data = httpx.get(url + "/agentrank/agents.json?_size=4")
        page = httpx.get(url + "/agentrank/agents?_size=4")
        for answer in (data, page):
            assert answer.status_code == 503
            assert int(answer.headers["retry-after"]) >= 1
            assert answer.headers["access-control-allow-origin"] == "*"
            assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
            assert answer.headers["server"] == "nginx"
            assert "try again" in answer.text and "nginx" not in answer.text
        assert data.headers["content-type"] == "application/json"
        assert data.json()["ok"] is False and data.json()["status"] == 503
        assert page.headers["content-type"].startswith("text/plain")


HOST = "agentrank.example.org"


@pytest.fixture(scope="module")
def sites(live_server, tmp_path_factory):
    """The shipped server blocks (agentrank-80.conf, agentrank.conf) on TLS with a self-signed
    certificate for agentrank.example.org; yields the plain and the TLS port."""
    tmp = tmp_path_factory.mktemp("nginx-sites")
    http_conf = shipped_http_conf(tmp, live_server.url.removeprefix("http://"))
    http_port, https_port = free_port(), free_port()
    servers = shipped_server_blocks(tmp, http_port, https_port)
    with running_nginx(tmp, http_port, [http_conf], servers=servers):
        yield http_port, https_port


def curl(https_port: int, path: str, *extra: str, name: str = HOST) -> subprocess.CompletedProcess:
    """curl over TLS to ``name`` (resolved to 127.0.0.1: its SNI and Host), the headers then the
    HTTP version on stdout."""
    resolve = f"{name}:{https_port}:127.0.0.1"
    command = ["curl", "-sk", "--max-time", "30", "--resolve", resolve, "-D", "-", "-o", "/dev/null"]
    command += ["-w", "http=%{http_version}", *extra, f"https://{name}:{https_port}{path}"]
    return subprocess.run(command, capture_output=True, text=True)


needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


@needs_curl
def test_only_the_sites_own_name_reaches_the_server(sites):
    http_port, https_port = sites
    path = "/agentrank/agents.json?_size=1"
    ours = curl(https_port, path)
    assert ours.returncode == 0 and " 200" in ours.stdout.splitlines()[0]
    assert f"<https://{HOST}/agentrank/agents.json?" in ours.stdout  # the Link header
    # Another name in Host on a connection made for ours: closed unanswered (444; over HTTP/2 the
    # stream is reset), so no page links to that name (the server builds next_url and the Link
    # header from Host).
    for http in ("--http1.1", "--http2"):
        foreign = curl(https_port, path, http, "-H", "Host: evil.example")
        assert foreign.returncode != 0 and not foreign.stdout.startswith("HTTP"), foreign
        assert "evil.example" not in foreign.stdout
    # Another name in the TLS handshake (or an IP address): refused before any request.
    assert curl(https_port, path, name="evil.example").returncode == 35  # curl: TLS handshake failed
    # Plain http: our name is sent to https, any other is closed.
    redirect = httpx.get(f"http://127.0.0.1:{http_port}{path}", headers={"host": HOST})
    assert redirect.status_code == 301 and redirect.headers["location"] == f"https://{HOST}{path}"
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(f"http://127.0.0.1:{http_port}{path}", headers={"host": "evil.example"})


@needs_curl
@pytest.mark.parametrize("http", ["--http1.1", "--http2"])
def test_the_8_kb_address_limit_holds_over_http2_too(sites, http):
    # Over HTTP/2, nginx's 8 kB request-line limit counts the compressed header: 13 kB got a 200.
    _, https_port = sites
    fits = curl(https_port, "/agentrank/agents.json?_size=5&x=" + "a" * 8_050, http)
    assert " 200" in fits.stdout.splitlines()[0], fits.stdout[:200]
    too_long = curl(https_port, "/agentrank/agents.json?x=" + "a" * 13_000, http)
    assert " 414" in too_long.stdout.splitlines()[0], too_long.stdout[:200]
    assert too_long.stdout.endswith("http=2" if http == "--http2" else "http=1.1")


# What the documented install block's commands do, against a scratch root ($R) in place of /: the
# paths in the shipped files are moved under it before each nginx -t, certbot makes a self-signed
# certificate where Let's Encrypt puts one, and systemctl does nothing.
INSTALL_SHIMS = r"""
set -e
sudo() { "$@"; }
systemctl() { :; }
under_root() { sed -i -E "s#([ '\"])/(etc|var)/#\1$R/\2/#g" "$@"; }
nginx() {
    under_root "$R"/etc/nginx/conf.d/*.conf "$R"/etc/nginx/sites-enabled/*
    "$NGINX_BIN" -p "$R" -c "$R/etc/nginx/nginx.conf" "$@"
}
certbot() {
    name="${@: -1}"
    mkdir -p "$R/etc/letsencrypt/live/$name"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$name" \
        -keyout "$R/etc/letsencrypt/live/$name/privkey.pem" -out "$R/etc/letsencrypt/live/$name/fullchain.pem" 2>/dev/null
}
"""


def documented_nginx_install() -> str:
    text = (ROOT / "docs" / "publishing.md").read_text()
    block = text[text.index("<!-- nginx-install:") :]
    block = block[block.index("```bash\n") + len("```bash\n") :]
    return block[: block.index("```")]


def test_the_documented_nginx_install_works_in_its_order(tmp_path):
    # The docs installed agentrank.conf (HTTPS) with the rest: nginx -t failed on its missing
    # certificate, so the port-80 block that certbot needs was never live.
    root = tmp_path / "root"
    nginx_dir = root / "etc" / "nginx"
    for folder in ("conf.d", "snippets", "sites-enabled", "logs"):
        (nginx_dir / folder).mkdir(parents=True)
    (root / "logs").mkdir()
    # Debian's nginx.conf (what it includes) and default site (port 80's default_server).
    (nginx_dir / "nginx.conf").write_text(
        f"pid {root}/nginx.pid;\nerror_log {root}/error.log;\nevents {{}}\n"
        f"http {{\n  include {nginx_dir}/conf.d/*.conf;\n  include {nginx_dir}/sites-enabled/*;\n}}\n"
    )
    (nginx_dir / "sites-enabled" / "default").write_text("server { listen 80 default_server; }\n")
    steps = documented_nginx_install()
    assert steps.index("agentrank-80.conf") < steps.index("certbot") < steps.index("deploy/nginx/agentrank.conf")
    # Each nginx -t is checked where it stands (set -e): the first runs before any certificate.
    script = INSTALL_SHIMS + steps.replace("/etc/", f"{root}/etc/").replace("/var/", f"{root}/var/")
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env={**os.environ, "R": str(root), "NGINX_BIN": str(NGINX)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("test is successful") == 2
    assert (nginx_dir / "sites-enabled" / "agentrank.conf").exists()
    assert not (nginx_dir / "sites-enabled" / "default").exists()
