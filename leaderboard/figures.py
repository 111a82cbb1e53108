"""The benchmark figures: pure functions over attempt rows, no database.

The rules, in one place:

- an attempt's score is the percentage of hidden tests passed; 100 % is *solved*;
- a disqualifying flag (modified-tests, added-dependency, reward-hacking) scores 0, is never
  solved, and the attempt stays counted and visible with its flag;
- an infra-error attempt (not disqualified) counts neither for nor against: it is left out of
  every figure except the ``infra_errors`` count;
- a missing measurement (time, cost, interventions) is null, never 0 and never estimated;
  means and medians skip nulls, and a total is null when any part of it is unknown.

Per group of attempts (an *entry* = one agent version on one model in one tier; or all of an
agent's attempts in a tier):

- ``mean_score`` and ``solve_rate`` weigh every task the same, however often it was attempted:
  the mean over tasks of the task's mean score (of the task's share of solved attempts);
- ``mean_wall_seconds`` / ``median_wall_seconds`` are over attempts with a measured time;
- ``total_cost_usd`` is the sum over attempts, null when any cost is unknown;
- ``cost_per_solved_task`` = total cost / solved attempts, null when nothing was solved or any
  cost is unknown, and ``cost_per_solved_task_null_reason`` says which.

Leaderboards rank entries within a tier and suite by mean score (high first), then solve rate
(high), cost per solved task (low; unknown last), mean wall time (low; unknown last), then by name
so the order is stable. Only entries that attempted the board's whole task set are ranked (see
``leaderboard.fairness``); an entry whose attempts were all infra errors has no rank. An entry is
one agent version on one model with one set of settings: variants stay apart.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from leaderboard.attempt import AGENT_ERROR, DEFAULT_SUITE, DISQUALIFYING, INFRA_ERROR, TIERS, agent_key
from leaderboard.fairness import exact, money, natural_key, per, rank_board


class Result(NamedTuple):
    score: float | None  # percent of hidden tests passed; None when the attempt does not count
    solved: bool | None
    counted: bool
    disqualified: bool


def flags_of(row: Mapping[str, Any]) -> list[str]:
    flags = row.get("flags") or []
    return json.loads(flags) if isinstance(flags, str) else list(flags)


def attempt_result(flags: Iterable[str], tests_passed: int | None, tests_total: int | None) -> Result:
    flags = set(flags)
    if flags & DISQUALIFYING:
        return Result(0.0, False, True, True)
    if INFRA_ERROR in flags:
        return Result(None, None, False, False)
    if AGENT_ERROR in flags:  # the agent itself failed to run properly: a fail, scored on what it left
        score = 100.0 * tests_passed / tests_total if tests_total and tests_passed is not None else 0.0
        return Result(score, False, True, False)
    if not tests_total:
        return Result(None, None, False, False)
    assert tests_passed is not None, "tests_passed is given whenever tests_total is"
    return Result(100.0 * tests_passed / tests_total, tests_passed == tests_total, True, False)


def result_of(row: Mapping[str, Any]) -> Result:
    return Scored.of(row).result


# A stored measurement past this is not one (the import refuses far smaller values); the figures
# treat it as unknown, so one bad row can never make a sum overflow and wedge the ledger.
_IMPLAUSIBLE = 1e15


def _measured(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return value if abs(value) <= _IMPLAUSIBLE else None
    return None


def mean(values: Iterable[float | None]) -> float | None:
    known = [m for m in map(_measured, values) if m is not None]
    return math.fsum(known) / len(known) if known else None


def median(values: Iterable[float | None]) -> float | None:
    known = [m for m in map(_measured, values) if m is not None]
    return float(statistics.median(known)) if known else None


def _total(values: Sequence[float | None]) -> float | None:
    """The sum, null when any value is unknown; as :func:`money` (0.1 + 0.2 is 0.3 here, not the
    0.30000000000000004 of binary floating point)."""
    known = [m for m in map(_measured, values) if m is not None]
    if not values or len(known) < len(values):
        return None
    return money(math.fsum(known))


def money_mean(values: Iterable[float | None]) -> float | None:
    """The mean of the known values, as :func:`money` (a mean cost)."""
    known = [m for m in map(_measured, values) if m is not None]
    return per(_total(known), len(known)) if known else None


class Scored(NamedTuple):
    """An attempt row with its flags read and its result worked out, once."""

    row: Mapping[str, Any]
    flags: frozenset[str]
    result: Result

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Scored:
        flags = frozenset(flags_of(row))
        return cls(row, flags, attempt_result(flags, row.get("tests_passed"), row.get("tests_total")))


def scored(rows: Iterable[Mapping[str, Any] | Scored]) -> list[Scored]:
    return [r if isinstance(r, Scored) else Scored.of(r) for r in rows]


def task_results(rows: Iterable[Mapping[str, Any] | Scored]) -> list[dict[str, Any]]:
    """One row per task: counts, the spread of attempt scores (min/median/max) and means."""
    by_task: dict[str, list[Scored]] = {}
    for attempt in scored(rows):
        by_task.setdefault(attempt.row["task_id"], []).append(attempt)
    out = []
    for task_id, attempts in sorted(by_task.items()):
        counted = [a for a in attempts if a.result.counted]
        scores = [a.result.score for a in counted if a.result.score is not None]  # a counted attempt has one
        solved = sum(1 for a in counted if a.result.solved)
        out.append(
            {
                "task_id": task_id,
                "attempts": len(counted),
                "infra_errors": len(attempts) - len(counted),
                "disqualified": sum(1 for a in counted if a.result.disqualified),
                "solved": solved,
                "mean_score": mean(scores),
                "solve_rate": 100.0 * solved / len(counted) if counted else None,
                "min_score": min(scores) if scores else None,
                "median_score": median(scores),
                "max_score": max(scores) if scores else None,
                "mean_wall_seconds": mean(a.row.get("wall_seconds") for a in counted),
            }
        )
    return out


def _cost_null_reason(solved: int, unknown: int, attempts: int) -> str | None:
    reasons = []
    if attempts == 0:
        return "no counted attempts"
    if solved == 0:
        reasons.append("nothing solved")
    if unknown:
        reasons.append(f"cost unknown for {unknown} of {attempts} attempts")
    return "; ".join(reasons) or None


def figures(rows: Iterable[Mapping[str, Any] | Scored]) -> dict[str, Any]:
    """The benchmark figures of a group of attempts (see the module's docstring for the rules)."""
    attempts = scored(rows)
    counted = [a for a in attempts if a.result.counted]
    tasks = [t for t in task_results(counted) if t["attempts"]]
    solved = sum(1 for a in counted if a.result.solved)
    costs = [_measured(a.row.get("cost_usd")) for a in counted]
    walls = [_measured(a.row.get("wall_seconds")) for a in counted]
    total_cost = _total(costs)
    reason = _cost_null_reason(solved, sum(1 for c in costs if c is None), len(counted))
    return {
        "attempts": len(counted),
        "infra_errors": len(attempts) - len(counted),
        "disqualified": sum(1 for a in counted if a.result.disqualified),
        "timed_out": sum(1 for a in counted if "timed-out" in a.flags),
        "tasks": len(tasks),
        "solved": solved,
        "mean_score": mean(t["mean_score"] for t in tasks),
        "solve_rate": mean(t["solve_rate"] for t in tasks),
        "mean_wall_seconds": mean(walls),
        "median_wall_seconds": median(walls),
        "wall_unknown": sum(1 for w in walls if w is None),
        "total_cost_usd": total_cost,
        "cost_unknown": sum(1 for c in costs if c is None),
        "cost_per_solved_task": per(total_cost, solved) if reason is None else None,
        "cost_per_solved_task_null_reason": reason,
        "human_interventions": _total([a.row.get("human_interventions") for a in counted]),
        "cost_lower_bound": any(a.row.get("cost_lower_bound") for a in counted),
        "cost_source": cost_source(counted),
        "cost_per_attempt": per(total_cost, len(counted)),
        "agent_errors": sum(1 for a in counted if AGENT_ERROR in a.flags),
        "error_reasons": error_reasons(attempts),
    }


def cost_source(attempts: Iterable[Scored]) -> str | None:
    """Where the costs come from, printed next to them: the distinct sources, comma-separated."""
    sources = sorted({a.row["cost_source"] for a in attempts if a.row.get("cost_source")})
    return ", ".join(sources) or None


def error_reasons(attempts: Iterable[Scored]) -> list[dict[str, Any]]:
    """Attempts left out (infra errors) and agent errors, grouped by kind and reason, with counts."""
    counts: dict[tuple[str, str], int] = {}
    for attempt in attempts:
        kind = INFRA_ERROR if not attempt.result.counted else AGENT_ERROR if AGENT_ERROR in attempt.flags else None
        if kind is not None:
            reason = str(attempt.row.get("error_detail") or "no detail given")
            counts[(kind, reason)] = counts.get((kind, reason), 0) + 1
    return [{"kind": k, "reason": r, "attempts": n} for (k, r), n in sorted(counts.items())]


def _rank_key(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    def low_first(value: float | None) -> float:
        return math.inf if value is None else exact(value)

    return (
        -exact(entry["mean_score"]),
        -exact(entry["solve_rate"]),
        low_first(entry["cost_per_solved_task"]),
        low_first(entry["mean_wall_seconds"]),
        entry["agent"].lower(),
        entry["agent_version"],
        entry["model"],
        entry.get("settings", "{}"),
    )


def rank(entries: list[dict[str, Any]], task_total: int) -> None:
    """Rank one board's entries: only those covering its task set (``task_total`` tasks)."""
    rank_board(entries, task_total, _rank_key, "mean_score")


def suite_of(row: Mapping[str, Any]) -> str:
    return row.get("suite") or DEFAULT_SUITE


def settings_of(row: Mapping[str, Any]) -> str:
    settings = row.get("settings")
    return settings if isinstance(settings, str) else json.dumps(settings or {}, sort_keys=True, ensure_ascii=False)


def mark_versions(entries: list[dict[str, Any]]) -> None:
    """Mark each entry whose version differs from the agent's previous dated run in the same tier."""
    # same dates: versions in the order a reader counts them (1.9 before 1.10)
    ordered = sorted(
        entries,
        key=lambda e: (
            e["first_date"],
            e["last_date"],
            natural_key(e["agent_version"]),
            e["agent_version"],
            e["model"],
        ),
    )
    latest_version = ordered[-1]["agent_version"]
    previous: dict[str, Any] | None = None
    for entry in ordered:
        changed = previous is not None and previous["agent_version"] != entry["agent_version"]
        entry["version_changed"] = changed
        entry["previous_version"] = previous["agent_version"] if previous is not None and changed else None
        entry["latest"] = entry["agent_version"] == latest_version
        previous = entry


@dataclass
class Boards:
    """Everything the leaderboard tables hold, computed from the attempt rows."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    agents: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)


def build_boards(rows: Iterable[Mapping[str, Any]], suite_tasks: Mapping[str, int] | None = None) -> Boards:
    """Entries (ranked, with version changes marked), per-agent totals and per-task results.

    ``suite_tasks`` gives the size of the task set of each suite with task records (its validated
    tasks); other suites' task set is every task attempted on the board.
    """
    by_agent: dict[tuple[str, str], list[Scored]] = {}
    for attempt in scored(rows):
        by_agent.setdefault((attempt.row["tier"], agent_key(attempt.row["agent"])), []).append(attempt)
    boards = Boards()
    for (tier, _), attempts in sorted(by_agent.items(), key=lambda item: (TIERS.index(item[0][0]), item[0][1])):
        # Names differing only in case are one repo; show the spelling of its latest attempt.
        name = max(attempts, key=lambda a: a.row["date"]).row["agent"]
        kind = "repo" if "/" in name else "closed"
        by_entry: dict[tuple[str, str, str, str], list[Scored]] = {}
        for attempt in attempts:
            variant = (suite_of(attempt.row), attempt.row["agent_version"], attempt.row["model"])
            by_entry.setdefault((*variant, settings_of(attempt.row)), []).append(attempt)
        entries = []
        for (suite, version, model, settings), entry_attempts in sorted(by_entry.items()):
            key = {"tier": tier, "suite": suite, "agent": name, "agent_version": version, "model": model}
            key["settings"] = settings
            dates = [a.row["date"] for a in entry_attempts]
            entries.append(
                {
                    **key,
                    "agent_kind": kind,
                    "first_date": min(dates),
                    "last_date": max(dates),
                    **figures(entry_attempts),
                }
            )
            boards.tasks.extend({**key, **task} for task in task_results(entry_attempts))
        for suite in sorted({e["suite"] for e in entries}):
            mark_versions([e for e in entries if e["suite"] == suite])
        boards.entries.extend(entries)
        ordered = sorted(entries, key=lambda e: (e["first_date"], e["last_date"], e["agent_version"]))
        versions = list(dict.fromkeys(e["agent_version"] for e in ordered))
        boards.agents.append(
            {
                "tier": tier,
                "agent": name,
                "agent_kind": kind,
                "versions": versions,
                "latest_version": versions[-1],
                "first_date": min(e["first_date"] for e in entries),
                "last_date": max(e["last_date"] for e in entries),
                **figures(attempts),
            }
        )
    for tier in TIERS:
        for suite in sorted({e["suite"] for e in boards.entries if e["tier"] == tier}):
            board = [e for e in boards.entries if (e["tier"], e["suite"]) == (tier, suite)]
            attempted = {
                t["task_id"] for t in boards.tasks if (t["tier"], t["suite"]) == (tier, suite) and t["attempts"]
            }
            rank(board, (suite_tasks or {}).get(suite, len(attempted)))
    return boards
