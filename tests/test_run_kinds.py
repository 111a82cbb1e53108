"""Every kind of run is written once (db.runs.RUN_KINDS), and a run of any kind that a killed process
left 'running' is marked interrupted by the next command, ledger imports included."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from db.runs import RUN_KINDS, UNRESUMABLE_KINDS, start_run
from tests.benchmark_attempts import attempt


def test_a_run_of_an_unregistered_kind_is_refused(db):
    with pytest.raises(ValueError, match="unknown run kind 'reindex'"):
        start_run(db, "reindex")
    assert db.execute("select count(*) from runs").fetchone()[0] == 0


def test_every_ledger_import_is_a_kind_a_kill_is_noticed_for():
    for kind in ("import-attempts", "import-tasks", "import-prices", "import-assessments"):
        assert kind in UNRESUMABLE_KINDS
    assert [k.name for k in RUN_KINDS if k.resumable] == ["crawl"]


def _statuses(db_path, kind):
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        return [row[0] for row in conn.execute("select status from runs where kind = ? order by id", [kind])]


def test_a_ledger_import_killed_with_sigkill_is_marked_interrupted_by_the_next_command(tmp_path, run_cli, db_path):
    # Many attempts, so that recomputing the methods after a task import takes long enough to kill.
    many = tmp_path / "many.jsonl"
    with many.open("w", encoding="utf-8") as out:
        for n in range(6_000):
            record = attempt(
                f"agent-{n % 40}", "1.0", f"task-{n // 40}", 1, "2026-10-02T10:00:00Z", "verified", 2, 3, 60, 0.5
            )
            out.write(json.dumps({**record, "suite": "s"}) + "\n")
    run_cli("import-attempts", "--verified", str(many))
    task = {
        "suite": "s",
        "task_id": "task-0",
        "title": "Task 0",
        "brief_url": "https://tasks.example.org/0",
        "visible_tests": 1,
        "hidden_tests": 3,
        "baseline_passed": 0,
        "reference_passed": 3,
        "validated_at": "2026-10-01T12:00:00Z",
        "per_test": [{"test": f"test_{i}", "baseline": False, "reference": True} for i in range(3)],
    }
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([task]), encoding="utf-8")
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from agentrank.cli import cli; cli()",
            "--db",
            str(db_path),
            "import-tasks",
            "--leave-uncounted",
            str(tasks),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if "running" in _statuses(db_path, "import-tasks"):
            break
        time.sleep(0.005)
    assert process.poll() is None, f"the import finished before it could be killed: {process.stderr.read()}"
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert _statuses(db_path, "import-tasks") == ["running"]
    # Any later command that takes the run lock says what became of it.
    run_cli("import-tasks", "--leave-uncounted", str(tasks))
    assert _statuses(db_path, "import-tasks") == ["interrupted", "ok"]
