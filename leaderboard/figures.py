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

Leaderboards rank entries within a tier by mean score (high first), then solve rate (high),
cost per solved task (low; unknown last), mean wall time (low; unknown last), then by name so the
order is stable. An entry whose attempts were all infra errors has no rank.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from leaderboard.attempt import DISQUALIFYING, INFRA_ERROR, TIERS, agent_key

ENTRY_KEY = ("tier", "agent", "agent_version", "model")


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
    if INFRA_ERROR in flags or not tests_total:
        return Result(None, None, False, False)
    return Result(100.0 * tests_passed / tests_total, tests_passed == tests_total, True, False)


def result_of(row: Mapping[str, Any]) -> Result:
    return attempt_result(flags_of(row), row.get("tests_passed"), row.get("tests_total"))


def mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return math.fsum(known) / len(known) if known else None


def median(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(statistics.median(known)) if known else None


def _total(values: list[float | None]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return math.fsum(values)


def _by_task(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[tuple[Mapping[str, Any], Result]]]:
    tasks: dict[str, list[tuple[Mapping[str, Any], Result]]] = {}
    for row in rows:
        tasks.setdefault(row["task_id"], []).append((row, result_of(row)))
    return tasks


def task_results(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per task: counts, the spread of attempt scores (min/median/max) and means."""
    out = []
    for task_id, pairs in sorted(_by_task(rows).items()):
        counted = [(row, r) for row, r in pairs if r.counted]
        scores = [r.score for _, r in counted]
        out.append({
            "task_id": task_id,
            "attempts": len(counted),
            "infra_errors": sum(1 for _, r in pairs if not r.counted),
            "disqualified": sum(1 for _, r in counted if r.disqualified),
            "solved": sum(1 for _, r in counted if r.solved),
            "mean_score": mean(scores),
            "solve_rate": 100.0 * sum(1 for _, r in counted if r.solved) / len(counted) if counted else None,
            "min_score": min(scores) if scores else None,
            "median_score": median(scores),
            "max_score": max(scores) if scores else None,
            "mean_wall_seconds": mean(row.get("wall_seconds") for row, _ in counted),
        })  # fmt: skip
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


def figures(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The benchmark figures of a group of attempts (see the module's docstring for the rules)."""
    pairs = [(row, result_of(row)) for row in rows]
    counted = [row for row, r in pairs if r.counted]
    results = [r for _, r in pairs if r.counted]
    tasks = [t for t in task_results(rows) if t["attempts"]]
    solved = sum(1 for r in results if r.solved)
    costs = [row.get("cost_usd") for row in counted]
    walls = [row.get("wall_seconds") for row in counted]
    total_cost = _total(costs)
    reason = _cost_null_reason(solved, sum(1 for c in costs if c is None), len(counted))
    return {
        "attempts": len(counted),
        "infra_errors": len(pairs) - len(counted),
        "disqualified": sum(1 for r in results if r.disqualified),
        "timed_out": sum(1 for row in counted if "timed-out" in flags_of(row)),
        "tasks": len(tasks),
        "solved": solved,
        "mean_score": mean(t["mean_score"] for t in tasks),
        "solve_rate": mean(t["solve_rate"] for t in tasks),
        "mean_wall_seconds": mean(walls),
        "median_wall_seconds": median(walls),
        "wall_unknown": sum(1 for w in walls if w is None),
        "total_cost_usd": total_cost,
        "cost_unknown": sum(1 for c in costs if c is None),
        "cost_per_solved_task": total_cost / solved if reason is None else None,
        "cost_per_solved_task_null_reason": reason,
        "human_interventions": _total([row.get("human_interventions") for row in counted]),
    }


def _rank_key(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    def low_first(value: float | None) -> float:
        return math.inf if value is None else value

    return (
        -entry["mean_score"],
        -entry["solve_rate"],
        low_first(entry["cost_per_solved_task"]),
        low_first(entry["mean_wall_seconds"]),
        entry["agent"].lower(),
        entry["agent_version"],
        entry["model"],
    )


def rank(entries: list[dict[str, Any]]) -> None:
    """Set ``rank`` on the entries of one tier (None for an entry with no counted attempt)."""
    ranked = sorted((e for e in entries if e["mean_score"] is not None), key=_rank_key)
    for position, entry in enumerate(ranked, 1):
        entry["rank"] = position
    for entry in entries:
        entry.setdefault("rank", None)


def mark_versions(entries: list[dict[str, Any]]) -> None:
    """Mark each entry whose version differs from the agent's previous dated run in the same tier."""
    ordered = sorted(entries, key=lambda e: (e["first_date"], e["last_date"], e["agent_version"], e["model"]))
    latest_version = ordered[-1]["agent_version"]
    previous = None
    for entry in ordered:
        changed = previous is not None and previous["agent_version"] != entry["agent_version"]
        entry["version_changed"] = changed
        entry["previous_version"] = previous["agent_version"] if changed else None
        entry["latest"] = entry["agent_version"] == latest_version
        previous = entry


def _display_name(rows: Sequence[Mapping[str, Any]]) -> str:
    return max(rows, key=lambda r: r["date"])["agent"]


@dataclass
class Boards:
    """Everything the leaderboard tables hold, computed from the attempt rows."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    agents: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)

    def board(self, tier: str) -> list[dict[str, Any]]:
        """The entries of one tier in leaderboard order (unranked entries last)."""
        rows = [e for e in self.entries if e["tier"] == tier]
        return sorted(rows, key=lambda e: (e["rank"] is None, e["rank"] or 0, e["agent"].lower(), e["agent_version"]))


def build_boards(rows: Iterable[Mapping[str, Any]]) -> Boards:
    """Entries (ranked, with version changes marked), per-agent totals and per-task results."""
    by_agent: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        by_agent.setdefault((row["tier"], agent_key(row["agent"])), []).append(row)
    boards = Boards()
    for (tier, _), agent_rows in sorted(by_agent.items(), key=lambda item: (TIERS.index(item[0][0]), item[0][1])):
        name = _display_name(agent_rows)
        kind = "repo" if "/" in name else "closed"
        by_entry: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for row in agent_rows:
            by_entry.setdefault((row["agent_version"], row["model"]), []).append(row)
        entries = []
        for (version, model), entry_rows in sorted(by_entry.items()):
            key = {"tier": tier, "agent": name, "agent_version": version, "model": model}
            dates = [r["date"] for r in entry_rows]
            entries.append({**key, "agent_kind": kind, "first_date": min(dates), "last_date": max(dates),
                            **figures(entry_rows)})  # fmt: skip
            boards.tasks.extend({**key, **task} for task in task_results(entry_rows))
        mark_versions(entries)
        boards.entries.extend(entries)
        ordered = sorted(entries, key=lambda e: (e["first_date"], e["last_date"], e["agent_version"]))
        versions = list(dict.fromkeys(e["agent_version"] for e in ordered))
        boards.agents.append({
            "tier": tier, "agent": name, "agent_kind": kind,
            "versions": versions, "latest_version": versions[-1],
            "first_date": min(r["date"] for r in agent_rows), "last_date": max(r["date"] for r in agent_rows),
            **figures(agent_rows),
        })  # fmt: skip
    for tier in TIERS:
        rank([e for e in boards.entries if e["tier"] == tier])
    return boards
