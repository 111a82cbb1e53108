"""Pages computed once per published run: ``ETag``, ``304 Not Modified``, ``Cache-Control`` and an
in-process page cache (Datasette's ``asgi_wrapper`` hook), plus :func:`per_run` for work a page
can share between visitors until the next publish.

The ranking changes only when ``db.scores.publish`` points ``published`` at a new score run, so
every public page that shows the published ranking is the same for every visitor until then; the
task-benchmark pages change with each ledger import, which records a run. The wrapper reads the
``published`` row and the newest run on each request (two indexed lookups on a private read-only
connection, a few microseconds), and for a page it knows to follow the published run:

- answers ``If-None-Match`` with the current ETag by ``304`` before any page is rendered;
- serves the page from an LRU cache in memory (``page_cache_mb``), keyed by the published run,
  the newest run and a digest of what changes the page (method, scheme, host, path and query:
  the scheme because a request behind a proxy, ``X-Forwarded-Proto: https``, gets ``https``
  links), and stores each ``200`` it renders there; the budget counts every entry's key, headers,
  body and bookkeeping, so long query strings cannot grow the process past it, and the number of
  entries is capped too;
- adds ``ETag`` (the published run, ``published_at``, the newest run and the scheme, host, path and
  query) and ``Cache-Control: public, max-age=cache_max_age`` so a CDN or reverse proxy can hold it.

``If-None-Match: *`` ("any representation") is answered ``304`` only for a page already kept as a
``200``; otherwise the page is rendered and sent in full, so a missing page is never a ``304``.

Pages that follow the published run: the home page, the published tables (``agents``,
``categories``; see :data:`PUBLISHED_TABLES`) and their JSON and CSV, and every plugin route
(``/-/agent/...`` and any page another module registers), but never a request with ``sql=`` or
``_stream=``, Datasette's own ``/-/`` pages, or the other tables, which change between publishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from datasette_plugins.admission import is_raw_sql_param
from datasette_plugins.limits import limits
from db.breakdown import has_published_table, latest_run_stamp, published_stamp

T = TypeVar("T")

# Tables whose content is fixed for a published run (the agents table is refreshed by publish()).
PUBLISHED_TABLES = frozenset({"agents", "categories"})
# Datasette's own pages under /-/ (debugging, settings, static files): never cached here.
DATASETTE_PAGES = frozenset(
    {
        "static",
        "static-plugins",
        "versions",
        "plugins",
        "settings",
        "config",
        "threads",
        "databases",
        "actor",
        "auth-token",
        "create-token",
        "logout",
        "permissions",
        "allow-debug",
        "messages",
        "metadata",
        "patterns",
        "api",
    }
)
# Query parameters that make a page depend on more than the published run (and every raw-SQL
# parameter, admission.is_raw_sql_param: SQL results are never kept).
UNCACHED_PARAMS = frozenset({"sql", "_stream"})
MAX_ENTRY_BYTES = 4_000_000  # bigger pages get an ETag but are not kept in memory
# What one kept page costs beyond its body and headers: its key (a fixed-size digest), the
# tuples, list and OrderedDict slot that hold it (measured: about 0.6 kB for a page of five
# headers), counted so that a flood of tiny pages stays inside ``page_cache_mb`` too.
ENTRY_OVERHEAD_BYTES = 1024
MAX_ENTRIES = 20_000  # and never more pages than this, however small
# A page whose query string is longer than this is served (with its ETag) but not kept: no one
# shares a 4 kB query string, and each would cost a slot.
MAX_KEPT_QUERY = 2048
# A page rendered while a facet timed out is served but not kept (the next request tries again).
DEGRADED_MARKERS = (b'<p class="facets-timed-out">', b'"facets_timed_out": ["')
COALESCE_TIMEOUT_S = 30.0  # how long a request waits for the same page being rendered by another


def _published_token(conn: sqlite3.Connection) -> str | None:
    stamp = published_stamp(conn)
    if stamp is None:
        return None
    # The newest run too: the benchmark pages change with every ledger import, which publishes no
    # score run (a crawl or classify only costs one more render of each page).
    changed = f"{stamp[1]}|{latest_run_stamp(conn)}"
    return f"{stamp[0]}.{hashlib.sha1(changed.encode()).hexdigest()[:8]}"


class PublishedRun:
    """The served AgentRank database's published run, read cheaply on every request."""

    def __init__(self, datasette: Any) -> None:
        self.datasette = datasette
        self._conn: sqlite3.Connection | None = None
        self._db_names: frozenset[str] = frozenset()
        self._looked = False

    def _open(self) -> None:
        self._looked = True
        names = set()
        for name, database in self.datasette.databases.items():
            if name.startswith("_") or not database.path:
                continue
            names.add(name)
            if self._conn is not None:
                continue
            # Datasette's own connect (mode=ro, or immutable=1 for an immutable file) keeps the
            # connection in its list, so Database.close() closes it too when the server stops: one
            # reader left open kept the -wal and -shm files beside the database.
            conn = database.connect()
            if not has_published_table(conn):
                conn.close()
                continue
            self._conn = conn
        self._db_names = frozenset(names)

    def token(self) -> str | None:
        if not self._looked:
            self._open()
        return _published_token(self._conn) if self._conn is not None else None

    @property
    def database_names(self) -> frozenset[str]:
        if not self._looked:
            self._open()
        return self._db_names


def follows_published_run(path: str, query_string: str, database_names: frozenset[str]) -> bool:
    """Does this GET show only what the published run determines (so it may carry its ETag)?"""
    if any(
        name in UNCACHED_PARAMS or is_raw_sql_param(name) for name, _ in parse_qsl(query_string, keep_blank_values=True)
    ):
        return False
    parts = [p for p in path.split("/") if p]
    if not parts or parts == ["index.json"] or parts == [".json"]:
        return True  # the home page
    if parts[0] == "-":
        return len(parts) > 1 and parts[1] not in DATASETTE_PAGES
    first = parts[0].split(".")[0]
    if first not in database_names:
        return True  # a top-level plugin route
    if len(parts) == 1:
        return False  # the database page: table counts change with every crawl
    table = parts[1].split(".")[0]
    return table in PUBLISHED_TABLES


def page_key(token: str, scope: dict[str, Any]) -> tuple[str, str]:
    """The cache key of a request: the run's token and a fixed-size digest of what changes the page."""
    parts = (
        scope.get("method", "GET"),
        scope.get("scheme", "http"),
        _header(scope, b"host"),
        scope.get("path", ""),
        scope.get("query_string", b"").decode("latin-1"),
    )
    return token, hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


Entry = tuple[int, list[tuple[bytes, bytes]], bytes]


class PageCache:
    """Rendered responses, least recently used first out, bounded in bytes (everything an entry
    holds, key included) and in entries."""

    def __init__(self, max_bytes: int, max_entries: int = MAX_ENTRIES) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.size = 0
        self._entries: OrderedDict[tuple[str, ...], Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[str, ...]) -> Entry | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: tuple[str, ...], status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
        cost = self._cost(key, (status, headers, body))
        if cost > min(self.max_bytes, MAX_ENTRY_BYTES):
            return
        if key in self._entries:
            self.size -= self._cost(key, self._entries.pop(key))
        self._entries[key] = (status, headers, body)
        self.size += cost
        while (self.size > self.max_bytes or len(self._entries) > self.max_entries) and self._entries:
            old_key, old = self._entries.popitem(last=False)
            self.size -= self._cost(old_key, old)

    @staticmethod
    def _cost(key: tuple[str, ...], entry: Entry) -> int:
        headers = sum(len(k) + len(v) for k, v in entry[1])
        return len(entry[2]) + headers + sum(len(part) for part in key) + ENTRY_OVERHEAD_BYTES

    def drop_other_runs(self, token: str) -> None:
        for key in [k for k in self._entries if k[0] != token]:
            self.size -= self._cost(key, self._entries.pop(key))


def _header(scope: dict[str, Any], name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _etag_matches(if_none_match: str, etag: str) -> bool:
    """Does ``If-None-Match`` name this ETag? (``*`` is handled apart: it needs the page to exist.)"""
    tags = [t.strip() for t in if_none_match.split(",")]
    return etag in tags or etag.removeprefix("W/") in tags


def _any_tag(if_none_match: str) -> bool:
    return "*" in (t.strip() for t in if_none_match.split(","))


def _with_cache_headers(headers: list[tuple[bytes, bytes]], etag: str, cache_control: str) -> list[tuple[bytes, bytes]]:
    # A page that sets its own Cache-Control (a badge: a day) keeps it; the rest get the setting's.
    own = [v for k, v in headers if k.lower() == b"cache-control" and v.startswith(b"public")]
    kept = [(k, v) for k, v in headers if k.lower() not in (b"etag", b"cache-control")]
    return [*kept, (b"etag", etag.encode()), (b"cache-control", own[0] if own else cache_control.encode())]


def cache_control(max_age: int) -> str:
    """``Cache-Control`` for a page that follows the published run (0: always revalidate)."""
    return f"public, max-age={max_age}" if max_age > 0 else "public, no-cache"


def published_cache(app: Any, datasette: Any) -> Any:
    """ASGI middleware: ETag, 304, Cache-Control and the page cache for published pages."""
    published = PublishedRun(datasette)
    settings = limits(datasette)
    pages = PageCache(settings.page_cache_mb * 1024 * 1024)
    control = cache_control(settings.cache_max_age)
    last_token: list[str | None] = [None]
    # Pages being rendered now: a spike of requests for a page not cached yet renders it once.
    rendering: dict[tuple[str, ...], asyncio.Event] = {}

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD"):
            await app(scope, receive, send)
            return
        path = scope.get("path", "")
        query = scope.get("query_string", b"").decode("latin-1")
        token = published.token()
        if token is None or not follows_published_run(path, query, published.database_names):
            await app(scope, receive, send)
            return
        if token != last_token[0]:
            pages.drop_other_runs(token)  # a new publish: the old pages go
            last_token[0] = token
        key = page_key(token, scope)
        etag = f'W/"ar-{token}-{key[1][:12]}"'
        if_none_match = _header(scope, b"if-none-match")
        if _etag_matches(if_none_match, etag):
            await _not_modified(send, etag, control)
            return
        personal = bool(_header(scope, b"authorization")) or "ds_actor" in _header(scope, b"cookie")
        shared = not personal and pages.max_bytes > 0 and len(query) <= MAX_KEPT_QUERY
        if shared and key in rendering:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(rendering[key].wait(), COALESCE_TIMEOUT_S)
        hit = pages.get(key) if shared else None
        if hit is not None and hit[0] == 200 and _any_tag(if_none_match):
            await _not_modified(send, etag, control)  # "*": the page exists, as a 200
            return
        if hit is not None:
            status, headers, body = hit
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        done = asyncio.Event()
        if shared:
            rendering.setdefault(key, done)
        try:
            if _any_tag(if_none_match):  # "*": render, then 304 only if the page exists
                send = _not_modified_if_found(send, etag, control)
            await _render_and_keep(app, scope, receive, send, etag, control, pages if shared else None, key)
        finally:
            if rendering.get(key) is done:
                del rendering[key]
            done.set()

    return wrapped


async def _not_modified(send: Any, etag: str, control: str) -> None:
    start = {"type": "http.response.start", "status": 304}
    await send({**start, "headers": [(b"etag", etag.encode()), (b"cache-control", control.encode())]})
    await send({"type": "http.response.body", "body": b""})


def _not_modified_if_found(send: Any, etag: str, control: str) -> Any:
    """A ``send`` that turns a rendered ``200`` into ``304`` and passes anything else (a 404) on."""
    start: dict[str, Any] = {}

    async def decided(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            if message["status"] != 200:
                await send(message)
        elif start.get("status") != 200:
            await send(message)
        elif not message.get("more_body", False):
            await _not_modified(send, etag, control)

    return decided


async def _render_and_keep(
    app: Any,
    scope: dict[str, Any],
    receive: Any,
    send: Any,
    etag: str,
    control: str,
    pages: PageCache | None,
    key: tuple[str, ...],
) -> None:
    """Render the page through Datasette, adding the cache headers to a 200, and keep it."""
    started: dict[str, Any] = {}
    chunks: list[bytes] = []
    size = 0

    async def capture(message: dict[str, Any]) -> None:
        nonlocal size
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            started.update(status=message["status"], headers=headers)
            if message["status"] == 200:
                message = {**message, "headers": _with_cache_headers(headers, etag, control)}
                started["headers"] = message["headers"]
        elif message["type"] == "http.response.body" and size <= MAX_ENTRY_BYTES:
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
        await send(message)

    await app(scope, receive, capture)
    cookie = any(k.lower() == b"set-cookie" for k, _ in started.get("headers", []))
    if pages is not None and started.get("status") == 200 and not cookie and size <= MAX_ENTRY_BYTES:
        body = b"".join(chunks)
        if not any(marker in body for marker in DEGRADED_MARKERS):
            pages.put(key, 200, started["headers"], body)


def asgi_wrapper(datasette: Any) -> Callable[[Any], Any]:
    def wrap(app: Any) -> Any:
        return published_cache(app, datasette)

    return wrap


_RUN_CACHE: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_RUN_CACHE_LOCK = threading.Lock()
RUN_CACHE_ENTRIES = 32


def per_run(key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """``compute()`` once per ``key`` (which must name the score run, e.g. ``("population", path, run_id)``).

    A score run's rows never change once written, so whatever is derived from them alone (a
    population's arrays, a histogram, a category's list) can be shared by every request, in every
    SQL thread, for as long as the process lives; the oldest entries go first.
    """
    with _RUN_CACHE_LOCK:
        if key in _RUN_CACHE:
            _RUN_CACHE.move_to_end(key)
            return _RUN_CACHE[key]
    value = compute()
    with _RUN_CACHE_LOCK:
        _RUN_CACHE[key] = value
        while len(_RUN_CACHE) > RUN_CACHE_ENTRIES:
            _RUN_CACHE.popitem(last=False)
    return value
