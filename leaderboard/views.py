"""Reading the methods' stored figures back, for the export's ``methods`` and the Datasette pages.

Written against a plain ``sqlite3`` connection (as ``leaderboard.summary``), JSON columns parsed,
flags as booleans, so the pages and the export show the same items.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def _query(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params if isinstance(params, dict) else list(params))
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, values, strict=False)) for values in cursor]


RS9_FIELDS = (
    "suite",
    "run",
    "rank",
    "agent",
    "agent_kind",
    "agent_version",
    "model",
    "settings",
    "attempted",
    "tasks",
    "tasks_total",
    "coverage",
    "infra_errors",
    "passed",
    "headline",
    "partial_credit",
    "total_cost_usd",
    "cost_unknown",
    "cost_lower_bound",
    "cost_per_pass",
    "version_changed",
    "previous_version",
    "previous_model",
    "solve_rate_low",
    "solve_rate_high",
    "overlaps_next",
    "pareto",
)
INDEX_FIELDS = (
    "rank",
    "agent",
    "agent_kind",
    "agent_version",
    "model",
    "settings",
    "value",
    "null_reason",
    "per_suite",
    "mean_cost_usd",
    "mean_tokens",
    "mean_wall_seconds",
)
_BOOLEANS = ("cost_lower_bound", "version_changed", "matches_published", "has_runs", "overlaps_next", "pareto")
_JSON = ("flags", "settings", "per_suite", "suites", "criteria", "derived", "weights", "judgements", "notes", "results")


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for name in _JSON:
        if isinstance(row.get(name), str):
            row[name] = json.loads(row[name])
    for name in _BOOLEANS:
        if name in row and row[name] is not None:
            row[name] = bool(row[name])
    return row


def rs9_runs(
    conn: sqlite3.Connection, suite: str | None = None, run: str | None = None, results: bool = False
) -> list[dict[str, Any]]:
    """RS9 entries, by suite and run (oldest first), ranked entries first; ``results`` adds per-task results."""
    sql = "select * from benchmark_rs9_runs where (:suite is null or suite = :suite) and (:run is null or run = :run)"
    sql += " order by suite, run, rank is null, rank, agent, agent_version, model, settings"
    out = []
    for row in _query(conn, sql, {"suite": suite, "run": run}):
        item = {name: row[name] for name in RS9_FIELDS}
        if results:
            item["results"] = row["results"]
        out.append(_decode(item))
    return out


def run_list(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every suite and dated run with its entry count, newest run first."""
    return _query(
        conn,
        "select suite, run, count(*) as entries, sum(rank is not null) as ranked from benchmark_rs9_runs "
        "group by suite, run order by suite, run desc",
    )


def indexes(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Each configured index with its version, component suites and entries (ranked first)."""
    out = []
    for definition in _query(conn, "select * from benchmark_index_defs order by name"):
        entries = _query(
            conn,
            "select * from benchmark_index_entries where name = ? order by rank is null, rank, agent, settings",
            [definition["name"]],
        )
        out.append(
            {
                "name": definition["name"],
                "version": definition["version"],
                "suites": json.loads(definition["suites"]),
                "entries": [_decode({name: e[name] for name in INDEX_FIELDS}) for e in entries],
            }
        )
    return out


def fitscores(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every assessment: criteria, FitScore, the published figure and whether it recomputes, judgement calls."""
    rows = _query(conn, "select * from benchmark_fitscores order by fitscore is null, fitscore desc, agent, suite")
    return [_decode(dict(row)) for row in rows]


def methods_document(conn: sqlite3.Connection) -> dict[str, Any]:
    """The export's top-level ``methods`` object."""
    return {"rs9_runs": rs9_runs(conn), "indexes": indexes(conn), "fitscores": fitscores(conn)}


def task_page(conn: sqlite3.Connection, suite: str, task_id: str) -> dict[str, Any] | None:
    """A task's validation and every attempt at it (counted or not, with the reason); None when unknown."""
    records = _query(conn, "select * from benchmark_task_records where suite = ? and task_id = ?", [suite, task_id])
    attempts = _query(
        conn,
        "select * from benchmark_attempts where suite = ? and task_id = ? "
        "order by date, agent, agent_version, model, attempt",
        [suite, task_id],
    )
    if not records and not attempts:
        return None
    record = records[0] if records else None
    if record is not None:
        record["per_test"] = json.loads(record["per_test"] or "[]")
        record["counts"] = bool(record["counts"])
    return {"suite": suite, "task_id": task_id, "record": record, "attempts": [_decode(a) for a in attempts]}


def task_list(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every task record with its validation result and the number of attempts at it."""
    return _query(
        conn,
        "select t.suite, t.task_id, t.title, t.hidden_tests, t.baseline_passed, t.reference_passed, t.counts, "
        "t.reason, t.validated_at, (select count(*) from benchmark_attempts a where a.suite = t.suite "
        "and a.task_id = t.task_id) as attempts from benchmark_task_records t order by t.suite, t.task_id",
    )


def agent_methods(conn: sqlite3.Connection, agent: str) -> dict[str, Any]:
    """One agent's figures under each method, for the maker's page (empty lists when it has none)."""
    where = "where agent = ? collate nocase"
    runs = _query(conn, f"select * from benchmark_rs9_runs {where} order by suite, run, agent_version", [agent])
    entries = _query(conn, f"select * from benchmark_index_entries {where} order by name, settings", [agent])
    return {
        "rs9_runs": [_decode({name: r[name] for name in RS9_FIELDS}) for r in runs],
        "indexes": [
            _decode({"name": e["name"], "version": e["version"], **{n: e[n] for n in INDEX_FIELDS}}) for e in entries
        ],
        "fitscores": [_decode(dict(f)) for f in _query(conn, f"select * from benchmark_fitscores {where}", [agent])],
    }
