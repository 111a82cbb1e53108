"""How the plugin's pages find the served ranking and read it: :func:`read_page`, which runs a
reader from ``db`` (or ``leaderboard``) through :func:`db.reading.read_bounded` with the server's time
limit and result budget. A page that runs out of time answers 503 with ``Retry-After``
(``admission.handle_exception``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from datasette_plugins.limits import limits
from db.reading import read_bounded

T = TypeVar("T")
# A page runs several fixed queries where anyone's SQL runs one, so it gets this many times the
# server's per-query time limit.
PAGE_TIME_FACTOR = 2


async def ranking_database(datasette: Any) -> Any:
    """The served database that holds an AgentRank ranking (the first one, if several do), or None."""
    for name, database in datasette.databases.items():
        if name.startswith("_"):
            continue
        if await database.table_exists("published") and await database.table_exists("scores"):
            return database
    return None


async def read_page(datasette: Any, database: Any, reader: Callable[[sqlite3.Connection], T]) -> T:
    """``reader`` run on ``database`` under the page bounds (``db.reading.ReadTooSlow`` when late)."""
    time_limit_ms = PAGE_TIME_FACTOR * datasette.setting("sql_time_limit_ms")
    max_bytes = limits(datasette).max_result_bytes
    return await database.execute_fn(
        lambda conn: read_bounded(conn, reader, time_limit_ms=time_limit_ms, max_bytes=max_bytes)
    )
