"""Labelled examples: the training set bundled in ``classify/data/`` and CSV files to evaluate on."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from classify.categories import CATEGORY_IDS, category_id
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
    # A labeller's recorded second choice (a defensible other answer), when the file has one.
    second: str | None = None


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


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ClassifyError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise ClassifyError(f"{path}: not UTF-8 text") from None
    except IsADirectoryError:
        raise ClassifyError(f"{path}: a folder, not a file") from None
    except OSError as e:
        raise ClassifyError(f"{path}: cannot read: {e.strerror}") from None


def read_labelled_csv(
    path: str | Path, texts: RepoTexts | None = None, *, missing: list[str] | None = None
) -> list[Example]:
    """A CSV with columns full_name, category and description, optionally topics and
    second_category (a recorded second choice). Without a description column the name,
    description and topics come from ``texts`` (:func:`read_repo_texts`); the names ``texts``
    lacks are refused, or with ``missing`` appended to it and left out (unless all are)."""
    path = Path(path)
    return parse_labelled_csv(_read_text(path), str(path), texts, missing=missing)


# full_name (lower case) → its text; with a ``source`` column, also (full_name, source) → the text
# that source saw (a repo's description can differ between snapshots).
RepoTexts = dict[str | tuple[str, str], RepoText]


class _Twice(ValueError):
    pass


def _no_key_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _Twice(key)
        seen.add(key)
    return dict(pairs)


def _json(text: str, path: Path) -> Any:
    """The file's JSON, or one line saying why not: as ``import`` reads saved results, an object
    with a key twice (which value was meant is unknowable) or nesting past what a parser can walk
    is refused, not read in part or answered with a traceback."""
    try:
        return json.loads(text, object_pairs_hook=_no_key_twice)
    except _Twice as e:
        raise ClassifyError(f"{path}: not valid JSON: an object has the key {str(e)!r} twice") from None
    except RecursionError:
        raise ClassifyError(f"{path}: not valid JSON: nested too deeply") from None
    except ValueError as e:
        raise ClassifyError(f"{path}: not valid JSON: {e}") from None


def _header(reader: csv.DictReader, where: str) -> list[str]:
    """The CSV's column names, stripped; one line when the header itself is not valid CSV or names
    a column twice (which of the two was meant is unknowable)."""
    try:
        columns = [c.strip() for c in reader.fieldnames or []]
    except csv.Error as e:
        raise ClassifyError(f"{where} line 1: not valid CSV: {e}") from None
    twice = sorted({c for c in columns if c and columns.count(c) > 1})
    if twice:
        raise ClassifyError(f"{where} line 1: the column {twice[0]!r} is named twice")
    return columns


def read_repo_texts(path: str | Path) -> RepoTexts:
    """Names, descriptions and topics of repos, by full_name: a CSV with full_name, description and
    optionally topics and source, or a JSON list of GitHub search items (or an object with
    ``items``)."""
    path = Path(path)
    text = _read_text(path)
    texts: RepoTexts = {}
    if text.lstrip().startswith(("[", "{")):
        data = _json(text, path)
        items = data.get("items") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise ClassifyError(f"{path}: expected a list of repos (or an object with items)")
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("full_name"), str):
                name = item["full_name"]
                description = item.get("description") if isinstance(item.get("description"), str) else ""
                topics = item.get("topics") if isinstance(item.get("topics"), list) else None
                texts.setdefault(name.lower(), RepoText.from_full_name(name, description, topics))
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        columns = _header(reader, str(path))
        absent = [c for c in ("full_name", "description") if c not in columns]
        if absent:
            raise ClassifyError(f"{path}: missing column(s) {' and '.join(absent)} (need full_name and description)")
        reader.fieldnames = columns
        try:
            for row in reader:
                name = (row.get("full_name") or "").strip()
                if not name:
                    continue
                repo = RepoText.from_full_name(name, row.get("description"), row.get("topics"))
                texts.setdefault(name.lower(), repo)
                if row.get("source"):
                    texts.setdefault((name.lower(), row["source"].strip()), repo)
        except csv.Error as e:
            raise ClassifyError(f"{path} line {reader.line_num}: not valid CSV: {e}") from None
    if not texts:
        raise ClassifyError(f"{path}: no repos")
    return texts


def parse_labelled_csv(
    text: str, where: str, texts: RepoTexts | None = None, *, missing: list[str] | None = None
) -> list[Example]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = _header(reader, where)
    needed = REQUIRED_COLUMNS if texts is None else ("full_name", "category")
    absent = [c for c in needed if c not in columns]
    if absent:
        raise ClassifyError(
            f"{where}: missing column(s) {', '.join(absent)} (need full_name, description, category; topics optional)"
        )
    from_texts = texts is not None and "description" not in columns
    reader.fieldnames = columns
    examples = []
    unknown = []
    # a repo labelled twice: the same label is one repo (counted once), two labels are refused
    labelled: dict[str, tuple[str, str | None, int]] = {}
    try:
        for row in reader:
            line = reader.line_num
            full_name = (row.get("full_name") or "").strip()
            category = (row.get("category") or "").strip()
            second = (row.get("second_category") or "").strip() or None
            if not full_name:
                raise ClassifyError(f"{where} line {line}: empty full_name")
            if not category:  # an empty cell, or a row shorter than the header
                short = any(value is None for value in row.values())
                why = f" (the row has fewer fields than the header's {len(columns)})" if short else ""
                raise ClassifyError(f"{where} line {line}: no category for {full_name}{why}")
            for label in (category, second):
                if label is not None and category_id(label) is None:
                    raise ClassifyError(
                        f"{where} line {line}: unknown category {label!r} for {full_name} "
                        f"(one of: {', '.join(CATEGORY_IDS)})"
                    )
            # a person's spelling of an id or a display name ("Framework", "Coding agent") is the id
            category = category_id(category) or category
            second = category_id(second) if second is not None else None
            earlier = labelled.get(full_name.lower())
            if earlier is not None:
                if earlier[:2] != (category, second):
                    raise ClassifyError(
                        f"{where} line {line}: {full_name} is labelled again, differently "
                        f"({category!r}; line {earlier[2]} says {earlier[0]!r})"
                    )
                continue
            labelled[full_name.lower()] = (category, second, line)
            # With --repos, a row whose own description is blank takes the texts file's (which
            # was ignored without a word before when the file had a description column at all).
            if from_texts or (texts is not None and not (row.get("description") or "").strip()):
                assert texts is not None
                source = (row.get("source") or "").strip()
                found = texts.get((full_name.lower(), source)) or texts.get(full_name.lower())
                if found is None:
                    unknown.append(full_name)
                    continue
                repo = found
            else:
                repo = RepoText.from_full_name(full_name, row.get("description"), row.get("topics"))
            examples.append(Example(full_name, repo, category, second))
    except csv.Error as e:
        raise ClassifyError(f"{where} line {reader.line_num}: not valid CSV: {e}") from None
    if unknown and (missing is None or not examples):
        raise ClassifyError(
            f"{where}: {len(unknown)} repo(s) without a description in the --repos file, e.g. {unknown[0]}"
        )
    if missing is not None:
        missing.extend(unknown)
    if not examples:
        raise ClassifyError(f"{where}: no labelled rows")
    return examples
