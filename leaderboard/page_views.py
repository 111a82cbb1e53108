"""Reading the ledger for the benchmark pages only: the hub's counts and leaders, and the
leaderboard entries' cost sources. Like ``leaderboard.views``, written against a plain ``sqlite3``
connection; these readers add no figure to the export.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any


def _query(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, values, strict=False)) for values in cursor]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("select 1 from sqlite_master where type = 'table' and name = ?", [name]).fetchone() is not None


def hub(conn: sqlite3.Connection) -> dict[str, Any]:
    """What the hub counts: each tier's leaderboard entries and who leads each of its suites, the
    suites, scorecard rows and assessments."""
    tiers: dict[str, dict[str, Any]] = {
        "verified": {"entries": 0, "ranked": 0, "leaders": []},
        "community": {"entries": 0, "ranked": 0, "leaders": []},
    }
    if _has_table(conn, "benchmark_entries"):
        for row in _query(
            conn,
            "select tier, count(*) as entries, sum(rank is not null) as ranked from benchmark_entries group by tier",
        ):
            tiers[row["tier"]] = {"entries": row["entries"], "ranked": row["ranked"] or 0, "leaders": []}
        # Who is first on each tier's board for each suite, and the second's mean score (how far ahead).
        for row in _query(
            conn,
            "select tier, suite, agent, agent_version, model, settings, mean_score, "
            "(select max(mean_score) from benchmark_entries second where second.tier = first.tier "
            "and second.suite = first.suite and second.rank = 2) as next_score "
            "from benchmark_entries first where rank = 1 order by tier, suite",
        ):
            row["settings"] = json.loads(row["settings"] or "{}")
            tiers[row["tier"]]["leaders"].append(row)
    suites = [
        row["suite"]
        for row in _query(conn, "select distinct suite from benchmark_rs9_runs where suite is not null order by suite")
    ]
    attempts = conn.execute("select count(*) from benchmark_attempts").fetchone()[0]
    assessed = conn.execute("select count(*) from benchmark_fitscores").fetchone()[0]
    from leaderboard.methods import METHODS

    # Methods registered without a page of their own get the generic one (/-/benchmark/methods/KEY).
    methods = [key for key, spec in METHODS.items() if spec.table is None]
    return {"tiers": tiers, "suites": suites, "attempts": attempts, "assessed": assessed, "methods": methods}


def with_cost_sources(conn: sqlite3.Connection, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leaderboard entries with ``cost_sources``: where their counted attempts' costs come from (raw names)."""
    sources: dict[tuple[Any, ...], list[str]] = {}
    for row in conn.execute(
        "select distinct tier, suite, agent, agent_version, model, settings, "
        "case when cost_usd is null and list_cost_usd is not null then 'api-list-price' else cost_source end "
        "from benchmark_attempts where counted and task_status is null and coalesce(cost_usd, list_cost_usd) is not null "
        "order by 7"
    ):
        sources.setdefault(tuple(row[:6]), []).append(row[6])
    for entry in entries:
        key = (entry["tier"], entry["suite"], entry["agent"], entry["agent_version"], entry["model"], entry["settings"])
        entry["cost_sources"] = sources.get(key, [])
    return entries
