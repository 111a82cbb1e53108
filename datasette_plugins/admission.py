"""Server-wide bounds: what many queries at once may cost, on top of the per-query limits.

The per-query limits (``limits.py``) bound one query; sixty at once could still hold sixty
results in memory while their responses wait to be written. So requests that can return a lot
or run SQL the visitor wrote (``sql`` and every other raw-SQL parameter: ``_where``, the
full-text ``_search`` family, ``_through``; canned queries; ``_size`` above the default page; CSV)
go through one gate:

- a global budget of result bytes in flight, ``max_inflight_result_bytes``: at most
  ``max_inflight_result_bytes // max_result_bytes`` such requests run at once, and never more
  than ``num_sql_threads - 1``, so one SQL thread is always left for normal pages;
- a short queue: a request that cannot start within ``queue_wait_ms`` gets ``503`` with
  ``Retry-After`` ("busy, try again"), never an unbounded wait;
- every other page (table pages of the default size, rows, the maker's page, the home page)
  bypasses the gate, so normal pages are served while heavy requests queue.

Temporary storage (sorts, materialized CTEs) is kept in memory (``PRAGMA temp_store``, set in
``limits.py``) where the heap limit bounds it; a query that hits that limit, or any other
``MemoryError``, answers ``503`` with ``Retry-After``; a request Datasette cannot parse
(a ``_next`` past 64 bits, an over-long value) answers ``400``, never ``500``.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, parse_qsl

from datasette import Response, hookimpl
from datasette.views.base import DatasetteError

from datasette_plugins.limits import limits
from datasette_plugins.paths import table_of_path
from db.reading import ReadTooLarge, ReadTooSlow

RETRY_AFTER_S = 5
DEFAULT_PAGE = 100
# Introspection that shows the server's file paths: the JSON is answered without them, the HTML
# page not at all (the snapshot strips paths from the file too).
DATABASES_JSON = "/-/databases.json"
HIDDEN_PATHS = ("/-/databases",)
BUSY = "the server is busy with other large queries; try again in a few seconds"
NO_MEMORY = "the query needs more memory than the server allows at once; try again, or ask for less"


# Query parameters through which a request runs SQL the visitor wrote (or shapes freely): ``sql``
# itself, ``_where`` (raw SQL added to a table's WHERE), ``_through`` (a join), the full-text
# parameters (``_search``, ``_search_COLUMN`` and ``_searchmode=raw`` take FTS query syntax;
# ``_fts_table``/``_fts_pk`` pick the tables). Names are compared decoded, as Datasette reads them,
# so ``%73ql`` or ``%5Fwhere`` is the same parameter; deploy/nginx/agentrank-http.conf matches the
# same names in every percent-encoded spelling.
RAW_SQL_PARAMS = frozenset({"sql", "_where", "_through", "_fts_table", "_fts_pk"})


def is_raw_sql_param(name: str) -> bool:
    """Does this (decoded) query parameter run SQL or FTS syntax the visitor wrote?"""
    return name in RAW_SQL_PARAMS or name.startswith("_search")


def runs_raw_sql(query_string: str) -> bool:
    """Does a query string carry any raw-SQL parameter, in any percent-encoded spelling?"""
    return any(is_raw_sql_param(name) for name, _ in parse_qsl(query_string, keep_blank_values=True))


def canned_query(path: str, canned: frozenset[tuple[str, str]]) -> bool:
    """Is ``path`` a canned query (``/DB/NAME``, ``.json``, ``.csv``) of the (database, name) pairs?"""
    found = table_of_path(path)
    return found is not None and found in canned


def is_heavy(scope: dict[str, Any], canned: frozenset[tuple[str, str]] = frozenset()) -> bool:
    """Can this request return much more than a default page, or run SQL the visitor wrote?
    (SQL in any of its parameters, a canned query, a big ``_size``, CSV)."""
    path: str = scope.get("path", "")
    if path.endswith(".csv") or canned_query(path, canned):
        return True
    query_string = scope.get("query_string", b"").decode("latin-1")
    if runs_raw_sql(query_string):
        return True
    params = parse_qs(query_string, keep_blank_values=True)
    if "_stream" in params:
        return True
    return any(not size.isdigit() or int(size) > DEFAULT_PAGE for size in params.get("_size", []))


def canned_queries(datasette: Any) -> frozenset[tuple[str, str]]:
    """(database, query name) of every canned query in the metadata."""
    found: set[tuple[str, str]] = set()
    for database in datasette.databases:
        queries = datasette.metadata("queries", database=database, fallback=False) or {}
        found.update((database, name) for name in queries)
    return frozenset(found)


def slots(max_inflight_result_bytes: int, max_result_bytes: int, sql_threads: int) -> int:
    """How many heavy requests may run at once: the budget's share, leaving one SQL thread for pages."""
    return max(1, min(max_inflight_result_bytes // max_result_bytes, sql_threads - 1))


async def _send_plain(send: Any, status: int, message: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    body = json.dumps({"ok": False, "error": message, "status": status}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json; charset=utf-8"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _without_paths(send: Any) -> Any:
    """``/-/databases.json`` (a few hundred bytes) with each database's ``path`` removed."""
    held: dict[str, Any] = {"body": b""}

    async def stripped(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            held["start"] = message
            return
        held["body"] += message.get("body", b"")
        if message.get("more_body", False):
            return
        body = held["body"]
        try:
            databases = json.loads(body)
            for database in databases if isinstance(databases, list) else []:
                database.pop("path", None)
            body = json.dumps(databases).encode()
        except ValueError:
            pass
        headers = [(k, v) for k, v in held["start"]["headers"] if k.lower() != b"content-length"]
        await send({**held["start"], "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return stripped


def _csv_errors(send: Any) -> Any:
    """A CSV whose query failed has no header row: answer 400 instead of 200 with an empty body."""
    held: dict[str, Any] = {}
    decided = False

    async def checked(message: dict[str, Any]) -> None:
        nonlocal decided
        if decided:
            await send(message)
        elif message["type"] == "http.response.start":
            held["start"] = message
        else:
            held["body"] = held.get("body", b"") + message.get("body", b"")
            more = message.get("more_body", False)
            if not held["body"].strip() and more:
                return  # nothing written yet: keep waiting for the header row
            decided = True
            if held["start"]["status"] == 200 and not held["body"].strip():
                await _send_plain(send, 400, "the query failed: run it as .json to see why")
                return
            await send(held["start"])
            await send({**message, "body": held["body"]})

    return checked


def gate(app: Any, *, slots: int, wait_s: float, canned: Callable[[], frozenset[tuple[str, str]]] | None = None) -> Any:
    """The ASGI app with heavy requests limited to ``slots`` at once, each waiting at most ``wait_s``;
    ``canned`` gives the canned queries (read once, on the first request: the metadata is loaded then)."""
    semaphore: asyncio.Semaphore | None = None
    known: list[frozenset[tuple[str, str]]] = []

    async def gated(scope: dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal semaphore
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        if scope.get("path", "").rstrip("/") in HIDDEN_PATHS:
            await _send_plain(send, 404, "not published: see /-/databases.json")
            return
        if scope.get("path", "") == DATABASES_JSON:
            send = _without_paths(send)
        if scope.get("path", "").endswith(".csv"):
            send = _csv_errors(send)
        if canned is not None and not known:
            known.append(canned())
        if not is_heavy(scope, known[0] if known else frozenset()):
            await app(scope, receive, send)
            return
        if semaphore is None:
            semaphore = asyncio.Semaphore(slots)
        try:
            await asyncio.wait_for(semaphore.acquire(), wait_s)
        except TimeoutError:
            await _send_plain(send, 503, BUSY, ((b"retry-after", str(RETRY_AFTER_S).encode()),))
            return
        try:
            await app(scope, receive, send)
        finally:
            semaphore.release()

    return gated


def asgi_wrapper(datasette: Any) -> Any:
    def wrap(app: Any) -> Any:
        settings = limits(datasette)
        return gate(
            app,
            slots=slots(
                settings.max_inflight_result_bytes, settings.max_result_bytes, datasette.setting("num_sql_threads")
            ),
            wait_s=settings.queue_wait_ms / 1000,
            canned=lambda: canned_queries(datasette),
        )

    return wrap


def _status_of(exception: BaseException) -> tuple[int, str] | None:
    if isinstance(exception, ReadTooSlow | ReadTooLarge):
        return 503, "the page took too long or grew too large to build; try again in a few seconds"
    if (
        isinstance(exception, DatasetteError)
        and exception.status == 500
        and str(exception).startswith(("Cannot", "Invalid"))
    ):
        # "Cannot sort table by nonexistent", "Invalid _through - could not find corresponding
        # foreign key" and the like: the request's fault
        return 400, str(exception)
    if isinstance(exception, sqlite3.ProgrammingError) and "supply a value for binding" in str(exception):
        # A row page of a table keyed by several columns, addressed by fewer values (/db/table/1).
        return 404, "not found: no row has that address (a row of this table is addressed by all of its key's values)"
    if isinstance(exception, sqlite3.IntegrityError) and "datatype mismatch" in str(exception):
        return 400, "bad request: a value in the request does not fit (for example a _next past 64 bits)"
    if isinstance(exception, MemoryError):
        return 503, NO_MEMORY
    if isinstance(exception, sqlite3.Error) and "out of memory" in str(exception).lower():
        return 503, NO_MEMORY
    if isinstance(exception, sqlite3.ProgrammingError) and "null character" in str(exception):
        return 400, "bad request: the request contains a NUL byte (%00)"  # refusals.py stops most first
    if isinstance(exception, OverflowError):
        return 400, "a number in the request is too large"
    if isinstance(exception, sqlite3.DataError) or (
        isinstance(exception, sqlite3.Error)
        and any(text in str(exception) for text in ("too big", "too long", "no such column", "too many"))
    ):
        return 400, f"bad request: {exception}"
    return None


@hookimpl
def handle_exception(datasette: Any, request: Any, exception: BaseException) -> Any:
    found = _status_of(exception)
    if found is None:
        return None
    status, message = found
    headers = {"Retry-After": str(RETRY_AFTER_S)} if status == 503 else {}
    if request.path.endswith(".json"):
        return Response.json({"ok": False, "error": message, "status": status}, status=status, headers=headers)
    return Response.text(message, status=status, headers=headers)
