"""Bounds on what one SQL query can cost the server (Datasette's ``prepare_connection`` hook).

Arbitrary read-only SQL stays open to everyone, so every connection Datasette opens gets:

- SQLite's own input limits (longest value, longest SQL text, widest result, deepest expression),
  so one value can never grow past ``max_value_bytes``;
- a budget of text and blob characters per statement (``max_result_bytes``): Datasette fetches up
  to ``max_returned_rows`` rows into Python, and a thousand rows of megabyte values would be
  gigabytes;
- ``printf``/``format`` that answer NULL at once when a width or precision would pass the value
  limit: SQLite 3.40 gives NULL there too, but only after looping through every character
  (about 7 s for ``printf('%.*c', 900000000, 'x')``) in one opcode that the time limit cannot
  interrupt;
- extension loading switched off;
- ``PRAGMA hard_heap_limit`` (process-wide: SQLite has one heap per process), the backstop.

Datasette's ``sql_time_limit_ms`` bounds everything that loops.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from datasette import hookimpl

from datasette_plugins.settings import ServeConfig

MAX_COLUMNS = 100  # widest result set; the widest join of our tables has under 60 columns
MAX_EXPR_DEPTH = 200
MAX_COMPOUND_SELECT = 20
MAX_LIKE_PATTERN = 1_000

# %[flags][width][.precision][length]type, with * taking its value from the arguments.
_PRINTF_SPEC = re.compile(r"%([-+ 0#,!]*)(\*|\d+)?(?:\.(\*|\d+))?(?:ll|l)?(.)", re.S)
_TRUNCATING = set("sqQwz%")  # a precision on these cuts the text short instead of padding it


# Values that hold local file paths read as NULL in every query: the server's own file always, and
# on the working database (`agentrank serve` without a snapshot: it still has the crawl's private
# tables) the operator-side run details and errors, which `agentrank snapshot` strips of paths.
PRIVATE_COLUMNS = frozenset({("rejects", "item_ref"), ("pragma_database_list", "file")})
WORKING_COLUMNS = frozenset({("runs", "details"), ("runs", "error")})


def _authorizer(hidden: frozenset[tuple[str, str]]) -> Any:
    def hide(action: int, table: str | None, column: str | None, _db: str | None, _source: str | None) -> int:
        if action == sqlite3.SQLITE_READ and (table, column) in hidden:
            return sqlite3.SQLITE_IGNORE
        return sqlite3.SQLITE_OK

    return hide


def _is_working_database(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute("select 1 from sqlite_master where name like 'crawl\\_%' escape '\\' limit 1").fetchone()
        is not None
    )


class ResultTooLarge(sqlite3.OperationalError):
    """Raised while fetching rows once a statement has returned more than its budget."""


def limits(datasette: Any) -> ServeConfig:
    """The plugin's settings from the metadata's ``plugins.agentrank`` block, else the defaults."""
    configured = datasette.plugin_config("agentrank") or {}
    return ServeConfig.model_validate({k: v for k, v in configured.items() if k in ServeConfig.PLUGIN_SETTINGS})


def printf_too_long(fmt: str, args: tuple[Any, ...], max_length: int) -> bool:
    """Would this format ask for more than ``max_length`` characters in one field?"""
    position = 0

    def take() -> int:
        nonlocal position
        value = args[position] if position < len(args) else 0
        position += 1
        try:
            return abs(int(value))
        except (TypeError, ValueError):
            return 0

    for match in _PRINTF_SPEC.finditer(fmt):
        _flags, width, precision, kind = match.groups()
        if kind == "%" and not (width or precision):
            continue
        width_value = take() if width == "*" else int(width or 0)
        precision_value = take() if precision == "*" else int(precision or 0)
        position += 1  # the value being formatted
        if width_value > max_length or (kind not in _TRUNCATING and precision_value > max_length):
            return True
    return False


def _bounded_printf(max_length: int):
    # The built-in printf still does the formatting, on a private in-memory connection.
    helper = sqlite3.connect(":memory:", check_same_thread=False)
    helper.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_length)

    def printf(fmt: Any = None, *args: Any) -> Any:
        if isinstance(fmt, str) and printf_too_long(fmt, args, max_length):
            return None
        placeholders = ", ".join("?" for _ in range(1 + len(args)))
        return helper.execute(f"select printf({placeholders})", (fmt, *args)).fetchone()[0]

    return printf


def _budget_rows(conn: sqlite3.Connection, budget: int) -> None:
    spent = 0

    def new_statement(_sql: str) -> None:
        nonlocal spent
        spent = 0

    def row(cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> sqlite3.Row:
        nonlocal spent
        for value in values:
            if isinstance(value, (str, bytes)):
                spent += len(value)
        if spent > budget:
            raise ResultTooLarge(
                f"query result too large: more than {budget:,} bytes of text and blobs "
                "(ask for fewer rows or shorter values)"
            )
        return sqlite3.Row(cursor, values)

    # The trace callback runs as each statement starts, which is where the budget begins.
    conn.set_trace_callback(new_statement)
    conn.row_factory = row


@contextmanager
def plain_rows(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Tuples and no result budget, for the plugin's own fixed queries (twice as fast on big reads)."""
    factory = conn.row_factory
    conn.row_factory = None
    try:
        yield conn
    finally:
        conn.row_factory = factory


def bound_connection(conn: sqlite3.Connection, settings: ServeConfig, *, attach: bool = False) -> None:
    """Apply every limit to one connection (and the process-wide heap limit)."""
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, settings.max_value_bytes)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, settings.max_sql_bytes)
    conn.setlimit(sqlite3.SQLITE_LIMIT_COLUMN, MAX_COLUMNS)
    conn.setlimit(sqlite3.SQLITE_LIMIT_EXPR_DEPTH, MAX_EXPR_DEPTH)
    conn.setlimit(sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, MAX_COMPOUND_SELECT)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, MAX_LIKE_PATTERN)
    if not attach:
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    if hasattr(conn, "enable_load_extension"):
        conn.enable_load_extension(False)
    printf = _bounded_printf(settings.max_value_bytes)
    conn.create_function("printf", -1, printf, deterministic=True)
    conn.create_function("format", -1, printf, deterministic=True)
    _budget_rows(conn, settings.max_result_bytes)
    working = not attach and _is_working_database(conn)
    conn.set_authorizer(_authorizer(PRIVATE_COLUMNS | WORKING_COLUMNS if working else PRIVATE_COLUMNS))
    if settings.heap_limit_mb:
        # Sorts and materialized CTEs in memory, where the heap limit bounds them (a temporary
        # file on disk is bounded by nothing, and on many hosts /tmp is memory anyway).
        conn.execute("PRAGMA temp_store = MEMORY")
        # Both pragmas only ever lower a limit already set in this process.
        conn.execute(f"PRAGMA hard_heap_limit = {settings.heap_limit_mb * 1024 * 1024}")
        conn.execute(f"PRAGMA soft_heap_limit = {settings.heap_limit_mb * 1024 * 1024 // 2}")


@hookimpl
def prepare_connection(conn: sqlite3.Connection, database: str, datasette: Any) -> None:
    # Datasette's --crossdb attaches databases to _memory after this hook.
    bound_connection(conn, limits(datasette), attach=database == "_memory")
