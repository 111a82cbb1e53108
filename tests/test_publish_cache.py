"""Pages computed once per published run: ETag, 304, Cache-Control, and a new publish showing at once.

Datasette is the one ``agentrank serve`` builds (mode=ro, our plugin), on a database of its own
that the test re-publishes while it serves.
"""

from __future__ import annotations

import pytest

from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from datasette_plugins.cache import follows_published_run
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
    assert not follows_published_run("/agentrank/scores", "", names)
    assert not follows_published_run("/-/static/app.css", "", names)
