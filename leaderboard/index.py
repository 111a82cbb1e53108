"""An equal-weight index over suites (seed 003), pure.

Per entry (agent version, model and settings; every tier's counted attempts): the per-suite score
is the suite's mean score (``leaderboard.figures``: mean over tasks of the task's mean attempt
score; disqualified and reward-hacking attempts score 0). The index value is the plain mean of the
per-suite scores over the index's suites, null with a reason when a suite has no counted attempt
for the entry. Efficiency figures are means per counted attempt across the index's suites, with
unknown values left out (never counted as 0): cost, tokens (input + output, when both are known)
and wall time. Entries with a value are ranked by it (high first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from leaderboard.figures import Scored, agent_key, figures, mean, scored, settings_of, suite_of


def _tokens(row: Mapping[str, Any]) -> int | None:
    tokens_in, tokens_out = row.get("tokens_input"), row.get("tokens_output")
    return None if tokens_in is None or tokens_out is None else tokens_in + tokens_out


def index_entries(rows: Iterable[Mapping[str, Any] | Scored], suites: Sequence[str]) -> list[dict[str, Any]]:
    """Every entry with an attempt in one of ``suites``, its per-suite scores, value and efficiency."""
    groups: dict[tuple[str, str, str, str], list[Scored]] = {}
    for attempt in scored(rows):
        row = attempt.row
        if suite_of(row) in suites:
            key = (agent_key(row["agent"]), row["agent_version"], row["model"], settings_of(row))
            groups.setdefault(key, []).append(attempt)
    entries = []
    for _, attempts in sorted(groups.items()):
        first = max(attempts, key=lambda a: a.row["date"]).row
        per_suite: dict[str, float | None] = {}
        for suite in suites:
            per_suite[suite] = figures([a for a in attempts if suite_of(a.row) == suite])["mean_score"]
        missing = [s for s, v in per_suite.items() if v is None]
        counted = [a.row for a in attempts if a.result.counted]
        entries.append(
            {
                "agent": first["agent"],
                "agent_kind": "repo" if "/" in first["agent"] else "closed",
                "agent_version": first["agent_version"],
                "model": first["model"],
                "settings": settings_of(first),
                "value": None if missing else mean(per_suite.values()),
                "null_reason": f"no counted attempt in {', '.join(missing)}" if missing else None,
                "per_suite": per_suite,
                "mean_cost_usd": mean(r.get("cost_usd") for r in counted),
                "mean_tokens": mean(_tokens(r) for r in counted),
                "mean_wall_seconds": mean(r.get("wall_seconds") for r in counted),
            }
        )
    ranked = sorted((e for e in entries if e["value"] is not None), key=lambda e: (-e["value"], e["agent"].lower()))
    for position, entry in enumerate(ranked, 1):
        entry["rank"] = position
    for entry in entries:
        entry.setdefault("rank", None)
    return entries
