"""Issue 29, items 3, 4, 5 and 19: the ledger's imports are atomic, a refusal changes nothing, a
submitted file cannot game the boards, and prices are plausible."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_attempts import attempt
from tests.conftest import write_json
from tests.test_benchmark_methods import PRICES, task

D1 = "2026-11-01T09:00:00Z"
INDEX = '[[benchmark.index]]\nname = "Idx"\nversion = "1"\nsuites = ["s"]\n'


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def priced_attempts() -> list[dict]:
    # No cost given: the list price fills it in once a price is imported.
    return [
        attempt("acme/coder", "1", f"t{n}", 1, D1, "verified", 4, 4, 60, None, tokens={"input": 10**6, "output": 10**5})
        for n in (1, 2)
    ]


KILL_IN_FIGURES = """
import os, signal
import leaderboard.store as store
_save = store.save_methods
def killed(db, methods):
    if os.environ.get("KILL_IN_FIGURES"):
        os.kill(os.getpid(), signal.SIGKILL)
    _save(db, methods)
store.save_methods = killed
"""


def test_a_kill_while_the_figures_are_written_leaves_inputs_and_figures_together(db_path, run_cli, tmp_path):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", priced_attempts())))
    (tmp_path / "prices.toml").write_text(PRICES)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(KILL_IN_FIGURES)
    before = dump(db_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), *sys.path]), "KILL_IN_FIGURES": "1"}
    command = [
        sys.executable,
        "-m",
        "agentrank.cli",
        "--db",
        str(db_path),
        "import-prices",
        str(tmp_path / "prices.toml"),
    ]
    killed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    conn = sqlite3.connect(db_path)
    prices = conn.execute("select count(*) from benchmark_prices").fetchone()[0]
    costs = conn.execute("select count(*) from benchmark_attempts where list_cost_usd is not null").fetchone()[0]
    conn.close()
    # Neither the prices nor the costs computed from them: not the prices without their costs.
    assert (prices, costs) == (0, 0)
    assert [line for line in dump(db_path) if 'INSERT INTO "runs"' not in line] == [
        line for line in before if 'INSERT INTO "runs"' not in line
    ]
    # The next run finds the ledger consistent and completes it.
    run_cli("import-prices", str(tmp_path / "prices.toml"))
    conn = sqlite3.connect(db_path)
    assert conn.execute("select count(*) from benchmark_attempts where list_cost_usd is not null").fetchone()[0] == 2
    conn.close()


@pytest.mark.parametrize(
    ("command", "name", "text"),
    [
        ("import-prices", "bad.toml", "price = "),
        ("import-prices", "inf.toml", '[[price]]\nmodel = "m"\nfrom = 2026-10-01\ninput = 1.7e308\noutput = 1.0\n'),
        ("import-tasks", "bad.json", "[1, 2"),
        ("import-assessments", "bad.toml", "[[assessment]]\nagent = 3\n"),
    ],
)
def test_a_refused_ledger_command_changes_nothing(db_path, run_cli, tmp_path, command, name, text):
    config = tmp_path / "agentrank.toml"
    config.write_text(INDEX)
    attempts = [attempt("acme/coder", "1", "t1", 1, D1, "verified", 1, 1, 10, 1.0, suite="s")]
    run_cli("--config", str(config), "import-attempts", "--verified", str(write_json(tmp_path / "a.json", attempts)))
    before = dump(db_path)
    assert any("benchmark_index_defs" in line and "Idx" in line for line in before)
    (tmp_path / name).write_text(text)
    # Run without the configuration that defines the index: a refusal must not touch it either.
    result = run_cli(command, str(tmp_path / name), expect=1)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert dump(db_path) == before


def test_a_file_cannot_put_itself_on_the_verified_board(db, run_cli, tmp_path):
    claimed = [attempt("acme/coder", "1", "t1", 1, D1, "verified", 4, 4, 60, 0.5)]
    path = str(write_json(tmp_path / "claimed.json", claimed))
    result = run_cli("import-attempts", path, expect=1)
    assert "--verified" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert db["benchmark_attempts"].count == 0
    mixed = [*claimed, attempt("other/agent", "1", "t1", 1, D1, "community", 4, 4, 60, 0.5)]
    result = run_cli("import-attempts", str(write_json(tmp_path / "mixed.json", mixed)), expect=3)
    assert [r["tier"] for r in db["benchmark_entries"].rows] == ["community"]
    run_cli("import-attempts", "--verified", path)  # the operator vouches for it
    assert sorted(r["tier"] for r in db["benchmark_entries"].rows) == ["community", "verified"]


def test_infrastructure_errors_beyond_a_third_make_an_entry_incomplete(db, run_cli, tmp_path):
    # One pass and three failures relabelled as infrastructure errors: not a clean 100 %.
    records = [attempt("gamer/agent", "1", "t1", 1, D1, "community", 4, 4, 60, None)]
    records += [
        attempt("gamer/agent", "1", "t1", n, D1, "community", None, None, 60, None, flags=("infra-error",))
        for n in (2, 3, 4)
    ]
    records += [attempt("honest/agent", "1", "t1", n, D1, "community", 2, 4, 60, None) for n in (1, 2)]
    records += [attempt("honest/agent", "1", "t1", 3, D1, "community", None, None, 60, None, flags=("infra-error",))]
    run_cli("import-attempts", str(write_json(tmp_path / "a.json", records)))
    board = {r["agent"]: r for r in db["benchmark_entries"].rows}
    assert board["gamer/agent"]["rank"] is None
    assert board["gamer/agent"]["incomplete"].startswith("incomplete: 3 of 4 attempts lost to infrastructure errors")
    # One in three is within the share: ranked.
    assert (board["honest/agent"]["rank"], board["honest/agent"]["incomplete"]) == (1, None)


def test_one_stray_task_record_cannot_unrank_a_suite(db_path, db, run_cli, tmp_path):
    attempts = [attempt(a, "1", t, 1, D1, "verified", 1, 1, 10, 1.0, suite="s") for a in ("a/x", "b/y") for t in ("t1", "t2")]  # fmt: skip
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", attempts)))
    before = dump(db_path)
    stray = str(write_json(tmp_path / "tasks.json", [task("t9", 0, 5, suite="s")]))
    result = run_cli("import-tasks", stray, expect=1)
    assert "t1, t2" in result.stderr and "--leave-uncounted" in result.stderr
    assert dump(db_path) == before
    run_cli("import-tasks", "--leave-uncounted", stray)  # the operator means it
    assert {r["task_status"] for r in db["benchmark_attempts"].rows} == {"no task record: t1 is not among suite s's tasks", "no task record: t2 is not among suite s's tasks"}  # fmt: skip
    # A later file correcting the suite's one record stops nothing more from counting: no guard.
    run_cli("import-tasks", str(write_json(tmp_path / "fix.json", [task("t9", 1, 5, suite="s")])))
    assert db["benchmark_task_records"].count == 1


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("input = 1.7e308", "input:"),
        ("input = inf", "input:"),
        ("input = nan", "input:"),
        ("output = 2e4", "output:"),
        ("from = 0001-01-01", "from"),
        ("from = 9999-12-31", "from"),
    ],
)
def test_an_implausible_price_is_refused_with_one_line(db_path, run_cli, tmp_path, line, expected):
    fields = {"model": '"m"', "from": "2026-10-01", "input": "1.0", "output": "1.0"}
    key, value = line.split(" = ")
    fields[key] = value
    (tmp_path / "p.toml").write_text("[[price]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items()))
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", priced_attempts())))
    before = dump(db_path)
    result = run_cli("import-prices", str(tmp_path / "p.toml"), expect=1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], lines
    assert dump(db_path) == before
