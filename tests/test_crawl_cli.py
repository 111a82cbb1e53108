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
