"""The crawl as a user meets it: progress on a terminal, one summary line, the demo through the emulator."""

from __future__ import annotations

import json

from agentrank.config import Config
from agentrank.crawl import CrawlProgress
from agentrank.demo import build_demo
from crawler.clock import FakeClock
from tests.crawl_helpers import crawl_config, emulated, population, run_crawl, write_config


def test_progress_shows_each_query_part_when_asked(db, capsys):
    with emulated(population(600, seed=71), clock=FakeClock()) as emulator:
        run_crawl(db, emulator, crawl_config(topics=["ai-agents", "ai-agent"], keywords=[]), progress=True)
    err = capsys.readouterr().err
    assert "topic:ai-agents stars:>=200 archived:false" in err and "topic:ai-agent stars:>=200" in err
    assert "verify topic:ai-agents" in err


def test_no_progress_when_not_a_terminal(db, capsys):
    with emulated(population(300, seed=72), clock=FakeClock()) as emulator:
        run_crawl(db, emulator, crawl_config(topics=["ai-agents"], keywords=[]), progress=None)
    assert capsys.readouterr().err == ""
    assert CrawlProgress(False)._bar is None


def test_crawl_command_prints_one_summary_line(tmp_path, run_cli):
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(population(800, seed=73)) as emulator:
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url)
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and result.stderr == ""
    line = lines[0]
    for part in (
        "crawl run 1 (complete)",
        "requests",
        "repos found (",
        "new,",
        "updated,",
        "delisted)",
        "waits",
        "retries",
    ):
        assert part in line
    assert line.endswith(" s")


def test_the_demo_runs_the_weekly_pipeline_against_the_emulator(tmp_path):
    result = build_demo(tmp_path / "agentrank.db", tmp_path / "export.json", Config(), size=800, weeks=2)
    crawl = next(s for s in result.refresh.stages if s["stage"] == "crawl")
    assert crawl["complete"] is True and crawl["requests"] > 0
    assert [s["stage"] for s in result.refresh.stages] == [
        "corrections",
        "crawl",
        "apply-corrections",
        "classify",
        "score",
        "export",
        "publish",
    ]
    from db.store import open_store

    db = open_store(result.db_path)
    last = result.refresh.run_id
    kinds = [
        r["kind"] for r in db.query("select kind from runs where id = ? or parent_id = ? order by id", [last, last])
    ]
    assert kinds == ["refresh", "crawl", "corrections", "classify", "score", "export"]
    assert [r["kind"] for r in db.query("select kind from runs where parent_id is null order by id")] == [
        "refresh",
        "refresh",
        "import-tasks",
        "import-prices",
        "import-attempts",
        "import-assessments",
        "export",
    ]
    listed = db.execute("select count(*) from repos where listed = 1").fetchone()[0]
    assert result.document["count"] == listed > 0
    details = json.loads(db["runs"].get(crawl["run_id"])["details"])
    assert details["complete"] is True and details["requests"] == crawl["requests"]


def test_a_crawl_says_once_which_topics_it_dropped_and_keeps_the_repos(tmp_path):
    """A topic GitHub could not have given (longer than its 50 characters, or a number) was dropped
    from a crawled repo without a word. The repo is kept with its other topics, and the crawl says
    once, in its log, what was dropped and from which repos (counted once however many queries and
    pages return the repo)."""
    import dataclasses
    import sqlite3
    import subprocess

    from tests.publish_helpers import agentrank_command

    repos = population(120, seed=74)
    listed = [r for r in repos if not r.fork and not r.archived and r.stars >= 200 and "ai-agent" in r.topics]
    odd = listed[0]
    repos[repos.index(odd)] = dataclasses.replace(odd, topics=[*odd.topics, "x" * 120])
    db_path = tmp_path / "agentrank.db"
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(repos) as emulator:
        done = subprocess.run(
            agentrank_command(db_path, "--config", str(config), "crawl", "--api-url", emulator.url),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"WARNING crawl run 1: 1 topic dropped (1 longer than GitHub's 50 characters) from 1 repo, "
        f"which is kept: {odd.full_name}"
    ], done.stderr
    with sqlite3.connect(db_path) as conn:
        stored = conn.execute("select topics, listed from repos where id = ?", [odd.id]).fetchone()
        details = json.loads(conn.execute("select details from runs where kind = 'crawl'").fetchone()[0])
    conn.close()
    assert (json.loads(stored[0]), stored[1]) == (odd.topics, 1)
    assert details["dropped_topics"]["first_repos"] == [odd.full_name]
