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
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from crawler.items import json_kind


class KeyedMap(dict[str, Any]):
    """A JSON object as read from a file, remembering a key it held twice (JSON keeps the last,
    silently; an item with a key twice is rejected, since which value was meant is unknowable)."""

    duplicate_key: str | None = None

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.duplicate_key is None and key in self:
            self.duplicate_key = key
        super().__setitem__(key, value)


class SavedFileError(ValueError):
    """A file is not saved search results; the message names the file and the problem."""


# Deeper JSON than this is not saved search results (an item is 3 levels deep).
MAX_FILE_NESTING = 64


def _is_page(value: Any) -> bool:
    return isinstance(value, dict) and "items" in value and "id" not in value


# A saved search response page: its items and the two figures GitHub sends with them.
_PAGE_FIELDS = {"items": list, "total_count": int, "incomplete_results": bool}
_JSON_NAMES = {
    list: "a list",
    dict: "an object",
    str: "a string",
    bool: "true/false",
    int: "an integer",
    type(None): "null",
}


def _check_page_field(name: str, kind: type, where: str) -> None:
    """Refuse a page field of the wrong JSON type (a boolean is not a count)."""
    expected = _PAGE_FIELDS[name]
    if kind is not expected:
        article = "a list" if expected is list else "an integer" if expected is int else "true or false"
        got = _JSON_NAMES.get(kind, "a number")
        raise SavedFileError(f"{where}: '{name}' must be {article}, got {got}")


def _page_items(page: dict[str, Any], where: str) -> list[Any]:
    for name in _PAGE_FIELDS:
        if name in page:
            _check_page_field(name, type(page[name]), where)
    items: list[Any] = page["items"]
    return items


@contextmanager
def _open(path: Path) -> Iterator[BinaryIO]:
    """The file's bytes (through gzip when compressed), past a UTF-8 byte-order mark."""
    try:
        raw = path.open("rb")
    except OSError as e:
        raise SavedFileError(f"{path}: cannot read: {e.strerror or e}") from None
    with raw:
        stream: BinaryIO = raw
        if raw.read(2) == b"\x1f\x8b":
            raw.seek(0)
            stream = gzip.GzipFile(fileobj=raw)  # type: ignore[assignment]
        else:
            raw.seek(0)
        if stream.read(3) != b"\xef\xbb\xbf":
            stream.seek(0)
        yield stream


def _error(path: Path, e: BaseException) -> SavedFileError:
    if isinstance(e, (OSError, EOFError)) and not isinstance(e, ijson.JSONError):
        return SavedFileError(f"{path}: broken gzip file: {e}")
    # yajl's messages come as bytes holding the offending text on further lines: keep the first line.
    detail = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], bytes) else str(e)
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    text = detail.strip().splitlines()[0] if detail.strip() else type(e).__name__
    if "utf" in text.lower() or isinstance(e, UnicodeDecodeError):
        return SavedFileError(f"{path}: not UTF-8 text ({text})")
    return SavedFileError(f"{path}: not valid JSON ({text})")


@dataclass
class _Shape:
    """What a file holds, found by one streaming pass over it (nothing is kept but this)."""

    documents: int = 0
    backend: Any = None  # the ijson backend that reads it
    first_kind: str = ""  # "list", "object" or a scalar as json_kind words it
    first_keys: set[str] = field(default_factory=set)
    first_fields: dict[str, type] = field(default_factory=dict)  # a page's fields: the JSON type of each


def _blank(stream: BinaryIO) -> bool:
    while chunk := stream.read(65536):
        if chunk.strip():
            return False
    return True


# A surrogate pair, or a surrogate escape on its own (which the C parser cannot decode faithfully).
_SURROGATE = re.compile(rb"\\u[dD][89aAbB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _replace_lone_surrogates(data: bytes) -> bytes:
    """Lone surrogate escapes become ``\\ufffd`` (what ``clean_text`` makes of them anyway)."""

    def fix(match: re.Match[bytes]) -> bytes:
        text = match.group()
        start = match.start()
        backslashes = start - len(data[max(start - 64, 0) : start].rstrip(b"\\")) - max(start - 64, 0)
        return b"\\ufffd" if len(text) == 6 and backslashes % 2 == 0 else text

    return _SURROGATE.sub(fix, data) if b"\\u" in data else data


class _Escaped:
    """A byte stream with its lone surrogate escapes replaced, read chunk by chunk.

    The C parser is fast but turns a lone surrogate (GitHub sends them) into "?" or fails on it.
    """

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.held = b""
        self.done = False

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson asks for nothing to learn whether the stream gives bytes
            return b""
        while not self.done:
            chunk = self.stream.read(max(size, 1 << 16) if size and size > 0 else -1)
            data = self.held + chunk
            if not chunk or size is None or size < 0:
                self.done, self.held = True, b""
                return _replace_lone_surrogates(data)
            # Hold the tail back so that no escape, and no run of backslashes, is cut in two.
            cut = len(data) - 64
            backslash = data.rfind(b"\\", max(cut - 12, 0), max(cut, 0))
            if backslash != -1:
                cut = backslash
            while cut > 0 and data[cut - 1] == 0x5C:
                cut -= 1
            if cut <= 0:
                self.held = data
                continue
            self.held = data[cut:]
            return _replace_lone_surrogates(data[:cut])
        return b""


def _shape(path: Path) -> _Shape:
    return _shape_with(path, ijson)


def _shape_with(path: Path, backend: Any) -> _Shape:
    shape = _Shape(backend=backend)
    depth = 0
    try:
        with _open(path) as stream:
            if _blank(stream):
                raise SavedFileError(f"{path}: the file is empty")
        with _open(path) as stream:
            pending: str | None = None  # a page field whose value comes next
            for event, value in backend.basic_parse(_Escaped(stream), multiple_values=True):
                if pending is not None:
                    shape.first_fields[pending] = _EVENT_TYPES.get(event) or type(value)
                    pending = None
                if event in ("start_map", "start_array"):
                    if depth == 0:
                        shape.documents += 1
                        if shape.documents == 1:
                            shape.first_kind = "object" if event == "start_map" else "list"
                    depth += 1
                    if depth > MAX_FILE_NESTING:
                        raise SavedFileError(f"{path}: JSON nested deeper than {MAX_FILE_NESTING} levels")
                elif event in ("end_map", "end_array"):
                    depth -= 1
                elif depth == 0:  # a bare number, string, ... as a whole document
                    shape.documents += 1
                    if shape.documents == 1:
                        shape.first_kind = json_kind(value)
                elif event == "map_key" and depth == 1 and shape.documents == 1:
                    shape.first_keys.add(value)
                    pending = value if value in _PAGE_FIELDS else None
    except SavedFileError:
        raise
    except (ijson.JSONError, OSError, EOFError, UnicodeDecodeError, ValueError) as e:
        raise _error(path, e) from None
    if shape.documents == 0:
        raise SavedFileError(f"{path}: the file is empty")
    return shape


# The JSON type of a value from the event that opens it (a number's type comes from the value).
_EVENT_TYPES: dict[str, type] = {"start_array": list, "start_map": dict, "null": type(None)}


def _expand(document: Any, where: str, json_lines: bool) -> Iterator[tuple[str, Any]]:
    if _is_page(document):
        yield from ((f"{where}#{i}", item) for i, item in enumerate(_page_items(document, where)))
    elif isinstance(document, list):
        if document and all(_is_page(element) for element in document):
            for page_number, page in enumerate(document):
                page_where = f"{where}[page {page_number}]"
                yield from ((f"{page_where}#{i}", item) for i, item in enumerate(_page_items(page, page_where)))
        else:
            yield from ((f"{where}#{i}", item) for i, item in enumerate(document))
    elif isinstance(document, dict) and (json_lines or "id" in document):
        yield where, document
    else:
        raise SavedFileError(
            f"{where}: expected a list of search items or a search response page with 'items', "
            f"got {json_kind(document) if not isinstance(document, dict) else 'an object without items'}"
        )


def _stream(path: Path, shape: _Shape) -> Iterator[tuple[str, Any]]:
    """The items of one checked file, read incrementally: at most one page is in memory at a time."""
    where = str(path)
    backend = shape.backend
    with _open(path) as stream:
        if shape.documents > 1:  # JSON Lines: each document is one item or one page
            for number, document in enumerate(
                backend.items(_Escaped(stream), "", multiple_values=True, map_type=KeyedMap), 1
            ):
                yield from _expand(document, f"{path}:{number}", True)
        elif shape.first_kind == "list":
            for index, element in enumerate(backend.items(_Escaped(stream), "item", map_type=KeyedMap)):
                if _is_page(element):
                    page_where = f"{where}[page {index}]"
                    yield from ((f"{page_where}#{i}", item) for i, item in enumerate(_page_items(element, page_where)))
                else:
                    yield f"{where}#{index}", element
        elif shape.first_kind == "object" and "items" in shape.first_keys and "id" not in shape.first_keys:
            for index, item in enumerate(backend.items(_Escaped(stream), "items.item", map_type=KeyedMap)):
                yield f"{where}#{index}", item
        else:
            document = next(backend.items(_Escaped(stream), "", map_type=KeyedMap))
            yield from _expand(document, where, False)


def check_saved_file(path: str | Path) -> _Shape:
    """Refuse a file that is not saved search results, reading it once without keeping it."""
    path = Path(path)
    shape = _shape(path)
    if shape.documents > 1 or shape.first_kind == "list":
        return shape
    if shape.first_kind == "object" and ("items" in shape.first_keys or "id" in shape.first_keys):
        if "id" not in shape.first_keys:  # a search response page
            for name, kind in shape.first_fields.items():
                _check_page_field(name, kind, str(path))
        return shape
    got = "an object without items" if shape.first_kind == "object" else shape.first_kind
    raise SavedFileError(f"{path}: expected a list of search items or a search response page with 'items', got {got}")


def iter_saved_items(paths: list[str | Path]) -> Iterator[tuple[str, Any]]:
    """All items of all files, streamed; every file is checked in full before any item is yielded."""
    shapes = [(Path(p), check_saved_file(p)) for p in paths]
    for path, shape in shapes:
        try:
            yield from _stream(path, shape)
        except SavedFileError:
            raise
        except (ijson.JSONError, OSError, EOFError, UnicodeDecodeError, ValueError) as e:
            raise _error(path, e) from None
