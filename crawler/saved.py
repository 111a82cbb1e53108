"""Saved GitHub search results read back from disk, for ``agentrank import``.

Accepted shapes (a ``.gz`` file is read through gzip):

- a JSON list of search items;
- one saved search response page ``{"total_count", "incomplete_results", "items"}``;
- a JSON list of such pages;
- a single item object;
- JSON Lines, each line an item or a page.

A file that is not one of these is refused as a whole, before anything is written; an item
inside a good file that fails validation is rejected on its own later.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class SavedFileError(ValueError):
    """A file is not saved search results; the message names the file and the problem."""


def _is_page(value: Any) -> bool:
    return isinstance(value, dict) and "items" in value and "id" not in value


def _page_items(page: dict[str, Any], where: str) -> list[Any]:
    items = page["items"]
    if not isinstance(items, list):
        raise SavedFileError(f"{where}: 'items' must be a list, got {type(items).__name__}")
    return items


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SavedFileError(f"{path}: cannot read: {e.strerror or e}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise SavedFileError(f"{path}: broken gzip file: {e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise SavedFileError(f"{path}: not UTF-8 text (byte {e.start})") from None


def read_saved_items(path: str | Path) -> list[tuple[str, Any]]:
    """Every raw item in a saved file as ``(reference, item)``; the reference names file and position."""
    path = Path(path)
    text = _read_text(path)
    if not text.strip():
        raise SavedFileError(f"{path}: the file is empty")
    try:
        documents = [json.loads(text)]
        json_lines = False
    except json.JSONDecodeError as first_error:
        # Not one JSON document: perhaps JSON Lines.
        documents = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                documents.append(json.loads(line))
            except json.JSONDecodeError as line_error:
                # Earlier lines parsed: JSON Lines with one bad line. Otherwise one broken document.
                error, at = (line_error, number) if documents else (first_error, first_error.lineno)
                raise SavedFileError(f"{path}: not valid JSON (line {at}, column {error.colno}: {error.msg})") from None
        json_lines = True
    items: list[tuple[str, Any]] = []
    for doc_number, document in enumerate(documents, 1):
        where = f"{path}:{doc_number}" if json_lines else str(path)
        if _is_page(document):
            items.extend((f"{where}#{i}", item) for i, item in enumerate(_page_items(document, where)))
        elif isinstance(document, list):
            if document and all(_is_page(element) for element in document):
                for page_number, page in enumerate(document):
                    page_where = f"{where}[page {page_number}]"
                    items.extend((f"{page_where}#{i}", item) for i, item in enumerate(_page_items(page, page_where)))
            else:
                items.extend((f"{where}#{i}", item) for i, item in enumerate(document))
        elif isinstance(document, dict) and (json_lines or "id" in document):
            items.append((where, document))
        else:
            raise SavedFileError(
                f"{where}: expected a list of search items or a search response page with 'items', "
                f"got {type(document).__name__ if not isinstance(document, dict) else 'an object without items'}"
            )
    return items


def iter_saved_items(paths: list[str | Path]) -> Iterator[tuple[str, Any]]:
    """All items of all files, each file checked in full before any item is yielded."""
    loaded = [read_saved_items(p) for p in paths]
    for items in loaded:
        yield from items
