"""Wrong results a fifth audit against design.md and seeds 001–004 found, one test each (each failed
before its fix), worked out by hand.

1. a setting written 1.0 in one file and 1 in the next made two variants (and two attempts);
2. the hub dated a verified run by a community record filed under its name.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

import pytest
from click.testing import CliRunner

from agentrank.cli import cli
from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from tests.benchmark_attempts import attempt

V, C = "verified", "community"
D0, D1 = "2026-10-01T09:00:00Z", "2026-11-01T09:00:00Z"


def _cli(db: Any, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _rows(db: Any, sql: str) -> list[dict[str, Any]]:
    with closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(sql)]


def test_a_setting_written_as_1_0_or_1_is_one_variant(tmp_path):
    first = attempt("a/b", "1", "t1", 1, D1, V, 0, 1, 10, 1.0, suite="s", run="r", settings={"effort": 1.0})
    again = {**first, "tests_passed": 1, "settings": {"effort": 1}}
    db = tmp_path / "l.db"
    for n, record in enumerate((first, again)):
        (tmp_path / f"a{n}.json").write_text(json.dumps([record]))
        _cli(db, "import-attempts", "--verified", str(tmp_path / f"a{n}.json"))
    # The second file updates the one attempt (now passed) rather than adding a rival entry.
    assert [r["tests_passed"] for r in _rows(db, "select tests_passed from benchmark_attempts")] == [1]
    runs = _rows(db, "select passed, rank from benchmark_rs9_runs")
    assert runs == [{"passed": 1, "rank": 1}]


@pytest.mark.asyncio
async def test_the_hub_dates_a_verified_run_by_its_verified_attempts(tmp_path):
    records = [
        # Verified: r-old on 1 Oct, r-new on 1 Nov.
        attempt("v/agent", "1", "t", 1, D0, V, 1, 1, 10, 1.0, suite="p", run="r-old"),
        attempt("v/agent", "1", "t", 1, D1, V, 1, 1, 10, 1.0, suite="p", run="r-new"),
        # A community record filed under "r-new", dated a month before it.
        attempt("c/agent", "1", "t", 1, "2026-09-01T09:00:00Z", C, 1, 1, 10, 1.0, suite="p", run="r-new"),
    ]
    (tmp_path / "a.json").write_text(json.dumps(records))
    db = tmp_path / "l.db"
    _cli(db, "import-attempts", "--verified", str(tmp_path / "a.json"))
    datasette = build_datasette(db, ServeConfig(heap_limit_mb=0))
    hub = (await datasette.client.get("/-/benchmark.json")).json()
    runs = [(r["run"], r["run_date"][:10]) for r in hub["runs"] if r["suite"] == "p"]
    # Newest first, each with its verified date.
    assert runs == [("r-new", "2026-11-01"), ("r-old", "2026-10-01")]
