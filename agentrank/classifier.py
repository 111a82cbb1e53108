"""``agentrank classify``: the category stage, and category corrections shown at once."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlite_utils

from classify.categories import CATEGORY_IDS, CATEGORY_NAMES
from classify.examples import ClassifyError, Example, load_training_examples
from classify.text import RepoText, normalise_topics
from db.breakdown import resolve_repo
from db.categories import (
    classification_state,
    listed_category_counts,
    load_category_corrections,
    mark_for_reclassification,
    repo_name,
    repo_texts,
    save_category_corrections,
    save_classifications,
    stored_classifications,
)
from db.runs import iso, recorded_run, utcnow

if TYPE_CHECKING:
    from classify.model import Prediction


@dataclass
class ClassifyResult:
    run_id: int
    listed: int
    saved: int
    uncertain: int
    corrections: int
    model_version: str
    training_examples: int
    train_seconds: float
    categories: list[tuple[str, int]]  # (category, listed repos in it), largest first
    model_loaded: bool = False  # the model came from the disk cache (trained by an earlier process)

    def summary(self) -> str:
        how = "loaded from the model cache" if self.model_loaded else f"in {self.train_seconds:.1f}s"
        line = (
            f"classify run {self.run_id}: {self.saved} of {self.listed} listed repos classified "
            f"({self.uncertain} uncertain, {self.corrections} corrections known), "
            f"model {self.model_version} trained on {self.training_examples} examples {how}"
        )
        if self.categories:
            line += "\ncategories: " + ", ".join(f"{c} {n}" for c, n in self.categories)
        return line


@dataclass
class CorrectionResult:
    saved: int
    applied: int  # repos in the database whose category now shows the correction
    pending: list[str]  # names not in the database yet: applied once a crawl brings them
    removed: list[str]


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
        if repo_id is None or repo_name(db.conn, repo_id) is None:
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
    ids = sorted(corrections)
    return [
        Example(repo["full_name"], _repo_text(repo), corrections[repo["id"]])
        for repo in repo_texts(db.conn, repo_ids=ids)
    ]


def _shown(kind: str, text: str) -> str:
    if kind == "topic":
        return f"topic `{text}`"
    if kind == "name":
        return f"name word '{text}'"
    if kind == "rule":
        return text
    return f"'{text}'"


# A runner-up with at least this probability is called a close second in the category's reason.
CLOSE_SECOND_AT = 0.2


def category_reason(prediction: Prediction) -> dict[str, Any]:
    """Why the model chose the category: the features and rules that put it ahead of the runner-up,
    as stored in ``repo_categories.reason`` and exported as ``category_reason``."""
    parts = [_shown(kind, text) for kind, text in prediction.because]
    text = "because: " + ", ".join(parts) if parts else "no single word decided it"
    if prediction.runner_up:
        name = CATEGORY_NAMES.get(prediction.runner_up, prediction.runner_up)
        # "Close" only when it was: most runners-up are far behind (below 1 % for most repos), and a
        # maker reads "close second" as "nearly the other category". Half the winner's probability
        # is close too (0.14 behind 0.17).
        second = prediction.runner_up_probability or 0
        close = second >= CLOSE_SECOND_AT or second >= prediction.probability / 2
        text += f"; close second: {name}" if close else f"; next likeliest, far behind: {name}"
    return {"text": text, "because": [list(pair) for pair in prediction.because], "runner_up": prediction.runner_up}


def _model_row(repo_id: int, prediction: Prediction, uncertain_below: float) -> dict[str, Any]:
    return {
        "repo_id": repo_id,
        "category": prediction.category,
        "probability": prediction.probability,
        "runner_up": prediction.runner_up,
        "runner_up_probability": prediction.runner_up_probability,
        "uncertain": int(prediction.probability < uncertain_below),
        "source": "model",
        "reason": json.dumps(category_reason(prediction), ensure_ascii=False),
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
        "reason": None,
    }


def _stored_guess(row: dict[str, Any] | None) -> Prediction | None:
    """The model's last word on a repo, from its stored row (a correction row keeps it as runner-up)."""
    if row is None:
        return None
    from classify.model import Prediction  # NumPy and SciPy: imported when a model is needed

    if row["source"] == "model":
        return Prediction(row["category"], row["probability"], row["runner_up"], row["runner_up_probability"])
    if row["runner_up"]:
        return Prediction(row["runner_up"], row["runner_up_probability"], None, None)
    return None


def classify_listed(
    db: sqlite_utils.Database,
    *,
    uncertain_below: float,
    parent_id: int | None = None,
    only_changed: bool = False,
    cross_validate: bool = False,
) -> ClassifyResult:
    """Train the category model (bundled examples plus corrections) and classify every listed repo.

    Corrections override the model (source ``correction``); a model probability below
    ``uncertain_below`` marks the category uncertain. With ``only_changed`` only repos that are
    new, whose name, description or topics changed, or that an older model classified are redone.
    With ``cross_validate`` the run also records the model's 5-fold cross-validated accuracy on the
    same examples (``cv_accuracy``), which the score's validation block publishes.
    """
    from classify.model import trained  # NumPy and SciPy (scikit-learn only to train): imported when needed

    with recorded_run(db, "classify", parent_id=parent_id, details={"only_changed": only_changed}) as run:
        corrections = _resolved_corrections(db)
        examples = load_training_examples() + _correction_examples(db, corrections)
        model = trained(examples)
        done = classification_state(db.conn) if only_changed else {}
        todo = []
        listed = 0
        for repo in repo_texts(db.conn):
            listed += 1
            text = _repo_text(repo)
            digest = _input_hash(text)
            if done.get(repo["id"]) != (model.version, digest):
                todo.append((repo["id"], text, digest))
        classified_at = iso(utcnow())
        rows = []
        for (repo_id, _, digest), prediction in zip(todo, model.predict([text for _, text, _ in todo]), strict=True):
            corrected = corrections.get(repo_id)
            row = (
                _correction_row(repo_id, corrected, prediction)
                if corrected
                else _model_row(repo_id, prediction, uncertain_below)
            )
            row.update(model_version=model.version, input_hash=digest, run_id=run.id, classified_at=classified_at)
            rows.append(row)
        save_classifications(db, rows)
        uncertain = sum(r["uncertain"] for r in rows)
        run.counts = {"items": listed, "saved": len(rows)}
        run.details = {
            "model_version": model.version,
            "training_examples": model.examples,
            "corrections": len(corrections),
            "uncertain": uncertain,
            "unchanged": listed - len(rows),
            "train_seconds": round(model.train_seconds, 2),
            "model_loaded": model.loaded,
        }
        if cross_validate:
            from classify.evaluate import CV_FOLDS, READ_BACK
            from classify.evaluate import cross_validate as k_fold

            measured = k_fold(examples, CV_FOLDS)
            run.details |= {
                "cv_accuracy": measured.accuracy,
                "cv_folds": CV_FOLDS,
                "cv_examples": len(examples),
                "cv_loaded": READ_BACK in measured.notes,
            }
    return ClassifyResult(
        run_id=run.id,
        listed=listed,
        saved=len(rows),
        uncertain=uncertain,
        corrections=len(corrections),
        model_version=model.version,
        training_examples=model.examples,
        train_seconds=model.train_seconds,
        categories=listed_category_counts(db.conn),
        model_loaded=model.loaded,
    )


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
    rows: list[dict[str, Any]] = []
    targets: dict[int, str] = {}
    pending: list[str] = []
    for key, value in corrections.items():
        category, why = value if isinstance(value, tuple) else (value, reason)
        if category not in CATEGORY_IDS:
            raise ClassifyError(
                f"category correction for {key}: unknown category {category!r} (one of: {', '.join(CATEGORY_IDS)})"
            )
        repo_id: int | None
        if isinstance(key, int):
            name = repo_name(db.conn, key)
            if name is None:
                raise ClassifyError(f"category correction for repo id {key}: no such repo in the database")
            repo_id, full_name = key, name
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
    stored = stored_classifications(db.conn)
    if removed:
        dropped = [i for i, r in stored.items() if r["source"] == "correction" and i not in targets]
        mark_for_reclassification(db, dropped)
    # Shown at once; the next classify run trains on them and gives these rows its model version.
    unversioned = {"model_version": None, "input_hash": None, "run_id": None, "classified_at": now}
    save_classifications(
        db,
        [
            {**_correction_row(repo_id, category, _stored_guess(stored.get(repo_id))), **unversioned}
            for repo_id, category in targets.items()
        ],
    )
    return CorrectionResult(saved=len(rows), applied=len(targets), pending=pending, removed=removed)
