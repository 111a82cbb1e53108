"""Issue 29 (server): a NUL byte in a query string is a 400, the page cache stays inside its budget
whatever the query strings, ``If-None-Match: *`` never turns a missing page into a 304, a page asked
for over ``https`` (behind a proxy) is never served to a plain request, feeds and owner pages are
bounded, and ``agentrank serve`` limits its connections."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import tracemalloc

import httpx
import pytest

from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from datasette_plugins.cache import published_cache
from tests.publish_helpers import build_published_db


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    return build_published_db(tmp_path_factory.mktemp("bounds") / "agentrank.db", n=120, churn=True)


async def _asgi(app, path: str, query: bytes = b"", headers=(), scheme: str = "http"):
    """One request straight through an ASGI app, as uvicorn hands it over."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "scheme": scheme,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": [(b"host", b"localhost:8001"), *headers],
        "http_version": "1.1",
        "server": ("127.0.0.1", 8001),
        "client": ("127.0.0.1", 50000),
        "root_path": "",
    }
    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], dict(start["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


# --- 6: a NUL byte in the query string -------------------------------------------------------

SPELLINGS = ["%00", "_facet=%00", "_where=%00", "a%00b=1", "%00=%00", "_facet_array=%00", "_sort=x%00", "category=%00"]


@pytest.mark.asyncio
@pytest.mark.parametrize("spelling", SPELLINGS)
async def test_a_nul_byte_in_the_query_string_is_a_clear_400_on_every_table_page(published, spelling):
    datasette = build_datasette(published.path, ServeConfig())
    conn = sqlite3.connect(published.path)
    tables = [row[0] for row in conn.execute("select name from sqlite_master where type in ('table', 'view')")]
    conn.close()
    assert "agents" in tables and "repos" in tables
    for table in tables:
        for suffix in ("", ".json"):
            response = await datasette.client.get(f"/agentrank/{table}{suffix}?{spelling}")
            assert response.status_code == 400, (table, suffix, spelling, response.text[:200])
            assert "NUL byte" in response.text, (table, response.text[:200])
    for page in ("/", f"/-/agent/{published.top_name}", "/-/feeds/new.atom", "/agentrank/top_agents"):
        assert (await datasette.client.get(f"{page}?{spelling}")).status_code == 400, page


# --- 12: the page cache counts what it keeps ---------------------------------------------------


async def _small_page(scope, receive, send) -> None:
    """A page as small as a shields.io badge's JSON, whatever its query string."""
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"public, max-age=86400")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b'{"schemaVersion": 1, "message": "not listed"}'})


@pytest.mark.asyncio
@pytest.mark.parametrize(("query_bytes", "requests"), [(12_000, 2_000), (100, 5_000)])
async def test_distinct_query_strings_do_not_grow_the_server_past_the_page_cache_budget(
    published, query_bytes, requests
):
    app = published_cache(_small_page, build_datasette(published.path, ServeConfig(page_cache_mb=1)))
    await _asgi(app, "/-/agent/a/b/shields.json", b"warm=1")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(requests):
            query = f"v={i}&pad=".encode() + b"x" * query_bytes
            status, headers, _ = await _asgi(app, "/-/agent/a/b/shields.json", query)
            assert status == 200 and b"etag" in headers
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # 1 MB of budget: what the kept pages hold, keys and bookkeeping included, stays inside it
    # (before: 12.7 kB a request for 12 kB query strings, 25 MB in all; 2.2 MB for short ones).
    assert grown < 1024 * 1024, grown
    # The pages are still kept and served from memory when their query string is short.
    first = await _asgi(app, "/-/agent/a/b/shields.json", b"v=again")
    assert first[0] == 200 and (await _asgi(app, "/-/agent/a/b/shields.json", b"v=again")) == first


# --- 21: If-None-Match: * and X-Forwarded-Proto ------------------------------------------------


@pytest.mark.asyncio
async def test_if_none_match_star_is_never_a_304_for_a_missing_page(published):
    datasette = build_datasette(published.path, ServeConfig())
    star = {"if-none-match": "*"}
    for missing in ("/-/agent/nobody/nothing", "/-/owner/nobody-at-all", "/-/category/no-such-category"):
        response = await datasette.client.get(missing, headers=star)
        assert response.status_code == 404, missing
        assert "not found" in response.text.lower(), missing
        again = await datasette.client.get(missing, headers={"if-none-match": 'W/"x", *'})
        assert again.status_code == 404, missing
    # A page that exists: "any representation" matches it, first visit or not.
    page = f"/-/agent/{published.top_name}"
    assert (await datasette.client.get(page, headers=star)).status_code == 304
    assert (await datasette.client.get(page)).status_code == 200
    assert (await datasette.client.get(page, headers=star)).status_code == 304


@pytest.mark.asyncio
async def test_a_page_asked_for_over_https_behind_a_proxy_is_not_served_to_plain_requests(published):
    # uvicorn sets the scope's scheme from X-Forwarded-Proto (from a trusted proxy address).
    app = build_datasette(published.path, ServeConfig()).app()
    path, query = "/agentrank/agents.json", b"_size=5"
    status, _, secure = await _asgi(app, path, query, scheme="https")
    assert status == 200 and json.loads(secure)["next_url"].startswith("https://localhost:8001/")
    status, _, plain = await _asgi(app, path, query)
    assert status == 200 and json.loads(plain)["next_url"].startswith("http://localhost:8001/")
    status, headers, _ = await _asgi(app, "/agentrank/agents", b"", scheme="https")
    status_plain, headers_plain, html = await _asgi(app, "/agentrank/agents")
    assert status == status_plain == 200 and b"https://localhost" not in html
    assert headers[b"etag"] != headers_plain[b"etag"]


def test_x_forwarded_proto_on_the_live_server_does_not_leak_into_plain_pages(live_server):
    page = f"{live_server.url}/agentrank/agents.json?_size=7"
    secure = httpx.get(page, headers={"x-forwarded-proto": "https"}, timeout=30)
    assert secure.status_code == 200 and secure.json()["next_url"].startswith("https://")
    plain = httpx.get(page, timeout=30)
    assert plain.status_code == 200 and plain.json()["next_url"].startswith("http://127.0.0.1")


# --- 13: agentrank serve bounds its connections -----------------------------------------------


def _closed_by_server(sock: socket.socket, wait_s: float) -> bool:
    """Has the server closed this connection (or does it within ``wait_s``)?"""
    sock.settimeout(wait_s)
    try:
        return sock.recv(1024) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_serve_caps_open_connections_and_closes_slow_ones(published, tmp_path):
    from tests.publish_helpers import agentrank_serve, free_port, running

    port = free_port()
    settings = ("--setting", "max_connections", "20", "--setting", "header_timeout_s", "2")
    with running(agentrank_serve(published.path, port, *settings), port, tmp_path / "serve.log") as server:
        descriptors = len(os.listdir(f"/proc/{server.process.pid}/fd"))
        slow = []
        for i in range(60):
            sock = socket.create_connection(("127.0.0.1", port))
            if i % 2:  # half of them trickle the start of a request and never finish it
                sock.sendall(b"GET /agentrank/agents HTTP/1.1\r\nHost: x\r\n")
            slow.append(sock)
        try:
            # Past the cap, connections are closed at once: the server never holds more than 20.
            refused = sum(_closed_by_server(sock, 0.2) for sock in slow)
            assert refused >= 40, refused
            assert len(os.listdir(f"/proc/{server.process.pid}/fd")) <= descriptors + 20
            # The ones it kept are closed when their headers do not come in time.
            assert all(_closed_by_server(sock, 15) for sock in slow)
            assert len(os.listdir(f"/proc/{server.process.pid}/fd")) <= descriptors + 1
        finally:
            for sock in slow:
                sock.close()
        # Normal visitors are served, and a kept-alive connection answers more than one request.
        with httpx.Client(base_url=server.url, timeout=30) as client:
            assert client.get("/agentrank/agents").status_code == 200
            assert client.get(f"/-/agent/{published.top_name}").status_code == 200


def test_a_stop_does_not_wait_forever_for_a_client_that_stopped_reading(published, tmp_path):
    """uvicorn waits for every answer being sent before it stops: a visitor who stopped reading a
    streamed CSV held `systemctl stop` (and a restart) until the process was killed."""
    import shutil
    import subprocess

    from tests.publish_helpers import a_download_under_way

    db_path = tmp_path / "agentrank.db"
    shutil.copy(published.path, db_path)
    with sqlite3.connect(db_path) as conn:  # a table far larger than the socket buffers
        conn.execute(
            "create table big as with recursive n(i) as (select 1 union all select i + 1 from n where i < 10000)"
            " select i, hex(randomblob(500)) as v from n"
        )
    conn.close()
    log_path = tmp_path / "serve.log"
    with a_download_under_way(db_path, log_path, "--setting", "stop_timeout_s", "1") as download:
        download.process.terminate()  # and the client reads no more
        try:
            download.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("the server was still running 60 s after SIGTERM, held by one slow download")
    assert download.process.returncode == 0
    said = log_path.read_text()
    assert "1 answer(s) still being sent after stop_timeout_s (1 s) were cut off" in said
    assert "Traceback" not in said


def test_serve_runs_uvicorn_with_the_connection_limit():
    from agentrank.serve import uvicorn_config

    config = uvicorn_config(object(), ServeConfig(max_connections=300, header_timeout_s=4))
    assert config.limit_concurrency == 300 and config.backlog == 300
    assert config.http.__name__ == "BoundedH11Protocol"


# --- 11: feeds and owner pages are bounded -------------------------------------------------------

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.mark.asyncio
@pytest.mark.parametrize(("kind", "total"), [("new", 4), ("left", 2)])
async def test_a_feed_gives_a_run_at_most_its_cap_then_one_entry_for_the_rest(published, monkeypatch, kind, total):
    from xml.etree import ElementTree as ET

    from datasette_plugins import feeds

    monkeypatch.setattr(feeds, "ENTRIES_PER_RUN", 1)  # the second week lists 4 new repos, 2 leave
    built_in: list[str] = []
    document = feeds.atom_document

    def recorded(*args, **kwargs):
        built_in.append(threading.current_thread().name)
        return document(*args, **kwargs)

    monkeypatch.setattr(feeds, "atom_document", recorded)
    base = "https://agentrank.example"
    datasette = build_datasette(published.path, ServeConfig(public_url=base))
    response = await datasette.client.get(f"/-/feeds/{kind}.atom")
    assert response.status_code == 200
    entries = list(ET.fromstring(response.content).iter(f"{ATOM}entry"))
    assert len(entries) == 2
    assert entries[0].find(f"{ATOM}link").get("href").startswith(f"{base}/-/agent/")
    more = entries[1]
    assert more.findtext(f"{ATOM}title").startswith(f"…and {total - 1:,} more")
    assert more.find(f"{ATOM}link").get("href").startswith(f"{base}/agentrank/")
    assert f"the 1 best-ranked of the {total:,}" in more.findtext(f"{ATOM}summary")
    # Built in a SQL thread, not on the event loop that serves every other page.
    assert built_in and built_in[0] != threading.main_thread().name
    # Kept in the page cache: the same feed again is a 304 with its ETag.
    again = await datasette.client.get(f"/-/feeds/{kind}.atom", headers={"if-none-match": response.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.asyncio
async def test_an_owner_page_is_paged(published, monkeypatch):
    from datasette_plugins import pages

    conn = sqlite3.connect(published.path)
    owned = [
        r[0]
        for r in conn.execute(
            "select r.full_name from repos r left join agents a on a.repo_id = r.id where r.owner_login = ? "
            "order by a.rank is null, a.rank, r.stars desc, r.full_name",
            [published.owner],
        )
    ]
    conn.close()
    assert len(owned) == 2
    monkeypatch.setattr(pages, "OWNER_PAGE_SIZE", 1)
    datasette = build_datasette(published.path, ServeConfig())
    first = await datasette.client.get(f"/-/owner/{published.owner}")
    assert first.status_code == 200
    assert f"/-/agent/{owned[0]}" in first.text and f"/-/agent/{owned[1]}" not in first.text
    assert "2 repositories the crawler has seen" in first.text and "page 1 of 2" in first.text
    assert f'href="/-/owner/{published.owner}?page=2"' in first.text
    second = await datasette.client.get(f"/-/owner/{published.owner}?page=2")
    assert second.status_code == 200 and f"/-/agent/{owned[1]}" in second.text
    assert f'href="/-/owner/{published.owner}?page=1"' in second.text and 'rel="next"' not in second.text
    assert (await datasette.client.get(f"/-/owner/{published.owner}?page=3")).status_code == 404
    for bad in ("0", "x", "-1", "9" * 30):
        response = await datasette.client.get(f"/-/owner/{published.owner}?page={bad}")
        assert response.status_code == 400 and "bad page number" in response.text, bad


# --- scale: first visits do no work that grows with the whole run ------------------------------


def test_a_makers_page_does_not_sort_the_run_once_the_run_is_read(published, monkeypatch):
    import numpy as np

    from datasette_plugins import agent_page

    conn = sqlite3.connect(published.path)
    names = [r[0] for r in conn.execute("select full_name from agents order by rank")]
    listed = len(names)
    agent_page.agent_context(conn, names[0], "https://x.example")  # the run's population, read once
    sorts: list[int] = []
    real_sort = np.sort

    def counted(values, *args, **kwargs):
        sorts.append(len(values))
        return real_sort(values, *args, **kwargs)

    monkeypatch.setattr(np, "sort", counted)
    for name in names[1:20]:
        context = agent_page.agent_context(conn, name, "https://x.example")
        assert context is not None and context["change"] is not None
    conn.close()
    # Before: nine sorts of the whole run per page (O(N log N) each, 2.7x slower at 31,000 listed).
    assert [n for n in sorts if n >= listed - 1] == []


def _plan(conn: sqlite3.Connection, sql: str, params: dict) -> str:
    return " | ".join(row[3] for row in conn.execute("explain query plan " + sql, params))


def test_a_search_counts_its_facets_from_an_index_and_an_owner_is_found_by_index(published):
    from db.store import open_store

    open_store(published.path).close()  # migrated
    conn = sqlite3.connect(published.path)
    search = "repo_id in (select rowid from repos_fts where repos_fts match :search)"
    for column in ("category", "license_spdx", "language", "activity_bucket"):
        # The shape of Datasette's facet query on a search of the agents page.
        plan = _plan(
            conn,
            f"select {column} as value, count(*) as count from (select * from agents where {search}) "
            f"where {column} is not null group by {column} order by count desc, value limit 31",
            {"search": "agent"},
        )
        assert "USING COVERING INDEX" in plan, (column, plan)
    for sql in (
        "select count(*) from repos where owner_login = :login collate nocase",
        "select r.full_name from repos r left join agents a on a.repo_id = r.id where r.owner_login = :login collate nocase",
    ):
        plan = _plan(conn, sql, {"login": published.owner})
        assert "SCAN r" not in plan and "SCAN repos" not in plan, plan
    conn.close()
