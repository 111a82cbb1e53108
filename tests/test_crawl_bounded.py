"""A crawl ends whatever the server says: a search whose total_count does not shrink when it is
narrowed (a proxy or a GitHub fault ignoring stars:/created:, a count stuck at one number) is split
no further, each part is read to the cap, and the crawl ends incomplete in a bounded number of
requests; crawl.max_query_parts bounds the parts of one query; an honest population still crawls
complete. Against the emulator and real SQLite."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agentrank.crawl import NOT_NARROWED, PARTS_SPENT
from crawler import emulator as faults
from crawler.client import RateLimitStop
from crawler.clock import FakeClock
from crawler.emulator.population import generate_population, pile_on_stars
from crawler.search import CAP, MAX_PAGE
from crawler.settings import CrawlConfig
from db.store import open_store
from tests.crawl_helpers import (
    REFERENCE,
    crawl_config,
    emulated,
    expected_listed,
    listed_ids,
    matches,
    population,
    run_crawl,
)
from tests.publish_helpers import agentrank_command

TOPIC = "ai-agents"
ROOT_Q = f"topic:{TOPIC} stars:>=200 archived:false"
ROOT = Path(__file__).resolve().parent.parent
# A search request past this many answers 400: the crawl before the guard never ended against
# these servers (still splitting after 3,000 requests, thousands of parts planned), and a test of
# it must fail rather than hang.
TRIPWIRE = 1500


@pytest.fixture(scope="module")
def repos():
    """The emulator's default population (8,000 repos, seed 2026): topic:ai-agents holds some 1,170
    repos with 200 stars or more and 2,300 in all, so its search is split past the cap."""
    return population(8000, seed=2026)


def one_topic(**crawl):
    config = crawl_config(topics=[TOPIC], keywords=[])
    for key, value in crawl.items():
        setattr(config.crawl, key, value)
    return config


def lying(emulator, **fault):
    """The tripwire, then a search that ignores stars: and created: on every request."""
    emulator.inject(faults.error_status(400, "tripwire: the crawl did not end", after=TRIPWIRE, times=None))
    return emulator.inject(faults.ignore_narrowing(times=None, **fault))


def parts(db, run_id=1):
    rows = db.query("select * from crawl_parts where run_id = ? order by id", [run_id])
    return [{**row, "flags": json.loads(row["flags"])} for row in rows]


def guard_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("crawl: query ")]


def test_agentrank_crawl_against_a_search_that_ignores_narrowing_ends_incomplete_in_bounded_requests(tmp_path, repos):
    """Every narrower search reports the whole query's total and results. The crawl split it through
    every star value and then every second since 2007, never ending; now the second part that
    reports the whole stops the splitting: each part is read to the cap, the query and the crawl
    are incomplete (nothing delisted), one line says why, and the command exits 0 as any
    incomplete crawl does."""
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[github]\nmin_interval_s = 0\n\n[crawl]\ntopics = ["{TOPIC}"]\nkeywords = []\n')
    db_path = tmp_path / "agentrank.db"
    with emulated(repos) as emulator:
        lying(emulator)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("GITHUB_TOKEN", None)
        done = subprocess.run(
            [*agentrank_command(db_path, "--config", str(config)), "crawl", "--api-url", emulator.url],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        log = emulator.search_requests()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("crawl run 1 (incomplete, so nothing was delisted)")
    assert done.stderr.splitlines() == [
        f"WARNING crawl: query topic:{TOPIC}: {NOT_NARROWED}; the crawl is incomplete, so nothing was delisted"
    ]
    # The root, its first part (split before its siblings showed the fault), the parts after it read
    # to the cap and the first part's parts, read to the cap: 42 requests here.
    assert all(r.status == 200 for r in log) and len(log) <= 60
    db = open_store(db_path)
    rows = parts(db)
    assert len(rows) <= 10 and all(r["pages"] <= MAX_PAGE for r in rows)
    root = rows[0]
    assert root["q"] == ROOT_Q and root["state"] == "split" and root["incomplete"] == 1
    assert NOT_NARROWED in root["flags"]
    stopped = [r for r in rows if r["state"] != "split"]
    assert stopped and all(r["incomplete"] == 1 and r["total_count"] > CAP for r in stopped)
    for row in stopped:
        [flag] = row["flags"]
        assert flag.startswith("two parts of ") and f"only the first {CAP:,} of its" in flag
    run = db["runs"].get(1)
    assert run["status"] == "ok" and json.loads(run["details"])["complete"] is False
    assert db.execute("select count(*) from repos").fetchone()[0] == CAP  # the same 1,000, kept once


@pytest.mark.parametrize(
    ("fault", "most", "reason"),
    [
        # Honest results, a total inflated to the whole query's: the parts come up short of their
        # totals, so each empty page is asked for twice more (126 requests here).
        ({"total_only": True}, 200, "two parts of "),
        # Every answer also incomplete_results: no total can be held against its parts (it may be
        # short), so the chain of totals that never shrink stops it (483 requests here).
        ({"incomplete": True}, 600, "its total has not shrunk through 3 splits"),
    ],
    ids=["inflated-total", "incomplete-too"],
)
def test_counts_that_never_shrink_end_the_crawl_incomplete_in_bounded_requests(db, repos, caplog, fault, most, reason):
    with emulated(repos, clock=FakeClock()) as emulator:
        lying(emulator, **fault)
        result = run_crawl(db, emulator, one_topic())
        log = emulator.search_requests()
    assert not result.complete and result.delisted == 0
    assert all(r.status == 200 for r in log) and len(log) <= most
    rows = parts(db)
    assert NOT_NARROWED in rows[0]["flags"] and rows[0]["incomplete"] == 1
    assert any(flag.startswith(reason) for r in rows for flag in r["flags"])
    assert guard_lines(caplog) == [
        f"crawl: query topic:{TOPIC}: {NOT_NARROWED}; the crawl is incomplete, so nothing was delisted"
    ]


def test_crawl_max_query_parts_bounds_the_parts_of_one_query(db, caplog):
    """A query that needs 16 parts, allowed 6: its splitting stops there, the parts still over the
    cap are read to it, and the crawl is incomplete. No server can make one query more work than
    max_query_parts parts of at most 10 pages."""
    repos = pile_on_stars(generate_population(5000, seed=11, reference=REFERENCE), stars=250, count=1100, topic=TOPIC)
    with emulated(repos, clock=FakeClock()) as emulator:
        result = run_crawl(db, emulator, one_topic(max_query_parts=6))
    rows = parts(db)
    assert len(rows) <= 6 and not result.complete
    assert PARTS_SPENT in rows[0]["flags"] and rows[0]["incomplete"] == 1
    stopped = [r for r in rows if any("more would pass crawl.max_query_parts (6)" in f for f in r["flags"])]
    assert stopped and all(r["incomplete"] == 1 and r["pages"] == MAX_PAGE for r in stopped)
    assert guard_lines(caplog) == [
        f"crawl: query topic:{TOPIC}: {PARTS_SPENT}; the crawl is incomplete, so nothing was delisted"
    ]


def test_a_root_the_budget_will_not_split_is_read_to_the_cap_and_says_so(db, repos):
    with emulated(repos, clock=FakeClock()) as emulator:
        result = run_crawl(db, emulator, one_topic(max_query_parts=2))
    [root] = parts(db)
    assert root["state"] == "done" and root["incomplete"] == 1 and root["pages"] == MAX_PAGE
    assert PARTS_SPENT in root["flags"] and any("more would pass crawl.max_query_parts (2)" in f for f in root["flags"])
    assert not result.complete and result.found == CAP


def test_an_honest_population_that_needs_splitting_crawls_complete_without_a_false_alarm(db, repos, caplog):
    """The default population, every configured query, and results that slip past the filters as
    GitHub's sometimes do (a fork, an archived repo, one under 200 stars: in every star range of its
    query, so the parts of a split add up to more than the whole): complete, nothing flagged, and
    far under crawl.max_query_parts."""
    config = crawl_config()
    matching = [r for r in repos if matches(r, config)]
    under = [r.id for r in matching if r.stars < config.crawl.min_stars and not (r.fork or r.archived)]
    leaky = {r.id for r in matching if r.fork or r.archived} | set(under[::10])
    with emulated(repos, clock=FakeClock(), leaky_ids=leaky) as emulator:
        assert len(emulator.expected(ROOT_Q)) > CAP
        result = run_crawl(db, emulator, config)
    assert result.complete
    assert listed_ids(db) == expected_listed(repos, config)
    rows = parts(db)
    assert any(r["state"] == "split" for r in rows)
    assert not [r for r in rows if r["incomplete"] or r["flags"]]
    assert guard_lines(caplog) == []
    # More than the parts sum to (the leaks counted in every part), and no alarm for it.
    split = next(r for r in rows if r["state"] == "split")
    assert sum(r["total_count"] for r in rows if r["parent_id"] == split["id"]) > split["total_count"]
    per_query = db.execute("select max(n) from (select count(*) n from crawl_parts group by query_index)")
    assert per_query.fetchone()[0] * 100 <= CrawlConfig().max_query_parts


def test_a_crawl_stopped_after_the_guard_fired_resumes_to_the_end_an_unstopped_one_reaches(tmp_path, repos):
    """Stopped (a rate limit hours away) while a part the guard would not split is read: the resumed
    crawl picks up at that page and ends where an uninterrupted one does, decisions included."""
    config = one_topic()
    reference, stopped = open_store(tmp_path / "reference.db"), open_store(tmp_path / "stopped.db")
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.error_status(400, "tripwire: the crawl did not end", after=TRIPWIRE, times=None))
        limit = emulator.inject(faults.primary_limit(reset_in=3 * 3600, after=15))
        emulator.inject(faults.ignore_narrowing(times=None))
        with pytest.raises(RateLimitStop):
            run_crawl(stopped, emulator, config)
        first = len(emulator.search_requests())
        held = emulator.search_requests()[-1]
        assert parts(stopped)[-1]["state"] == "pending"  # mid-crawl: parts left to read
        limit.times = limit.used  # the limit has reset
        resumed = run_crawl(stopped, emulator, config)
        assert resumed.resumed and resumed.run_id == 1 and not resumed.complete
        again = emulator.search_requests()[first]
        assert again.params == held.params  # it picked up at the page that was refused
        total = len(emulator.search_requests())
        whole = run_crawl(reference, emulator, config)
        alone = len(emulator.search_requests()) - total
    assert not whole.complete
    assert total - 1 == alone  # the refused request, then not one more than an uninterrupted crawl

    def state(db):
        rows = parts(db)
        return [(r["q"], r["state"], r["incomplete"], r["flags"], r["pages"], r["verified"]) for r in rows]

    assert state(stopped) == state(reference)
    assert {r[0] for r in stopped.execute("select id from repos")} == {
        r[0] for r in reference.execute("select id from repos")
    }
