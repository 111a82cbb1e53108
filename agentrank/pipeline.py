"""The stages the command line and the scheduler chain: import, classify, score, export, demo.

Each stage records itself in ``runs`` and leaves what was already stored intact when it fails.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank.config import Config
from classify.categories import CATEGORIES
from classify.lexicon import lexicon_category
from crawler.items import ItemRejected, format_timestamp, parse_item, parse_timestamp
from crawler.saved import iter_saved_items
from db.categories import save_categories, save_classifications
from db.export import export_to
from db.repos import SaveCounts, save_rejects, save_repos
from db.runs import finish_run, iso, latest_run, start_run, utcnow
from db.scores import load_score_inputs, publish, save_scores
from scoring.score import compute_scores

log = logging.getLogger("agentrank")
BATCH = 500


class PipelineError(Exception):
    """A stage cannot run (nothing to score, bad --as-of, …); the message says what to do."""


@dataclass
class ImportResult:
    run_id: int
    counts: SaveCounts
    rejected: int
    reasons: dict[str, int] = field(default_factory=dict)


def prepare(db: sqlite_utils.Database) -> None:
    """Idempotent set-up every command runs after opening the database."""
    save_categories(db, CATEGORIES)


def save_items(
    db: sqlite_utils.Database,
    raw_items: Iterable[tuple[str, Any]],
    *,
    run_id: int,
    config: Config,
    source: str,
    seen_at: str,
) -> tuple[SaveCounts, list[dict[str, Any]]]:
    """Validate raw items and save them in batches; rejected items are recorded, the rest kept."""
    counts = SaveCounts()
    rejects: list[dict[str, Any]] = []
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        counts.add(save_repos(db, batch, run_id=run_id, seen_at=seen_at, min_stars=config.crawl.min_stars,
                              source=source))  # fmt: skip
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


def import_files(db: sqlite_utils.Database, paths: list[str | Path], config: Config) -> ImportResult:
    """Load saved search results as one ``import`` run, through the crawler's validation and writers."""
    items = list(iter_saved_items(paths))  # every file is read and checked before anything is written
    started = utcnow()
    run_id = start_run(db, "import", started_at=started, as_of=iso(started),
                       details={"files": [str(p) for p in paths]})  # fmt: skip
    try:
        counts, rejects = save_items(db, items, run_id=run_id, config=config, source="import", seen_at=iso(started))
    except BaseException as e:
        finish_run(db, run_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    reasons: dict[str, int] = {}
    for r in rejects:
        field_name = r["reason"].split(":", 1)[0]
        reasons[field_name] = reasons.get(field_name, 0) + 1
    finish_run(db, run_id, "ok", counts={**counts.as_dict(), "rejected": len(rejects)},
               details={"reject_reasons": reasons})  # fmt: skip
    return ImportResult(run_id=run_id, counts=counts, rejected=len(rejects), reasons=reasons)


def classify_listed(db: sqlite_utils.Database, config: Config, *, parent_id: int | None = None) -> int:
    """Assign a category to every listed repo (placeholder: the topic/phrase lexicon, else 'other')."""
    import json

    run_id = start_run(db, "classify", parent_id=parent_id)
    rows = []
    for repo in db.query("select id, name, description, topics from repos where listed = 1"):
        category = lexicon_category(repo["name"] or "", repo["description"], json.loads(repo["topics"] or "[]"))
        rows.append({
            "repo_id": repo["id"], "category": category or "other", "probability": None, "runner_up": None,
            "runner_up_probability": None, "uncertain": int(category is None), "source": "model",
            "model_version": "lexicon-0", "run_id": run_id, "classified_at": iso(utcnow()),
        })  # fmt: skip
    save_classifications(db, rows)
    finish_run(db, run_id, "ok", counts={"items": len(rows), "saved": len(rows)})
    return run_id


def default_as_of(db: sqlite_utils.Database) -> str:
    run = latest_run(db, ("crawl", "import"))
    if run is None:
        raise PipelineError("nothing to score yet: run `agentrank crawl` or `agentrank import FILE` first")
    return run["started_at"]


def parse_as_of(value: str) -> str:
    try:
        return format_timestamp(parse_timestamp(value))
    except ValueError:
        raise PipelineError(f"--as-of: not an ISO 8601 time: {value!r} (e.g. 2026-11-30T06:00:00Z)") from None


def score(
    db: sqlite_utils.Database,
    *,
    as_of: str | None = None,
    publish_result: bool = True,
    parent_id: int | None = None,
) -> int:
    """Score every listed repo as of ``as_of`` in one ``score`` run; publish it unless told not to."""
    as_of = parse_as_of(as_of) if as_of else default_as_of(db)
    as_of_epoch = int(parse_timestamp(as_of).timestamp())
    inputs, raw = load_score_inputs(db, as_of_epoch)
    if len(inputs) == 0:
        raise PipelineError("no listed repos to score: crawl or import repos with at least min_stars stars first")
    run_id = start_run(db, "score", parent_id=parent_id, as_of=as_of)
    try:
        result = compute_scores(inputs)
        saved = save_scores(db, run_id, as_of, inputs, raw, result)
    except BaseException as e:
        finish_run(db, run_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    finish_run(db, run_id, "ok", counts={"items": saved, "saved": saved})
    if publish_result:
        publish(db, run_id)
    return run_id


def export(db: sqlite_utils.Database, path: str | Path, *, parent_id: int | None = None) -> dict[str, Any]:
    run_id = start_run(db, "export", parent_id=parent_id, details={"path": str(path)})
    try:
        document = export_to(db, path)
    except BaseException as e:
        finish_run(db, run_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    finish_run(db, run_id, "ok", counts={"items": document["count"], "saved": document["count"]})
    return document


def parse_when(value: str) -> datetime:
    return parse_timestamp(value)
