"""Findings of the sixth independent audit of the benchmark methods (a randomized differential test
against a calculator written from the seeds): each test failed on the code before its fix."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from click.testing import CliRunner

from agentrank.cli import cli
from tests.benchmark_attempts import attempt

D1 = "2026-11-01T09:00:00Z"


def test_a_run_named_with_a_superscript_digit_is_stored_and_ordered_not_a_traceback(tmp_path):
    # "²" and "①" pass str.isdigit() but int() cannot read them: the run-name sort raised ValueError,
    # and one such community record refused the whole file with a traceback.
    records = [
        attempt("a/b", "1", "t1", 1, D1, "verified", 1, 1, 10, 1.0, suite="s", run=name)
        for name in ("v2", "v10", "²", "v1²", "run①")
    ]
    (tmp_path / "a.json").write_text(json.dumps(records), encoding="utf-8")
    db = tmp_path / "l.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "import-attempts", "--verified", str(tmp_path / "a.json")])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    with closing(sqlite3.connect(db)) as conn:
        runs = [r[0] for r in conn.execute("select distinct run from benchmark_rs9_runs")]
    assert sorted(runs) == sorted(["v2", "v10", "²", "v1²", "run①"])
