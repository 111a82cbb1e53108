"""Rows as dicts, for readers that take a plain ``sqlite3.Connection`` (as Datasette hands a plugin)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any


def iter_dicts(cursor: sqlite3.Cursor) -> Iterator[dict[str, Any]]:
    """The cursor's remaining rows as dicts keyed by column name, one at a time."""
    names = [d[0] for d in cursor.description or ()]
    for row in cursor:
        yield dict(zip(names, row, strict=True))


def dicts(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    """Every remaining row of ``cursor`` as a dict keyed by column name."""
    return list(iter_dicts(cursor))
