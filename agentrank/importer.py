"""``agentrank import``: saved search results loaded as one ``import`` run, as if crawled."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank.errors import PipelineError
from crawler.items import ItemRejected, parse_item, parse_timestamp
from crawler.saved import iter_saved_items
from db.repos import SaveCounts, newest_snapshot_after, save_rejects, save_repos
from db.runs import iso, recorded_run, utcnow

BATCH = 500


@dataclass
class ImportResult:
    run_id: int
    files: int
    counts: SaveCounts
    rejected: int
    reasons: dict[str, int] = field(default_factory=dict)


def save_items(
    db: sqlite_utils.Database,
    raw_items: Iterable[tuple[str, Any]],
    *,
    run_id: int,
    min_stars: int,
    source: str,
    seen_at: str,
) -> tuple[SaveCounts, list[dict[str, Any]]]:
    """Validate raw items and save them in batches; rejected items are recorded, the rest kept."""
    counts = SaveCounts()
    rejects: list[dict[str, Any]] = []
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        counts.add(save_repos(db, batch, run_id=run_id, seen_at=seen_at, min_stars=min_stars, source=source))
        batch.clear()

    for ref, raw in raw_items:
        try:
            batch.append(parse_item(raw))
        except ItemRejected as e:
            rejects.append({"item_ref": ref, "repo_id": e.repo_id, "full_name": e.full_name, "reason": e.reason})
            counts.items += 1
            continue
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    save_rejects(db, run_id, rejects)
    return counts, rejects


def parse_observed_at(value: str | datetime) -> datetime:
    """``--observed-at`` as a UTC instant (whole seconds); a time without a zone is UTC."""
    if isinstance(value, datetime):
        return parse_timestamp(value.isoformat()).replace(microsecond=0)
    try:
        return parse_timestamp(value).replace(microsecond=0)
    except (ValueError, OverflowError):
        raise PipelineError(f"--observed-at: not an ISO 8601 time: {value!r} (e.g. 2026-11-30T06:00:00Z)") from None


def import_files(
    db: sqlite_utils.Database,
    paths: list[str | Path],
    *,
    min_stars: int,
    observed_at: str | datetime | None = None,
    parent_id: int | None = None,
) -> ImportResult:
    """Load saved search results as one ``import`` run, through the crawler's validation and writers.

    ``observed_at`` is when the results were fetched from GitHub (default: now). It becomes the
    run's time, so the snapshots, the default score ``as_of`` and the 7-/28-day deltas fall on it.
    History is appended, never rewritten: an instant earlier than the newest stored snapshot is
    refused before anything is written (the scores' default ``as_of`` is the latest import's time,
    so every repo's history must run forward together).
    """
    items = list(iter_saved_items(paths))  # every file is read and checked before anything is written
    if observed_at is None:
        started = utcnow()
    else:
        started = parse_observed_at(observed_at)
        later = newest_snapshot_after(db.conn, iso(started))
        if later:
            raise PipelineError(
                f"--observed-at {iso(started)} is earlier than the stored snapshot of {later[0]} observed at "
                f"{later[1]}: history is appended, never rewritten (import older saves first)"
            )
    details = {"files": [str(p) for p in paths]}
    with recorded_run(
        db, "import", parent_id=parent_id, started_at=started, as_of=iso(started), details=details
    ) as run:
        counts, rejects = save_items(
            db, items, run_id=run.id, min_stars=min_stars, source="import", seen_at=iso(started)
        )
        reasons: dict[str, int] = {}
        for r in rejects:
            field_name = r["reason"].split(":", 1)[0]
            reasons[field_name] = reasons.get(field_name, 0) + 1
        run.counts = {**counts.as_dict(), "rejected": len(rejects)}
        run.details = {"reject_reasons": reasons}
    return ImportResult(run_id=run.id, files=len(paths), counts=counts, rejected=len(rejects), reasons=reasons)


def format_summary(result: ImportResult) -> str:
    c = result.counts
    line = (
        f"import run {result.run_id}: {c.items} items from {result.files} file(s): {c.saved} repos saved "
        f"({c.new} new, {c.updated} updated), {result.rejected} rejected, {c.listed} listed"
    )
    if result.reasons:
        line += " — rejects by field: " + ", ".join(f"{k} {v}" for k, v in sorted(result.reasons.items()))
    return line
