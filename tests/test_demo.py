"""`agentrank demo`: the product on a small scale, in the folder every command uses by default.

Done-when 1 of issue 12: after the demo, `export --out site/agentrank.json`, `explain OWNER/REPO
--since previous` and `serve` work in the same folder without --db, and what is served has history
(several score runs), rank changes and both benchmark leaderboards.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime

import httpx
import jsonschema

from agentrank.config import Config
from agentrank.demo import build_demo
from agentrank.exporter import export_schema
from agentrank.serve import free_port
from datasette_plugins.agent_page import agent_context
from datasette_plugins.metadata import QUERIES
from db.demo import DEMO_NOTE, file_demo_marker
from leaderboard.summary import leaderboards
from tests.first_hour import agentrank, published_state


def _days(a: str, b: str) -> float:
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(b) - parse(a)).total_seconds() / 86400


def test_the_demo_builds_the_default_database_here_and_says_what_to_try(demo_folder):
    names = sorted(p.name for p in demo_folder.path.iterdir())
    assert {"agentrank.db", "agentrank-export.json"} <= set(names)
    out = demo_folder.demo_output
    assert out.startswith("demo database: agentrank.db (4 weekly refreshes")
    commands = re.findall(r"^  (\S*agentrank) (.+?)\s+#", out, re.M)
    assert [c[1].split()[0] for c in commands] == ["explain", "export", "snapshot", "serve"]
    assert all("--db" not in args for _, args in commands), "the next steps need no --db"
    document = json.loads((demo_folder.path / "agentrank-export.json").read_text())
    jsonschema.validate(document, export_schema())
    assert document["demo"] == DEMO_NOTE
    assert document["count"] > 50 and {a["category"] for a in document["agents"]} - {None}


def test_four_weeks_a_week_apart_the_last_one_now(demo_folder):
    conn = sqlite3.connect(demo_folder.db)
    refreshes = [r[0] for r in conn.execute("select started_at from runs where kind = 'refresh' order by id")]
    assert len(refreshes) == 4
    assert [round(_days(a, b), 3) for a, b in zip(refreshes, refreshes[1:], strict=False)] == [7.0, 7.0, 7.0]
    assert abs(_days(refreshes[-1], datetime.now(UTC).isoformat())) < 1
    # Each week's crawl, snapshots and score are at that week's instant.
    rows = conn.execute(
        "select c.started_at, s.as_of from runs c join runs s on s.parent_id = c.parent_id "
        "where c.kind = 'crawl' and s.kind = 'score' order by c.id"
    ).fetchall()
    assert [crawl for crawl, _ in rows] == [score for _, score in rows] == refreshes
    observed = [r[0] for r in conn.execute("select distinct observed_at from snapshots order by 1")]
    assert observed == refreshes
    # A week's runs end as long after their start as they took, not in the present.
    for started, finished in conn.execute("select started_at, finished_at from runs where parent_id is not null"):
        assert 0 <= _days(started, finished) < 0.1, (started, finished)


def test_the_population_moves_between_weeks(demo_folder):
    conn = sqlite3.connect(demo_folder.db)
    renamed = conn.execute("select count(*) from (select repo_id from repo_names group by repo_id having count(*) > 1)")
    assert renamed.fetchone()[0] > 0
    first_runs = conn.execute("select count(distinct first_seen_run) from repos").fetchone()[0]
    assert first_runs >= 3, "repos joined in later weeks"
    gone = conn.execute("select count(*) from repos where listed = 0 and unlisted_reason is not null").fetchone()[0]
    assert gone > 0, "some repos left or were archived"
    grew = conn.execute(
        "select count(*) from scores where run_id = (select score_run_id from published) and stars_delta_7d > 0"
    ).fetchone()[0]
    assert grew > 20


def test_history_rank_changes_and_both_leaderboards(demo_folder):
    conn = sqlite3.connect(demo_folder.db)
    context = agent_context(conn, demo_folder.riser, "https://example.org/agentrank")
    assert context is not None and len(context["history"]) >= 3
    assert context["benchmark"]["runs"] is True, "the page the demo points at has every section"
    changes = conn.execute(QUERIES["rank_changes"]["sql"]).fetchall()
    assert len(changes) > 10
    boards = leaderboards(conn)
    assert boards["verified"] and boards["community"]
    agents = [e["agent"] for e in boards["verified"] if "/" in e["agent"]]
    assert agent_context(conn, agents[0], "https://example.org")["benchmark"]["runs"] is True
    # Synthetic agents only: every one is a repo of the demo population or a "Demo ..." closed agent.
    repos = {r[0] for r in conn.execute("select full_name from repos")}
    assert all(e["agent"] in repos or e["agent"].startswith("Demo ") for b in boards.values() for e in b)


def test_the_demo_shows_every_benchmark_method(demo_folder):
    """Task records, list prices, a second suite with settings variants, the index and FitScore all
    have something to show, and the export carries them."""
    conn = sqlite3.connect(demo_folder.db)
    counted = dict(conn.execute("select counts, count(*) from benchmark_task_records group by counts").fetchall())
    assert counted[1] >= 10 and counted[0] == 2, "each suite has a task that failed validation"
    priced, reported = conn.execute(
        "select count(list_cost_usd), count(cost_usd) from benchmark_attempts where cost_usd is null or list_cost_usd is null"
    ).fetchone()
    assert priced > 50 and reported > 20, "verified attempts priced from tokens, community costs self-reported"
    methods = json.loads((demo_folder.path / "agentrank-export.json").read_text())["methods"]
    assert {r["suite"] for r in methods["rs9_runs"]} == {"agentrank", "demo-pack"}
    assert any(r["settings"].get("reasoning") == "high" for r in methods["rs9_runs"]), "a settings variant"
    assert any(r["total_cost_usd"] is None for r in methods["rs9_runs"]), "a model with no list price"
    (index,) = methods["indexes"]
    assert index["suites"] == ["agentrank", "demo-pack"]
    values = [e["value"] for e in index["entries"]]
    assert any(v is not None for v in values) and any(e["null_reason"] for e in index["entries"])
    fitscores = {f["agent"]: f for f in methods["fitscores"]}
    assert len(fitscores) == 2 and all(f["fitscore"] is not None for f in fitscores.values())
    assert [f["matches_published"] for f in fitscores.values()].count(False) == 1
    assert any(f["judgements"] for f in fitscores.values())


def test_the_readme_next_steps_work_without_db(demo_folder, tmp_path):
    folder = demo_folder.copy(tmp_path / "project")
    exported = agentrank(folder.path, "export", "--out", "site/agentrank.json")
    assert exported.returncode == 0, exported.stderr
    # The demo is looked at on this machine, not published: no warning about its loopback address.
    assert "WARNING" not in exported.stderr
    assert json.loads((folder.path / "site" / "agentrank.json").read_text())["count"] > 50
    explained = agentrank(folder.path, "explain", folder.riser, "--since", "previous")
    assert explained.returncode == 0, explained.stderr
    assert re.search(r"between run \d+ .* and run \d+", explained.stdout)
    by_url = agentrank(folder.path, "explain", f"https://github.com/{folder.riser}")
    assert by_url.returncode == 0 and "AgentRank Score" in by_url.stdout
    snap = agentrank(folder.path, "snapshot", "--out", "publish/agentrank.db")
    assert snap.returncode == 0, snap.stderr
    assert "WARNING" not in snap.stderr
    assert (folder.path / "publish" / "agentrank.db").exists()


def test_refresh_on_the_demo_database_moves_it_a_week_offline(demo_folder, tmp_path):
    folder = demo_folder.copy(tmp_path / "project")
    before = published_state(folder.db)
    result = agentrank(folder.path, "refresh")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refresh run ")
    after = published_state(folder.db)
    assert after[0] != before[0] and after[2] > before[2]
    assert file_demo_marker(folder.db)["weeks"] == 5
    # A crawl of real GitHub into the demo database is refused in one line.
    crawl = agentrank(folder.path, "crawl")
    assert crawl.returncode == 1 and "demo database" in crawl.stderr and len(crawl.stderr.splitlines()) == 1
    # So is a weekly schedule on it (its refresh would crawl GitHub).
    scheduled = agentrank(folder.path, "schedule")
    assert scheduled.returncode == 1 and "demo database" in scheduled.stderr
    assert len(scheduled.stderr.splitlines()) == 1


def test_refreshing_the_demo_twice_never_puts_a_push_after_the_score(demo_folder, tmp_path):
    # The second refresh replayed the first as if it had run a week after the build: that week lay in
    # the future, and its pushes came out after the next score's as-of ("last push 3 Dec" on 2 Dec).
    folder = demo_folder.copy(tmp_path / "project")
    for _ in range(2):
        result = agentrank(folder.path, "refresh")
        assert result.returncode == 0, result.stderr
    conn = sqlite3.connect(folder.db)
    try:
        as_of, latest_push = conn.execute(
            "select r.as_of, max(s.pushed_at) from scores s join runs r on r.id = s.run_id "
            "where s.run_id = (select score_run_id from published)"
        ).fetchone()
    finally:
        conn.close()
    assert latest_push <= as_of


def test_the_demo_never_replaces_a_database_it_did_not_build(tmp_path):
    from tests.conftest import another_programs_sqlite

    mine = another_programs_sqlite(tmp_path / "agentrank.db", "precious", "my data")
    before = mine.read_bytes()
    result = agentrank(tmp_path, "demo", "--no-serve", "--size", "60", "--weeks", "2")
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and "was not built by `agentrank demo`" in result.stderr
    assert mine.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agentrank.db"]


def test_a_second_demo_rebuilds_its_own_database(demo_folder, tmp_path):
    folder = demo_folder.copy(tmp_path / "project")
    result = agentrank(folder.path, "demo", "--no-serve", "--size", "80", "--weeks", "2")
    assert result.returncode == 0, result.stderr
    marker = file_demo_marker(folder.db)
    assert (marker["size"], marker["weeks"]) == (80, 2)
    runs = sqlite3.connect(folder.db).execute("select count(*) from runs where kind = 'refresh'").fetchone()[0]
    assert runs == 2


def test_the_demo_is_deterministic_in_what_it_lists(tmp_path):
    names = []
    for n in (1, 2):
        result = build_demo(tmp_path / f"{n}.db", tmp_path / f"{n}.json", Config(), size=150, weeks=2)
        names.append([a["full_name"] for a in result.document["agents"]])
    assert names[0] == names[1] and names[0]


def test_demo_serves_datasette_on_the_printed_url_with_the_demo_notice(tmp_path):
    port = free_port("127.0.0.1", 0)
    env = {k: v for k, v in os.environ.items() if k not in ("AGENTRANK_DB", "AGENTRANK_CONFIG")}
    process = subprocess.Popen(
        [sys.executable, "-m", "agentrank.cli", "demo", "--size", "300", "--weeks", "2", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        url = None
        assert process.stdout is not None
        for line in process.stdout:
            match = re.search(r"Datasette: (http://\S+)", line)
            if match:
                url = match.group(1)
                break
        assert url == f"http://127.0.0.1:{port}/agentrank/agents", "the URL matches the database name"
        deadline = time.monotonic() + 60
        while True:
            try:
                response = httpx.get(url + ".json?_shape=array&_size=5", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "Datasette never answered"
                time.sleep(0.3)
        assert response.status_code == 200
        assert [r["rank"] for r in response.json()] == [1, 2, 3, 4, 5]
        page = httpx.get(url, timeout=10).text
        assert "agentrank-demo" in page and "Demo data" in page
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
