"""The ``validation`` table (one row per score run) and what its figures are computed from."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import numpy as np
import sqlite_utils

from db.connection import write_transaction

VALIDATION_COLUMNS = (
    "n",
    "spearman_vs_stars",
    "kendall_tau_vs_previous",
    "previous_run",
    "previous_common",
    "wide_rank_range_share",
    "crawl_run",
    "crawl_coverage",
    "classifier_cv_accuracy",
    "flagged",
    "judged",
)


def run_ranks(conn: sqlite3.Connection, run_id: int) -> dict[int, int]:
    """repo_id → rank in a score run."""
    return dict(conn.execute("select repo_id, rank from scores where run_id = ?", [run_id]).fetchall())


def crawl_coverage(conn: sqlite3.Connection) -> dict[str, Any]:
    """Items received against GitHub's ``total_count`` over the finished query parts of the latest
    successful crawl: ``{"crawl_run", "coverage", "parts", "incomplete_parts", "reason"}``."""
    row = conn.execute("select id from runs where kind = 'crawl' and status = 'ok' order by id desc limit 1").fetchone()
    if row is None:
        return {"crawl_run": None, "coverage": None, "reason": "no crawl yet (imported results carry no total_count)"}
    parts = conn.execute(
        "select coalesce(sum(min(items, total_count)), 0), coalesce(sum(total_count), 0), count(*), "
        "coalesce(sum(incomplete), 0) from crawl_parts where run_id = ? and state = 'done'",
        [row[0]],
    ).fetchone()
    seen, total, count, incomplete = parts
    if not total:
        return {"crawl_run": row[0], "coverage": None, "parts": count, "reason": "the crawl recorded no total_count"}
    return {
        "crawl_run": row[0],
        "coverage": seen / total,
        "parts": count,
        "incomplete_parts": incomplete,
        "reason": None,
    }


def classifier_accuracy(conn: sqlite3.Connection) -> dict[str, Any]:
    """The classifier's cross-validated accuracy as the latest classify run measured it (an older
    run's figure is another model's: with the setting turned off, the figure is null again)."""
    for (details,) in conn.execute(
        "select details from runs where kind = 'classify' and status = 'ok' order by id desc limit 1"
    ):
        value = json.loads(details or "{}").get("cv_accuracy")
        if isinstance(value, int | float):
            return {"accuracy": float(value), "reason": None}
    return {
        "accuracy": None,
        "reason": (
            "no classify run measured it: set `cross_validate = true` under [classify] to measure it on "
            "every classify run (some seconds for a new model, then read back from the model cache)"
        ),
    }


def save_validation(db: sqlite_utils.Database, run_id: int, figures: dict[str, Any], details: dict[str, Any]) -> None:
    row = {"run_id": run_id, **{c: figures.get(c) for c in VALIDATION_COLUMNS}}
    row["details"] = json.dumps(details, sort_keys=True)
    for key, value in row.items():
        if isinstance(value, np.generic):
            row[key] = value.item()
    with write_transaction(db):
        db.table("validation").upsert(row, pk="run_id")


def load_validation(conn: sqlite3.Connection, run_id: int | None = None) -> dict[str, Any] | None:
    """A score run's validation figures (default: the published run's), details included; None when
    the run has none (scored before validation existed)."""
    if run_id is None:
        found = conn.execute("select score_run_id from published where id = 1").fetchone()
        if not found or found[0] is None:
            return None
        run_id = found[0]
    cursor = conn.execute("select * from validation where run_id = ?", [run_id])
    row = cursor.fetchone()
    if row is None:
        return None
    record = dict(zip([d[0] for d in cursor.description], row, strict=True))
    record["details"] = json.loads(record.get("details") or "{}")
    return record
