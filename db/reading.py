"""Bounded reads: every query a served page runs goes through :func:`read_bounded`.

Anyone's SQL in Datasette runs under ``sql_time_limit_ms`` and a budget of result bytes
(``datasette_plugins.limits``); the project's own pages run fixed queries, but over a database of any
size, so they get the same two bounds: a time limit (SQLite's progress handler interrupts the
statement) and a budget of text and blob bytes across everything the page reads. Rows come back as
plain tuples, which the readers in ``db`` expect and which are twice as fast as ``sqlite3.Row`` on
big reads.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
# How many SQLite virtual-machine steps between two looks at the clock (every step for a limit so
# short that a thousand steps could overrun it, as Datasette's own sqlite_timelimit does).
_STEPS_PER_CHECK = 1000
_SHORT_LIMIT_MS = 50


class ReadTooSlow(Exception):
    """The reader's queries ran past their time limit."""


class ReadTooLarge(Exception):
    """The reader's queries returned more text and blob bytes than their budget."""


def read_bounded(
    conn: sqlite3.Connection, reader: Callable[[sqlite3.Connection], T], *, time_limit_ms: int, max_bytes: int
) -> T:
    """``reader(conn)`` with tuple rows, interrupted after ``time_limit_ms`` (``ReadTooSlow``) or once
    its queries together have returned more than ``max_bytes`` of text and blobs (``ReadTooLarge``).
    The connection's row factory and progress handler are put back afterwards."""
    deadline = time.monotonic() + time_limit_ms / 1000
    spent = 0

    def too_late() -> int:
        return 1 if time.monotonic() > deadline else 0

    def row(_cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> tuple[Any, ...]:
        nonlocal spent
        for value in values:
            if isinstance(value, (str, bytes)):
                spent += len(value)
        if spent > max_bytes:
            raise ReadTooLarge(f"the page's queries returned more than {max_bytes:,} bytes")
        return values

    factory = conn.row_factory
    conn.row_factory = row
    conn.set_progress_handler(too_late, 1 if time_limit_ms < _SHORT_LIMIT_MS else _STEPS_PER_CHECK)
    try:
        return reader(conn)
    except sqlite3.OperationalError as e:
        if "interrupted" in str(e) and time.monotonic() > deadline:
            raise ReadTooSlow(f"the page's queries took more than {time_limit_ms} ms") from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
        conn.row_factory = factory
