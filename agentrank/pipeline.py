"""The stages the command line and the scheduler chain: import, classify, score, export, demo.

Each stage records itself in ``runs`` and leaves what was already stored intact when it fails.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank.config import Config
from classify.categories import CATEGORIES, CATEGORY_IDS
from classify.examples import ClassifyError, Example, load_training_examples
from classify.model import Prediction, trained
from classify.text import RepoText, normalise_topics
from crawler.items import ItemRejected, format_timestamp, parse_item, parse_timestamp
from crawler.saved import iter_saved_items
from db.breakdown import resolve_repo
from db.categories import (
    load_category_corrections,
    mark_for_reclassification,
    save_categories,
    save_category_corrections,
    save_classifications,
)
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
        counts.add(
            save_repos(db, batch, run_id=run_id, seen_at=seen_at, min_stars=config.crawl.min_stars, source=source)
        )
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
    run_id = start_run(db, "import", started_at=started, as_of=iso(started), details={"files": [str(p) for p in paths]})
    try:
        counts, rejects = save_items(db, items, run_id=run_id, config=config, source="import", seen_at=iso(started))
    except BaseException as e:
        finish_run(db, run_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    reasons: dict[str, int] = {}
    for r in rejects:
        field_name = r["reason"].split(":", 1)[0]
        reasons[field_name] = reasons.get(field_name, 0) + 1
    finish_run(
        db, run_id, "ok", counts={**counts.as_dict(), "rejected": len(rejects)}, details={"reject_reasons": reasons}
    )
    return ImportResult(run_id=run_id, counts=counts, rejected=len(rejects), reasons=reasons)


def _repo_text(row: dict[str, Any]) -> RepoText:
    return RepoText(
        row["name"] or row["full_name"].rsplit("/", 1)[-1], row["description"] or "", normalise_topics(row["topics"])
    )


def _input_hash(text: RepoText) -> str:
    payload = "\x1f".join([text.name, text.description, *text.topics])
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _resolved_corrections(db: sqlite_utils.Database) -> dict[int, str]:
    """Repo id → corrected category, for every stored correction whose repo is known (renames followed)."""
    resolved: dict[int, str] = {}
    newly_found = []
    for correction in load_category_corrections(db):
        repo_id = correction["repo_id"]
        if repo_id is None or not db.execute("select 1 from repos where id = ?", [repo_id]).fetchone():
            repo = resolve_repo(db.conn, correction["full_name"])
            if repo is None:
                continue
            repo_id = repo["id"]
            newly_found.append({**correction, "repo_id": repo_id})
        resolved[repo_id] = correction["category"]
    if newly_found:
        save_category_corrections(db, newly_found)
    return resolved


def _correction_examples(db: sqlite_utils.Database, corrections: dict[int, str]) -> list[Example]:
    """Corrected repos as extra training examples, with their current name, description and topics."""
    examples = []
    for repo_id, category in sorted(corrections.items()):
        repo = next(db.query("select full_name, name, description, topics from repos where id = ?", [repo_id]))
        examples.append(Example(repo["full_name"], _repo_text(repo), category))
    return examples


def _model_row(repo_id: int, prediction: Prediction, uncertain_below: float) -> dict[str, Any]:
    return {
        "repo_id": repo_id,
        "category": prediction.category,
        "probability": prediction.probability,
        "runner_up": prediction.runner_up,
        "runner_up_probability": prediction.runner_up_probability,
        "uncertain": int(prediction.probability < uncertain_below),
        "source": "model",
    }


def _correction_row(repo_id: int, category: str, guess: Prediction | None) -> dict[str, Any]:
    """The corrected category; what the model would have said stays as the runner-up, so a reviewer
    sees the disagreement."""
    runner_up = runner_up_probability = None
    if guess is not None and guess.category != category:
        runner_up, runner_up_probability = guess.category, guess.probability
    elif guess is not None:
        runner_up, runner_up_probability = guess.runner_up, guess.runner_up_probability
    return {
        "repo_id": repo_id,
        "category": category,
        "probability": 1.0,
        "runner_up": runner_up,
        "runner_up_probability": runner_up_probability,
        "uncertain": 0,
        "source": "correction",
    }


def _stored_guess(row: dict[str, Any] | None) -> Prediction | None:
    """The model's last word on a repo, from its stored row (a correction row keeps it as runner-up)."""
    if row is None:
        return None
    if row["source"] == "model":
        return Prediction(row["category"], row["probability"], row["runner_up"], row["runner_up_probability"])
    if row["runner_up"]:
        return Prediction(row["runner_up"], row["runner_up_probability"], None, None)
    return None


def classify_listed(
    db: sqlite_utils.Database, config: Config, *, parent_id: int | None = None, only_changed: bool = False
) -> int:
    """Train the category model (bundled examples plus corrections) and classify every listed repo.

    Corrections override the model (source ``correction``); a model probability below
    ``classify.uncertain_below`` marks the category uncertain. With ``only_changed`` only repos that
    are new, whose name, description or topics changed, or that an older model classified are redone.
    """
    run_id = start_run(db, "classify", parent_id=parent_id, details={"only_changed": only_changed})
    try:
        corrections = _resolved_corrections(db)
        model = trained(load_training_examples() + _correction_examples(db, corrections))
        done = {}
        if only_changed:
            done = {
                r[0]: (r[1], r[2]) for r in db.execute("select repo_id, model_version, input_hash from repo_categories")
            }
        todo = []
        listed = 0
        for repo in db.query("select id, full_name, name, description, topics from repos where listed = 1 order by id"):
            listed += 1
            text = _repo_text(repo)
            digest = _input_hash(text)
            if done.get(repo["id"]) != (model.version, digest):
                todo.append((repo["id"], text, digest))
        classified_at = iso(utcnow())
        rows = []
        for (repo_id, _, digest), prediction in zip(todo, model.predict([text for _, text, _ in todo]), strict=False):
            corrected = corrections.get(repo_id)
            row = (
                _correction_row(repo_id, corrected, prediction)
                if corrected
                else _model_row(repo_id, prediction, config.classify.uncertain_below)
            )
            rows.append(
                {
                    **row,
                    "model_version": model.version,
                    "input_hash": digest,
                    "run_id": run_id,
                    "classified_at": classified_at,
                }
            )
        save_classifications(db, rows)
    except BaseException as e:
        finish_run(db, run_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    finish_run(
        db,
        run_id,
        "ok",
        counts={"items": listed, "saved": len(rows)},
        details={
            "model_version": model.version,
            "training_examples": model.examples,
            "corrections": len(corrections),
            "uncertain": sum(r["uncertain"] for r in rows),
            "unchanged": listed - len(rows),
            "train_seconds": round(model.train_seconds, 2),
        },
    )
    return run_id


@dataclass
class CorrectionResult:
    saved: int
    applied: int  # repos in the database whose category now shows the correction
    pending: list[str]  # names not in the database yet: applied once a crawl brings them
    removed: list[str]


def apply_category_corrections(
    db: sqlite_utils.Database,
    corrections: Mapping[int | str, str | tuple[str, str | None]],
    *,
    reason: str | None = None,
    replace: bool = False,
) -> CorrectionResult:
    """Store category corrections ({repo id or "owner/repo": category, or (category, reason)}) and
    show them at once.

    They are kept in ``category_corrections``, so every later classify run trains on them and
    overrides the model with them. With ``replace`` they become the whole set (the corrections
    file is the source of truth): repos whose correction was dropped go back to the model on the
    next classify run.
    """
    now = iso(utcnow())
    rows, targets, pending = [], {}, []
    for key, value in corrections.items():
        category, why = value if isinstance(value, tuple) else (value, reason)
        if category not in CATEGORY_IDS:
            raise ClassifyError(
                f"category correction for {key}: unknown category {category!r} (one of: {', '.join(CATEGORY_IDS)})"
            )
        if isinstance(key, int):
            repo = db.execute("select id, full_name from repos where id = ?", [key]).fetchone()
            if repo is None:
                raise ClassifyError(f"category correction for repo id {key}: no such repo in the database")
            repo_id, full_name = repo
        else:
            full_name = key.strip()
            if not re.fullmatch(r"[^/\s]+/[^/\s]+", full_name):
                raise ClassifyError(f"category correction: {key!r} is not an owner/repo name")
            found = resolve_repo(db.conn, full_name)
            repo_id = found["id"] if found else None
        if repo_id is None:
            pending.append(full_name)
        else:
            targets[repo_id] = category
        rows.append(
            {"full_name": full_name, "repo_id": repo_id, "category": category, "reason": why, "updated_at": now}
        )
    removed = save_category_corrections(db, rows, replace=replace)
    stored = {r["repo_id"]: r for r in db.query("select * from repo_categories")}
    if removed:
        dropped = [i for i, r in stored.items() if r["source"] == "correction" and i not in targets]
        mark_for_reclassification(db, dropped)
    # Shown at once; the next classify run trains on them and gives these rows its model version.
    save_classifications(
        db,
        [
            {
                **_correction_row(repo_id, category, _stored_guess(stored.get(repo_id))),
                "model_version": None,
                "input_hash": None,
                "run_id": None,
                "classified_at": now,
            }
            for repo_id, category in targets.items()
        ],
    )
    return CorrectionResult(saved=len(rows), applied=len(targets), pending=pending, removed=removed)


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
