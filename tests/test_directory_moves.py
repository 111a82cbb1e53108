"""Changes that mean something: a move driven by the repo's own stars and forks is news, one driven by
its activity bucket or the other repos' changes is noise, and the words say which; only star
growth makes a riser."""

from __future__ import annotations

import re
import sqlite3
from xml.etree import ElementTree as ET

import numpy as np
import pytest

from scoring import movement

A = "{http://www.w3.org/2005/Atom}"


def _row(**values) -> dict:
    """A score row whose percentiles are what its stars, forks and stars per day get among the
    population of ``_population`` (the other repos do not change between the two runs)."""
    base = {
        "rank": 300,
        "stars": 1_000,
        "forks": 50,
        "stars_per_day": 2.0,
        "popularity": 50.0,
        "adoption": 50.0,
        "activity": 60.0,
        "momentum": 50.0,
        "openness": 100.0,
        "score": 55.0,
        "license_spdx": "MIT",
        "days_since_push": 45.0,
        "as_of": "2026-11-23T06:00:00Z",
    }
    row = base | values
    population = _population()
    for component, column in movement.PERCENTILE_INPUTS.items():
        row[component] = movement._percentile_without(population[column], 1_000_000.0, float(row[column]))
    return row


def _population() -> dict[str, np.ndarray]:
    # 1,000 other repos spread evenly, plus the repo itself (1,000 stars, 50 forks, 2.0 a day).
    others = {"stars": np.linspace(10, 100_000, 1000), "forks": np.linspace(1, 5_000, 1000)}
    others["stars_per_day"] = np.linspace(0.01, 200, 1000)
    return movement.sorted_population(
        {k: np.append(v, {"stars": 1_000, "forks": 50, "stars_per_day": 2.0}[k]) for k, v in others.items()}
    )


def test_a_bucket_flip_alone_is_noise_and_never_a_rise():
    """The issue's case: 234 places up on +6 stars because the activity bucket went 60 → 100."""
    before = _row()
    after = _row(rank=66, stars=1_006, activity=100.0, score=65.0, days_since_push=2.0, as_of="2026-11-30T06:00:00Z")
    move = movement.classify(before, after, _population())
    assert move["kind"] == "noise" and move["why"] == "activity" and move["places_up"] == 234
    assert move["reason"] == "its activity bucket changed (last push ≤ 90 days → ≤ 7 days); its own: +6 stars this week"
    title = movement.title("someone/thing", move, 66)
    assert "rose" not in title and "riser" not in title
    assert title.startswith("someone/thing moved up 234 places to #66, not on its own stars or forks: its activity")
    # With no star at all, it is said just as plainly.
    still = movement.classify(before, after | {"stars": 1_000}, _population())
    assert still["kind"] == "noise" and "no new stars or forks this week" in still["reason"]


def test_a_rise_on_its_own_stars_is_news_in_words():
    before = _row()
    after = _row(rank=120, stars=4_100, forks=90, score=66.0)
    after |= {"stars_per_day": 8.0, "as_of": "2026-11-30T06:00:00Z"}
    move = movement.classify(before, after, _population())
    assert move["kind"] == "news" and move["why"] == "stars"
    assert move["reason"] == "+3,100 stars and +40 forks this week"
    assert movement.title("a/b", move, 120) == "a/b rose 180 places to #120: +3,100 stars and +40 forks this week"


def test_others_changes_and_a_licence_say_so():
    before = _row()
    moved = {k: v - 0.5 for k, v in _population().items()}  # everyone else grew a little
    fell = movement.classify(before, _row(rank=310, score=54.7), moved)
    assert fell["kind"] == "noise" and fell["why"] == "others"
    assert fell["reason"].startswith("the other repos' changes moved it")
    licensed = movement.classify(
        _row(openness=0.0, license_spdx=None, score=45.0), _row(rank=250, score=55.0), _population()
    )
    assert licensed["kind"] == "news" and licensed["reason"] == "it gained an OSI-approved licence (none → MIT)"


def _latest_runs(conn: sqlite3.Connection) -> tuple[int, int]:
    return conn.execute(
        "select score_run_id, (select max(id) from runs where kind = 'score' and status = 'ok' and id < score_run_id) "
        "from published"
    ).fetchone()


def test_on_the_demo_the_movers_feed_explains_and_never_calls_noise_a_rise(demo_folder):
    from datasette_plugins.feeds import atom_document, feed_entries
    from datasette_plugins.pages import home_context

    conn = sqlite3.connect(f"file:{demo_folder.db}?mode=ro", uri=True)
    run, _ = _latest_runs(conn)
    entries = [e for e in feed_entries(conn, "movers") if e["run_id"] == run]
    assert entries
    news = [e for e in entries if e["kind"] == "news"]
    noise = [e for e in entries if e["kind"] == "noise"]
    assert news and noise
    assert news == entries[: len(news)]  # the news first
    assert all(abs(e["places_up"]) >= 3 for e in entries)  # a place or two is no move worth an entry
    for e in news:
        assert re.search(
            r" (rose|fell) [\d,]+ places? to #[\d,]+: ([+−][\d,]+ (stars?|forks?)|it (gained|lost))", e["title"]
        )
    for e in noise:
        assert " rose " not in e["title"] and ", not on its own stars or forks: " in e["title"], e["title"]
    # Every repo whose move in the latest run came from its activity bucket is noise in the feed.
    bucket_moves = [e for e in entries if e["why"] == "activity"]
    assert bucket_moves, "the demo has bucket flips among its biggest moves"
    assert all("its activity bucket changed (last push " in e["title"] for e in bucket_moves)
    # The feed as Atom: each entry is categorised news or noise.
    root = ET.fromstring(atom_document("movers", entries, "https://example.org", "2026-12-01T00:00:00Z"))
    terms = [e.find(f"{A}category").get("term") for e in root.iter(f"{A}entry")]
    assert terms == [e["kind"] for e in entries]

    # Rising is star growth only: a repo whose rank rose on its bucket is on the list only with its
    # real star gain, never for its rank.
    for days in (7, 28):
        risers = home_context(conn, days)["risers"]
        assert risers and all(r["gained"] > 0 for r in risers)
        gains = [r["gained"] for r in risers]
        assert gains == sorted(gains, reverse=True)
    week = {r["full_name"]: r["gained"] for r in home_context(conn, 7)["risers"]}
    for e in bucket_moves:
        if e["full_name"] in week:
            assert week[e["full_name"]] == e["stars_gained"]


@pytest.mark.parametrize("days", [7, 28])
def test_rising_counts_from_the_period_start(demo_folder, days):
    from db import directory

    conn = sqlite3.connect(f"file:{demo_folder.db}?mode=ro", uri=True)
    (as_of,) = conn.execute("select as_of from runs where id = (select score_run_id from published)").fetchone()
    start = directory.rising_start(conn, days)
    assert start is not None and start < as_of
    gap = (np.datetime64(as_of[:19]) - np.datetime64(start[:19])) / np.timedelta64(1, "D")
    assert gap <= days + 1


def test_a_fall_its_own_score_did_not_make_is_the_others_and_a_slower_pace_says_so():
    before = _row()
    # Its shown score is the same (55.0 → 55.0): others rose past it, whatever its +205 stars did.
    after = _row(rank=314, stars=1_205, forks=57, score=55.0) | {
        "stars_per_day": 1.999,
        "as_of": "2026-11-30T06:00:00Z",
    }
    passed = movement.classify(before, after, _population())
    assert passed["kind"] == "noise" and passed["why"] == "others"
    assert passed["reason"].startswith("the other repos' changes moved it; its own: +205 stars and +7 forks")
    # Its own pace fell (stars per day of age 2.0 → 0.2): a fall on its own stars, said as such.
    slower = _row(rank=400, stars=1_005, score=54.9) | {"stars_per_day": 0.2, "as_of": "2026-11-30T06:00:00Z"}
    slower["momentum"] = movement._percentile_without(_population()["stars_per_day"], 2.0, 0.2)
    fell = movement.classify(before, slower, _population())
    assert fell["kind"] == "news" and fell["why"] == "stars"
    assert fell["reason"] == "+5 stars this week, fewer a day than before (its stars per day of age fell)"


@pytest.mark.asyncio
async def test_repos_joining_above_are_no_places_lost(tmp_path, run_cli, db_path):
    """Five newcomers rank above the last repo: its rank number drops five, but nobody passed it and it
    passed nobody. It is no mover in the feed, and its page says why its number changed."""
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from tests.conftest import make_item, write_json

    def items(week: int, extra: int) -> list[dict]:
        common = [
            make_item(
                id=7000 + i,
                full_name=f"steady/r{i}",
                stargazers_count=2_000 + 500 * i,
                forks_count=100 + i,
                created_at="2025-01-01T00:00:00Z",
                pushed_at="2026-11-20T00:00:00Z",
            )
            for i in range(10)
        ]
        low = make_item(
            id=7100,
            full_name="low/z",
            stargazers_count=300 + week,
            forks_count=5,
            created_at="2025-01-01T00:00:00Z",
            pushed_at="2026-11-20T00:00:00Z",
        )
        new = [
            make_item(
                id=7200 + i,
                full_name=f"fresh/n{i}",
                stargazers_count=9_000 + i,
                forks_count=900,
                created_at="2026-10-01T00:00:00Z",
                pushed_at="2026-11-28T00:00:00Z",
            )
            for i in range(extra)
        ]
        return [*common, low, *new]

    for week, (day, extra) in enumerate((("2026-11-23", 0), ("2026-11-30", 5))):
        saved = write_json(tmp_path / f"{day}.json", items(week, extra))
        run_cli("import", "--observed-at", f"{day}T06:00:00Z", str(saved))
        run_cli("score")
    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    feed = (await datasette.client.get("/-/feeds/movers.atom")).text
    assert "low/z" not in feed
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", (await datasette.client.get("/-/agent/low/z")).text))
    assert "rank 11 → 16" in page
    assert "It kept its place among the repos ranked both times." in page
    assert "5 repos joined the list above it: that moved its rank number without anyone passing it." in page
    assert "on its own" not in page


@pytest.mark.asyncio
async def test_the_movers_page_says_who_moved_and_why_in_words(demo_folder):
    """The home page's "biggest movers" is a page for people (it was the Atom feed's XML): the same
    moves as the feed, their own doing first, each repo linked to its page."""
    from html import unescape

    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from datasette_plugins.feeds import feed_entries

    datasette = build_datasette(demo_folder.db, ServeConfig(heap_limit_mb=0))
    home = unescape((await datasette.client.get("/")).text)
    assert '<a href="/-/movers">The week\'s biggest movers</a>' in home, "the home page links the page"
    page = await datasette.client.get("/-/movers")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    text = unescape(page.text)
    conn = sqlite3.connect(f"file:{demo_folder.db}?mode=ro", uri=True)
    run, _ = _latest_runs(conn)
    entries = [e for e in feed_entries(conn, "movers") if e["run_id"] == run]
    news_at, others_at = text.index("Moved by their own stars, forks or licence"), text.index("Moved by a push")
    assert news_at < others_at
    where = [text.index(f"/-/agent/{e['full_name']}") for e in entries]
    assert where == sorted(where), "in the feed's order, biggest first within each kind"
    for e, at in zip(entries, where, strict=True):
        assert (at < others_at) == (e["kind"] == "news"), e["full_name"]
        line = text[at : text.index("</li>", at)]
        way = "up" if e["places_up"] > 0 else "down"
        assert f"{way} {abs(e['places_up']):,} place" in line and e["reason"] in line, line
        assert f"#{e['before']['rank']:,} → #{e['after']['rank']:,}" in line
        # "up 37 places, #553 → #557" read as a contradiction: places counted among the repos ranked
        # both times say so whenever the rank number moved otherwise.
        words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", line))
        qualified = re.search(r"places? among the repositories ranked both times", words) is not None
        assert qualified == (e["before"]["rank"] - e["after"]["rank"] != e["places_up"]), line


@pytest.mark.asyncio
async def test_the_movers_page_with_one_run_says_there_is_nothing_to_compare(tmp_path):
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from tests.publish_helpers import build_published_db

    db = build_published_db(tmp_path / "one-week.db", n=30, seed=5, weeks=1)
    page = await build_datasette(db.path, ServeConfig(heap_limit_mb=0)).client.get("/-/movers")
    assert page.status_code == 200 and "movers need two weekly runs" in page.text
