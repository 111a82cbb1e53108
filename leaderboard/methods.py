"""Every published method over the one ledger, computed together from the stored rows (pure).

Order: each attempt's task status (``leaderboard.tasks``) and list-price cost
(``leaderboard.prices``) first; then only attempts at tasks that count feed the leaderboards, the
RS9 run view, the indexes and the FitScores. Attempts at other tasks stay in the ledger with the
reason in ``task_status``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from leaderboard.attempt import agent_key
from leaderboard.figures import scored
from leaderboard.fitscore import Assessment, assess
from leaderboard.index import index_entries
from leaderboard.prices import priced
from leaderboard.rs9 import rs9_runs
from leaderboard.tasks import task_status


@dataclass
class Methods:
    counted_rows: list[dict[str, Any]] = field(default_factory=list)
    suite_tasks: dict[str, int] = field(default_factory=dict)
    rs9_runs: list[dict[str, Any]] = field(default_factory=list)
    index_entries: list[dict[str, Any]] = field(default_factory=list)
    fitscores: list[dict[str, Any]] = field(default_factory=list)
    attempt_updates: dict[str, tuple[float | None, str | None]] = field(default_factory=dict)


def assessment_of(row: Mapping[str, Any]) -> tuple[Assessment, dict[str, int]]:
    """A stored assessment row back as the model, with its weights."""
    judgements = json.loads(row["judgements"] or "[]")
    assessment = Assessment.model_validate(
        {
            "agent": row["agent"],
            "suite": row["suite"],
            "scores": json.loads(row["scores"] or "{}"),
            "notes": json.loads(row["notes"] or "{}"),
            "published": row["published"],
            "judgement": judgements,
        }
    )
    return assessment, json.loads(row["weights"])


def compute_methods(
    attempt_rows: Sequence[Mapping[str, Any]],
    *,
    task_records: Sequence[Mapping[str, Any]] = (),
    prices: Sequence[Mapping[str, Any]] = (),
    assessments: Sequence[Mapping[str, Any]] = (),
    indexes: Sequence[Mapping[str, Any]] = (),
) -> Methods:
    """Every method's figures; ``rows`` are benchmark_attempts rows (copied, not changed)."""
    rows = [dict(r) for r in attempt_rows]
    records = {(r["suite"], r["task_id"]): r for r in task_records}
    suites = {suite for suite, _ in records}
    priced(rows, prices)
    methods = Methods()
    for row in rows:
        row["task_status"] = task_status(row, records, suites)
        methods.attempt_updates[row["attempt_id"]] = (row["list_cost_usd"], row["task_status"])
    methods.counted_rows = [r for r in rows if r["task_status"] is None]
    methods.suite_tasks = {s: sum(1 for (suite, _), r in records.items() if suite == s and r["counts"]) for s in suites}
    attempts = scored(methods.counted_rows)
    methods.rs9_runs = rs9_runs(attempts, methods.suite_tasks)
    for definition in indexes:
        suites_of = json.loads(definition["suites"])
        for entry in index_entries(attempts, suites_of):
            methods.index_entries.append(
                {"name": definition["name"], "version": definition["version"], "suites": suites_of, **entry}
            )
    by_agent: dict[tuple[str, str], list[Any]] = {}
    for attempt in attempts:
        by_agent.setdefault((agent_key(attempt.row["agent"]), attempt.row.get("suite") or "agentrank"), []).append(
            attempt
        )
    for stored in assessments:
        assessment, weights = assessment_of(stored)
        result = assess(assessment, weights, by_agent.get((agent_key(assessment.agent), assessment.suite), []))
        result["agent_kind"] = "repo" if "/" in assessment.agent else "closed"
        methods.fitscores.append(result)
    return methods
