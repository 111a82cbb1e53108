"""The published directory as a visitor sees it, through Datasette's in-process client.

The database comes from the real pipeline (two weekly score runs, a rename, a hostile description);
Datasette is the one ``agentrank serve`` builds, with our metadata and plugins.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from urllib.parse import quote

import pytest

from agentrank import importer, scorer
from agentrank.config import Config, ServeConfig
from agentrank.serve import build_datasette
from datasette_plugins.agent_page import agent_context
from datasette_plugins.metadata import TABLES, build_metadata
from db.breakdown import load_breakdown
from db.store import open_store
from tests.publish_helpers import NEW_NAME, OLD_NAME, XSS_DESCRIPTION, XSS_NAME, build_published_db

# In-process tests leave SQLite's process-wide heap limit alone (the server tests check it).
SETTINGS = ServeConfig(heap_limit_mb=0, max_returned_rows=5000)
COMPONENTS = ["popularity", "adoption", "activity", "momentum", "openness"]


@pytest.fixture(scope="module")
def datasette(published_db):
    return build_datasette(published_db.path, SETTINGS)


def rows(response) -> list[dict]:
    assert response.status_code == 200, response.text[:500]
    return response.json()


@pytest.mark.asyncio
async def test_every_table_and_column_people_see_is_described(published_db, datasette):
    conn = sqlite3.connect(published_db.path)
    visible = [
        name
        for (name,) in conn.execute("select name from sqlite_master where type in ('table', 'view')")
        if not name.startswith(("repos_fts", "_sqlite", "sqlite_", "crawl_"))
    ]
    described_tables = build_metadata("agentrank")["databases"]["agentrank"]["tables"]
    missing = []
    for name in visible:
        described = described_tables.get(name, {})
        if not described.get("description"):
            missing.append(name)
        columns = [row[1] for row in conn.execute(f'pragma table_info("{name}")')]
        missing += [f"{name}.{c}" for c in columns if c not in described.get("columns", {})]
    assert not missing, f"describe these in datasette_plugins/metadata.py TABLES: {missing}"
    # And Datasette shows them.
    page = await datasette.client.get("/agentrank/agents?_view=table")
    assert TABLES["agents"]["columns"]["activity_bucket"] in html.unescape(page.text)


@pytest.mark.asyncio
async def test_home_page_states_the_method_licence_and_source(published_db, datasette):
    page = (await datasette.client.get("/")).text
    for text in ("AgentRank Score", "30 % popularity", "10 % openness", "Apache-2.0", "GitHub REST API"):
        assert text in page
    assert 'href="/agentrank/recompute"' in page and 'href="/agentrank/agents"' in page
    assert f'href="/-/agent/{published_db.top_name}"' in page  # a breakdown to start from


@pytest.mark.asyncio
async def test_agents_are_sorted_by_rank_with_the_four_facets(published_db, datasette):
    data = rows(await datasette.client.get("/agentrank/agents.json?_shape=objects&_size=max"))
    ranks = [row["rank"] for row in data["rows"]]
    listed = sqlite3.connect(published_db.path).execute("select count(*) from repos where listed = 1").fetchone()[0]
    assert ranks == list(range(1, listed + 1))
    assert set(data["facet_results"]) == {"category", "license_spdx", "language", "activity_bucket"}
    counts = {r["value"]: r["count"] for r in data["facet_results"]["category"]["results"]}
    assert counts[published_db.category] == sum(1 for r in data["rows"] if r["category"] == published_db.category)


@pytest.mark.asyncio
async def test_facet_value_filters_the_ranking(published_db, datasette):
    data = rows(await datasette.client.get(f"/agentrank/agents.json?_shape=objects&category={published_db.category}"))
    assert data["rows"] and {r["category"] for r in data["rows"]} == {published_db.category}


@pytest.mark.asyncio
async def test_search_covers_name_description_and_topics(datasette):
    async def search(term: str) -> list[str]:
        found = rows(await datasette.client.get(f"/agentrank/agents.json?_shape=array&_search={term}&_col=full_name"))
        return [r["full_name"] for r in found]

    assert XSS_NAME in await search("xss")  # name
    assert XSS_NAME in await search("security")  # topic
    assert NEW_NAME in await search("renamed")  # the index follows the rename
    assert OLD_NAME not in await search("old")
    with_description = await search("spreadsheets")
    assert with_description, "a word from generated descriptions finds repos"


def test_search_index_follows_every_write(tmp_path, item_factory):
    db = open_store(tmp_path / "a.db")
    files = tmp_path / "one.json"
    files.write_text(json.dumps([item_factory(id=7, description="finds zebras in logs")]), encoding="utf-8")
    importer.import_files(db, [files], min_stars=Config().crawl.min_stars)
    match = "select rowid from repos_fts where repos_fts match ?"
    assert db.execute(match, ["zebras"]).fetchall() == [(7,)]
    files.write_text(json.dumps([item_factory(id=7, description="now about giraffes")]), encoding="utf-8")
    importer.import_files(db, [files], min_stars=Config().crawl.min_stars)
    assert db.execute(match, ["zebras"]).fetchall() == []
    assert db.execute(match, ["giraffes"]).fetchall() == [(7,)]
    db.execute("insert into repos_fts(repos_fts) values ('integrity-check')")


@pytest.mark.asyncio
async def test_recompute_query_gives_zero_difference_for_every_row(published_db, datasette):
    result = rows(await datasette.client.get("/agentrank/recompute.json?_shape=objects"))
    listed = sqlite3.connect(published_db.path).execute("select count(*) from agents").fetchone()[0]
    assert len(result["rows"]) == listed and not result["truncated"]
    assert all(row["difference"] == 0 for row in result["rows"])
    assert all(row["rank"] == row["stored_rank"] for row in result["rows"])
    summary = rows(await datasette.client.get("/agentrank/recompute_summary.json?_shape=array"))
    assert summary == [{"repos": listed, "max_abs_difference": 0.0, "rank_mismatches": 0}]


@pytest.mark.asyncio
async def test_recompute_checks_an_older_run_too(published_db, datasette):
    first = sqlite3.connect(published_db.path).execute("select min(id) from runs where kind = 'score'").fetchone()[0]
    result = rows(await datasette.client.get(f"/agentrank/recompute.json?_shape=array&run_id={first}"))
    assert result and {row["as_of"] for row in result} == {"2026-11-23T06:00:00Z"}
    assert all(row["difference"] == 0 for row in result)


@pytest.mark.asyncio
async def test_top_agents_per_category(published_db, datasette):
    result = rows(await datasette.client.get("/agentrank/top_agents.json?_shape=array&per_category=3"))
    by_category: dict[str, list[int]] = {}
    for row in result:
        by_category.setdefault(row["category"], []).append(row["rank"])
    assert by_category and all(len(ranks) <= 3 and ranks == sorted(ranks) for ranks in by_category.values())
    only = rows(await datasette.client.get(f"/agentrank/top_agents.json?_shape=array&category={published_db.category}"))
    in_category = (
        sqlite3.connect(published_db.path)
        .execute("select count(*) from agents where category = ?", [published_db.category])
        .fetchone()[0]
    )
    assert len(only) == min(10, in_category) and {r["category"] for r in only} == {published_db.category}
    assert [r["category_rank"] for r in only] == list(range(1, len(only) + 1))


@pytest.mark.asyncio
async def test_my_agents_lists_an_owners_repos_with_scores(published_db, datasette):
    result = rows(
        await datasette.client.get(f"/agentrank/my_agents.json?_shape=array&owner={published_db.owner.upper()}")
    )
    assert len(result) == 2 and all(r["full_name"].startswith(published_db.owner + "/") for r in result)
    assert all(r["score"] is not None and r["rank"] for r in result)


@pytest.mark.asyncio
async def test_rank_changes_since_the_previous_run(published_db, datasette):
    result = rows(await datasette.client.get("/agentrank/rank_changes.json?_shape=array"))
    # Places among the repos ranked in both runs: those it passed less those that passed it (repos
    # that joined or left change a rank number, not a place), worked out here from the two runs.
    conn = sqlite3.connect(published_db.path)
    runs = [r for (r,) in conn.execute("select distinct run_id from scores order by run_id")][-2:]
    ranks = [
        dict(conn.execute("select repo_id, rank from scores where run_id = ? and rank is not null", [r])) for r in runs
    ]
    both = ranks[0].keys() & ranks[1].keys()
    ids = dict(conn.execute("select full_name, repo_id from scores where run_id = ?", [runs[1]]))
    for r in result:
        me = ids[r["full_name"]]
        passed = sum(1 for o in both if ranks[0][o] < ranks[0][me] and ranks[1][o] > ranks[1][me])
        passed_me = sum(1 for o in both if ranks[0][o] > ranks[0][me] and ranks[1][o] < ranks[1][me])
        assert r["places_up"] == passed - passed_me != 0, r
    moves = [abs(r["places_up"]) for r in result]
    assert result and moves == sorted(moves, reverse=True) and moves[0] > 0
    # Each move says what moved it, as the maker's page and the movers feed do.
    for r in result:
        if r["stars_gained"] == 0 and "activity" not in r["moved_by"] and "licence" not in r["moved_by"]:
            assert r["moved_by"] == "the other repos' changes (no new stars or forks)", r
    assert {r["moved_by"].split(" (")[0] for r in result} <= {
        "its activity bucket",
        "its licence changed",
        "the other repos' changes",
        "its stars and forks against the other repos' changes",
    }


@pytest.mark.asyncio
async def test_rank_changes_is_empty_with_one_score_run(tmp_path):
    db = build_published_db(tmp_path / "one-week.db", n=40, seed=3, weeks=1)
    single = build_datasette(db.path, SETTINGS)
    assert rows(await single.client.get("/one-week/rank_changes.json?_shape=array")) == []
    page = await single.client.get(f"/-/agent/{db.top_name}")
    assert page.status_code == 200 and "History" not in page.text


@pytest.mark.asyncio
async def test_repo_names_link_to_their_breakdown_and_to_github(published_db, datasette):
    page = (await datasette.client.get("/agentrank/agents?_view=table")).text
    top = published_db.top_name
    assert f'<a class="agentrank-breakdown" href="/-/agent/{top}">{top}</a>' in page
    assert f'href="https://github.com/{top}"' in page
    scores_page = (await datasette.client.get("/agentrank/scores")).text
    assert 'class="agentrank-breakdown" href="/-/agent/' in scores_page
    query_page = (await datasette.client.get("/agentrank/rank_changes")).text
    assert 'class="agentrank-breakdown" href="/-/agent/' in query_page


@pytest.mark.asyncio
async def test_makers_page_shows_the_breakdown_of_explain(published_db, datasette):
    top = published_db.top_name
    response = await datasette.client.get(f"/-/agent/{top}")
    assert response.status_code == 200
    page = html.unescape(response.text)
    breakdown = load_breakdown(sqlite3.connect(published_db.path), top)
    assert f"AgentRank Score {breakdown['score']:.1f}" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert f"Rank {breakdown['rank']:,} of {breakdown['listed_count']:,} listed" in re.sub(r"<[^>]+>", "", page)
    assert breakdown["category"]["category_name"] in page
    for component in breakdown["components"]:
        assert f'id="{component["component"]}"' in page
        assert f"{component['points']:.2f}" in page
        for advice in component["advice"]:  # the same sentences `agentrank explain` prints
            assert advice in page
    assert page.count("<rect ") == 2 * 24  # the star and fork histograms
    assert "History" in page and page.count('class="agentrank-published"') == 1
    assert "Ask for a correction" in page and "issues/new?title=Correction" in page
    # The name is isolated wherever text follows it, so a right-to-left override in a name cannot
    # reverse the words after it.
    assert f"<title>\u2068{top}\u2069: AgentRank Score breakdown</title>" in page
    assert f"<bdi>{top}</bdi> on GitHub ↗</a>" in page


@pytest.mark.asyncio
async def test_makers_page_says_why_the_category_and_the_close_second(published_db, datasette):
    conn = sqlite3.connect(published_db.path)
    top = published_db.top_name
    category = load_breakdown(conn, top)["category"]
    reason = category["reason"]
    assert reason["text"].startswith("because: ") and reason["because"]
    runner_up_name = conn.execute("select name from categories where id = ?", [reason["runner_up"]]).fetchone()[0]
    close = conn.execute(
        "select runner_up_probability >= min(0.2, probability / 2) from repo_categories c join repos r on r.id = c.repo_id "
        "where r.full_name = ?",
        [top],
    ).fetchone()[0]
    assert reason["text"].endswith(f"; {'close second' if close else 'next likeliest, far behind'}: {runner_up_name}")
    page = html.unescape((await datasette.client.get(f"/-/agent/{top}")).text)
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    assert f"Category: {category['category_name']} — {reason['text']}" in shown
    # Each deciding word or topic is named as the maker wrote it.
    for _kind, text in reason["because"]:
        assert text in page


@pytest.mark.asyncio
async def test_category_review_queue_lists_uncertain_predictions_most_visible_first(published_db, datasette):
    conn = sqlite3.connect(published_db.path)
    # The published run's uncertain categories: what every list, maker's page and the export mark.
    expected = conn.execute("select full_name from agents where category_uncertain = 1").fetchall()
    result = rows(await datasette.client.get("/agentrank/category_review.json?_shape=array"))
    assert expected and sorted(r["full_name"] for r in result) == sorted(n for (n,) in expected)
    ranked = [r["rank"] for r in result if r["rank"] is not None]
    assert ranked == sorted(ranked) and result[: len(ranked)] == [r for r in result if r["rank"] is not None]
    # Rounded down to two decimals: just under the 0.55 threshold never shows as 0.55.
    assert all(r["probability"] < 0.55 and r["reason"].startswith(("because: ", "no single")) for r in result)
    # On the page the topics are the lists' chips, each a search of the ranking, not a JSON array.
    page = (await datasette.client.get("/agentrank/category_review")).text
    with_topics = next(r for r in result if json.loads(r["topics"] or "[]"))
    first = json.loads(with_topics["topics"])[0]
    assert f'<a class="ar-chip" href="/agentrank/agents?_search={quote(first)}">{html.escape(first)}</a>' in page
    assert "[&#34;" not in page and '["' not in page


@pytest.mark.asyncio
async def test_makers_page_json_is_the_same_context(published_db, datasette):
    top = published_db.top_name
    data = rows(await datasette.client.get(f"/-/agent/{top}.json"))
    conn = sqlite3.connect(published_db.path)
    assert data == json.loads(json.dumps(agent_context(conn, top, SETTINGS.source_url)))
    assert [c["component"] for c in data["breakdown"]["components"]] == COMPONENTS
    assert len(data["history"]) == 2 and data["history"][-1]["published"] is True
    stars = data["distributions"]["stars"]
    assert sum(b["count"] for b in stars["bins"]) == stars["listed"] == data["breakdown"]["listed_count"]


@pytest.mark.asyncio
async def test_unknown_repo_is_a_404_page(datasette):
    page = await datasette.client.get("/-/agent/nobody/nothing")
    assert page.status_code == 404 and "Repository not found" in page.text and "nobody/nothing" in page.text
    data = await datasette.client.get("/-/agent/nobody/nothing.json")
    assert data.status_code == 404 and data.json()["ok"] is False
    hostile = await datasette.client.get("/-/agent/%3Cscript%3Ealert(1)%3C%2Fscript%3E/x")
    assert hostile.status_code == 404
    assert "<script>alert(1)" not in hostile.text and "&lt;script&gt;alert(1)" in hostile.text


@pytest.mark.asyncio
async def test_old_name_finds_the_renamed_repo(datasette):
    response = await datasette.client.get(f"/-/agent/{OLD_NAME}")
    assert response.status_code == 200
    assert f"<bdi>{OLD_NAME}</bdi> was renamed: it is now <bdi>{NEW_NAME}</bdi>" in response.text
    data = rows(await datasette.client.get(f"/-/agent/{OLD_NAME}.json"))
    assert data["breakdown"]["repo"]["full_name"] == NEW_NAME and len(data["history"]) == 2


@pytest.mark.asyncio
async def test_hostile_description_is_escaped_everywhere(datasette):
    for path in (
        f"/-/agent/{XSS_NAME}",
        "/agentrank/agents?_search=xss",
        f"/agentrank/my_agents?owner={XSS_NAME.split('/')[0]}",
    ):
        page = (await datasette.client.get(path)).text
        assert "<script>window.__agentrank_xss" not in page and "onerror=" not in page.replace("onerror=&#34;", "")
        if path.startswith("/-/agent/"):
            assert html.escape(XSS_DESCRIPTION, quote=False) in page.replace("&#34;", '"')


@pytest.mark.asyncio
async def test_unlisted_repo_page_says_why(tmp_path, item_factory):
    db = open_store(tmp_path / "u.db")
    path = tmp_path / "items.json"
    items = [item_factory(id=i, seed=i, full_name=f"acme/agent-{i}", name=f"agent-{i}") for i in range(1, 4)]
    items.append(item_factory(id=9, full_name="acme/tiny", name="tiny", stargazers_count=3))
    path.write_text(json.dumps(items), encoding="utf-8")
    importer.import_files(db, [path], min_stars=Config().crawl.min_stars)
    scorer.score(db, as_of="2026-11-30T06:00:00Z")
    db.close()
    ds = build_datasette(tmp_path / "u.db", SETTINGS)
    page = await ds.client.get("/-/agent/acme/tiny")
    assert page.status_code == 200 and "Not in the current ranking" in page.text and "stars" in page.text
    assert (await ds.client.get("/-/agent/acme/tiny.json")).json()["breakdown"]["score"] is None


def test_demo_serves_a_directory_a_newcomer_can_browse(demo_server):
    import httpx

    log = demo_server.log_path.read_text()
    maker_url = re.search(r"a maker's page: (\S+)", log).group(1)
    agents_url = re.search(r"Datasette: (\S+)", log).group(1)
    ranking = httpx.get(agents_url + ".json?_shape=objects&_size=5", timeout=30).json()
    assert [r["rank"] for r in ranking["rows"]] == [1, 2, 3, 4, 5]
    assert set(ranking["facet_results"]) == {"category", "license_spdx", "language", "activity_bucket"}
    word = ranking["rows"][0]["full_name"].split("/")[1].split("-")[0]
    found = httpx.get(agents_url + f".json?_shape=array&_search={word}", timeout=30).json()
    assert ranking["rows"][0]["full_name"] in [r["full_name"] for r in found]
    page = httpx.get(maker_url, timeout=30)
    assert page.status_code == 200 and "How the score breaks down" in page.text
    # The maker's page the demo points at is the one it suggests explaining: last week's biggest riser.
    riser = re.search(r"explain (\S+) --since previous", log).group(1)
    assert maker_url.endswith("/-/agent/" + riser)


@pytest.mark.asyncio
async def test_an_uncertain_category_is_shown_as_uncertain(published_db, datasette):
    conn = sqlite3.connect(published_db.path)
    uncertain = conn.execute("select full_name, category from agents where category_uncertain = 1 limit 1").fetchone()
    certain = conn.execute("select full_name, category from agents where category_uncertain = 0 limit 1").fetchone()
    assert uncertain and certain, "the test population should hold both"
    page = await datasette.client.get("/agentrank/agents?_size=max&_view=table")
    rows = html.unescape(page.text).split("<tr")
    row_of = {name: next(r for r in rows if f'href="/-/agent/{name}"' in r) for name, _ in (uncertain, certain)}
    # The maker's correction is one click away: the mark links to it.
    assert f'{uncertain[1]} <a class="agentrank-uncertain" href="https://' in row_of[uncertain[0]]
    assert "/issues/new?" in row_of[uncertain[0]] and "(uncertain)</a>" in row_of[uncertain[0]]
    assert "(uncertain)" not in row_of[certain[0]]


@pytest.mark.asyncio
async def test_an_uncertain_category_on_the_makers_page_is_one_click_from_a_correction(published_db, datasette):
    conn = sqlite3.connect(published_db.path)
    (uncertain,) = conn.execute("select full_name from agents where category_uncertain = 1 limit 1").fetchone()
    (certain,) = conn.execute("select full_name from agents where category_uncertain = 0 limit 1").fetchone()
    page = (await datasette.client.get(f"/-/agent/{uncertain}")).text
    category = page[page.index('class="agentrank-category"') :].split("</p>", 1)[0]
    assert "(uncertain: the classifier was not confident)" in category
    assert 'class="agentrank-fix-category"' in category and "Ask for a correction" in category
    assert "agentrank-fix-category" not in (await datasette.client.get(f"/-/agent/{certain}")).text
    # Its JSON twin says the same.
    data = (await datasette.client.get(f"/-/agent/{uncertain}.json")).json()
    assert data["breakdown"]["category"]["uncertain"]


@pytest.mark.asyncio
async def test_rank_changes_name_the_part_that_pushed_it_furthest(published_db, datasette):
    # A bucket flip beside many new stars did not move a repo that rose on its stars: what moved it is
    # the part of its score change that pushed it furthest the way it moved, worked out here from the
    # two runs' stored components and the published weights.
    result = rows(await datasette.client.get("/agentrank/rank_changes.json?_shape=array"))
    conn = sqlite3.connect(published_db.path)
    conn.row_factory = sqlite3.Row
    runs = [r for (r,) in conn.execute("select distinct run_id from scores order by run_id")][-2:]
    before, after = (
        {r["full_name"]: r for r in conn.execute("select * from scores where run_id = ?", [run])} for run in runs
    )
    weights = {"popularity": 0.30, "adoption": 0.20, "activity": 0.25, "momentum": 0.15, "openness": 0.10}
    both_flipped = 0
    for r in result:
        was, now = before[r["full_name"]], after[r["full_name"]]
        way = 1 if r["places_up"] > 0 else -1
        part = {
            "activity": way * weights["activity"] * (now["activity"] - was["activity"]),
            "licence": way * weights["openness"] * (now["openness"] - was["openness"]),
            "stars": way * sum(weights[c] * (now[c] - was[c]) for c in ("popularity", "adoption", "momentum")),
        }
        biggest = max(part, key=lambda k: (part[k], k != "stars"))
        if part["activity"] and part["stars"]:
            both_flipped += 1
        if part[biggest] <= 1e-9 or biggest == "stars":
            assert "activity" not in r["moved_by"] and "licence" not in r["moved_by"], (r, part)
        elif biggest == "activity":
            assert r["moved_by"].startswith("its activity bucket"), (r, part)
        else:
            assert r["moved_by"] == "its licence changed", (r, part)
    assert both_flipped, "the fixture has no repo whose bucket and stars both changed"


@pytest.mark.asyncio
async def test_makers_page_counts_one_repository_in_the_singular(tmp_path):
    db = build_published_db(tmp_path / "small.db", n=12, seed=7, weeks=1)
    page = (await build_datasette(db.path, SETTINGS).client.get(f"/-/agent/{db.top_name}")).text
    assert re.search(r": 1 repository</title>", page), "a histogram bin holds one repo"
    assert not re.search(r"\b1 repositories\b", page)
