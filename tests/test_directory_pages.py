"""The directory's own pages through Datasette's in-process client: home, the compact ranking,
category and owner pages, their 404s, and hostile repo text on every one of them.

The database comes from the real pipeline: two weekly runs where the second adds four repos
(one with hostile text: HTML, an RTL override, 10,000 characters) and archives two.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sqlite3

import pytest

from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from classify.categories import CATEGORIES
from db import directory
from tests.publish_helpers import HOSTILE_NEW_NAME, XSS_NAME

SETTINGS = ServeConfig(heap_limit_mb=0, public_url="https://agentrank.example")


@pytest.fixture(scope="module")
def datasette(directory_db):
    return build_datasette(directory_db.path, SETTINGS)


@pytest.fixture(scope="module")
def conn(directory_db):
    connection = sqlite3.connect(directory_db.path)
    yield connection
    connection.close()


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page))).strip()


def section(page: str, css_class: str) -> str:
    start = page.index(f'<section class="{css_class}"')
    return page[start : page.index("</section>", start)]


def names_in(fragment: str) -> list[str]:
    return re.findall(r'class="ar-name agentrank-breakdown" href="/-/agent/([^"]+)"', fragment)


def newly_listed(conn) -> list[str]:
    return [
        name
        for (name,) in conn.execute(
            "select full_name from scores where run_id = (select score_run_id from published) and repo_id not in "
            "(select repo_id from scores where run_id = (select max(id) from runs where kind = 'score' and "
            "id < (select score_run_id from published))) order by rank"
        )
    ]


@pytest.mark.asyncio
async def test_home_is_the_directory(datasette, conn):
    response = await datasette.client.get("/")
    assert response.status_code == 200
    page = response.text
    # A search box over the ranking's full-text index.
    assert re.search(r'<form class="ar-search" action="/agentrank/agents"[^>]*>', page)
    assert 'name="_search"' in page
    # Every category with its name, definition, count and page.
    counts = dict(conn.execute("select category, count(*) from agents group by category"))
    categories = text_of(section(page, "ar-categories"))
    for category in CATEGORIES:
        assert f'href="/-/category/{category.id}"' in page
        assert category.name in categories and category.description in categories
        assert f"{category.name} {counts.get(category.id, 0):,} repo" in categories
    # The top of the ranking, in rank order, with formatted numbers, before anything else.
    top = [name for (name,) in conn.execute("select full_name from agents order by rank limit 25")]
    assert names_in(section(page, "ar-top")) == top
    stars = conn.execute("select stars from agents order by rank limit 1").fetchone()[0]
    assert f"★&nbsp;{stars:,}" in section(page, "ar-top")
    # Risers by stars gained, and exactly the newly listed repos of the latest run.
    risers = names_in(section(page, "ar-risers"))
    assert risers and len(risers) <= 10
    assert len(newly_listed(conn)) == 4 and names_in(section(page, "ar-new")) == newly_listed(conn)
    # Their rows are rows like the others: the likely-rank range under the rank and their topics as chips.
    newly = section(page, "ar-new")
    ranges = {
        n: (b, w)
        for n, b, w in conn.execute("select full_name, rank_best, rank_worst from agents")
        if n in newly_listed(conn)
    }
    for name, (best, worst) in ranges.items():
        if best != worst:
            assert f'title="likely rank {best:,}–{worst:,}' in newly, name
    with_topics = [n for n, t in conn.execute("select full_name, topics from agents") if n in ranges and t != "[]"]
    assert newly.count('class="ar-topics"') == len(with_topics) > 0
    # The ways on: method, leaderboards, SQL, feeds.
    for link in ('href="/-/method"', 'href="/-/leaderboard"', 'href="/agentrank"', 'href="/agentrank/agents"'):
        assert link in page
    assert page.count('rel="alternate" type="application/atom+xml"') == 3
    # Internal tables are not in front.
    assert "snapshots" not in page and "repo_categories" not in page


@pytest.mark.asyncio
async def test_database_page_starts_from_a_real_table(datasette):
    page = (await datasette.client.get("/agentrank")).text
    editor = re.search(r'<textarea id="sql-editor" name="sql">([^<]*)', page).group(1)
    assert "benchmark" not in editor and editor.startswith("select * from ")
    assert 'href="/agentrank/snapshots"' in page  # internal tables stay reachable


@pytest.mark.asyncio
async def test_agents_page_is_one_compact_line_per_repo(datasette, conn):
    page = (await datasette.client.get("/agentrank/agents")).text
    lines = re.findall(r'<li class="ar-line">(.*?)</li>\n', page, re.S)
    assert len(lines) == 50
    first = conn.execute(
        "select a.full_name, a.score, a.stars, a.forks, c.name from agents a join categories c on c.id = a.category "
        "order by rank limit 1"
    ).fetchone()
    assert names_in(lines[0]) == [first[0]]
    shown = text_of(lines[0])
    assert shown.startswith("#1 ")
    assert f"{first[1]:.1f}" in shown and f"★ {first[2]:,}" in shown and f"{first[3]:,} forks" in shown
    assert first[4] in shown  # the category's name, not its id
    assert re.search(r"pushed (today|yesterday|\d+ (days|weeks|months|years) ago)", shown)
    # The full table is one click away, and keeps every column.
    assert 'href="/agentrank/agents?_view=table"' in page
    full = (await datasette.client.get("/agentrank/agents?_view=table")).text
    assert '<table class="rows-and-columns">' in full
    # Choosing columns asks for the table too.
    for chosen in ("_col=score", "_nocol=full_name"):
        page = await datasette.client.get(f"/agentrank/agents?{chosen}")
        assert page.status_code == 200 and '<table class="rows-and-columns">' in page.text


@pytest.mark.asyncio
async def test_agents_json_and_csv_keep_every_column(datasette, conn):
    columns = [row[1] for row in conn.execute("pragma table_info(agents)")]
    data = (await datasette.client.get("/agentrank/agents.json?_shape=objects&_size=3")).json()
    assert list(data["rows"][0]) == columns
    csv_text = (await datasette.client.get("/agentrank/agents.csv?_size=3")).text
    assert next(csv.reader(io.StringIO(csv_text))) == columns


@pytest.mark.asyncio
async def test_facets_show_names_and_buckets_in_order(datasette, conn):
    page = (await datasette.client.get("/agentrank/agents")).text
    facet = page[page.index('data-column="activity_bucket"') :]
    facet = facet[: facet.index("</details>")]
    buckets = re.findall(r">(≤ \d+ days|&gt; 365 days|no push)<", facet)
    order = ["≤ 7 days", "≤ 30 days", "≤ 90 days", "≤ 180 days", "≤ 365 days", "&gt; 365 days", "no push"]
    assert buckets == [b for b in order if b in buckets] and len(buckets) >= 3
    category_facet = page[page.index('data-column="category"') :]
    category_facet = category_facet[: category_facet.index("</details>")]
    assert "Coding agent" in category_facet and ">coding<" not in category_facet


@pytest.mark.asyncio
async def test_a_category_page_ranks_its_repos(datasette, conn, directory_db):
    category = directory_db.category
    response = await datasette.client.get(f"/-/category/{category}")
    assert response.status_code == 200
    name, description = conn.execute("select name, description from categories where id = ?", [category]).fetchone()
    page = response.text
    assert f"<h1>{html.escape(name)}</h1>" in page and html.escape(description) in page
    expected = [r[0] for r in conn.execute("select full_name from agents where category = ? order by rank", [category])]
    assert names_in(section(page, "ar-ranking")) == expected
    assert f'href="/agentrank/agents?category={category}"' in page


@pytest.mark.asyncio
async def test_an_owner_page_lists_every_repo_and_why_not_listed(datasette, conn):
    archived = conn.execute("select owner_login, full_name from repos where unlisted_reason = 'archived'").fetchone()
    response = await datasette.client.get(f"/-/owner/{archived[0]}")
    assert response.status_code == 200
    page = response.text
    assert archived[1] in page and "not listed: it is archived on GitHub" in page
    owned = [r[0] for r in conn.execute("select full_name from repos where owner_login = ?", [archived[0]])]
    assert sorted(names_in(page)) == sorted(owned)
    # A listed repo's line gives its likely rank range, as on the home and category pages.
    best, worst, login = conn.execute(
        "select a.rank_best, a.rank_worst, a.owner from agents a where a.rank_best != a.rank_worst limit 1"
    ).fetchone()
    owner_page = (await datasette.client.get(f"/-/owner/{login}")).text
    assert f'<span class="ar-likely">{best:,}–{worst:,}</span>' in owner_page
    # A maker's page address without the repo is the owner's page.
    redirect = await datasette.client.get(f"/-/agent/{archived[0]}")
    assert redirect.status_code == 302 and redirect.headers["location"] == f"/-/owner/{archived[0]}"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("/-/category/no-such-category", "Category not found"),
        ("/-/owner/nobody-at-all", "Owner not found"),
        ("/-/agent/nobody/nothing", "Repository not found"),
        ("/-/category/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "Category not found"),
        # addresses no page of ours knows: Datasette's error page, worded for a visitor
        ("/no-such-page", "Page not found"),
        ("/-/no-such-page", "Page not found"),
        ("/agentrank/no_such_table", "Page not found"),
    ],
)
async def test_unknown_pages_are_404s_with_a_way_home(datasette, path, title):
    response = await datasette.client.get(path)
    assert response.status_code == 404
    assert title in response.text and 'href="/"' in response.text
    assert "<script>alert(1)" not in response.text


@pytest.mark.asyncio
async def test_hostile_repo_text_is_escaped_on_every_directory_page(datasette, conn):
    hostile_owner = HOSTILE_NEW_NAME.split("/")[0]
    category = conn.execute("select category from agents where full_name = ?", [HOSTILE_NEW_NAME]).fetchone()[0]
    for path in (
        "/",
        "/agentrank/agents?_search=gnp",
        f"/-/category/{category}",
        f"/-/owner/{hostile_owner}",
        f"/-/owner/{XSS_NAME.split('/')[0]}",
        f"/-/agent/{HOSTILE_NEW_NAME}",
    ):
        page = (await datasette.client.get(path)).text
        assert "<script>window.__agentrank_xss" not in page, path
        assert '<b onmouseover="alert(1)">' not in page and '<img src="x"' not in page, path
        if path != "/":
            assert "&lt;b onmouseover=" in page or "&lt;script&gt;window.__agentrank_xss" in page, path


@pytest.mark.asyncio
async def test_makers_page_draws_its_history_and_offers_a_badge(datasette, directory_db, conn):
    top = directory_db.top_name
    page = (await datasette.client.get(f"/-/agent/{top}")).text
    chart = page[page.index('<svg class="history-chart"') : page.index("</svg>", page.index('class="history-chart"'))]
    assert chart.count("<polyline") == 3 and chart.count("<circle") == 6  # score, rank, stars × two runs
    assert "history-method" not in chart  # one method version: no marker
    owner = top.split("/")[0]
    assert f'href="/-/owner/{owner}"' in page
    page_url = f"https://agentrank.example/-/agent/{top}"
    assert html.escape(f"[![AgentRank score and rank]({page_url}/badge.svg)]({page_url})") in page
    assert html.escape(f'<a href="{page_url}"><img src="{page_url}/badge.svg"', quote=False) in page.replace(
        "&#34;", '"'
    )
    # The badge says what the page says: the same one-decimal score.
    score = re.search(r'class="agentrank-score">AgentRank Score <strong>([\d.]+)</strong>', page).group(1)
    badge = (await datasette.client.get(f"/-/agent/{top}/badge.svg")).text
    assert f">{score} · #1 · " in badge


@pytest.mark.asyncio
async def test_history_marks_a_change_of_method(tmp_path, directory_db):
    import shutil

    copy = tmp_path / "agentrank.db"
    shutil.copy(directory_db.path, copy)
    with sqlite3.connect(copy) as db:
        db.execute("update scores set method_version = '0' where run_id = (select min(run_id) from scores)")
    page = (await build_datasette(copy, SETTINGS).client.get(f"/-/agent/{directory_db.top_name}")).text
    assert page.count('class="history-method"') == 1 and "method version 0 → 1" in page


@pytest.mark.asyncio
async def test_badges_and_shields_endpoint(datasette, conn):
    name, score, rank, category = conn.execute(
        "select a.full_name, s.score, a.rank, c.name from agents a join scores s on s.repo_id = a.repo_id "
        "and s.run_id = a.score_run_id join categories c on c.id = a.category order by a.rank desc limit 1"
    ).fetchone()
    svg = await datasette.client.get(f"/-/agent/{name}/badge.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.headers["cache-control"] == "public, max-age=86400"
    assert f"{score:.1f} · #{rank:,} · {html.escape(category)}" in svg.text
    shields = await datasette.client.get(f"/-/agent/{name}/shields.json")
    assert shields.json() == {
        "schemaVersion": 1,
        "label": "AgentRank",
        "message": f"{score:.1f} · #{rank:,}",
        "color": next(
            c
            for low, c in [(80, "brightgreen"), (60, "green"), (40, "yellow"), (20, "orange"), (0, "red")]
            if score >= low
        ),
    }
    for path in ("/-/agent/nobody/nothing/badge.svg", "/-/agent/%3Cscript%3E/x/badge.svg"):
        unknown = await datasette.client.get(path)
        assert unknown.status_code == 404 and "not listed" in unknown.text and "#9f9f9f" in unknown.text
        assert "<script>" not in unknown.text
    # shields.io shows an endpoint's JSON only from a 200 (a 404 reads "resource not found").
    missing = await datasette.client.get("/-/agent/nobody/nothing/shields.json")
    assert missing.status_code == 200
    assert missing.json() == {"schemaVersion": 1, "label": "AgentRank", "message": "not listed", "color": "lightgrey"}
    # Archived since: known, but not in the ranking.
    archived = conn.execute("select full_name from repos where unlisted_reason = 'archived' limit 1").fetchone()[0]
    grey = await datasette.client.get(f"/-/agent/{archived}/shields.json")
    assert grey.status_code == 200 and grey.json()["color"] == "lightgrey"


def test_badge_widths_come_from_glyph_metrics():
    from datasette_plugins.badge_font import text_width, widths
    from datasette_plugins.badges import badge_svg

    table = widths()
    assert table["0"] == pytest.approx(7.0, abs=0.01)  # DejaVu Sans digits: 0.636 em at 11 px
    assert text_width("iiii") < text_width("1111") < text_width("MMMM")  # per glyph, not per class
    # "AgentRank" at 11 px is some 60 px of text (shields.io's Verdana: 60.4 px), plus 5 px each side.
    assert round(text_width("AgentRank")) in range(58, 63)
    svg = badge_svg("AgentRank", "87.3 · #12", "#4c1")
    width = int(re.search(r'<svg[^>]* width="(\d+)"', svg).group(1))
    assert width == round(text_width("AgentRank")) + 10 + round(text_width("87.3 · #12")) + 10


@pytest.mark.asyncio
async def test_the_makers_page_offers_the_shields_endpoint_snippet(datasette, directory_db):
    from urllib.parse import quote

    name = directory_db.top_name
    page = (await datasette.client.get(f"/-/agent/{name}")).text
    endpoint = quote(f"https://agentrank.example/-/agent/{name}/shields.json", safe="")
    assert f"https://img.shields.io/endpoint?url={endpoint}" in html.unescape(page)


@pytest.mark.asyncio
async def test_leaderboard_page_shows_both_tiers_and_links_directory_agents(datasette, directory_db):
    response = await datasette.client.get("/-/leaderboard")
    assert response.status_code == 200
    page = response.text
    for tier in ("verified", "community"):
        assert f'<section class="ar-tier" id="{tier}">' in page
    assert "Run by the site itself" in page and "self-reported" in page
    verified = section(page, 'ar-tier" id="verified')
    top = directory_db.top_name
    assert f'<a class="agentrank-breakdown" href="/-/agent/{top}">{top}</a>' in verified
    assert "Closed Agent X" in verified and 'href="/-/agent/Closed' not in page
    # Its .json twin: the same boards, as data.
    assert 'href="/-/leaderboard.json"' in page
    data = (await datasette.client.get("/-/leaderboard.json")).json()
    assert set(data["tiers"]) == {"verified", "community"}
    names = [e["agent"] for boards in data["tiers"]["verified"].values() for e in boards]
    assert top in names and "Closed Agent X" in names


@pytest.mark.asyncio
async def test_canned_queries_open_on_their_results(datasette, directory_db):
    for name in ("top_agents", "rank_changes", "recompute", "verified_leaderboard"):
        page = (await datasette.client.get(f"/agentrank/{name}")).text
        assert '<textarea id="sql-editor"' not in page, name
        assert "_show_sql=1" in page, name  # the SQL is one click away
    board = (await datasette.client.get("/agentrank/verified_leaderboard")).text
    assert f'href="/-/agent/{directory_db.top_name}"' in board
    # Counts read with thousands separators in tables and queries; JSON keeps the numbers.
    stars = sqlite3.connect(directory_db.path).execute("select stars from agents order by rank limit 1").fetchone()[0]
    query = (await datasette.client.get("/agentrank/top_agents")).text
    assert f">{stars:,}<" in query
    data = (await datasette.client.get("/agentrank/top_agents.json?_shape=array")).json()
    assert isinstance(data[0]["stars"], int)
    # A rank or a count past 999 in a query reads "1,061" too (ids do not).
    figures = (
        await datasette.client.get("/agentrank.json?_shape=array&sql=select+1061+as+rank,+1061+as+repo_id")
    ).json()
    assert figures == [{"rank": 1061, "repo_id": 1061}]
    shown = (await datasette.client.get("/agentrank?sql=select+1061+as+rank,+1061+as+repo_id")).text
    assert ">1,061<" in shown and ">1061<" in shown


def _reweight(conn, **weights) -> list[tuple]:
    from datasette_plugins.metadata import REWEIGHT_SQL

    names = ("popularity", "adoption", "activity", "momentum", "openness")
    return conn.execute(REWEIGHT_SQL, {f"w_{n}": str(weights.get(n, "")) for n in names}).fetchall()


def test_reweight_with_the_published_weights_gives_the_published_ranking(conn):
    rows = _reweight(conn)
    assert rows and all(
        rank == published_rank and score == published for _, score, rank, published_rank, _, published in rows
    )
    # Percent that do not add up to 100 are normalised: doubling every weight changes nothing.
    doubled = _reweight(conn, popularity=60, adoption=40, activity=50, momentum=30, openness=20)
    assert [r[2] for r in doubled] == [r[3] for r in doubled]


def test_reweight_ranks_by_the_chosen_components_only(conn):
    rows = _reweight(conn, popularity=100, adoption=0, activity=0, momentum=0, openness=0)
    by_stars = [
        name
        for (name,) in conn.execute(
            "select full_name from scores where run_id = (select score_run_id from published) "
            "order by popularity desc, stars desc, full_name limit 5"
        )
    ]
    assert [r[0] for r in rows[:5]] == by_stars
    assert any(r[4] != 0 for r in rows)  # places_up: someone moved
    assert all(r[1] is None for r in _reweight(conn, popularity=0, adoption=0, activity=0, momentum=0, openness=0))


@pytest.mark.asyncio
async def test_method_page_states_the_method_from_the_code(datasette):
    from scoring.score import ACTIVITY_BUCKETS, WEIGHTS

    response = await datasette.client.get("/-/method")
    assert response.status_code == 200
    page = text_of(response.text)
    assert "score = " + " + ".join(f"{w:.2f}·{n}" for n, w in WEIGHTS.items()) in page
    for name, weight in WEIGHTS.items():
        assert f"{name} {weight * 100:g} %" in page
    for bound, points in ACTIVITY_BUCKETS:
        assert f"{bound:g} days ago {points:g}" in page
    for category in CATEGORIES:
        assert category.name in page and category.description in page
    for flag in ("uncertain", "NOASSERTION", "reward-hacking", "infra-error"):
        assert flag in page
    assert 'action="/-/weights"' in response.text and 'name="momentum" value="15"' in response.text
    assert 'href="/agentrank/recompute"' in response.text
    reweighted = await datasette.client.get("/agentrank/reweight.json?_shape=array&w_popularity=1&w_adoption=0")
    assert reweighted.status_code == 200 and reweighted.json()[0]["rank"] == 1


def test_the_top_repo_is_told_it_is_not_first_on_every_measure(conn, directory_db):
    from db.breakdown import load_breakdown

    breakdown = load_breakdown(conn, directory_db.top_name)
    popularity = next(c for c in breakdown["components"] if c["component"] == "popularity")
    assert breakdown["rank"] == 1 and popularity["percentile"] < 100
    room = 100 - popularity["percentile"]
    assert popularity["advice"][0] == (
        f"ranked #1 overall, yet not first on stars: more stars can put it ahead of the remaining {room:.1f} % "
        f"of the other listed repos (up to +{0.3 * room:.2f} points on popularity)"
    )
    # Whom to pass on stars is still worth knowing: it is what raises popularity.
    assert any("more stars to pass" in a for a in popularity["advice"][1:])


def test_history_chart_keeps_small_changes_small():
    from datasette_plugins.charts import history_chart

    runs = [
        {"run_id": 1, "as_of": "2026-11-23T06:00:00Z", "score": 80.0, "rank": 12, "stars": 1000, "method_version": "1"},
        {"run_id": 2, "as_of": "2026-11-30T06:00:00Z", "score": 80.01, "rank": 2, "stars": 1001, "method_version": "2"},
    ]
    chart = history_chart(runs)
    score, rank, stars = ({s["key"]: s["dots"] for s in chart["series"]}[key] for key in ("score", "rank", "stars"))
    assert abs(score[0]["y"] - score[1]["y"]) < 1 and abs(stars[0]["y"] - stars[1]["y"]) < 1
    assert rank[1]["y"] < rank[0]["y"] - 20  # ten places up is a clear rise (rank 1 at the top)
    assert [m["title"] for m in chart["markers"]] == ["method version 1 → 2"]
    assert history_chart(runs[:1]) is None


def test_history_chart_spaces_runs_by_time_and_labels_dates():
    """Runs a week apart sit seven times as far apart as runs a day apart; the axis says dates."""
    import re

    from datasette_plugins.charts import history_chart

    days = ["2026-11-02", "2026-11-09", "2026-11-10", "2026-11-30"]
    runs = [
        {"run_id": i, "as_of": f"{d}T06:00:00Z", "score": 50.0 + i, "rank": 10 - i, "stars": 92_000 + 1000 * i}
        | {"method_version": "1"}
        for i, d in enumerate(days)
    ]
    chart = history_chart(runs)
    xs = [dot["x"] for dot in {s["key"]: s for s in chart["series"]}["stars"]["dots"]]
    week, day = xs[1] - xs[0], xs[2] - xs[1]
    assert abs(week / day - 7) < 0.1, xs
    assert abs((xs[3] - xs[0]) / week - 4) < 0.05, xs
    labels = [t["label"] for t in chart["ticks"]]
    assert labels[0] == "2026-11-02" and labels[-1] == "2026-11-30"
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", label) for label in labels)
    stars_axis = [t["label"] for t in {s["key"]: s for s in chart["series"]}["stars"]["y_axis"]]
    assert stars_axis == ["95,000", "92,000"]  # 92k → 95k is the whole height of its panel, not flat


def test_an_unlisted_reason_reads_in_plain_words():
    from db.listing import reason_in_words, unlisted_reason

    reason = unlisted_reason(matched=True, stars=153, fork=False, archived=False, min_stars=200)
    assert reason == "below min_stars (153 < 200)"  # stored short and stable
    assert reason_in_words(reason) == "it has 153 stars, fewer than the 200 a repository needs to be listed"
    assert reason_in_words("excluded by correction: a prompt list").startswith("a maintainer's correction excludes it")
    assert reason_in_words("fork").startswith("it is a fork") and reason_in_words(None) is None
    assert reason_in_words("something new") == "something new"


@pytest.mark.asyncio
async def test_the_table_columns_are_named_as_the_export_and_facets_are_not_doubled(datasette):
    data = (await datasette.client.get("/agentrank/agents.json?_facet=license_spdx&_size=1&_shape=objects")).json()
    assert {"license_spdx", "pushed_at", "category_name"} <= set(data["rows"][0])
    assert "license_spdx" in data["facet_results"]
    doubled = (await datasette.client.get("/agentrank/agents.json?_facet=category&_facet=language&_size=1")).json()
    assert "category" in doubled["facet_results"] and "category_2" not in doubled["facet_results"]
    assert "language_2" not in doubled["facet_results"]
    page = await datasette.client.get("/agentrank/agents?_facet=category")
    assert page.status_code == 200 and "category_2" not in page.text
    # A facet repeated (stars 600 times made a 143 MB answer: a query and a full-URL link per value
    # per copy) is one facet, and a request adds at most 5 of its own.
    repeated = "&".join(["_facet=stars"] * 600 + ["_facet=forks"] * 3)
    data = (await datasette.client.get(f"/agentrank/agents.json?{repeated}&_size=0")).json()
    assert {"stars", "forks"} <= set(data["facet_results"]) and "stars_2" not in data["facet_results"]
    many = "&".join(f"_facet={c}" for c in ("stars", "forks", "rank", "score", "full_name", "description", "topics"))
    data = (await datasette.client.get(f"/agentrank/agents.json?{many}&_size=0")).json()
    assert {"stars", "forks", "rank", "score", "full_name"} <= set(data["facet_results"])
    assert not {"description", "topics"} & set(data["facet_results"])


@pytest.mark.asyncio
async def test_the_makers_page_says_who_passed_it_and_why(datasette, conn):
    run, previous = conn.execute(
        "select score_run_id, (select max(id) from runs where kind = 'score' and status = 'ok' and id < score_run_id) "
        "from published"
    ).fetchone()
    # The repo that fell furthest, and how many passed it: below it before, above it now.
    name, before, after = conn.execute(
        "select c.full_name, p.rank, c.rank from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ? "
        "where c.run_id = ? order by c.rank - p.rank desc limit 1",
        [previous, run],
    ).fetchone()
    (count,) = conn.execute(
        "select count(*) from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ? "
        "where c.run_id = ? and p.rank > ? and c.rank < ?",
        [previous, run, before, after],
    ).fetchone()
    assert after > before and count > 0
    page = (await datasette.client.get(f"/-/agent/{name}")).text
    change = text_of(section(page, "agentrank-change"))
    assert f"rank {before:,} → {after:,}" in change
    assert re.search(r"It (fell|moved down) [\d,]+ places?", change), change
    assert f"Who passed it ({count:,})" in change
    items = re.findall(r"<li><a href=\"/-/agent/[^\"]+\">[^<]+</a> #[\d,]+ → #[\d,]+:(.*?)</li>", page, re.S)
    assert items and all(
        re.search(r"stars?|forks?|activity bucket changed|other repos' changes|licence", html.unescape(i))
        for i in items
    ), items
    data = (await datasette.client.get(f"/-/agent/{name}.json")).json()
    assert data["passings"]["passed_it_count"] == count and data["passings"]["own"]["kind"] in ("news", "noise")


@pytest.mark.asyncio
async def test_your_own_weights_page_renders_the_shared_ranking(datasette, conn):
    """A shared link (?popularity=100&…) shows the list ranked by those weights before any script runs."""
    only_stars = "popularity=100&adoption=0&activity=0&momentum=0&openness=0"
    page = (await datasette.client.get(f"/-/weights?{only_stars}")).text
    shown = re.findall(r'class="ar-weights-name" href="/-/agent/([^"]+)"', page)
    expected = [
        n for (n,) in conn.execute("select full_name from agents order by popularity desc, stars desc, full_name")
    ]
    assert shown == expected[: len(shown)] and len(shown) == min(100, len(expected))
    assert (
        'id="w-popularity" name="popularity" data-weight="popularity" min="0" max="100" step="any" value="100"' in page
    )
    assert "select " not in text_of(page).lower()
    json_data = re.search(r'<script type="application/json" id="ar-weights-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in json_data  # no repository text can close the script element
    published = (await datasette.client.get("/-/weights")).text
    assert "= published #1" in published
    # At the published weights every repo shows its published score (the components were read rounded
    # to one decimal, and their sum missed the published score by 0.1 for about one repo in twenty).
    rows = re.findall(r'href="/-/agent/([^"]+)">[^<]*</a>\s*<span class="ar-weights-score">([^<]+)</span>', published)
    scores = {n: f"{s:.1f}" for n, s in conn.execute("select full_name, score from agents")}
    assert len(rows) == min(100, len(scores))
    assert [(n, scores[n]) for n, _ in rows] == rows


@pytest.mark.asyncio
async def test_your_own_weights_says_what_it_made_of_weights_it_cannot_use(datasette):
    """Every weight at 0 gave every repo 0.0, still "ranked"; 1e308 and -5 were taken silently."""
    published = (await datasette.client.get("/-/weights")).text
    order = re.findall(r'class="ar-weights-name" href="/-/agent/([^"]+)"', published)
    assert 'id="ar-weights-note" role="status" hidden' in published  # nothing to say
    zeros = (await datasette.client.get("/-/weights?popularity=0&adoption=0&activity=0&momentum=0&openness=0")).text
    assert re.findall(r'class="ar-weights-name" href="/-/agent/([^"]+)"', zeros) == order
    assert "Every weight is 0, which ranks nothing: the published weights are used." in text_of(zeros)
    odd = text_of((await datasette.client.get("/-/weights?popularity=1e308&adoption=-5&activity=abc")).text)
    assert "Popularity: 1e+308 is outside 0–100, so 100 % is used" in odd
    assert "adoption: -5 is outside 0–100, so 0 % is used" in odd
    assert "activity: 'abc' is not a number, so the published 25 % is used." in odd


@pytest.mark.asyncio
async def test_canned_queries_are_titled_in_words(datasette, conn):
    for query in ("top_agents", "rank_changes", "recompute"):
        page = (await datasette.client.get(f"/agentrank/{query}")).text
        title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
        assert "select" not in title.lower() and "AgentRank" in title, title
    listing = (await datasette.client.get("/agentrank/agents?category=coding&_sort_desc=stars_delta_7d")).text
    title = re.search(r"<title>(.*?)</title>", listing, re.S).group(1)
    assert "sorted by stars gained in 7 days, most first" in title
    head = text_of(re.search(r'<p class="ar-count">(.*?)</p>', listing, re.S).group(1))
    (coding,) = conn.execute("select count(*) from agents where category = 'coding'").fetchone()
    assert head == f"{coding:,} repositories in Coding agent, sorted by stars gained in 7 days, most first", head


@pytest.mark.asyncio
async def test_history_image_to_embed(datasette, directory_db):
    from xml.etree import ElementTree as ET

    response = await datasette.client.get(f"/-/agent/{directory_db.top_name}/history.svg")
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    svg = ET.fromstring(response.text)
    texts = ["".join(t.itertext()) for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert directory_db.top_name in texts
    dates = [t for t in texts if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t)]
    assert len(dates) >= 2 and dates == sorted(dates)
    missing = await datasette.client.get("/-/agent/nobody/nothing/history.svg")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("image/svg+xml")


def test_who_passed_whom_is_counted_and_listed_as_sql_would(conn):
    """The page counts with arrays kept per pair of runs; an independent count in SQL agrees for
    every repo of the run, and the nearest five are those SQL orders first."""
    run, previous = conn.execute(
        "select score_run_id, (select max(id) from runs where kind = 'score' and status = 'ok' and id < score_run_id) "
        "from published"
    ).fetchone()
    pairs = directory.rank_pairs(conn, run, previous)
    rows = conn.execute(
        "select c.repo_id, p.rank, c.rank from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ? "
        "where c.run_id = ?",
        [previous, run],
    ).fetchall()
    assert len(rows) == len(pairs["repo_id"]) > 0
    for repo_id, before, after in rows[::3]:
        found = directory.passed(conn, repo_id, run, previous, pairs=pairs)
        assert found == directory.passed(conn, repo_id, run, previous)
        for key, where, order in (
            ("passed_it", "p.rank > ? and c.rank < ?", "c.rank desc"),
            ("it_passed", "p.rank < ? and c.rank > ?", "c.rank"),
        ):
            expected = [
                r[0]
                for r in conn.execute(
                    f"select c.repo_id from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ? "
                    f"where c.run_id = ? and {where} order by {order}",
                    [previous, run, before, after],
                )
            ]
            assert found[key + "_count"] == len(expected)
            assert [r["repo_id"] for r in found[key]] == expected[:5]


@pytest.mark.asyncio
async def test_a_search_for_a_quote_mark_shows_the_ranking_unsearched(datasette):
    # Datasette escapes it into an empty FTS5 query, which SQLite refuses ("Invalid SQL" page).
    plain = await datasette.client.get("/agentrank/agents.json?_shape=array&_size=5")
    for query in ("%22", "%22%22", "%20%22%20"):
        searched = await datasette.client.get(f"/agentrank/agents.json?_shape=array&_size=5&_search={query}")
        assert searched.status_code == 200 and searched.json() == plain.json(), query
        page = await datasette.client.get(f"/agentrank/agents?_search={query}")
        assert page.status_code == 200 and "Invalid SQL" not in page.text
    # A real search still searches; raw mode is the visitor's own FTS syntax.
    some = await datasette.client.get("/agentrank/agents.json?_shape=array&_search=agent%20%22")
    assert some.status_code == 200 and some.json() != plain.json()
    raw = await datasette.client.get("/agentrank/agents?_search=%22&_searchmode=raw")
    assert raw.status_code == 400


@pytest.mark.asyncio
async def test_an_uncertain_category_on_a_list_links_to_the_makers_correction(datasette, conn):
    name, category = conn.execute(
        "select full_name, category from agents where category_uncertain = 1 order by rank limit 1"
    ).fetchone()
    page = html.unescape((await datasette.client.get(f"/-/category/{category}?page=1")).text)
    line = next(part for part in page.split('<li class="ar-line') if f'href="/-/agent/{name}"' in part)
    assert '<a class="agentrank-uncertain" href="https://' in line and "(uncertain)</a>" in line
    from urllib.parse import parse_qs, urlencode, urlsplit

    from classify.categories import CATEGORY_IDS, CATEGORY_NAMES

    assert urlencode({"title": f"Correction: {name}"}) in line
    # The request names the category shown and that it was marked uncertain, and which ids a
    # correction can name (it named only the repo: the maintainer had to look the rest up).
    wanted = f"Category shown: {CATEGORY_NAMES[category]} (`{category}`), marked uncertain"
    for where, text in (("list", line), ("maker's page", (await datasette.client.get(f"/-/agent/{name}")).text)):
        link = re.search(r'class="agentrank-(?:uncertain|fix-category)" href="([^"]+)"', html.unescape(text)).group(1)
        body = parse_qs(urlsplit(link).query)["body"][0]
        assert wanted in body and ", ".join(CATEGORY_IDS) in body, (where, body)


@pytest.mark.asyncio
async def test_a_right_to_left_name_is_isolated_in_titles_and_tooltips(tmp_path, run_cli, db_path):
    """A right-to-left override in a repo's name reversed the text after it (the star count among it) in
    the compare page's title, the chart tooltips and the history SVG's title."""
    from urllib.parse import quote

    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from tests.conftest import make_item, write_json

    rtl = "rtl/\u202etxt.exe"
    items = [make_item(id=8001, full_name=rtl), make_item(id=8002, full_name="plain/agent", seed=2)]
    for day in ("2026-11-23", "2026-11-30"):
        run_cli("import", "--observed-at", f"{day}T06:00:00Z", str(write_json(tmp_path / f"{day}.json", items)))
        run_cli("score")
    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    isolated = "\u2068" + rtl + "\u2069"
    page = (await datasette.client.get(f"/-/compare?repo={quote(rtl)}&repo=plain/agent")).text
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert isolated in title
    tooltips = re.findall(r"<circle[^>]*>\s*<title>([^<]*)</title>", page)
    assert tooltips and all(isolated in t for t in tooltips if rtl in t)
    svg = (await datasette.client.get(f"/-/agent/{quote(rtl)}/history.svg")).text
    assert f"<title>{isolated}: stars over time</title>" in svg


@pytest.mark.asyncio
async def test_a_figure_on_a_half_shows_the_same_on_every_page(tmp_path, run_cli, db_path):
    """17 repos: percentiles are multiples of 6.25, so the 10th by forks has adoption 56.25. The tables
    (SQLite's round) showed 56.3, the maker's page, compare and `explain` 56.2 (Python rounds that half
    to even): one figure, halves up, everywhere."""
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from tests.conftest import make_item, write_json

    items = [make_item(id=8100 + i, full_name=f"half/r{i}", forks_count=10 + i, seed=i + 1) for i in range(17)]
    run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "items.json", items)))
    run_cli("score")
    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    table = (await datasette.client.get("/agentrank/agents.json?_shape=array&full_name=half/r9")).json()
    assert table[0]["adoption"] == 56.3
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (await datasette.client.get("/-/agent/half/r9")).text))
    assert "ahead of 56.3 % of the other listed repos" in page and "56.2" not in page
    compare = (await datasette.client.get("/-/compare?repo=half/r9")).text
    assert "56.3 of 100" in compare
    assert "ahead of 56.3 % of the other listed repos" in run_cli("explain", "half/r9").output


@pytest.mark.asyncio
async def test_the_only_listed_repo_is_not_ahead_of_anyone(tmp_path, run_cli, db_path):
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from tests.conftest import make_item, write_json

    run_cli(
        "import",
        "--observed-at",
        "2026-11-30T06:00:00Z",
        str(write_json(tmp_path / "i.json", [make_item(id=8301, full_name="solo/one")])),
    )
    run_cli("score")
    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    page = text_of((await datasette.client.get("/-/agent/solo/one")).text)
    # Percentiles are 100 by the method's rule with one repo; the page says so instead of "ahead of 100 %"
    # of nobody, and shows no chart of where it sits among the 0 others.
    assert "ahead of" not in page and "of the 0 other" not in page
    assert page.count("the only listed repo: 100 by the method's rule") == 3


@pytest.mark.asyncio
async def test_an_uncertain_category_is_marked_wherever_a_category_is_shown(datasette, conn):
    """The lists and the maker's page marked an uncertain category; the compare page, the badge, the
    weights page and the maker-facing canned queries showed it as if it were certain."""
    uncertain = conn.execute(
        "select full_name, owner from agents where category_uncertain = 1 order by rank limit 1"
    ).fetchone()
    certain = conn.execute("select full_name from agents where category_uncertain = 0 order by rank limit 1").fetchone()
    assert uncertain and certain, "the directory database has both kinds"
    name, owner = uncertain
    badge = (await datasette.client.get(f"/-/agent/{name}/badge.svg")).text
    assert "(uncertain)" in badge
    assert "(uncertain)" not in (await datasette.client.get(f"/-/agent/{certain[0]}/badge.svg")).text
    page = (await datasette.client.get(f"/-/compare?repo={name}&repo={certain[0]}")).text
    assert page.count('class="agentrank-uncertain"') == 1
    mine = (await datasette.client.get(f"/agentrank/my_agents.json?_shape=array&owner={owner}")).json()
    assert [r["category_uncertain"] for r in mine if r["full_name"] == name] == [1]
    top = (await datasette.client.get("/agentrank/top_agents.json?_shape=array&per_category=1000")).json()
    assert [r["category_uncertain"] for r in top if r["full_name"] == name] == [1]
    weights = (await datasette.client.get("/-/weights")).text
    data = re.search(r'<script type="application/json" id="ar-weights-data">(.*?)</script>', weights, re.S).group(1)
    assert "(uncertain)" in html.unescape(data)


# Fifteenth pass: the pages in plain words.


def inline_text(page: str) -> str:
    """The text as a reader sees it, inline elements (an isolate, a link) adding no space."""
    return text_of(re.sub(r"</?(?:bdi|a|abbr|span|strong)\b[^>]*>", "", page))


def _copy_of(directory_db, folder) -> str:
    """A copy of the directory database a test may change (the shared one stays as it is)."""
    path = str(folder / "agentrank.db")
    with sqlite3.connect(directory_db.path) as source, sqlite3.connect(path) as target:
        source.backup(target)
    return path


@pytest.mark.asyncio
async def test_a_rank_range_of_one_rank_reads_as_that_rank(directory_db, tmp_path):
    """A repo whose best and worst likely rank are equal read "likely 2–2" on the compare page, "likely
    rank 2–2" on every list's hover and "2–2" in the full table: it is one rank."""
    path = _copy_of(directory_db, tmp_path)
    with sqlite3.connect(path) as edit:
        name, repo_id, run_id = edit.execute(
            "select full_name, repo_id, score_run_id from agents where rank = 2"
        ).fetchone()
        edit.execute("update agents set rank_best = rank, rank_worst = rank, likely_rank = '2–2' where rank = 2")
        edit.execute(
            "update scores set rank_best = 2, rank_worst = 2 where repo_id = ? and run_id = ?", [repo_id, run_id]
        )
        # another repo keeps a real range, which still reads as one
        best, worst = edit.execute("select rank_best, rank_worst from agents where rank_best < rank_worst").fetchone()
    datasette = build_datasette(path, SETTINGS)
    one_rank = re.compile(r"(?<![\d,])2–2(?![\d,])")
    compare = text_of((await datasette.client.get(f"/-/compare?repo={name}")).text)
    assert "#2 (likely exactly 2)" in compare and not one_rank.search(compare)
    listing = (await datasette.client.get("/agentrank/agents")).text
    assert (
        "title=\"likely rank 2: small changes to the weights and a normal week's stars and forks keep it there 9 "
        in (html.unescape(listing))
    )
    assert not one_rank.search(listing) and f'title="likely rank {best:,}–{worst:,}: ' in listing
    home = (await datasette.client.get("/")).text
    assert not one_rank.search(home) and "likely rank 2:" in html.unescape(home)
    table = (await datasette.client.get("/agentrank/agents?_view=table&_size=5")).text
    cells = [text_of(c) for c in re.findall(r'<td class="col-likely_rank[^"]*">(.*?)</td>', table, re.S)]
    assert cells[1] == "2" and cells[0] and all(not re.fullmatch(r"([\d,]+)–\1", c) for c in cells), cells
    # The data keeps its stored form: an API client still reads "best–worst".
    data = (await datasette.client.get("/agentrank/agents.json?_shape=array&rank=2")).json()
    assert data[0]["likely_rank"] == "2–2"


@pytest.mark.asyncio
async def test_what_would_move_it_says_what_a_pass_gains_in_plain_words(datasette, conn):
    """ "+0.08 percentile, +0.02 points": a maker could not tell what the first figure was."""
    name = conn.execute("select full_name from agents where rank = 5").fetchone()[0]
    page = text_of((await datasette.client.get(f"/-/agent/{name}")).text)
    advice = re.findall(r"more stars to pass [^)]*\(([^)]*)\)", page)
    assert advice, page[:2000]
    for gain in advice:
        assert re.fullmatch(r"ahead of [\d.]+ % more of the other listed repos, \+[\d.]+ points", gain), gain
    assert not re.search(r"\+[\d.]+ percentile", page)


def test_the_classifier_says_its_rules_in_words():
    from classify.features import RULES

    for text, *_ in RULES.values():
        assert not re.search(r"\brules? \d", text), text


@pytest.mark.asyncio
async def test_a_reason_stored_citing_a_rule_number_says_the_rule_in_words(directory_db, tmp_path):
    """A reason stored as "calls itself a coding agent (rule 2)" (a taxonomy rule's number, explained
    nowhere on the site) reads in words on the maker's page, compare, `explain` and the review queue."""
    from db.breakdown import load_breakdown

    path = _copy_of(directory_db, tmp_path)
    hostile = "<b>x</b>"
    with sqlite3.connect(path) as edit:
        name, repo_id, category = edit.execute(
            "select full_name, repo_id, category from agents where category_uncertain = 1 order by rank limit 1"
        ).fetchone()
        reason = {
            "text": f"because: '{hostile}', calls itself a coding agent (rule 2), a list of links, tutorials or "
            "examples (rule 9); close second: Research agent",
            "because": [["word", hostile], ["rule", "calls itself a coding agent (rule 2)"]],
            "runner_up": "research",
        }
        changed = edit.execute(
            "update repo_categories set reason = ? where repo_id = ? and category = ? and source = 'model'",
            [json.dumps(reason), repo_id, category],
        ).rowcount
        assert changed == 1
    datasette = build_datasette(path, SETTINGS)
    words = "calls itself a coding agent, a list of links, tutorials or examples (a resource, whatever its subject)"
    maker = (await datasette.client.get(f"/-/agent/{name}")).text
    assert words in text_of(maker) and "rule 2" not in maker and "rule 9" not in maker
    assert "&lt;b&gt;x&lt;/b&gt;" in maker and hostile not in maker
    queue = (await datasette.client.get("/agentrank/category_review")).text
    assert words in text_of(queue) and "(rule " not in text_of(queue) and hostile not in queue
    with sqlite3.connect(path) as read:
        breakdown = load_breakdown(read, name)
    assert words in breakdown["category"]["reason"]["text"]
    assert ["rule", "calls itself a coding agent"] in breakdown["category"]["reason"]["because"]


@pytest.mark.asyncio
async def test_compare_says_which_names_past_its_limit_it_left_out(datasette, conn):
    """A fifth repo asked for was dropped without a word."""
    from urllib.parse import quote

    from datasette_plugins.pages import COMPARE_MOST

    names = [n for (n,) in conn.execute("select full_name from agents order by rank limit ?", [COMPARE_MOST + 1])]
    hostile = "<script>x</script>/y"
    query = "&".join(f"repo={quote(n)}" for n in [*names, hostile])
    page = (await datasette.client.get(f"/-/compare?{query}")).text
    assert len(re.findall(r'<th scope="col">', page)) == COMPARE_MOST
    note = inline_text(page[page.index('class="agentrank-note ar-left-out">') :].split("</p>")[0])
    assert note.endswith(
        f"Compare shows up to four repositories at a time: {names[-1]}, {hostile} were left out. To compare one "
        "of them, type it in place of a name above."
    ), note
    assert "&lt;script&gt;x&lt;/script&gt;/y" in page and "<script>x</script>" not in page
    # Exactly the limit: nothing is left out, nothing said.
    page = (await datasette.client.get("/-/compare?" + "&".join(f"repo={quote(n)}" for n in names[:COMPARE_MOST]))).text
    assert "left out" not in page
    # Very many: the first few are named, the rest counted.
    from datasette_plugins.pages import LEFT_OUT_NAMED

    many = [*names, *(f"nobody/n{i}" for i in range(LEFT_OUT_NAMED + 3))]
    page = text_of((await datasette.client.get("/-/compare?" + "&".join(f"repo={quote(n)}" for n in many))).text)
    assert "and 4 more names were left out." in page


@pytest.mark.asyncio
async def test_the_review_queue_names_categories_and_says_what_its_rows_are(datasette, conn):
    """The queue showed category ids ("infrastructure") where every page shows names ("Tools &
    infrastructure"), under Datasette's "Custom SQL query returning 12 rows"."""
    names = dict(conn.execute("select id, name from categories"))
    page = (await datasette.client.get("/agentrank/category_review")).text
    rows = (await datasette.client.get("/agentrank/category_review.json?_shape=array")).json()
    assert rows
    for row in rows:
        assert row["category"] == names.get(row["category_id"], "not classified yet"), row
        assert row["runner_up"] is None or row["runner_up"] == names[row["runner_up_id"]], row
    heading = inline_text(re.search(r'<h2 class="ar-query-rows">(.*?)</h2>', page, re.S).group(1))
    count = len(rows)
    assert heading == f"{count} {'repository' if count == 1 else 'repositories'} to review (show the SQL)"
    assert "Custom SQL query" not in page
    first = html.escape(names[rows[0]["category_id"]])
    assert f'<td class="col-category">{first}</td>' in page
    # A visitor's own SQL is still called that.
    own = (await datasette.client.get("/agentrank?sql=select+1+as+one")).text
    assert "Custom SQL query returning 1 row" in own


# Eighteenth pass: the pages in plain words, again.


def _headings(page: str) -> list[str]:
    return [text_of(h) for h in re.findall(r'<th class="col-[^"]*" scope="col"[^>]*>(.*?)</th>', page, re.S)]


def _column(page: str, column: str) -> list[str]:
    return [text_of(c) for c in re.findall(rf'<td class="col-{column}">(.*?)</td>', page, re.S)]


@pytest.mark.asyncio
async def test_the_review_queue_heads_its_columns_in_words_and_reads_its_probabilities_as_percentages(datasette):
    """The queue was headed `runner_up_probability`, `category_id` and read "0.36": SQL names and a
    statistician's decimals. Its page says what each column is and gives percentages; the JSON keeps
    the names and the numbers an API consumer reads."""
    page = (await datasette.client.get("/agentrank/category_review")).text
    rows = (await datasette.client.get("/agentrank/category_review.json?_shape=array")).json()
    assert rows and "runner_up_probability" in rows[0] and 0 < rows[0]["probability"] < 1
    headings = _headings(page)
    assert headings[:8] == [
        "Rank",
        "Repository",
        "Stars",
        "Category it chose",
        "How sure the classifier was",
        "Next likeliest category",
        "How likely the next one was",
        "Why it chose it",
    ]
    assert not any("_" in h for h in headings), headings
    # The SQL name is still one hover away, for whoever reads the JSON.
    assert 'title="runner_up_probability in the JSON and CSV"' in page
    assert _column(page, "probability") == [f"{round(r['probability'] * 100)} %" for r in rows]
    assert _column(page, "runner_up_probability") == [
        "" if r["runner_up_probability"] is None else f"{round(r['runner_up_probability'] * 100)} %" for r in rows
    ]


@pytest.mark.asyncio
async def test_the_recompute_page_reads_as_the_site_and_goes_on_past_the_servers_row_limit(directory_db):
    """The recompute page showed every double ("97.94520547945206") under SQL names, and stopped at the
    server's limit (1,000 rows, of a ranking of 30,000) with no way to see the rest."""
    from scoring.score import half_up, shown

    datasette = build_datasette(directory_db.path, ServeConfig(heap_limit_mb=0, max_returned_rows=50))
    page = (await datasette.client.get("/agentrank/recompute")).text
    data = (await datasette.client.get("/agentrank/recompute.json?_shape=objects&_size=max")).json()
    headings = _headings(page)
    assert {"Rank, recomputed", "Rank, as stored", "Score, recomputed", "Score, as stored", "Popularity"} <= set(
        headings
    )
    assert "Difference (recomputed − stored)" in headings and not any("_" in h for h in headings), headings
    # Every digit in the JSON, one decimal on the page (halves up, as the ranking shows the score).
    first = data["rows"][0]
    assert first["score"] != round(first["score"], 1)
    assert _column(page, "score")[0] == f"{shown(first['score']):.1f}" == _column(page, "stored_score")[0]
    assert _column(page, "popularity")[0] == f"{half_up(first['popularity'], 1):.1f}"
    assert set(_column(page, "difference")) == {"0"}
    assert not re.search(r">\d+\.\d{4,}<", page)
    # The page says where it stops and links to the rows after it, whose ranks follow on.
    assert data["truncated"]
    shown_ranks = [int(r) for r in _column(page, "rank")]
    note = inline_text(re.search(r'<p class="ar-query-truncated">(.*?)</p>', page, re.S).group(1))
    assert (
        note == f"The page stops at these {len(shown_ranks)} rows, the most the server returns at once: the next ones →"
    )
    following = html.unescape(re.search(r'<p class="ar-query-truncated">.*?href="([^"]+)"', page, re.S).group(1))
    assert following == f"/agentrank/recompute?from_rank={shown_ranks[-1] + 1}"
    after = (await datasette.client.get(following)).text
    assert int(_column(after, "rank")[0]) == shown_ranks[-1] + 1
    # The one-row check and its heading.
    summary = (await datasette.client.get("/agentrank/recompute_summary")).text
    assert _headings(summary) == ["Repositories", "Largest difference (recomputed − stored score)", "Ranks that differ"]
    assert _column(summary, "max_abs_difference") == ["0"]


@pytest.mark.asyncio
async def test_an_exclusion_reason_cannot_reorder_the_sentence_it_is_quoted_in(directory_db, tmp_path):
    """A maintainer's exclusion reason (free text from the corrections file) was put into "Not in the
    current ranking: … excludes it: REASON." as is: a right-to-left override in it reversed the rest of
    the sentence. It is escaped and isolated on the maker's page, the owner's list and the left feed."""
    from xml.etree import ElementTree as ET

    path = _copy_of(directory_db, tmp_path)
    hostile = "spam \u202e<b>x</b> & gnirts"
    with sqlite3.connect(path) as edit:
        name = edit.execute("select full_name from repos where unlisted_reason = 'archived' order by id").fetchone()[0]
        edit.execute(
            "update repos set unlisted_reason = ? where full_name = ?", ["excluded by correction: " + hostile, name]
        )
    datasette = build_datasette(path, SETTINGS)
    escaped = html.escape(hostile)
    maker = (await datasette.client.get(f"/-/agent/{name}")).text
    assert f"Not in the current ranking: a maintainer&#39;s correction excludes it: <bdi>{escaped}</bdi>." in maker
    assert "<b>x</b>" not in maker
    owner = (await datasette.client.get(f"/-/owner/{name.split('/')[0]}")).text
    assert f"not listed: a maintainer&#39;s correction excludes it: <bdi>{escaped}</bdi>" in owner
    feed = ET.fromstring((await datasette.client.get("/-/feeds/left.atom")).content)
    titles = [e.text for e in feed.iter("{http://www.w3.org/2005/Atom}title")]
    assert any(t.endswith(f"a maintainer's correction excludes it: \u2068{hostile}\u2069") for t in titles), titles


def test_explain_says_where_a_component_stands_as_the_makers_page_does(tmp_path, run_cli):
    """`explain` put "percentile 99.7" in each component's line, where the maker's page (and explain's
    own advice) says "ahead of 99.7 % of the other listed repos"; a lone repo was "at the 100th
    percentile"."""
    from tests.conftest import make_item, write_json

    items = [make_item(id=8400 + i, full_name=f"words/r{i}", forks_count=10 + i, seed=i + 1) for i in range(5)]
    run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "items.json", items)))
    run_cli("score")
    output = run_cli("explain", "words/r4").output
    lines = [line for line in output.splitlines() if line.startswith(("popularity ", "adoption ", "momentum "))]
    assert len(lines) == 3 and all("(ahead of " in line and "% of the other listed repos; " in line for line in lines)
    assert "(ahead of 100.0 % of the other listed repos; forks 14)" in output
    assert "percentile" not in output


def test_explain_says_a_lone_repo_has_no_one_to_pass(tmp_path, run_cli, db_path):
    from tests.conftest import make_item, write_json

    item = make_item(id=8501, full_name="solo/alone")
    run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "i.json", [item])))
    run_cli("score")
    output = run_cli("explain", "solo/alone").output
    assert output.count("(the only listed repo: 100 by the method's rule; ") == 3
    assert output.count("no other listed repo to pass") == 3 and "percentile" not in output


@pytest.mark.asyncio
async def test_every_canned_query_heads_each_column_and_labels_each_field_in_words(datasette, directory_db):
    """A guard: every canned query, the directory's and the ledger's, has words for each column it returns
    and each field of its form, so a query added without them fails here rather than showing `total_cost_usd`
    or `run_id` to a visitor (the fallback only turns underscores into spaces)."""
    queries = datasette.metadata("queries", database="agentrank")
    assert {"recompute", "top_agents", "verified_leaderboard", "aifolder_scorecard"} <= set(queries)
    for name, query in queries.items():
        data = (await datasette.client.get(f"/agentrank/{name}.json?_shape=objects")).json()
        assert data.get("ok", True) and data["columns"], (name, data)
        headings = query.get("headings") or {}
        for column in data["columns"]:
            words = headings.get(column)
            assert words and "_" not in words and words != column, (name, column, words)
        page = (await datasette.client.get(f"/agentrank/{name}")).text
        fields = re.findall(r'<label for="(qp\d+)"[^>]*>(.*?)</label> <input type="text" id="\1" name="([^"]+)"', page)
        labels = query.get("parameter_labels") or {}
        assert {f[2] for f in fields} == set(re.findall(r"(?<![:\w]):(\w+)", query["sql"])), name
        for _, shown, parameter in fields:
            assert labels.get(parameter) and html.unescape(shown) == labels[parameter], (name, parameter, shown)
            assert "_" not in labels[parameter], (name, parameter)
    # The recompute page's fields, named as its links name them (?run_id=, ?from_rank=).
    page = (await datasette.client.get("/agentrank/recompute")).text
    assert '<label for="qp1" title="run_id in the URL">Score run id (empty: the published run)</label>' in page
    assert '<input type="text" id="qp1" name="run_id" value="">' in page
    assert '<label for="qp2" title="from_rank in the URL">Start at rank (empty: 1)</label>' in page
    assert '<input type="text" id="qp2" name="from_rank" value="">' in page


@pytest.mark.asyncio
async def test_the_directory_queries_date_their_instants_as_the_makers_page_does(datasette):
    """The recompute page's "Scored as of (UTC)" and the top agents' "Last push (UTC)" read
    "2026-11-30T06:00:00Z". They read as the maker's page dates ("30 Nov 2026"), with the hour and
    minute and "UTC", the instant in a <time> element; the JSON keeps the instant."""
    from scoring.explain import when

    instant = re.compile(r'<time datetime="([^"]+)">(\d{1,2} [A-Z][a-z]{2} \d{4}), (\d\d:\d\d) UTC</time>')
    for name, column, heading in (("recompute", "as_of", "Scored as of"), ("top_agents", "pushed_at", "Last push")):
        page = (await datasette.client.get(f"/agentrank/{name}")).text
        rows = (await datasette.client.get(f"/agentrank/{name}.json?_shape=array")).json()
        cells = re.findall(rf'<td class="col-{column}">(.*?)</td>', page, re.S)
        assert cells and len(cells) == len(rows), name
        for cell, row in zip(cells, rows, strict=True):
            found = instant.fullmatch(cell)
            assert found, (name, cell)
            # the maker's page's date, and the instant's hour and minute
            assert found.groups() == (row[column], when(row[column]), row[column][11:16]), (name, cell)
        assert heading in _headings(page) and not any("(UTC)" in h for h in _headings(page)), name


@pytest.mark.asyncio
async def test_the_rank_changes_page_dates_its_runs_as_the_makers_page_does(datasette):
    """The rank changes page's "Run before" and "Run now" read "2026-11-23" while every other page
    says "23 Nov 2026". They read as the maker's page dates, the day in a <time> element; the JSON
    keeps the day as the SQL gives it."""
    from scoring.explain import when

    page = (await datasette.client.get("/agentrank/rank_changes")).text
    rows = (await datasette.client.get("/agentrank/rank_changes.json?_shape=array")).json()
    assert rows
    for column in ("previous_run_day", "run_day"):
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", r[column]) for r in rows)
        cells = re.findall(rf'<td class="col-{column}">(.*?)</td>', page, re.S)
        assert cells == [f'<time datetime="{r[column]}">{when(r[column])}</time>' for r in rows], column
        assert all(re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}", text_of(c)) for c in cells), cells[:2]


@pytest.mark.asyncio
async def test_the_reweight_page_goes_on_past_the_servers_row_limit_with_your_weights(directory_db):
    """The reweight query stopped at the server's limit (1,000 rows, of a ranking of 30,000) with no way
    to see the rest. Like recompute, it takes from_rank, labelled in words, and its page links to the
    rows after the last one shown, with the visitor's weights kept."""
    datasette = build_datasette(directory_db.path, ServeConfig(heap_limit_mb=0, max_returned_rows=20))
    weights = "w_popularity=100&w_adoption=0&w_activity=0&w_momentum=0&w_openness=0"
    page = (await datasette.client.get(f"/agentrank/reweight?{weights}")).text
    assert '<label for="qp6" title="from_rank in the URL">Start at rank (empty: 1)</label>' in page
    shown_ranks = [int(r) for r in _column(page, "rank")]
    assert shown_ranks == list(range(1, 21))
    note = inline_text(re.search(r'<p class="ar-query-truncated">(.*?)</p>', page, re.S).group(1))
    assert note == "The page stops at these 20 rows, the most the server returns at once: the next ones →"
    following = html.unescape(re.search(r'<p class="ar-query-truncated">.*?href="([^"]+)"', page, re.S).group(1))
    assert following == f"/agentrank/reweight?{weights}&from_rank=21"
    after = (await datasette.client.get(following)).text
    # The ranking with the same weights goes on: ranks 21 on, the repos the whole ranking puts there.
    conn = sqlite3.connect(directory_db.path)
    whole = _reweight(conn, popularity=100, adoption=0, activity=0, momentum=0, openness=0)
    after_ranks = [int(r) for r in _column(after, "rank")]
    assert after_ranks[0] == 21 and after_ranks == sorted(after_ranks)
    assert _column(after, "full_name") == [r[0] for r in whole[20 : 20 + len(after_ranks)]]
    assert 'name="w_popularity" value="100"' in after
