"""Issue 13: an import is all or nothing, validates every item first and survives SIGKILL; dates
and ids outside what the product can represent are rejected at the edge with their reason."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from agentrank.locks import run_lock
from crawler.emulator.population import generate_population, to_search_item
from db.store import open_store
from tests.conftest import REFERENCE, make_item, write_json


def _rows(db_path: Path, sql: str, params=()):
    db = open_store(db_path)
    try:
        return [dict(r) for r in db.query(sql, params)]
    finally:
        db.close()


def test_an_id_beyond_64_bits_is_rejected_with_its_reason(tmp_path, run_cli, db_path):
    items = [make_item(seed=1, id=1), make_item(seed=2, id=10**40), make_item(seed=3, id=3)]
    result = run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert "2 repos saved" in result.output and "1 rejected" in result.output
    reject = _rows(db_path, "select * from rejects")[0]
    assert reject["reason"].startswith("id:") and reject["repo_id"] is None
    assert _rows(db_path, "select status from runs") == [{"status": "ok"}]


def test_dates_outside_the_representable_span_are_rejected(tmp_path, run_cli, db_path):
    items = [
        make_item(seed=1, id=1, created_at="0001-01-01T00:00:00Z"),
        make_item(seed=2, id=2, pushed_at="9999-12-31T23:59:59Z"),
        make_item(seed=3, id=3, created_at="1999-12-31T23:59:59Z"),
        make_item(seed=4, id=4),
    ]
    result = run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert "1 repo saved" in result.output and "3 rejected" in result.output
    reasons = [r["reason"] for r in _rows(db_path, "select reason from rejects order by id")]
    assert [r.split(":")[0] for r in reasons] == ["created_at", "pushed_at", "created_at"]
    assert all("outside 2000-01-01" in r for r in reasons)
    # A date given on the command line must be one the score can represent.
    for as_of in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59-01:00"):
        result = run_cli("score", "--as-of", as_of, expect=2)
        assert "--as-of" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    # What the import accepted, the rest of the chain handles: score, export and snapshot succeed.
    run_cli("score")
    run_cli("export", "--out", str(tmp_path / "site.json"))
    run_cli("snapshot", "--out", str(tmp_path / "snap.db"))


def test_duplicate_ids_with_different_data_are_reported(tmp_path, run_cli, db_path):
    items = [
        make_item(seed=1, id=7, stargazers_count=300),
        make_item(seed=1, id=7, stargazers_count=300),  # the same data twice: not a conflict
        make_item(seed=1, id=7, stargazers_count=900),
    ]
    result = run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert "duplicate with different data: id 7" in result.output and "items.json#2" in result.output
    assert _rows(db_path, "select stars from repos") == [{"stars": 900}]


def test_deeply_nested_json_is_one_line(tmp_path, run_cli, db_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    result = run_cli("import", str(path), expect=1)
    assert "nested deeper than" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    item = make_item(seed=1, id=1)
    nested: list = []
    for _ in range(40):  # deeper than an item can be, within what a file may hold
        nested = [nested]
    item["topics"] = nested
    write_json(path, [item, make_item(seed=2, id=2)])
    result = run_cli("import", str(path))
    assert "1 rejected" in result.output
    assert "nested deeper than" in _rows(db_path, "select reason from rejects")[0]["reason"]


def _big_file(path: Path, n: int) -> Path:
    repos = generate_population(n, seed=5, reference=REFERENCE, star_floor=200)
    with path.open("w", encoding="utf-8") as f:
        json.dump([to_search_item(r) for r in repos], f)
    return path


def _cli(db_path: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(db_path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_sigkill_during_import_leaves_the_database_as_it_was(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "small.json", [make_item(seed=1, id=1)])))
    before = _rows(db_path, "select * from repos order by id")
    snapshots_before = _rows(db_path, "select * from snapshots")
    big = _big_file(tmp_path / "big.json", 6_000)
    process = _cli(db_path, "import", str(big))
    deadline = time.monotonic() + 120
    # The run row appears only once every item is validated, as the one write transaction starts.
    watcher = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)  # reads never wait for the writer
    while time.monotonic() < deadline and process.poll() is None:
        if watcher.execute("select id from runs where kind = 'import' and status = 'running'").fetchall():
            break
        time.sleep(0.01)
    watcher.close()
    assert process.poll() is None, "the import finished before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert _rows(db_path, "select * from repos order by id") == before
    assert _rows(db_path, "select * from snapshots") == snapshots_before
    assert _rows(db_path, "select count(*) as n from rejects") == [{"n": 0}]
    assert _rows(db_path, "select status from runs order by id") == [{"status": "ok"}, {"status": "running"}]
    # The next command that takes the run lock says what happened to the killed run.
    run_cli("score")
    statuses = [r["status"] for r in _rows(db_path, "select status from runs where kind = 'import' order by id")]
    assert statuses == ["ok", "interrupted"]


def test_the_run_lock_holds_through_a_symlink(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "small.json", [make_item(seed=1, id=1)])))
    link = tmp_path / "link.db"
    link.symlink_to(db_path)
    with run_lock(db_path, "import"):
        process = _cli(link, "score")
        _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert b"another agentrank run is already using" in err
    assert _rows(db_path, "select kind from runs") == [{"kind": "import"}]


def test_lone_surrogates_in_a_saved_file_become_replacement_characters(tmp_path, run_cli, db_path):
    # json.dumps escapes them as \ud83e; GitHub sends such text. A pair is an emoji, kept as it is.
    items = [make_item(seed=1, id=1, description="half \ud83e, whole \U0001f916, text \\ud83e")]
    run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert _rows(db_path, "select description from repos") == [{"description": "half \ufffd, whole 🤖, text \\ud83e"}]
