"""Fair comparison on a board: same task set, Wilson intervals, the cost–score Pareto frontier.

Pure. Within one board (a tier and suite of the leaderboard, or a suite and run of RS9), an entry
is ranked only when it attempted every task of the board's task set (the suite's validated tasks
when it has task records, else every task with a counted attempt); an entry covering part of it is
listed with ``"n of m tasks"`` and no rank. Each solve rate gets a 95 % Wilson score interval over
its counted attempts (solved out of attempted), and ``overlaps_next`` says when a ranked entry's
interval overlaps the next ranked one's: their order may be luck. An entry is on the Pareto
frontier when no other ranked entry with a known cost is both at most as expensive (cost per
counted attempt) and at least as good (mean score), and strictly one of the two.

Exact ties: every ranking compares its figures through :func:`exact` (rounded to 9 decimals), so
two values equal in exact arithmetic (1075/12 reached by two different sums) are equal whatever
floating point made of them, and the documented tie-breaks decide.

Infrastructure errors: an entry whose infra errors are more than ``MAX_INFRA_SHARE`` of its
attempts (a third) is *incomplete*: listed with the reason and not ranked, never a clean 100 %
out of the few attempts that ran; except on the RS9 run view, whose seed counts infrastructure
errors neither for nor against the agent: ranked there, the note kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

Z95 = 1.959963984540054
MAX_INFRA_SHARE = Fraction(1, 3)
TIE_DECIMALS = 9


def exact(value: float) -> float:
    """A figure as rankings compare it: rounded to 9 decimals, so floating-point noise never orders a tie."""
    return round(value, TIE_DECIMALS) + 0.0


def money(value: float) -> float:
    """An amount to 15 significant digits: what a few additions or a division leave of binary
    floating point's noise is dropped, so six attempts at $0.10 total $0.6, not 0.6000000000000001.
    (A double holds 15 digits exactly; these sums and ratios of non-negative amounts stay well
    within half a unit of the 15th.)"""
    return float(f"{value:.15g}")


def per(total: float | None, count: int) -> float | None:
    """``total`` / ``count`` (a cost per pass or per attempt), as :func:`money`; null without both."""
    return money(total / count) if total is not None and count else None


def incomplete(infra_errors: int, counted: int) -> str | None:
    """Why an entry is incomplete (too many infrastructure errors); None when it is not."""
    total = infra_errors + counted
    if total and Fraction(infra_errors, total) > MAX_INFRA_SHARE:
        return f"incomplete: {infra_errors} of {total} attempts lost to infrastructure errors (more than a third)"
    return None


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of successes / trials, in percent; None with no trials."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # At none or all solved an end is exactly 0 or 100; floating point leaves it a few 1e-15 off.
    low = 0.0 if successes <= 0 else 100 * max(0.0, centre - half)
    high = 100.0 if successes >= trials else 100 * min(1.0, centre + half)
    return low, high


def coverage(attempted: int, total: int) -> str | None:
    """``"n of m tasks"`` for an entry that attempted part of the task set; None when it covers all."""
    return None if attempted >= total else f"{attempted} of {total} tasks"


def rank_board(
    entries: list[dict[str, Any]],
    task_total: int,
    key: Callable[[dict[str, Any]], tuple[Any, ...]],
    score: str,
    covered: str = "tasks",
    rank_incomplete: bool = False,
    interval_of: tuple[str, str] = ("solved", "attempts"),
) -> None:
    """Set rank, tasks_total, coverage, interval, overlaps_next and pareto on one board's entries.

    ``covered`` names the entry's count of tasks attempted (RS9 counts a task lost to an infra
    error as attempted: its score is out of fewer tasks, not a partial entry). ``rank_incomplete``
    ranks an incomplete entry and keeps its note: seed 001 leaves infrastructure errors out "for or
    against the agent", so its run view ranks a score out of fewer tasks however many were lost.
    ``interval_of`` names the successes and trials the 95 % interval is of: the board's score (RS9's
    headline is tasks passed of tasks, a task passed only when every attempt at it passed, so an
    interval of attempts passed could sit wholly above a headline of 0).
    """
    for entry in entries:
        entry["tasks_total"] = task_total
        entry["coverage"] = coverage(entry[covered], task_total)
        entry["incomplete"] = incomplete(entry["infra_errors"], entry["attempts"])
        interval = wilson(entry[interval_of[0]], entry[interval_of[1]])
        entry["solve_rate_low"], entry["solve_rate_high"] = interval or (None, None)
        entry["rank"] = None
        entry["overlaps_next"] = None
        entry["pareto"] = None
    ranked = sorted(
        (
            e
            for e in entries
            if e[score] is not None and e["coverage"] is None and (rank_incomplete or e["incomplete"] is None)
        ),
        key=key,
    )
    for position, entry in enumerate(ranked, 1):
        entry["rank"] = position
    for better, worse in zip(ranked, ranked[1:], strict=False):
        if better["solve_rate_low"] is not None and worse["solve_rate_low"] is not None:
            better["overlaps_next"] = int(better["solve_rate_low"] <= worse["solve_rate_high"])
    mark_pareto(ranked, score)


def cost_per_attempt(entry: dict[str, Any]) -> float | None:
    total = entry.get("total_cost_usd")
    return per(total, entry["attempts"])


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


def run_order(run: str, date: str | None) -> tuple[Any, ...]:
    """How runs are ordered: by date, the run name only breaking ties, its numbers read as numbers
    (``run-9`` before ``run-10`` on the same date, as a reader would count them)."""
    return (date or "", natural_key(run), run)


def natural_key(name: str) -> tuple[tuple[int, int, str], ...]:
    """``name`` split into text and numbers, so that ``run-9`` sorts before ``run-10``. Numbers are
    ASCII digits only: "²" or "①" pass ``str.isdigit`` but are no number ``int`` reads."""
    return tuple(
        (0, int(part), "") if part.isascii() and part.isdigit() else (1, 0, part.lower())
        for part in re.split(r"([0-9]+)", name)
        if part
    )
