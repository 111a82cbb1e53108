"""The RS9 run view (seed 001): per suite, dated run and entry, pure.

- an entry is one agent version on one model with one set of settings, in one tier (verified and
  community runs are never pooled: a run is ranked within one tier);
- ``tasks``: tasks with a counted attempt (infra errors are out: "a score out of fewer tasks");
- a task is *passed* when every counted attempt at it passed (all hidden tests, not disqualified,
  not timed out: a time-out counts as not passed);
- ``headline`` = 100 · passed / tasks, with its 95 % Wilson interval (``solve_rate_low``/``_high``:
  of the tasks passed, not the attempts); ``partial_credit`` = mean over tasks of the share of checks
  passed (a disqualified attempt 0), in percent;
- ``total_cost_usd``: sum over counted attempts, null when any is unknown ("price unknown", never
  $0); ``cost_lower_bound`` when any attempt's cost is one; ``cost_per_pass`` = total / passed,
  null when nothing passed or the cost is unknown;
- ``total_list_cost_usd``: the same tokens at the public list price (null when any is unknown),
  beside the billed figure when a router billed less (seed 001's OpenRouter note);
- runs are ordered by date: a run's date is its earliest attempt's in the tier, the run name breaks ties
  (``run-9`` comes before ``run-10`` when it ran first);
- ``version_changed`` when the agent version or model differs from the agent's previous run (by
  date) in the suite and tier (the entry with the same settings in that run, when there is one);
- ranked within the suite, run and tier by headline, then partial credit (compared exactly), then
  agent name, version, model and settings, among entries that attempted every task of the run
  (``leaderboard.fairness``; a task whose only attempts were infrastructure errors is not one); an entry that lost more than a third of its attempts to infrastructure
  errors is ranked on the tasks left and keeps its ``incomplete`` note (the seed: infrastructure
  errors are "not counted for or against the agent, so a score can be out of fewer").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from leaderboard.fairness import exact, per, rank_board, run_order
from leaderboard.figures import (
    Scored,
    _total,
    agent_key,
    cost_source,
    error_reasons,
    mean,
    scored,
    settings_of,
    suite_of,
)
from leaderboard.fitscore import is_pass


def _task(task_id: str, attempts: list[Scored]) -> dict[str, Any]:
    counted = [a for a in attempts if a.result.counted]
    shares = [a.result.score for a in counted]
    return {
        "task_id": task_id,
        "attempts": len(counted),
        "infra_errors": len(attempts) - len(counted),
        "passed": bool(counted) and all(is_pass(a) for a in counted),
        "partial_credit": mean(shares),
        "tests": [f"{a.row.get('tests_passed')}/{a.row.get('tests_total')}" for a in counted],
        "flags": sorted({f for a in attempts for f in a.flags}),
        "cost_usd": _total([a.row.get("cost_usd") for a in counted]),
        "list_cost_usd": _total([a.row.get("list_cost_usd") for a in counted]),
        "cost_source": sorted({a.row["cost_source"] for a in counted if a.row.get("cost_source")}),
        "cost_lower_bound": any(a.row.get("cost_lower_bound") for a in counted),
        "wall_seconds": mean(a.row.get("wall_seconds") for a in counted),
    }


def run_entry(attempts: list[Scored]) -> dict[str, Any]:
    """One entry's figures in one run."""
    by_task: dict[str, list[Scored]] = {}
    for attempt in attempts:
        by_task.setdefault(attempt.row["task_id"], []).append(attempt)
    results = [_task(task_id, group) for task_id, group in sorted(by_task.items())]
    counted_tasks = [t for t in results if t["attempts"]]
    counted = [a for a in attempts if a.result.counted]
    passed = sum(1 for t in counted_tasks if t["passed"])
    total = _total([a.row.get("cost_usd") for a in counted])
    first = attempts[0].row
    return {
        "suite": suite_of(first),
        "run": run_of(first),
        "tier": first["tier"],
        "agent": first["agent"],
        "agent_kind": "repo" if "/" in first["agent"] else "closed",
        "agent_version": first["agent_version"],
        "model": first["model"],
        "settings": settings_of(first),
        "attempted": len(results),
        "tasks": len(counted_tasks),
        "attempts": len(counted),
        "solved": sum(1 for a in counted if is_pass(a)),
        "infra_errors": len(attempts) - len(counted),
        "passed": passed,
        "headline": 100.0 * passed / len(counted_tasks) if counted_tasks else None,
        "partial_credit": mean(t["partial_credit"] for t in counted_tasks),
        "total_cost_usd": total,
        "cost_unknown": sum(1 for a in counted if a.row.get("cost_usd") is None),
        "cost_lower_bound": any(a.row.get("cost_lower_bound") for a in counted),
        "cost_per_pass": per(total, passed),
        "cost_source": cost_source(counted),
        "total_list_cost_usd": _total([a.row.get("list_cost_usd") for a in counted]),
        "agent_errors": sum(1 for a in counted if "agent-error" in a.flags),
        "error_reasons": error_reasons(attempts),
        "first_date": min(str(a.row["date"]) for a in attempts),
        "last_date": max(str(a.row["date"]) for a in attempts),
        "results": results,
    }


def run_of(row: Mapping[str, Any]) -> str:
    return row.get("run") or str(row["date"])[:10]


def run_dates(rows: Iterable[Mapping[str, Any] | Scored]) -> dict[tuple[str, str, str], str]:
    """Each (suite, run, tier)'s date: its earliest attempt's in that tier (counted or not). Per tier, so
    a community record filed under a verified run's name never moves the verified run in time."""
    dates: dict[tuple[str, str, str], str] = {}
    for attempt in scored(rows):
        key = (suite_of(attempt.row), run_of(attempt.row), attempt.row["tier"])
        date = str(attempt.row["date"])
        if key not in dates or date < dates[key]:
            dates[key] = date
    return dates


def _rank_key(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        -exact(entry["headline"]),
        -exact(entry["partial_credit"] or 0.0),
        entry["agent"].lower(),
        entry["agent_version"],
        entry["model"],
        entry["settings"],
    )


def mark_changes(entries: list[dict[str, Any]]) -> None:
    """version_changed against the agent's previous run in the same suite and tier.

    The previous run is the agent's latest earlier run (by date, see :func:`run_order`) in the
    suite and tier; within it, the entry with the same settings when there is one, else every entry
    of the agent in that run: the version or the model changed when the pair is not among theirs.
    """
    by_agent: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for entry in entries:
        by_agent.setdefault((entry["suite"], entry["tier"], agent_key(entry["agent"])), []).append(entry)
    for history in by_agent.values():
        dated = {e["run"]: e.get("run_date") for e in history}
        runs = sorted(dated, key=lambda run: run_order(run, dated[run]))
        for entry in history:
            entry["version_changed"], entry["previous_version"], entry["previous_model"] = False, None, None
            position = runs.index(entry["run"])
            if position == 0:
                continue
            previous = [e for e in history if e["run"] == runs[position - 1]]
            same = [e for e in previous if e["settings"] == entry["settings"]] or previous
            if (entry["agent_version"], entry["model"]) not in {(e["agent_version"], e["model"]) for e in same}:
                entry["version_changed"] = True
                entry["previous_version"], entry["previous_model"] = same[0]["agent_version"], same[0]["model"]


_COVERED = "_tasks_of_the_set_attempted"  # for ranking only, not a published figure


def rs9_runs(
    rows: Iterable[Mapping[str, Any] | Scored],
    suite_tasks: Mapping[str, int] | None = None,
    dates: Mapping[tuple[str, str, str], str] | None = None,
    validated: Mapping[str, Mapping[str, str | None]] | None = None,
) -> list[dict[str, Any]]:
    """Every entry of every suite, run and tier, ranked within its run and tier, version changes marked.

    ``validated`` gives, per suite with task records, each counted task's ``validated_at`` (None when
    not given): a run's task set is the tasks validated by the day of its last attempt, plus any task
    attempted in it. A run is a dated snapshot (seed 001): a task added to the suite later does not
    unrank the entries of the runs before it.
    """
    attempts = scored(rows)
    dates = {**run_dates(attempts), **(dates or {})}
    groups: dict[tuple[str, str, str, str, str, str, str], list[Scored]] = {}
    for attempt in attempts:
        row = attempt.row
        key = (
            suite_of(row),
            run_of(row),
            row["tier"],
            agent_key(row["agent"]),
            row["agent_version"],
            row["model"],
            settings_of(row),
        )
        groups.setdefault(key, []).append(attempt)
    entries = [run_entry(group) for _, group in sorted(groups.items())]
    for entry in entries:
        entry["run_date"] = dates[(entry["suite"], entry["run"], entry["tier"])]
    mark_changes(entries)
    boards: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for entry in entries:
        boards.setdefault((entry["suite"], entry["run"], entry["tier"]), []).append(entry)
    for (suite, _, _), board in boards.items():
        # Without task records the run's task set is every task someone on the board attempted: two
        # entries that tried different halves each covered half of it, not "all" of a smaller set.
        # A task whose only attempts were lost to infrastructure errors is in no one's set: those
        # count "neither for nor against" the agent (seed 001), so against the others neither.
        task_set = {t["task_id"] for e in board for t in e["results"] if t["attempts"]}
        total = (suite_tasks or {}).get(suite, len(task_set))
        if validated is not None and suite in validated:
            last_day = max(e["last_date"] for e in board)[:10]
            task_set |= {t for t, when in validated[suite].items() if when is None or when[:10] <= last_day}
            total = len(task_set)
        known = suite not in (suite_tasks or {}) or (validated is not None and suite in validated)
        for entry in board:
            # A task of the set lost to an infra error still counts as attempted (a score out of
            # fewer tasks, not a partial entry); one outside the set covers nothing.
            tried = {t["task_id"] for t in entry["results"]}
            entry[_COVERED] = len(tried & task_set) if known else len(tried)
        rank_board(
            board,
            total,
            _rank_key,
            "headline",
            covered=_COVERED,
            rank_incomplete=True,
            interval_of=("passed", "tasks"),
        )
        for entry in board:
            del entry[_COVERED]
    return entries
