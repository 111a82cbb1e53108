"""Labelled examples: the training set bundled in ``classify/data/`` and CSV files to evaluate on."""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from classify.categories import CATEGORY_IDS
from classify.text import RepoText

TRAINING_FILE = "training.csv"
HELD_OUT_FILE = "holdout.csv"
REQUIRED_COLUMNS = ("full_name", "description", "category")


class ClassifyError(Exception):
    """A labelled file or a correction cannot be used; the message says which and why."""


@dataclass(frozen=True)
class Example:
    full_name: str
    repo: RepoText
    category: str


def training_bytes() -> bytes:
    return resources.files("classify").joinpath("data", TRAINING_FILE).read_bytes()


def training_fingerprint() -> str:
    return hashlib.sha256(training_bytes()).hexdigest()


def load_training_examples() -> list[Example]:
    """The project's own labelled set (real agent repos described in the project's words)."""
    return parse_labelled_csv(training_bytes().decode("utf-8"), f"classify/data/{TRAINING_FILE}")


def load_held_out_examples() -> list[Example]:
    """Examples written like the training set but never trained on: an honest check of the wording
    the model has not seen."""
    data = resources.files("classify").joinpath("data", HELD_OUT_FILE).read_text(encoding="utf-8")
    return parse_labelled_csv(data, f"classify/data/{HELD_OUT_FILE}")


def read_labelled_csv(path: str | Path) -> list[Example]:
    """A CSV with columns full_name, description, category and optionally topics."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ClassifyError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise ClassifyError(f"{path}: not UTF-8 text") from None
    except OSError as e:
        raise ClassifyError(f"{path}: cannot read: {e.strerror}") from None
    return parse_labelled_csv(text, str(path))


def parse_labelled_csv(text: str, where: str) -> list[Example]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = [c.strip() for c in reader.fieldnames or []]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise ClassifyError(
            f"{where}: missing column(s) {', '.join(missing)} (need full_name, description, category; topics optional)"
        )
    reader.fieldnames = columns
    examples = []
    try:
        for row in reader:
            line = reader.line_num
            full_name = (row.get("full_name") or "").strip()
            category = (row.get("category") or "").strip()
            if not full_name:
                raise ClassifyError(f"{where} line {line}: empty full_name")
            if category not in CATEGORY_IDS:
                raise ClassifyError(
                    f"{where} line {line}: unknown category {category!r} for {full_name} "
                    f"(one of: {', '.join(CATEGORY_IDS)})"
                )
            repo = RepoText.from_full_name(full_name, row.get("description"), row.get("topics"))
            examples.append(Example(full_name, repo, category))
    except csv.Error as e:
        raise ClassifyError(f"{where} line {reader.line_num}: not valid CSV: {e}") from None
    if not examples:
        raise ClassifyError(f"{where}: no labelled rows")
    return examples
