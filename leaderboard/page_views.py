"""Reading the ledger for the benchmark pages only: the hub's counts, the AiFolder scorecard and
the facts a FitScore page prints beside the figures (each agent's versions and models).

Like ``leaderboard.views``, written against a plain ``sqlite3`` connection; these readers add no
figure to the export (the scorecard is the attempts' own measurements, shown as recorded).
"""

from __future__ import annotations

import json
import sqlite3
from statistics import median
from typing import Any

# How each recorded cost source is printed next to the figure.
COST_SOURCES = {
    "api-list-price": "list price",
    "provider-invoice": "provider invoice",
    "self-reported": "self-reported",
    "provider-dashboard": "dashboard",
}


def _query(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, values, strict=False)) for values in cursor]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("select 1 from sqlite_master where type = 'table' and name = ?", [name]).fetchone() is not None


def hub(conn: sqlite3.Connection) -> dict[str, Any]:
    """What the hub counts: each tier's leaderboard entries, the suites, scorecard rows and assessments."""
    tiers = {"verified": {"entries": 0, "ranked": 0}, "community": {"entries": 0, "ranked": 0}}
    if _has_table(conn, "benchmark_entries"):
        for row in _query(
            conn,
            "select tier, count(*) as entries, sum(rank is not null) as ranked from benchmark_entries group by tier",
        ):
            tiers[row["tier"]] = {"entries": row["entries"], "ranked": row["ranked"] or 0}
    suites = [
        row["suite"]
        for row in _query(conn, "select distinct suite from benchmark_rs9_runs where suite is not null order by suite")
    ]
    attempts = conn.execute("select count(*) from benchmark_attempts").fetchone()[0]
    assessed = conn.execute("select count(*) from benchmark_fitscores").fetchone()[0]
    return {"tiers": tiers, "suites": suites, "attempts": attempts, "assessed": assessed}


def cost_source(cost_usd: float | None, list_cost_usd: float | None, source: str | None) -> str | None:
    """The source printed next to an attempt's cost (the list price when the cost was computed from tokens)."""
    if cost_usd is None:
        return COST_SOURCES["api-list-price"] if list_cost_usd is not None else None
    return COST_SOURCES.get(source or "", source or "source not recorded")


_SCORECARD_SQL = """
select a.*,
  (select max(p.from_date) from benchmark_prices p where p.model = a.model and p.from_date <= a.date) as rate_date
from benchmark_attempts a
order by a.suite, a.task_id, a.agent, a.agent_version, a.model, a.settings, a.tier, a.date, a.attempt
"""


def _measured(attempt: dict[str, Any]) -> bool:
    return any(
        attempt[name] is not None
        for name in ("tests_passed", "tests_total", "wall_seconds", "human_interventions", "cost_usd", "score")
    )


def scorecard(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Seed 002's scorecard: per suite, task and agent variant, each attempt's recorded fields (None where
    not measured), the median and spread of the scores, and each cost with its source and rate date."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for a in _query(conn, _SCORECARD_SQL):
        a["settings"] = json.loads(a["settings"] or "{}")
        a["flags"] = json.loads(a["flags"] or "[]")
        a["measured"] = _measured(a)
        a["shown_cost"] = a["cost_usd"] if a["cost_usd"] is not None else a["list_cost_usd"]
        a["shown_source"] = cost_source(a["cost_usd"], a["list_cost_usd"], a["cost_source"])
        # A list price is dated by the price list in force; an observed cost by the attempt's own date.
        a["shown_rate_date"] = a["rate_date"] if a["cost_usd"] is None else (a["date"] or "")[:10] or None
        key = (
            a["suite"],
            a["task_id"],
            a["tier"],
            a["agent"],
            a["agent_version"],
            a["model"],
            json.dumps(a["settings"]),
        )
        group = groups.setdefault(
            key,
            {
                "suite": a["suite"],
                "task_id": a["task_id"],
                "tier": a["tier"],
                "agent": a["agent"],
                "agent_version": a["agent_version"],
                "model": a["model"],
                "settings": a["settings"],
                "attempts": [],
            },
        )
        group["attempts"].append(a)
    out = []
    for group in groups.values():
        scores = [a["score"] for a in group["attempts"] if a["counted"] and a["score"] is not None]
        walls = [a["wall_seconds"] for a in group["attempts"] if a["counted"] and a["wall_seconds"] is not None]
        group["median_score"] = median(scores) if scores else None
        group["min_score"] = min(scores) if scores else None
        group["max_score"] = max(scores) if scores else None
        group["median_wall_seconds"] = median(walls) if walls else None
        group["measured"] = any(a["measured"] for a in group["attempts"])
        commits = sorted({a["repo_commit"] for a in group["attempts"] if a["repo_commit"]})
        group["repo_commits"] = commits
        out.append(group)
    return out


def agent_versions(conn: sqlite3.Connection) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Each agent's versions and models per suite, as its attempts recorded them, keyed (agent lowercased, suite)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in _query(
        conn,
        "select agent, suite, agent_version, model, min(date) as first_date, count(*) as attempts "
        "from benchmark_attempts group by agent collate nocase, suite, agent_version, model "
        "order by agent, suite, first_date",
    ):
        out.setdefault((row["agent"].lower(), row["suite"]), []).append(row)
    return out


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
