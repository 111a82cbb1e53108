"""Pages computed once per published run: ETag, 304, Cache-Control, and a new publish showing at once.

Datasette is the one ``agentrank serve`` builds (mode=ro, our plugin), on a database of its own
that the test re-publishes while it serves.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from datasette_plugins.cache import follows_published_run, published_cache
from db.scores import publish
from db.store import open_store
from tests.publish_helpers import build_published_db

SETTINGS = ServeConfig(heap_limit_mb=0, cache_max_age=600)


@pytest.fixture
def served(tmp_path):
    published = build_published_db(tmp_path / "agentrank.db", n=120, weeks=2)
    return published, build_datasette(published.path, SETTINGS)


@pytest.mark.asyncio
async def test_a_second_request_with_the_etag_gets_304_and_a_new_publish_changes_it(served):
    published, datasette = served
    pages = ["/agentrank/agents", "/agentrank/agents.json?_shape=array", f"/-/agent/{published.top_name}", "/"]
    first = {}
    for page in pages:
        response = await datasette.client.get(page)
        assert response.status_code == 200, page
        assert response.headers["cache-control"] == "public, max-age=600"
        first[page] = response.headers["etag"]
        again = await datasette.client.get(page, headers={"if-none-match": first[page]})
        assert again.status_code == 304, page
        assert again.content == b""
        assert again.headers["etag"] == first[page]
    assert len(set(first.values())) == len(pages)  # each page has its own tag
    # The feeds follow the published run too: cached as long as the pages, not a fixed hour.
    feed = await datasette.client.get("/-/feeds/new.atom")
    assert feed.status_code == 200 and feed.headers["cache-control"] == "public, max-age=600"
    db = open_store(published.path)
    first_run, second_run = [row[0] for row in db.execute("select id from runs where kind = 'score' order by id")]
    ranked = (await datasette.client.get("/agentrank/agents.json?_shape=array")).json()
    assert {row["score_run_id"] for row in ranked} == {second_run}

    # A refresh publishes another run (here: the first week's again) while the server runs.
    publish(db, first_run)
    db.close()

    for page in pages:
        response = await datasette.client.get(page, headers={"if-none-match": first[page]})
        assert response.status_code == 200, page
        assert response.headers["etag"] != first[page]
    ranked = (await datasette.client.get("/agentrank/agents.json?_shape=array")).json()
    assert {row["score_run_id"] for row in ranked} == {first_run}  # not the page kept from before


@pytest.mark.asyncio
async def test_pages_that_change_between_publishes_carry_no_etag(served):
    _, datasette = served
    for page in ["/agentrank/repos", "/agentrank/runs.json", "/agentrank?sql=select+1", "/agentrank", "/-/versions"]:
        response = await datasette.client.get(page)
        assert response.status_code == 200, page
        assert "etag" not in response.headers, page
        assert "public" not in response.headers.get("cache-control", ""), page


def test_which_pages_follow_the_published_run():
    names = frozenset({"agentrank"})
    assert follows_published_run("/", "", names)
    assert follows_published_run("/agentrank/agents", "category=coding&_sort_desc=stars", names)
    assert follows_published_run("/agentrank/categories.json", "", names)
    assert follows_published_run("/-/agent/acme/tool", "", names)
    assert follows_published_run("/-/some-page-another-plugin-adds", "", names)
    assert not follows_published_run("/agentrank/agents", "sql=select+1", names)
    assert not follows_published_run("/agentrank/agents.csv", "_stream=on", names)
    assert not follows_published_run("/agentrank.json", "sql=select+1", names)
    # Every raw-SQL parameter in any spelling: SQL results are never kept (issue 27).
    for query in ("%73ql=select+1", "_where=1", "%5Fwhere=1", "_search=a", "_through=x"):
        assert not follows_published_run("/agentrank/agents.json", query, names), query
    assert not follows_published_run("/agentrank/scores", "", names)
    assert not follows_published_run("/-/static/app.css", "", names)


async def _get(app, path: str) -> tuple[int, bytes]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": [(b"host", b"test")]}
    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.asyncio
async def test_a_spike_on_a_page_not_cached_yet_renders_it_once_and_a_degraded_page_is_not_kept(served):
    _, datasette = served
    renders: list[str] = []

    async def slow_page(scope, receive, send) -> None:
        renders.append(scope["path"])
        await asyncio.sleep(0.2)
        timed_out = b'<p class="facets-timed-out">' if "categories" in scope["path"] else b""
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<html>page" + timed_out})

    app = published_cache(slow_page, datasette)
    answers = await asyncio.gather(*(_get(app, "/agentrank/agents") for _ in range(20)))
    assert renders == ["/agentrank/agents"]  # twenty visitors at once, one render
    assert set(answers) == {(200, b"<html>page")}
    for _ in range(2):
        await _get(app, "/agentrank/categories")
    assert renders.count("/agentrank/categories") == 2  # the facet timed out: tried again next time


@pytest.mark.asyncio
async def test_a_ledger_import_shows_on_the_benchmark_pages_without_a_new_publish(served, tmp_path):
    from leaderboard.ingest import import_attempts
    from tests.benchmark_attempts import attempt

    published, datasette = served
    before = await datasette.client.get("/-/leaderboard")
    assert before.status_code == 200
    assert "fresh/agent" not in before.text
    assert (
        await datasette.client.get("/-/leaderboard", headers={"if-none-match": before.headers["etag"]})
    ).status_code == 304

    attempts = tmp_path / "attempts.json"
    attempts.write_text(
        json.dumps([attempt("fresh/agent", "1.0", "t1", 1, "2026-11-01T08:00:00Z", "verified", 4, 4, 60.0, 0.5)])
    )
    db = open_store(published.path)
    import_attempts(db, attempts, verified=True)  # no score run is published
    db.close()

    after = await datasette.client.get("/-/leaderboard", headers={"if-none-match": before.headers["etag"]})
    assert after.status_code == 200
    assert after.headers["etag"] != before.headers["etag"]
    assert "fresh/agent" in after.text  # not the page kept from before the import
