"""Every published method over the one ledger, computed together from the stored rows (pure), and the
one registry of those methods.

Order: each attempt's task status (``leaderboard.tasks``) and list-price cost
(``leaderboard.prices``) first; then only attempts at tasks that count feed the leaderboards and
every registered method. Attempts at other tasks stay in the ledger with the reason in
``task_status``.

The registry (:data:`METHODS`): a method declares its key, the figures each of its items carries,
its page, its export name and how it is computed from a :class:`Context`. The store
(``leaderboard.store.save_methods``) writes each method's items — to its own table when it names
one, else to the shared ``benchmark_method_items`` table as JSON — and ``leaderboard.views``
reads them back for the export's ``methods`` object and the pages. Adding a method: see
docs/architecture.md, "Add a benchmark method".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from leaderboard.figures import Scored, scored, suite_of
from leaderboard.fitscore import Assessment, assess, rank_fitscores, select
from leaderboard.index import index_entries
from leaderboard.prices import priced
from leaderboard.rs9 import rs9_runs, run_dates
from leaderboard.tasks import task_status


@dataclass
class Context:
    """What every method is computed from: the counted attempts and the ledger's other inputs."""

    attempts: list[Scored]  # attempts at tasks that count (infra errors included, flagged)
    all_rows: list[dict[str, Any]]  # every attempt row, priced, with its task status
    suite_tasks: dict[str, int]  # validated tasks per suite with task records
    run_dates: dict[tuple[str, str, str], str]  # (suite, run, tier) → its earliest attempt's date
    task_records: Sequence[Mapping[str, Any]] = ()
    validated: dict[str, dict[str, str | None]] = field(default_factory=dict)  # suite → counted task → validated_at
    prices: Sequence[Mapping[str, Any]] = ()
    assessments: Sequence[Mapping[str, Any]] = ()
    indexes: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True)
class MethodSpec:
    """One published method: its key, figures, page and export name, and its computation."""

    key: str  # its id: the stored items' method, the registry's key
    export_name: str  # its array in the export's ``methods`` object
    page: str | None  # its page under /-/benchmark (None: shown on the hub only)
    figures: tuple[str, ...]  # the fields each item carries (for the pages and the docs)
    compute: Callable[[Context], list[dict[str, Any]]]
    table: str | None = None  # its own table; None: the shared benchmark_method_items


def assessment_of(row: Mapping[str, Any]) -> tuple[Assessment, dict[str, int]]:
    """A stored assessment row back as the model, with its weights."""
    judgements = json.loads(row["judgements"] or "[]")
    runs = json.loads(row["runs"]) if row.get("runs") else None
    assessment = Assessment.model_validate(
        {
            "agent": row["agent"],
            "suite": row["suite"],
            "tier": row.get("tier"),
            "runs": runs,
            "scores": json.loads(row["scores"] or "{}"),
            "notes": json.loads(row["notes"] or "{}"),
            "published": row["published"],
            "judgement": judgements,
        }
    )
    return assessment, json.loads(row["weights"])


def _rs9(context: Context) -> list[dict[str, Any]]:
    return rs9_runs(context.attempts, context.suite_tasks, context.run_dates, context.validated)


def _indexes(context: Context) -> list[dict[str, Any]]:
    out = []
    for definition in context.indexes:
        suites_of = json.loads(definition["suites"])
        for entry in index_entries(context.attempts, suites_of, context.suite_tasks):
            out.append({"name": definition["name"], "version": definition["version"], "suites": suites_of, **entry})
    return out


def _fitscores(context: Context) -> list[dict[str, Any]]:
    by_suite: dict[str, list[Scored]] = {}
    for attempt in context.attempts:
        by_suite.setdefault(suite_of(attempt.row), []).append(attempt)
    results = []
    for stored in context.assessments:
        assessment, weights = assessment_of(stored)
        tier, runs, chosen = select(assessment, by_suite.get(assessment.suite, []), context.run_dates)
        result = assess(assessment, weights, chosen, tier=tier, runs=runs)
        result["agent_kind"] = "repo" if "/" in assessment.agent else "closed"
        results.append(result)
    rank_fitscores(results)
    return results


METHODS: dict[str, MethodSpec] = {}


def register(spec: MethodSpec) -> MethodSpec:
    """Add a method to the registry (its key and export name must be new)."""
    if spec.key in METHODS or any(m.export_name == spec.export_name for m in METHODS.values()):
        raise ValueError(f"a benchmark method {spec.key!r} (or export name {spec.export_name!r}) is registered")
    METHODS[spec.key] = spec
    return spec


register(
    MethodSpec(
        key="rs9",
        export_name="rs9_runs",
        page="/-/benchmark/runs/{suite}/{run}",
        figures=("tier", "rank", "tasks", "passed", "headline", "partial_credit", "total_cost_usd", "cost_per_pass"),
        compute=_rs9,
        table="benchmark_rs9_runs",
    )
)
register(
    MethodSpec(
        key="index",
        export_name="indexes",
        page="/-/benchmark/index",
        figures=("tier", "rank", "value", "per_suite", "coverage", "mean_cost_usd", "mean_wall_seconds"),
        compute=_indexes,
        table="benchmark_index_entries",
    )
)
register(
    MethodSpec(
        key="fitscore",
        export_name="fitscores",
        page="/-/benchmark/fitscore",
        figures=("tier", "rank", "runs", "criteria", "fitscore", "published", "matches_published"),
        compute=_fitscores,
        table="benchmark_fitscores",
    )
)


@dataclass
class Methods:
    counted_rows: list[dict[str, Any]] = field(default_factory=list)
    suite_tasks: dict[str, int] = field(default_factory=dict)
    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # method key → its items
    attempt_updates: dict[str, tuple[float | None, str | None]] = field(default_factory=dict)

    @property
    def rs9_runs(self) -> list[dict[str, Any]]:
        return self.items.get("rs9", [])

    @property
    def index_entries(self) -> list[dict[str, Any]]:
        return self.items.get("index", [])

    @property
    def fitscores(self) -> list[dict[str, Any]]:
        return self.items.get("fitscore", [])


def compute_methods(
    attempt_rows: Sequence[Mapping[str, Any]],
    *,
    task_records: Sequence[Mapping[str, Any]] = (),
    prices: Sequence[Mapping[str, Any]] = (),
    assessments: Sequence[Mapping[str, Any]] = (),
    indexes: Sequence[Mapping[str, Any]] = (),
) -> Methods:
    """Every registered method's items; ``attempt_rows`` are benchmark_attempts rows (copied, not changed)."""
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
    context = Context(
        attempts=scored(methods.counted_rows),
        all_rows=rows,
        suite_tasks=methods.suite_tasks,
        run_dates=run_dates(rows),
        validated={
            s: {task: r.get("validated_at") for (suite, task), r in records.items() if suite == s and r["counts"]}
            for s in suites
        },
        task_records=task_records,
        prices=prices,
        assessments=assessments,
        indexes=indexes,
    )
    for spec in METHODS.values():
        methods.items[spec.key] = spec.compute(context)
    return methods
