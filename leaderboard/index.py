"""An equal-weight index over suites (seed 003), pure.

Per entry (agent version, model and settings, in one tier: verified and community attempts are
never pooled, and an index ranks within one tier):

- the per-suite component is **pass@1**: the mean over the suite's counted tasks the entry
  attempted of the share of its counted attempts at the task that passed every hidden test
  (reward-hacking and other disqualified attempts, and agent errors, count as not passed;
  infrastructure errors are left out), in percent;
- the index value is the plain mean of the per-suite components over the index's suites, null
  with a reason when a suite has no counted attempt for the entry;
- coverage, as on the leaderboards: in each suite, the entry must have attempted every counted task
  (the suite's validated tasks when it has task records, else every task attempted in that suite
  and tier); an entry that did not is listed with ``coverage`` naming the suites and not ranked,
  and so is an entry with too many infrastructure errors (``leaderboard.fairness.incomplete``);
- efficiency figures are means per counted attempt across the index's suites, unknown values left
  out (never counted as 0): cost (with its sources), each token type (input, cached, cache write,
  reasoning, output, and input + output), wall time and, where reported, agent time;
- ranked by value (high first, compared exactly), then agent name, version, model and settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from leaderboard.fairness import exact, incomplete
from leaderboard.figures import Scored, agent_key, cost_source, mean, money_mean, scored, settings_of, suite_of

TOKEN_TYPES = ("input", "cached", "cache_write", "reasoning", "output")


def _tokens(row: Mapping[str, Any]) -> int | None:
    tokens_in, tokens_out = row.get("tokens_input"), row.get("tokens_output")
    return None if tokens_in is None or tokens_out is None else tokens_in + tokens_out


def pass_at_1(attempts: Iterable[Scored]) -> tuple[float | None, set[str]]:
    """pass@1 in percent over the tasks with a counted attempt, and those tasks."""
    by_task: dict[str, list[bool]] = {}
    for attempt in attempts:
        if attempt.result.counted:
            by_task.setdefault(attempt.row["task_id"], []).append(bool(attempt.result.solved))
    if not by_task:
        return None, set()
    shares = [Fraction(sum(passes), len(passes)) for passes in by_task.values()]
    return float(100 * sum(shares) / len(shares)), set(by_task)


def index_entries(
    rows: Iterable[Mapping[str, Any] | Scored],
    suites: Sequence[str],
    suite_tasks: Mapping[str, int] | None = None,
) -> list[dict[str, Any]]:
    """Every entry with an attempt in one of ``suites``: per-suite pass@1, value, coverage, efficiency, rank."""
    groups: dict[tuple[str, str, str, str, str], list[Scored]] = {}
    for attempt in scored(rows):
        row = attempt.row
        if suite_of(row) in suites:
            key = (row["tier"], agent_key(row["agent"]), row["agent_version"], row["model"], settings_of(row))
            groups.setdefault(key, []).append(attempt)
    # Each tier's task set per suite: the validated tasks' count, else every task attempted there.
    attempted: dict[tuple[str, str], set[str]] = {}
    for (tier, *_), attempts in groups.items():
        for a in attempts:
            if a.result.counted:
                attempted.setdefault((tier, suite_of(a.row)), set()).add(a.row["task_id"])
    entries = []
    for (tier, *_), attempts in sorted(groups.items()):
        first = max(attempts, key=lambda a: a.row["date"]).row
        per_suite: dict[str, float | None] = {}
        short: list[str] = []
        for suite in suites:
            value, tasks = pass_at_1(a for a in attempts if suite_of(a.row) == suite)
            per_suite[suite] = value
            total = (suite_tasks or {}).get(suite, len(attempted.get((tier, suite), ())))
            if value is not None and len(tasks) < total:
                short.append(f"{suite}: {len(tasks)} of {total} tasks")
        missing = [s for s, v in per_suite.items() if v is None]
        counted = [a.row for a in attempts if a.result.counted]
        entry = {
            "tier": tier,
            "agent": first["agent"],
            "agent_kind": "repo" if "/" in first["agent"] else "closed",
            "agent_version": first["agent_version"],
            "model": first["model"],
            "settings": settings_of(first),
            "value": None if missing else mean(per_suite.values()),
            "null_reason": f"no counted attempt in {', '.join(missing)}" if missing else None,
            "per_suite": per_suite,
            "coverage": "; ".join(short) or None,
            "incomplete": incomplete(len(attempts) - len(counted), len(counted)),
            "attempts": len(counted),
            "infra_errors": len(attempts) - len(counted),
            "mean_cost_usd": money_mean(r.get("cost_usd") for r in counted),
            # seed 001: an attempt stopped at its time limit may not have reported its final usage
            "cost_lower_bound": any(r.get("cost_lower_bound") for r in counted),
            "cost_source": cost_source(a for a in attempts if a.result.counted),
            # seed 003's cost: the tokens at the provider's list price, not what a plan or a bill
            # said (attempts without token counts or a price are left out)
            "mean_list_cost_usd": money_mean(r.get("list_cost_usd") for r in counted),
            "mean_tokens": mean(_tokens(r) for r in counted),
            **{f"mean_tokens_{kind}": mean(r.get(f"tokens_{kind}") for r in counted) for kind in TOKEN_TYPES},
            "mean_wall_seconds": mean(r.get("wall_seconds") for r in counted),
            "mean_agent_seconds": mean(r.get("agent_seconds") for r in counted),
            "rank": None,
        }
        entries.append(entry)
    for tier in {e["tier"] for e in entries}:
        ranked = sorted(
            (
                e
                for e in entries
                if e["tier"] == tier and e["value"] is not None and e["coverage"] is None and e["incomplete"] is None
            ),
            key=lambda e: (-exact(e["value"]), e["agent"].lower(), e["agent_version"], e["model"], e["settings"]),
        )
        for position, entry in enumerate(ranked, 1):
            entry["rank"] = position
    return entries
