"""Issue 29 (items 1, 9, 16, 17, 20): the database file itself, bad values at load, and imports that
must be bounded or refused. Every refusal is one line, a non-zero exit and an unchanged database."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agentrank.locks import run_lock
from tests.benchmark_attempts import attempt
from tests.conftest import make_item, write_json

AGENTRANK = [sys.executable, "-c", "from agentrank.cli import cli; cli()"]


def dump(db_path: Path) -> list[str]:
    with closing(sqlite3.connect(db_path)) as conn:
        return list(conn.iterdump())


def one_line(result, code: int = 1) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.fixture
def imported(tmp_path, run_cli, db_path) -> Path:
    """A database with one import run of three repos."""
    run_cli("import", str(write_json(tmp_path / "items.json", [make_item(seed=i, id=i) for i in (1, 2, 3)])))
    return db_path


# -- item 1: a second name for the database ------------------------------------------------------------


def test_a_database_with_a_hard_link_is_refused_by_every_command(tmp_path, imported):
    from click.testing import CliRunner

    from agentrank.cli import cli

    before = dump(imported)
    other = tmp_path / "other.db"
    os.link(imported, other)
    items = str(write_json(tmp_path / "more.json", [make_item(seed=9, id=9)]))
    for db in (imported, other):
        for args in (("import", items), ("score",), ("export", "--out", str(tmp_path / "x.json")), ("explain", "a/b")):
            result = CliRunner().invoke(cli, ["--db", str(db), *args])
            assert result.exit_code == 1, (args, result.output, result.exception)
            line = result.stderr.strip()
            assert "\n" not in line and "2 names (hard links)" in line, line
    os.unlink(other)
    assert dump(imported) == before


def test_a_run_through_a_hard_link_made_during_another_run_is_refused(tmp_path, imported):
    """The issue's race: an import holds the lock through one name, a score starts through another."""
    with run_lock(imported, "import"):
        other = tmp_path / "other.db"
        os.link(imported, other)
        result = subprocess.run([*AGENTRANK, "--db", str(other), "score"], capture_output=True, text=True, check=False)
    assert result.returncode == 1 and "hard links" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_lock_holds_the_file_not_only_its_path(tmp_path, imported):
    """While a run holds the lock, the database file itself is locked: a process reaching it by any
    path (a bind mount, another spelling resolve() cannot see through) meets the lock."""
    probe = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
        "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n    sys.exit(3)\n"
    )
    with run_lock(imported, "import"):
        held = subprocess.run([sys.executable, "-c", probe, str(imported)], check=False)
    free = subprocess.run([sys.executable, "-c", probe, str(imported)], check=False)
    assert held.returncode == 3 and free.returncode == 0


# -- item 9: a read-only mount, a damaged file ------------------------------------------------------------


READ_ONLY_COMMANDS = [
    ["import", "{items}"],
    ["score"],
    ["classify"],
    ["export", "--out", "{tmp}/site.json"],
    ["crawl", "--api-url", "http://127.0.0.1:9"],
    ["refresh", "--from-file", "{items}", "--out", "{tmp}/site2.json"],
    ["import-attempts", "{attempts}"],
    ["explain", "a/b"],
]


def test_every_command_on_a_read_only_mount_is_one_line(tmp_path, imported):
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs unshare and root to make a read-only bind mount")
    mount = tmp_path / "ro"
    mount.mkdir()
    items = write_json(tmp_path / "more.json", [make_item(seed=9, id=9)])
    attempts = write_json(
        tmp_path / "attempts.json", [attempt("a/b", "1", "t1", 1, "2026-11-01T00:00:00Z", "community", 1, 2, 5.0, 0.1)]
    )
    commands = [[part.format(items=items, tmp=tmp_path, attempts=attempts) for part in c] for c in READ_ONLY_COMMANDS]
    script = tmp_path / "run.py"
    script.write_text(
        "import json, subprocess, sys\n"
        f"results = [subprocess.run({AGENTRANK!r} + ['--db', {str(mount / imported.name)!r}] + c, capture_output=True, "
        f"text=True) for c in {commands!r}]\n"
        "print(json.dumps([[r.returncode, r.stderr] for r in results]))\n"
    )
    before = dump(imported)
    shell = f"mount --bind {imported.parent} {mount} && mount -o remount,bind,ro {mount} && {sys.executable} {script}"
    done = subprocess.run(["unshare", "-m", "sh", "-c", shell], capture_output=True, text=True, check=False)
    if "mount:" in done.stderr or (done.returncode != 0 and not done.stdout):
        pytest.skip(f"cannot make a read-only mount here: {done.stderr.strip()[:200]}")
    for command, (code, stderr) in zip(commands, json.loads(done.stdout), strict=True):
        assert code == 1, (command, stderr)
        assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, (command, stderr)
        if command[0] not in ("export", "explain"):  # the readers may get as far as the data
            assert "read-only" in stderr.lower(), (command, stderr)
    assert dump(imported) == before


def _damage(db_path: Path) -> None:
    """Overwrite the middle pages of the file with garbage, as a failing disk or a bad copy would."""
    conn = sqlite3.connect(db_path)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    size = db_path.stat().st_size
    with db_path.open("r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(b"\xff" * 8192)


def test_a_damaged_database_is_refused_before_anything_writes_into_it(tmp_path, imported, run_cli):
    run_cli("score")
    _damage(imported)
    before = imported.read_bytes()
    items = str(write_json(tmp_path / "more.json", [make_item(seed=9, id=9)]))
    attempts = str(
        write_json(
            tmp_path / "a.json", [attempt("a/b", "1", "t1", 1, "2026-11-01T00:00:00Z", "community", 1, 2, 5.0, 0.1)]
        )
    )
    tasks = str(
        write_json(
            tmp_path / "t.json",
            [
                {
                    "suite": "s",
                    "task_id": "t1",
                    "title": "T",
                    "hidden_tests": 2,
                    "baseline_passed": 0,
                    "reference_passed": 2,
                }
            ],
        )
    )
    for args in (
        ("import", items),
        ("score",),
        ("classify",),
        ("export", "--out", str(tmp_path / "site.json")),
        ("snapshot", "--out", str(tmp_path / "snap.db")),
        ("import-attempts", attempts),
        ("import-tasks", tasks),
    ):
        line = one_line(run_cli(*args, expect=None))
        assert "damaged" in line or "malformed" in line, (args, line)
    assert imported.read_bytes() == before


# -- item 9: values accepted at load that crashed at use ------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "[github]\ntimeout_s = inf\n",
        "[github]\nmin_interval_s = 1e308\n",
        "[github]\nmax_wait_s = nan\n",
        '[github]\nuser_agent = "agent \u00e9\u4e2d"\n',
        "[crawl]\nmin_stars = 100000000000000000000\n",
        "[crawl]\nmin_stars = 1e20\n",
        '[serve]\nsource_url = "javascript:alert(1)"\n',
        "[schedule]\nmisfire_grace_s = 99999999999999999\n",
    ],
)
def test_config_values_that_crash_at_use_are_refused_at_load(tmp_path, run_cli, body):
    path = tmp_path / "agentrank.toml"
    path.write_text(body, encoding="utf-8")
    line = one_line(run_cli("--config", str(path), "score", expect=None))
    assert "bad value for" in line


def test_import_tasks_with_a_date_past_9999_is_one_line(tmp_path, imported, run_cli):
    before = dump(imported)
    for when in ("9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59Z"):
        task = {"suite": "s", "task_id": "t1", "title": "T", "hidden_tests": 2, "validated_at": when}
        line = one_line(run_cli("import-tasks", str(write_json(tmp_path / "t.json", [task])), expect=None))
        assert "validated_at" in line
    assert dump(imported) == before


def test_an_attempt_with_a_5000_digit_number_is_one_line(tmp_path, imported, run_cli):
    before = dump(imported)
    record = attempt("a/b", "1", "t1", 1, "2026-11-01T00:00:00Z", "community", 1, 2, 5.0, 0.1)
    text = json.dumps([record]).replace('"attempt": 1', '"attempt": ' + "9" * 5000)
    path = tmp_path / "a.json"
    path.write_text(text)
    line = one_line(run_cli("import-attempts", str(path), expect=None))
    assert "4,300 digits" in line
    assert dump(imported) == before


# -- items 16, 20: imports bounded and refused ----------------------------------------------------------------


def test_an_empty_import_is_one_line_and_changes_nothing(tmp_path, imported, run_cli):
    before = dump(imported)
    for text in ("[]", '{"total_count": 0, "incomplete_results": false, "items": []}'):
        path = tmp_path / "empty.json"
        path.write_text(text)
        assert "no search items" in one_line(run_cli("import", str(path), expect=None))
    assert dump(imported) == before


def test_an_item_with_a_key_twice_is_a_reject(tmp_path, run_cli, db_path):
    good = json.dumps(make_item(seed=1, id=1))
    twice = json.dumps(make_item(seed=2, id=2))[:-1] + ', "stargazers_count": 999999}'
    path = tmp_path / "items.json"
    path.write_text(f"[{good}, {twice}]")
    result = run_cli("import", str(path))
    assert "1 repo saved" in result.stdout and "1 rejected" in result.stdout
    with closing(sqlite3.connect(db_path)) as conn:
        [(reason,)] = conn.execute("select reason from rejects").fetchall()
    assert "'stargazers_count' twice" in reason


def test_rejects_are_counted_but_only_the_first_ten_thousand_are_stored(tmp_path, run_cli, db_path, monkeypatch):
    from agentrank import importer

    monkeypatch.setattr(importer, "MAX_REJECTS_KEPT", 50)
    path = tmp_path / "items.json"
    path.write_text("[" + ",".join(["{}"] * 120) + "," + json.dumps(make_item(seed=1, id=1)) + "]")
    result = run_cli("import", str(path))
    assert "120 rejected" in result.stdout and "the first 50 are listed" in result.stdout
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select count(*) from rejects").fetchone()[0] == 50
        assert conn.execute("select rejected from runs").fetchone()[0] == 120


def test_an_import_past_the_item_cap_is_refused_whole(tmp_path, imported, run_cli, monkeypatch):
    from agentrank import importer

    monkeypatch.setattr(importer, "MAX_IMPORT_ITEMS", 100)
    before = dump(imported)
    path = tmp_path / "items.json"
    path.write_text("[" + ",".join(["{}"] * 101) + "]")
    assert "more than 100 items" in one_line(run_cli("import", str(path), expect=None))
    assert dump(imported) == before


def test_an_attempts_file_past_the_record_cap_is_refused(tmp_path, imported, run_cli, monkeypatch):
    from leaderboard import ingest

    monkeypatch.setattr(ingest, "MAX_ATTEMPT_RECORDS", 3)
    before = dump(imported)
    records = [attempt("a/b", "1", f"t{i}", 1, "2026-11-01T00:00:00Z", "community", 1, 2, 5.0, 0.1) for i in range(4)]
    line = one_line(run_cli("import-attempts", str(write_json(tmp_path / "a.json", records)), expect=None))
    assert "more than one file may hold" in line
    assert dump(imported) == before


@pytest.mark.parametrize(
    ("older", "newer"),
    [("Acme/Agent", "acme/agent"), ("acme/agent", "\uff41cme/agent"), ("acme/caf\u00e9", "acme/cafe\u0301")],
    ids=["case", "full-width", "composed-accent"],
)
def test_name_twins_under_different_ids_list_only_the_newer(tmp_path, run_cli, db_path, older, newer):
    first = [make_item(seed=1, id=10, full_name=older), make_item(seed=3, id=30)]
    run_cli("import", str(write_json(tmp_path / "a.json", first)), "--observed-at", "2026-11-01T00:00:00Z")
    run_cli("import", str(write_json(tmp_path / "b.json", [make_item(seed=2, id=20, full_name=newer)])))
    with closing(sqlite3.connect(db_path)) as conn:
        rows = dict(conn.execute("select id, unlisted_reason from repos where id in (10, 20)").fetchall())
        listed = {r[0] for r in conn.execute("select id from repos where listed = 1")}
    assert 20 in listed and 10 not in listed and 30 in listed
    assert rows[10] == "name held by a newer repo (id 20)"


# -- item 17: a run recorded with the clock ahead can be moved back ---------------------------------------


def test_a_run_recorded_with_the_clock_ahead_is_recoverable(tmp_path, run_cli, db_path):
    from agentrank import importer
    from db.store import open_store

    ahead = datetime.now(UTC).replace(microsecond=0) + timedelta(days=400)
    db = open_store(db_path)
    try:  # what a refresh with the clock 400 days ahead leaves: an import run and snapshots at that time
        importer.save_items(
            db,
            [("x#0", make_item(seed=1, id=1))],
            run_id=db.table("runs")
            .insert({"kind": "import", "started_at": ahead.strftime("%Y-%m-%dT%H:%M:%SZ"), "status": "ok"})
            .last_pk,
            min_stars=200,
            source="import",
            seen_at=ahead.strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
    finally:
        db.close()
    items = str(write_json(tmp_path / "b.json", [make_item(seed=2, id=2)]))
    line = one_line(run_cli("import", items, expect=None))
    assert "redate-run" in line  # the refusal names the way out
    real = (datetime.now(UTC) - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # Not into the future, not a run that does not exist.
    assert "outside" in one_line(run_cli("redate-run", "1", "--to", ahead.isoformat(), expect=None), 2)
    assert "no run 7" in one_line(run_cli("redate-run", "7", "--to", real, expect=None), 2)
    result = run_cli("redate-run", "1", "--to", real)
    assert f"to {real}" in result.stdout
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select observed_at from snapshots").fetchall() == [(real,)]
        assert conn.execute("select started_at from runs where id = 1").fetchone() == (real,)
        assert conn.execute("select first_seen_at, last_seen_at from repos").fetchone() == (real, real)
    run_cli("import", items)  # no longer blocked
    run_cli("score")


def test_a_read_only_look_at_a_database_deleted_just_before_creates_nothing(tmp_path):
    """The scheduler looks at the database between runs; when the file had just been deleted, that
    look (immutable=1 without mode=ro) created it again, empty, and the next run refreshed into it."""
    from db.connection import read_only_connection
    from db.store import open_store

    db_path = tmp_path / "agentrank.db"
    open_store(db_path).close()
    db_path.unlink()
    with pytest.raises(sqlite3.OperationalError):
        read_only_connection(db_path).execute("select 1")
    assert list(tmp_path.iterdir()) == []
