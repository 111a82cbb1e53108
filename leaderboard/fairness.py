"""Fair comparison on a board: same task set, Wilson intervals, the cost–score Pareto frontier.

Pure. Within one board (a tier and suite of the leaderboard, or a suite and run of RS9), an entry
is ranked only when it attempted every task of the board's task set (the suite's validated tasks
when it has task records, else every task any entry attempted); an entry covering part of it is
listed with ``"n of m tasks"`` and no rank. Each solve rate gets a 95 % Wilson score interval over
its counted attempts (solved out of attempted), and ``overlaps_next`` says when a ranked entry's
interval overlaps the next ranked one's: their order may be luck. An entry is on the Pareto
frontier when no other ranked entry with a known cost is both at most as expensive (cost per
counted attempt) and at least as good (mean score), and strictly one of the two.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of successes / trials, in percent; None with no trials."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return 100 * max(0.0, centre - half), 100 * min(1.0, centre + half)


def coverage(attempted: int, total: int) -> str | None:
    """``"n of m tasks"`` for an entry that attempted part of the task set; None when it covers all."""
    return None if attempted >= total else f"{attempted} of {total} tasks"


def rank_board(
    entries: list[dict[str, Any]],
    task_total: int,
    key: Callable[[dict[str, Any]], tuple[Any, ...]],
    score: str,
    covered: str = "tasks",
) -> None:
    """Set rank, tasks_total, coverage, interval, overlaps_next and pareto on one board's entries.

    ``covered`` names the entry's count of tasks attempted (RS9 counts a task lost to an infra
    error as attempted: its score is out of fewer tasks, not a partial entry).
    """
    for entry in entries:
        entry["tasks_total"] = task_total
        entry["coverage"] = coverage(entry[covered], task_total)
        interval = wilson(entry["solved"], entry["attempts"])
        entry["solve_rate_low"], entry["solve_rate_high"] = interval or (None, None)
        entry["rank"] = None
        entry["overlaps_next"] = None
        entry["pareto"] = None
    ranked = sorted((e for e in entries if e[score] is not None and e["coverage"] is None), key=key)
    for position, entry in enumerate(ranked, 1):
        entry["rank"] = position
    for better, worse in zip(ranked, ranked[1:], strict=False):
        if better["solve_rate_low"] is not None and worse["solve_rate_low"] is not None:
            better["overlaps_next"] = int(better["solve_rate_low"] <= worse["solve_rate_high"])
    mark_pareto(ranked, score)


def cost_per_attempt(entry: dict[str, Any]) -> float | None:
    total = entry.get("total_cost_usd")
    return None if total is None or not entry["attempts"] else total / entry["attempts"]


def mark_pareto(entries: list[dict[str, Any]], score: str) -> None:
    """pareto = 1 on the frontier, 0 off it, None when the cost is unknown."""
    known = [(cost_per_attempt(e), e[score], e) for e in entries]
    for cost, value, entry in known:
        if cost is None or value is None:
            entry["pareto"] = None
            continue
        dominated = any(
            c is not None and v is not None and c <= cost and v >= value and (c < cost or v > value)
            for c, v, _ in known
        )
        entry["pareto"] = int(not dominated)
