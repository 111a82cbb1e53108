"""Reading the stored benchmark figures back: one agent's summary, and the leaderboards.

Written against a plain ``sqlite3`` connection, so the maker's page in Datasette (through
``execute_fn``) and the site export share this one implementation.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from db.breakdown import resolve_repo
from leaderboard.attempt import TIERS, agent_key

# The figures of an entry or an agent, in the order the export and the maker's page show them.
FIGURES = (
    "attempts",
    "infra_errors",
    "disqualified",
    "timed_out",
    "tasks",
    "solved",
    "mean_score",
    "solve_rate",
    "mean_wall_seconds",
    "median_wall_seconds",
    "wall_unknown",
    "total_cost_usd",
    "cost_unknown",
    "cost_per_solved_task",
    "cost_per_solved_task_null_reason",
    "human_interventions",
    "cost_lower_bound",
    "cost_source",
    "cost_per_attempt",
    "agent_errors",
    "error_reasons",
)
ENTRY_FIELDS = (
    "rank",
    "agent",
    "agent_kind",
    "agent_version",
    "model",
    "first_date",
    "last_date",
    "version_changed",
    "previous_version",
    "latest",
    *FIGURES,
    "suite",
    "settings",
    "tasks_total",
    "coverage",
    "incomplete",
    "solve_rate_low",
    "solve_rate_high",
    "overlaps_next",
    "pareto",
)
TOTAL_FIELDS = ("agent", "agent_kind", "versions", "latest_version", "first_date", "last_date", *FIGURES)
TASK_FIELDS = (
    "task_id",
    "attempts",
    "infra_errors",
    "disqualified",
    "solved",
    "mean_score",
    "solve_rate",
    "min_score",
    "median_score",
    "max_score",
    "mean_wall_seconds",
)


def no_runs(agent: str) -> dict[str, Any]:
    """What :func:`benchmark_summary` returns for an agent that has never been run."""
    return {"agent": agent, "runs": False, "tiers": {}}


def _query(conn: sqlite3.Connection, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, list(params))
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, values, strict=False)) for values in cursor]


def _entry(row: dict[str, Any]) -> dict[str, Any]:
    out = {name: row[name] for name in ENTRY_FIELDS}
    out["version_changed"] = bool(out["version_changed"])
    out["latest"] = bool(out["latest"])
    out["settings"] = json.loads(out["settings"] or "{}")
    out["cost_lower_bound"] = bool(out["cost_lower_bound"])
    out["error_reasons"] = json.loads(out["error_reasons"] or "[]")
    for name in ("overlaps_next", "pareto"):
        out[name] = None if out[name] is None else bool(out[name])
    return out


def _where_agents(names: list[str] | None) -> tuple[str, list[str]]:
    if names is None:
        return "", []
    return "where agent collate nocase in ({})".format(", ".join("?" for _ in names)), list(names)


def _summaries(conn: sqlite3.Connection, names: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """The summary of every agent with attempts (or of ``names`` only), keyed by agent_key."""
    where, params = _where_agents(names)
    tasks: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in _query(conn, f"select * from benchmark_tasks {where} order by task_id", params):
        key = (row["tier"], agent_key(row["agent"]), row["agent_version"], row["model"], row["suite"], row["settings"])
        tasks.setdefault(key, []).append({name: row[name] for name in TASK_FIELDS})
    out: dict[str, dict[str, Any]] = {}
    for row in _query(conn, f"select * from benchmark_agents {where}", params):
        totals = {name: row[name] for name in TOTAL_FIELDS}
        totals["versions"] = json.loads(totals["versions"])
        totals["cost_lower_bound"] = bool(totals["cost_lower_bound"])
        totals["error_reasons"] = json.loads(totals["error_reasons"] or "[]")
        summary = out.setdefault(agent_key(row["agent"]), {"agent": row["agent"], "runs": True, "tiers": {}})
        summary["tiers"][row["tier"]] = {"totals": totals, "entries": []}
    entries_sql = f"select * from benchmark_entries {where} order by first_date, last_date, agent_version, model"
    for row in _query(conn, entries_sql, params):
        key = (row["tier"], agent_key(row["agent"]), row["agent_version"], row["model"], row["suite"], row["settings"])
        out[key[1]]["tiers"][row["tier"]]["entries"].append({**_entry(row), "per_task": tasks.get(key, [])})
    for summary in out.values():
        summary["tiers"] = {tier: summary["tiers"][tier] for tier in TIERS if tier in summary["tiers"]}
    return out


def _names(conn: sqlite3.Connection, full_name: str) -> list[str]:
    """The name asked for, then the repo's current name and its earlier names, newest first."""
    names = [full_name]
    repo = resolve_repo(conn, full_name)
    if repo is not None:
        names.append(repo["full_name"])
        earlier = conn.execute(
            "select full_name from repo_names where repo_id = ? order by last_seen_at desc", [repo["id"]]
        )
        names.extend(name for (name,) in earlier)
    return list(dict.fromkeys(names))


def benchmark_summary(conn: sqlite3.Connection, full_name: str) -> dict[str, Any]:
    """An agent's benchmark figures per tier and per entry (agent version on a model).

    ``full_name`` is a directory repo (found under its current or an earlier name) or a closed
    agent's name. The result always has ``agent``, ``runs`` (False when the agent has no
    attempts: then ``tiers`` is empty) and ``tiers``: ``{tier: {"totals": {...}, "entries":
    [{..., "per_task": [...]}]}}``, tiers in the order verified, community, entries oldest run first.
    """
    names = _names(conn, full_name)
    summaries = _summaries(conn, names)
    for name in names:
        if agent_key(name) in summaries:
            return summaries[agent_key(name)]
    return no_runs(full_name)


def benchmarks_by_repo(conn: sqlite3.Connection) -> dict[int, dict[str, Any]]:
    """Each directory repo's benchmark summary (as :func:`benchmark_summary`), for repos with runs."""
    summaries = _summaries(conn)
    if not summaries:
        return {}
    names: dict[int, list[str]] = {}
    for repo_id, name in conn.execute("select id, full_name from repos"):
        names[repo_id] = [name]
    for repo_id, name in conn.execute("select repo_id, full_name from repo_names order by last_seen_at desc"):
        names.setdefault(repo_id, []).append(name)
    found = {}
    for repo_id, candidates in names.items():
        match = next((agent_key(n) for n in candidates if agent_key(n) in summaries), None)
        if match is not None:
            found[repo_id] = summaries[match]
    return found


def leaderboards(conn: sqlite3.Connection) -> dict[str, list[dict[str, Any]]]:
    """Each tier's entries in leaderboard order; entries with no counted attempt come last, unranked."""
    boards: dict[str, list[dict[str, Any]]] = {tier: [] for tier in TIERS}
    sql = "select * from benchmark_entries order by tier, suite, rank is null, rank, agent, agent_version, model"
    for row in _query(conn, sql):
        boards[row["tier"]].append(_entry(row))
    return boards
