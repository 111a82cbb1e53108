"""Reading the methods' stored figures back, for the export's ``methods`` and the Datasette pages.

Written against a plain ``sqlite3`` connection (as ``leaderboard.summary``), JSON columns parsed,
flags as booleans, so the pages and the export show the same items.
"""

from __future__ import annotations

import json
import sqlite3
from functools import partial
from typing import Any

from leaderboard.fairness import run_order
from leaderboard.figures import attempt_result


def _query(conn: sqlite3.Connection, sql: str, params: Any = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params if isinstance(params, dict) else list(params))
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, values, strict=False)) for values in cursor]


RS9_FIELDS = (
    "suite",
    "run",
    "run_date",
    "tier",
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
    "incomplete",
    "attempts",
    "infra_errors",
    "agent_errors",
    "error_reasons",
    "passed",
    "headline",
    "partial_credit",
    "total_cost_usd",
    "cost_source",
    "total_list_cost_usd",
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
    "tier",
    "rank",
    "agent",
    "agent_kind",
    "agent_version",
    "model",
    "settings",
    "value",
    "null_reason",
    "per_suite",
    "coverage",
    "incomplete",
    "attempts",
    "infra_errors",
    "mean_cost_usd",
    "cost_source",
    "cost_lower_bound",
    "mean_list_cost_usd",
    "mean_tokens",
    "mean_tokens_input",
    "mean_tokens_cached",
    "mean_tokens_cache_write",
    "mean_tokens_reasoning",
    "mean_tokens_output",
    "mean_wall_seconds",
    "mean_agent_seconds",
)
_BOOLEANS = (
    "cost_lower_bound",
    "version_changed",
    "matches_published",
    "has_runs",
    "overlaps_next",
    "pareto",
    "runs_named",
)
_JSON = (
    "flags",
    "settings",
    "per_suite",
    "suites",
    "criteria",
    "derived",
    "weights",
    "judgements",
    "notes",
    "results",
    "runs",
    "versions",
    "settings_variants",
    "error_reasons",
)


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
    """RS9 entries, by suite and run (oldest first by date, the name breaking ties), then tier (verified
    first), ranked entries first; ``results`` adds per-task results."""
    sql = "select * from benchmark_rs9_runs where (:suite is null or suite = :suite) and (:run is null or run = :run)"
    sql += (
        " order by suite, run_date, run, tier = 'community', rank is null, rank, agent, agent_version, model, settings"
    )
    out = []
    for row in _query(conn, sql, {"suite": suite, "run": run}):
        item = {name: row[name] for name in RS9_FIELDS}
        if results:
            item["results"] = row["results"]
        out.append(_decode(item))
    # same date: run-2 before run-10 (SQL orders names as text); the sort is stable, so each run's
    # entries keep their order
    out.sort(key=lambda e: (e["suite"], run_order(e["run"], e["run_date"])))
    return out


def run_list(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every suite and dated run with its date and entry counts (per tier too), newest run first (by date).

    A run's date is its verified entries' (tiers are dated apart, and a community record filed under a
    verified run's name never moves it); a run only the community ran has the community's date."""
    runs = _query(
        conn,
        "select suite, run, coalesce(min(case when tier = 'verified' then run_date end), min(run_date)) as run_date, "
        "count(*) as entries, sum(rank is not null) as ranked, "
        "sum(tier = 'verified') as verified_entries, sum(tier = 'community') as community_entries "
        "from benchmark_rs9_runs group by suite, run",
    )
    runs.sort(key=lambda r: run_order(r["run"], r["run_date"]), reverse=True)
    runs.sort(key=lambda r: r["suite"])
    return runs


def indexes(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Each configured index with its version, component suites and entries (ranked first)."""
    out = []
    for definition in _query(conn, "select * from benchmark_index_defs order by name"):
        entries = _query(
            conn,
            "select * from benchmark_index_entries where name = ? "
            "order by tier = 'community', rank is null, rank, agent, agent_version, model, settings",
            [definition["name"]],
        )
        history = _query(
            conn,
            "select version, suites, first_seen from benchmark_index_versions where name = ? "
            "order by first_seen is null, first_seen, version",
            [definition["name"]],
        )
        out.append(
            {
                "name": definition["name"],
                "version": definition["version"],
                "suites": json.loads(definition["suites"]),
                "versions": [{**h, "suites": json.loads(h["suites"])} for h in history],
                "entries": [_decode({name: e[name] for name in INDEX_FIELDS}) for e in entries],
            }
        )
    return out


def fitscores(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every assessment, by suite (each suite its own ranking, per tier): criteria, FitScore, the published
    figure and whether it recomputes, judgement calls."""
    rows = _query(
        conn,
        "select * from benchmark_fitscores order by suite, tier = 'community', rank is null, rank, agent",
    )
    return [_decode(dict(row)) for row in rows]


def method_items(conn: sqlite3.Connection, key: str) -> list[dict[str, Any]]:
    """A registered method's items stored in the shared table (a method without a table of its own)."""
    rows = conn.execute("select item from benchmark_method_items where method = ? order by position", [key])
    return [json.loads(item) for (item,) in rows]


# How the export reads each registered method that has a table of its own (others: method_items).
# Each method's items as the export carries them: inputs next to figures (design.md), so an RS9
# entry comes with its per-task results.
EXPORT_READERS: dict[str, Any] = {"rs9": partial(rs9_runs, results=True), "index": indexes, "fitscore": fitscores}


def methods_document(conn: sqlite3.Connection) -> dict[str, Any]:
    """The export's top-level ``methods`` object: every registered method under its export name, and the
    AiFolder scorecards."""
    from leaderboard.methods import METHODS

    document: dict[str, Any] = {}
    for spec in METHODS.values():
        reader = EXPORT_READERS.get(spec.key)
        document[spec.export_name] = reader(conn) if reader is not None else method_items(conn, spec.key)
    document["scorecards"] = scorecards(conn)
    return document


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
    """Every task record with its validation result and the number of attempts at it, then every task
    that has attempts and no record (``recorded`` 0): it counts when its suite has no records at all
    (as before task records), else not. Each has a page, so the hub lists each."""
    return _query(
        conn,
        "select t.suite, t.task_id, t.title, t.hidden_tests, t.baseline_passed, t.reference_passed, t.counts, "
        "t.reason, t.validated_at, (select count(*) from benchmark_attempts a where a.suite = t.suite "
        "and a.task_id = t.task_id) as attempts, 1 as recorded from benchmark_task_records t "
        "union all "
        "select a.suite, a.task_id, null, null, null, null, "
        "not exists (select 1 from benchmark_task_records r where r.suite = a.suite), "
        "case when exists (select 1 from benchmark_task_records r where r.suite = a.suite) "
        "then 'no task record' end, null, count(*), 0 from benchmark_attempts a "
        "where not exists (select 1 from benchmark_task_records r where r.suite = a.suite and r.task_id = a.task_id) "
        "group by a.suite, a.task_id "
        "order by 1, 2",
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


SCORECARD_FIELDS = (
    "attempt",
    "run",
    "date",
    "repo_commit",
    "tests_passed",
    "tests_total",
    "regression_passed",
    "regression_total",
    "wall_seconds",
    "agent_seconds",
    "human_interventions",
    "permission_mode",
    "network_access",
    "unrelated_changes",
    "cost_usd",
    "cost_source",
    "cost_lower_bound",
    "flags",
    "error_detail",
    "log_url",
    "diff_url",
)


def _spread(values: list[float]) -> dict[str, float | None]:
    import statistics

    if not values:
        return {"median": None, "min": None, "max": None}
    return {"median": float(statistics.median(values)), "min": min(values), "max": max(values)}


def scorecards(conn: sqlite3.Connection, suite: str | None = None) -> list[dict[str, Any]]:
    """The AiFolder scorecard (seed 002) per suite, task and entry: every attempt's fields (null: not
    measured), the median and spread (min, max) of the attempts' scores (the ledger's: a disqualified
    attempt scores 0) and of the wall time, the
    starting commit, the raw log and diff links, the cost with its source and rate date (the list
    price's ``from`` date for a list-price cost, else the attempt's date). A task with a record and
    no attempt yet is listed with its protocol and no measurements. A scorecard never ranks."""
    from leaderboard.prices import LIST_PRICE, price_on

    prices = _query(conn, "select * from benchmark_prices")
    attempts = _query(
        conn,
        "select * from benchmark_attempts where (:suite is null or suite = :suite) "
        "order by suite, task_id, tier = 'community', agent, agent_version, model, settings, date, attempt",
        {"suite": suite},
    )
    records = _query(
        conn,
        "select suite, task_id, title, brief_url, hidden_tests, counts, reason from benchmark_task_records "
        "where (:suite is null or suite = :suite) order by suite, task_id",
        {"suite": suite},
    )
    suites: dict[str, dict[str, dict[str, Any]]] = {}
    for record in records:
        tasks = suites.setdefault(record["suite"], {})
        tasks[record["task_id"]] = {**record, "counts": bool(record["counts"]), "entries": {}}
    for row in attempts:
        tasks = suites.setdefault(row["suite"], {})
        task = tasks.setdefault(row["task_id"], {"suite": row["suite"], "task_id": row["task_id"], "entries": {}})
        key = (row["tier"], row["agent"], row["agent_version"], row["model"], row["settings"])
        entry = task["entries"].setdefault(
            key,
            {
                "tier": row["tier"],
                "agent": row["agent"],
                "agent_version": row["agent_version"],
                "model": row["model"],
                "settings": json.loads(row["settings"] or "{}"),
                "attempts": [],
            },
        )
        item = {name: row[name] for name in SCORECARD_FIELDS}
        if item["cost_usd"] is None and row["list_cost_usd"] is not None:
            item["cost_usd"], item["cost_source"] = row["list_cost_usd"], LIST_PRICE
        price = price_on(prices, row["model"], row["date"]) if item["cost_source"] == LIST_PRICE else None
        item["cost_rate_date"] = (
            None if item["cost_usd"] is None else price["from_date"] if price is not None else row["date"][:10]
        )
        item["counted"] = bool(row["counted"]) and row["task_status"] is None
        item["not_counted_reason"] = row["task_status"] or (None if row["counted"] else "infra error")
        entry["attempts"].append(_decode(item))
    out = []
    for suite_name, tasks in sorted(suites.items()):
        task_list_out = []
        for task_id, task in sorted(tasks.items()):
            entries = []
            for entry in task["entries"].values():
                counted = [a for a in entry["attempts"] if a["counted"]]
                # Each attempt's score as the ledger has it everywhere (seed 000): a disqualified one
                # (tests modified, a dependency added, reward hacking) scores 0, an agent error is
                # scored on the tests it left; the attempt's own test counts are shown as recorded.
                results = (attempt_result(a["flags"] or [], a["tests_passed"], a["tests_total"]) for a in counted)
                scores = [r.score for r in results if r.score is not None]
                walls = [a["wall_seconds"] for a in counted if a["wall_seconds"] is not None]
                entries.append(
                    {
                        **entry,
                        "repo_commits": sorted({a["repo_commit"] for a in entry["attempts"] if a["repo_commit"]}),
                        "score": _spread(scores),
                        "wall_seconds": _spread(walls),
                    }
                )
            task_list_out.append(
                {
                    "task_id": task_id,
                    "title": task.get("title"),
                    "brief_url": task.get("brief_url"),
                    "hidden_tests": task.get("hidden_tests"),
                    "measured": bool(entries),
                    "entries": entries,
                }
            )
        out.append({"suite": suite_name, "ranked": False, "tasks": task_list_out})
    return out
