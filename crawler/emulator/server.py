"""A faithful local GitHub REST emulator: a real HTTP server on 127.0.0.1.

It serves a population of repositories the way ``api.github.com`` does, as far as the crawler
can tell (GitHub's REST documentation for search and rate limits; docs/crawling.md):

- ``GET /search/repositories`` with ``q`` (``topic:``, ``stars:``, ``created:``, ``pushed:``,
  ``forks:``, ``archived:``, ``fork:``, ``language:``, quoted or bare keywords matched in name,
  description and topics), ``sort``/``order``, ``per_page`` (≤ 100, default 30), ``page``;
  ``{total_count, incomplete_results, items}`` with ``total_count`` uncapped, a ``Link`` header
  (``next``/``last``, plus ``prev``/``first`` after page 1; ``last`` stops at the 1,000th result)
  and a 422 "Only the first 1000 search results are available" past the cap;
- ``GET /repos/{owner}/{repo}`` and ``GET /repositories/{id}``: 200, 301 to
  ``/repositories/{id}`` after a rename, 404 once deleted, 451 once blocked;
- ``x-ratelimit-*`` headers from a rolling window per resource (search, core); past the limit a
  primary-limit 403 (or 429) with ``remaining: 0``; ``Bad credentials`` 401 for unknown tokens;
- injectable faults (:class:`Fault`, built by the functions below) and mutations between or
  during crawls (renames, star changes, deletions, new repos);
- a request log with clock timestamps, so tests can check spacing, pauses and concurrency.

Run one by hand: ``python -m crawler.emulator --size 8000`` prints its URL; point
``agentrank crawl --api-url URL`` at it.
"""

from __future__ import annotations

import bisect
import contextlib
import email.utils
import gzip
import json
import math
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from crawler.clock import Clock, RealClock
from crawler.emulator.population import SyntheticRepo, to_search_item
from crawler.items import parse_timestamp

CAP = 1000
DOCS = "https://docs.github.com/rest"
SEARCH_DOCS = "https://docs.github.com/v3/search/"
RATE_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
SECONDARY_DOCS = (
    "https://docs.github.com/en/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
    "#about-secondary-rate-limits"
)
SECONDARY_MESSAGE = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
ABUSE_MESSAGE = "You have triggered an abuse detection mechanism. Please wait a few minutes before you try again."
UNICORN = (
    b"<!DOCTYPE html>\n<html><head><title>Unicorn! &middot; GitHub</title></head><body>"
    b"<h1>No server is currently available to service your request.</h1><p>Sorry about that.</p>"
    b"</body></html>"
)
_DELETE = object()  # in patch(): remove the key from the served item


# -- faults ------------------------------------------------------------------------------------


@dataclass
class Fault:
    """Something to do instead of (or to) the normal answer, for requests that match.

    ``path``: a path prefix; ``q``: a substring of the search query; ``page``: a page number;
    ``after``: how many matching requests to let through first; ``times``: how many matching
    requests it then applies to (None: all of them).
    """

    kind: str
    status: int = 200
    message: str | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    retry_after: int | None = None
    reset_in: float | None = None
    seconds: float = 0.0
    count: int = 0
    leave: int = 0
    enter: int = 0
    location: str | None = None
    path: str = "/search/"
    q: str | None = None
    page: int | None = None
    after: int = 0
    times: int | None = 1
    event: threading.Event | None = None
    incomplete_results: bool = False  # also flag the answer incomplete_results: true
    used: int = 0
    passed: int = 0

    def matches(self, path: str, params: dict[str, str]) -> bool:
        if self.times is not None and self.used >= self.times:
            return False
        if not path.startswith(self.path):
            return False
        if self.q is not None and self.q not in params.get("q", ""):
            return False
        if self.page is not None and int(params.get("page", "1") or 1) != self.page:
            return False
        if self.passed < self.after:
            self.passed += 1
            return False
        return True


def secondary_limit(*, retry_after: int | None = None, wording: str = "new", status: int = 403, **match: Any) -> Fault:
    """A secondary rate limit: 403/429 with ``remaining`` > 0, with or without ``retry-after``."""
    message = ABUSE_MESSAGE if wording == "abuse" else SECONDARY_MESSAGE
    return Fault("secondary", status=status, message=message, retry_after=retry_after, **match)


def primary_limit(*, reset_in: float = 120, status: int = 403, **match: Any) -> Fault:
    """The primary limit, forced: ``x-ratelimit-remaining: 0`` and a reset ``reset_in`` seconds away."""
    return Fault("primary", status=status, reset_in=reset_in, **match)


def error_status(status: int, message: str | None = None, **match: Any) -> Fault:
    """A JSON error answer: 5xx, 401, a plain 403, 404, 422, …"""
    return Fault("status", status=status, message=message, **match)


def html_page(status: int = 200, **match: Any) -> Fault:
    """GitHub's "Unicorn!" HTML page, here with status 200."""
    return Fault("html", status=status, **match)


def error_object(message: str = "API rate limit exceeded for user ID 1.", **match: Any) -> Fault:
    """A 200 whose JSON body is an error object instead of search results."""
    return Fault("error_object", message=message, **match)


def slow(seconds: float, **match: Any) -> Fault:
    """Answer only after ``seconds`` of real time (a read timeout for a client with a shorter one)."""
    return Fault("slow", seconds=seconds, **match)


def cut_body(**match: Any) -> Fault:
    """Send the headers and half the body, then close the connection."""
    return Fault("cut", **match)


def incomplete(**match: Any) -> Fault:
    """A normal page flagged ``incomplete_results: true`` (GitHub's search timed out)."""
    return Fault("incomplete", **match)


def duplicate_item(**match: Any) -> Fault:
    """The page's first item appears twice (its last item is dropped to make room)."""
    return Fault("duplicate", **match)


def shift_pages(*, insert: int = 3, promote: int = 1, leave: int = 0, enter: int = 0, **match: Any) -> Fault:
    """After answering, the ranking moves as stars change mid-crawl: ``insert`` new repos land at the
    top of this query, ``promote`` repos from the next page jump into the middle of this one
    (already served), pushing its last items down onto the next one, ``leave`` repos at the
    top (already served) are deleted, and ``enter`` repos join at the bottom (as a repo crossing
    ``min_stars`` does): the total can stay level while a promoted or entering repo is missed."""
    return Fault("shift", count=insert, seconds=float(promote), leave=leave, enter=enter, **match)


def lie_total(total: int = 50, **match: Any) -> Fault:
    """``total_count`` says ``total`` but ``items`` is empty."""
    return Fault("lie_total", count=total, **match)


def ignore_narrowing(*, total_only: bool = False, incomplete: bool = False, **match: Any) -> Fault:
    """The search ignores ``stars:`` and ``created:`` (as a proxy or a GitHub fault that drops them
    would): every narrower search reports the whole query's ``total_count`` and its results, so a
    split never narrows. ``total_only``: the results are the narrowed ones, only ``total_count`` is
    the whole query's (an inflated count). ``incomplete``: every answer also says
    ``incomplete_results: true``, so no count can be taken at its word."""
    return Fault("ignore_narrowing", count=int(total_only), incomplete_results=incomplete, **match)


def missing_items(**match: Any) -> Fault:
    """A 200 JSON body without ``items``."""
    return Fault("missing_items", **match)


def no_rate_headers(**match: Any) -> Fault:
    """A normal answer without any ``x-ratelimit-*`` header (as when GitHub is struggling)."""
    return Fault("no_rate_headers", **match)


def redirect(location: str, status: int = 302, **match: Any) -> Fault:
    """A redirect to ``location`` (any origin)."""
    match.setdefault("path", "/repos/")
    return Fault("redirect", status=status, location=location, **match)


def raw_answer(
    body: bytes | str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    gzip_body: bool = False,
    trickle_s: float = 0.0,
    trickle_headers: bool = False,
    **match: Any,
) -> Fault:
    """Answer with exactly ``body`` (a hostile server): any status and headers, the body optionally
    gzip-compressed (``Content-Encoding: gzip``) and optionally sent one byte every ``trickle_s``
    seconds of real time (a connection that never idles long enough for a read timeout)."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    if gzip_body:
        data = gzip.compress(data, compresslevel=9)
        headers = {**(headers or {}), "Content-Encoding": "gzip"}
    # count=1: the status line and headers are trickled too, not only the body.
    return Fault(
        "raw",
        status=status,
        body=data,
        headers=dict(headers or {}),
        seconds=trickle_s,
        count=int(trickle_headers),
        **match,
    )


def hold(**match: Any) -> Fault:
    """Keep the request waiting (logged, unanswered) until ``fault.event`` is set."""
    return Fault("hold", event=threading.Event(), **match)


# -- the population ------------------------------------------------------------------------------


def _epoch(value: datetime | str) -> float:
    if isinstance(value, str):
        return parse_timestamp(value).timestamp()
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


class Entry:
    """One repository as the emulator holds it: what queries filter on, and the JSON it serves."""

    __slots__ = (
        "_bytes",
        "_item",
        "_repo",
        "archived",
        "block",
        "created",
        "fork",
        "forks",
        "full_name",
        "key",
        "language",
        "leaky",
        "old_names",
        "pushed",
        "stars",
        "state",
        "text",
        "topics",
    )

    def __init__(
        self,
        key: int,
        item: dict[str, Any] | SyntheticRepo,
        *,
        stars: int,
        created: float,
        pushed: float | None,
        archived: bool,
        fork: bool,
        topics: Iterable[str],
        name: str,
        description: str | None,
        language: str | None = None,
        forks: int = 0,
    ) -> None:
        self.key = key
        self._repo: SyntheticRepo | None
        self._item: dict[str, Any] | None
        self.full_name: str
        if isinstance(item, SyntheticRepo):  # its JSON is built when first served
            self._repo, self._item, self.full_name = item, None, item.full_name
        else:
            self._repo, self._item = None, item
            full_name = item.get("full_name")
            self.full_name = full_name if isinstance(full_name, str) else f"x/{key}"
        self.stars, self.forks, self.created, self.pushed = stars, forks, created, pushed
        self.archived, self.fork, self.language = archived, fork, language
        self.topics = frozenset(t.lower() for t in topics if isinstance(t, str))
        self.text = " ".join([name, description or "", *sorted(self.topics)]).lower()
        self.state = "ok"  # ok, gone (404), blocked (451)
        self.block: dict[str, Any] | None = None
        self.leaky = False
        self.old_names: list[str] = []
        self._bytes: bytes | None = None

    @classmethod
    def from_repo(cls, repo: SyntheticRepo) -> Entry:
        return cls(
            repo.id,
            repo,
            stars=repo.stars,
            created=_epoch(repo.created_at),
            pushed=_epoch(repo.pushed_at),
            archived=repo.archived,
            fork=repo.fork,
            topics=repo.topics,
            name=repo.name,
            description=repo.description,
            language=repo.language,
            forks=repo.forks,
        )

    @property
    def item(self) -> dict[str, Any]:
        if self._item is None:
            assert self._repo is not None  # an entry holds a synthetic repo until its JSON is built
            self._item = to_search_item(self._repo)
        return self._item

    def json_bytes(self) -> bytes:
        if self._bytes is None:
            self._bytes = json.dumps(self.item, ensure_ascii=True).encode("ascii")
        return self._bytes

    def touch(self) -> None:
        self._bytes = None


# -- query parsing -------------------------------------------------------------------------------

_TOKEN = re.compile(r'"[^"]*"|\S+')
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class QueryError(ValueError):
    pass


def _number_range(value: str) -> tuple[float, float]:
    def num(text: str) -> float:
        if text == "*":
            raise QueryError
        try:
            return float(int(text))
        except ValueError:
            raise QueryError(text) from None

    if ".." in value:
        a, b = value.split("..", 1)
        return (-math.inf if a == "*" else num(a)), (math.inf if b == "*" else num(b))
    for op in (">=", "<=", ">", "<"):
        if value.startswith(op):
            n = num(value[len(op) :])
            return {">=": (n, math.inf), "<=": (-math.inf, n), ">": (n + 1, math.inf), "<": (-math.inf, n - 1)}[op]
    n = num(value)
    return n, n


def _date_bound(text: str, upper: bool) -> float:
    if text == "*":
        return math.inf if upper else -math.inf
    try:
        if _DATE.match(text):
            day = datetime.fromisoformat(text).replace(tzinfo=UTC)
            return (day + timedelta(days=1)).timestamp() - 1 if upper else day.timestamp()
        return _epoch(text)
    except ValueError:
        raise QueryError(text) from None


def _date_range(value: str) -> tuple[float, float]:
    if ".." in value:
        a, b = value.split("..", 1)
        return _date_bound(a, False), _date_bound(b, True)
    for op in (">=", "<=", ">", "<"):
        if value.startswith(op):
            text = value[len(op) :]
            if op == ">=":
                return _date_bound(text, False), math.inf
            if op == "<=":
                return -math.inf, _date_bound(text, True)
            if op == ">":
                return _date_bound(text, True) + 1, math.inf
            return -math.inf, _date_bound(text, False) - 1
    return _date_bound(value, False), _date_bound(value, True)


@dataclass
class Query:
    topics: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    stars: tuple[float, float] = (-math.inf, math.inf)
    forks: tuple[float, float] = (-math.inf, math.inf)
    created: tuple[float, float] = (-math.inf, math.inf)
    pushed: tuple[float, float] = (-math.inf, math.inf)
    archived: bool | None = None
    fork: str = "false"  # GitHub leaves forks out unless fork:true / fork:only
    language: str | None = None

    @property
    def base_key(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.topics, self.terms


def parse_query(q: str) -> Query:
    query = Query()
    topics, terms = [], []
    for token in _TOKEN.findall(q):
        if token.startswith('"'):
            phrase = token.strip('"').strip().lower()
            if phrase:
                terms.append(phrase)
            continue
        key, sep, value = token.partition(":")
        key = key.lower()
        if not sep or key not in (
            "topic",
            "stars",
            "forks",
            "created",
            "pushed",
            "archived",
            "fork",
            "language",
            "is",
            "in",
        ):
            if token.upper() not in ("AND", "OR", "NOT"):
                terms.append(token.lower())
            continue
        if key == "topic":
            topics.append(value.lower())
        elif key == "stars":
            query.stars = _number_range(value)
        elif key == "forks":
            query.forks = _number_range(value)
        elif key in ("created", "pushed"):
            setattr(query, key, _date_range(value))
        elif key == "archived":
            if value not in ("true", "false"):
                raise QueryError(value)
            query.archived = value == "true"
        elif key == "fork":
            query.fork = value.lower() if value.lower() in ("true", "only") else "false"
        elif key == "language":
            query.language = value.lower()
    query.topics, query.terms = tuple(sorted(set(topics))), tuple(terms)
    return query


# -- rate limits ---------------------------------------------------------------------------------


@dataclass
class _Bucket:
    used: int = 0
    reset: float | None = None


@dataclass
class RequestRecord:
    """One request as the emulator saw it. The token itself is never kept, only its scheme."""

    t: float  # the shared clock at arrival
    real_start: float  # time.monotonic() at arrival and at the end, for concurrency checks
    method: str
    path: str
    params: dict[str, str]
    auth: str | None  # "Bearer", "token" or None
    user_agent: str | None
    accept: str | None
    api_version: str | None
    status: int | None = None
    fault: str | None = None
    real_end: float | None = None

    @property
    def page(self) -> int:
        try:
            return int(self.params.get("page", "1") or 1)
        except ValueError:
            return 1

    @property
    def is_search(self) -> bool:
        return self.path.startswith("/search/")


class _Answer:
    def __init__(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json; charset=utf-8",
    ) -> None:
        self.status, self.body, self.headers, self.content_type = status, body, dict(headers or {}), content_type


def _json_body(data: Any) -> bytes:
    return json.dumps(data).encode("utf-8")


class GitHubEmulator:
    """The emulator; use as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(
        self,
        repos: Iterable[SyntheticRepo] = (),
        *,
        clock: Clock | None = None,
        search_limit: int = 30,
        unauthenticated_search_limit: int = 10,
        core_limit: int = 5000,
        window_s: float = 60.0,
        limit_status: int = 403,
        tokens: Iterable[str] | None = None,
        leaky_ids: Iterable[int] = (),
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.clock = clock or RealClock()
        self.limits = {"search": search_limit, "core": core_limit}
        self.unauthenticated_search_limit = unauthenticated_search_limit
        self.window_s = window_s
        self.limit_status = limit_status
        self.tokens = set(tokens) if tokens is not None else None
        self.host, self.port = host, port
        self.log: list[RequestRecord] = []
        self.faults: list[Fault] = []
        self._lock = threading.RLock()
        self._entries: dict[int, Entry] = {}
        self._by_name: dict[str, int] = {}
        self._old_names: dict[str, int] = {}
        self._buckets = {"search": _Bucket(), "core": _Bucket()}
        self._cache: dict[Any, tuple[list[Entry], list[int]]] = {}
        self._leaky: set[int] = set(leaky_ids)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._extra_ids = 900_000_000
        for repo in repos:
            self.add(repo)

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the emulator is not running")
        return f"http://{self.host}:{self._server.server_address[1]}"

    def start(self) -> GitHubEmulator:
        emulator = self

        class Handler(_Handler):
            pass

        Handler.emulator = emulator
        server = ThreadingHTTPServer((self.host, self.port), Handler)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="github-emulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        for fault in self.faults:
            if fault.event is not None:
                fault.event.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> GitHubEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the population ------------------------------------------------------------------------
    def add(self, repo: SyntheticRepo) -> None:
        self.add_entry(Entry.from_repo(repo))

    def add_entry(self, entry: Entry) -> None:
        with self._lock:
            entry.leaky = entry.key in self._leaky
            self._entries[entry.key] = entry
            self._by_name[entry.full_name.lower()] = entry.key
            self._cache.clear()

    def add_raw(
        self,
        item: dict[str, Any],
        *,
        stars: int,
        topics: Iterable[str] = (),
        created_at: str = "2025-01-01T00:00:00Z",
        name: str = "raw",
        description: str | None = None,
        archived: bool = False,
        fork: bool = False,
    ) -> int:
        """Serve ``item`` exactly as given (even without an id) to queries matching the other arguments."""
        with self._lock:
            self._extra_ids += 1
            key = item["id"] if type(item.get("id")) is int else -self._extra_ids
            self.add_entry(
                Entry(
                    key,
                    item,
                    stars=stars,
                    created=_epoch(created_at),
                    pushed=None,
                    archived=archived,
                    fork=fork,
                    topics=topics,
                    name=name,
                    description=description,
                )
            )
            return key

    def entry(self, repo_id: int) -> Entry:
        return self._entries[repo_id]

    def patch(self, repo_id: int, **fields: Any) -> None:
        """Change what the served JSON says (use ``emulator.DELETE`` to drop a key)."""
        with self._lock:
            entry = self._entries[repo_id]
            for key, value in fields.items():
                if value is _DELETE:
                    entry.item.pop(key, None)
                else:
                    entry.item[key] = value
            entry.touch()

    DELETE = _DELETE

    def set_stars(self, repo_id: int, stars: int) -> None:
        with self._lock:
            entry = self._entries[repo_id]
            entry.stars = stars
            for key in ("stargazers_count", "watchers_count", "watchers"):
                entry.item[key] = stars
            entry.touch()
            self._cache.clear()

    def rename(self, repo_id: int, new_full_name: str) -> None:
        """A rename or transfer: same id, new name; the old name answers 301."""
        with self._lock:
            entry = self._entries[repo_id]
            old = entry.full_name
            entry.old_names.append(old)
            self._old_names[old.lower()] = repo_id
            self._by_name.pop(old.lower(), None)
            owner, _, name = new_full_name.partition("/")
            entry.full_name = new_full_name
            entry.item.update(full_name=new_full_name, name=name, html_url=f"https://github.com/{new_full_name}")
            if isinstance(entry.item.get("owner"), dict):
                entry.item["owner"] = {**entry.item["owner"], "login": owner}
            self._by_name[new_full_name.lower()] = repo_id
            entry.touch()
            self._cache.clear()

    def delete(self, repo_id: int) -> None:
        with self._lock:
            self._entries[repo_id].state = "gone"
            self._cache.clear()

    def block(self, repo_id: int, reason: str = "dmca") -> None:
        with self._lock:
            entry = self._entries[repo_id]
            entry.state = "blocked"
            entry.block = {
                "reason": reason,
                "created_at": "2026-01-01T00:00:00Z",
                "html_url": f"https://github.com/github/{reason}/blob/master/2026/notice.md",
            }
            self._cache.clear()

    def inject(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def search_requests(self) -> list[RequestRecord]:
        return [r for r in self.log if r.is_search]

    def expected(self, q: str) -> list[int]:
        """Ids a query matches right now, in result order, without the cap (for tests)."""
        with self._lock:
            return [e.key for e in self._search(parse_query(q), "stars", "desc")]

    # -- searching -------------------------------------------------------------------------------
    def _base(self, query: Query) -> tuple[list[Entry], list[int]]:
        """Entries matching the query's topics and words, by stars descending, with their stars negated."""
        key = query.base_key
        cached = self._cache.get(key)
        if cached is None:
            entries = [
                e
                for e in self._entries.values()
                if e.state == "ok"
                and all(t in e.topics for t in query.topics)
                and all(w in e.text for w in query.terms)
            ]
            entries.sort(key=lambda e: (-e.stars, e.key))
            cached = (entries, [-e.stars for e in entries])
            self._cache[key] = cached
        return cached

    def _search(self, query: Query, sort: str, order: str) -> list[Entry]:
        entries, negated = self._base(query)
        lo, hi = query.stars
        start = bisect.bisect_left(negated, -hi) if hi != math.inf else 0
        end = bisect.bisect_right(negated, -lo) if lo != -math.inf else len(entries)

        def passes(e: Entry, leak: bool) -> bool:
            if not leak:
                if query.archived is not None and e.archived != query.archived:
                    return False
                if (query.fork == "false" and e.fork) or (query.fork == "only" and not e.fork):
                    return False
            if not (query.created[0] <= e.created <= query.created[1]):
                return False
            if query.pushed != (-math.inf, math.inf) and (
                e.pushed is None or not query.pushed[0] <= e.pushed <= query.pushed[1]
            ):
                return False
            if not (query.forks[0] <= e.forks <= query.forks[1]):
                return False
            return query.language is None or (e.language or "").lower() == query.language

        found = [e for e in entries[start:end] if passes(e, False)]
        if self._leaky:
            seen = {e.key for e in found}
            # A leaky repo ignores the fork, archived and stars filters, as the real API sometimes does.
            found += [e for e in entries if e.leaky and e.key not in seen and passes(e, True)]
        if sort == "forks":
            found.sort(key=lambda e: (-e.forks, e.key))
        elif sort == "updated":
            found.sort(key=lambda e: (-(e.pushed or 0), e.key))
        else:
            found.sort(key=lambda e: (-e.stars, e.key))
        if order == "asc":
            found.reverse()
        return found

    # -- answering -------------------------------------------------------------------------------
    def _take(self, resource: str, authed: bool) -> tuple[bool, dict[str, str]]:
        bucket = self._buckets[resource]
        now = self.clock.now()
        if bucket.reset is None or now >= bucket.reset:
            bucket.used, bucket.reset = 0, now + self.window_s
        limit = self.limits[resource]
        if resource == "search" and not authed:
            limit = min(limit, self.unauthenticated_search_limit)
        allowed = bucket.used < limit
        if allowed:
            bucket.used += 1
        headers = {
            "x-ratelimit-limit": str(limit),
            "x-ratelimit-remaining": str(max(limit - bucket.used, 0) if allowed else 0),
            "x-ratelimit-used": str(bucket.used),
            "x-ratelimit-reset": str(math.ceil(bucket.reset)),
            "x-ratelimit-resource": resource,
        }
        return allowed, headers

    def _fault_for(self, path: str, params: dict[str, str]) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(path, params):
                    fault.used += 1
                    return fault
        return None

    def handle(self, handler: _Handler) -> None:
        split = urlsplit(handler.path)
        path = split.path
        params = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        auth_header = handler.headers.get("Authorization")
        scheme, _, credential = (auth_header or "").partition(" ")
        record = RequestRecord(
            t=self.clock.now(),
            real_start=time.monotonic(),
            method=handler.command,
            path=path,
            params=params,
            auth=scheme or None,
            user_agent=handler.headers.get("User-Agent"),
            accept=handler.headers.get("Accept"),
            api_version=handler.headers.get("X-GitHub-Api-Version"),
        )
        with self._lock:
            self.log.append(record)
        fault = self._fault_for(path, params)
        record.fault = fault.kind if fault else None
        if fault is not None and fault.kind == "hold" and fault.event is not None:
            fault.event.wait(120)
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.seconds)
        base = f"http://{handler.headers.get('Host') or f'{self.host}:{self.port}'}"
        answer = self._answer(path, params, credential.strip() if auth_header else None, fault, base)
        record.status = answer.status
        # The client may have given up (a read timeout): then there is nothing to answer to.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            raw = fault is not None and fault.kind == "raw"
            handler.send(
                answer,
                cut=fault is not None and fault.kind == "cut",
                trickle_s=fault.seconds if raw and fault is not None else 0.0,
                trickle_headers=bool(raw and fault is not None and fault.count),
            )
        record.real_end = time.monotonic()

    def _answer(self, path: str, params: dict[str, str], token: str | None, fault: Fault | None, base: str) -> _Answer:
        request_id = uuid.uuid4().hex[:20].upper()
        common = {"x-github-api-version-selected": "2022-11-28", "x-github-request-id": request_id}
        resource = "search" if path.startswith("/search/") else "core"
        if token is not None and self.tokens is not None and token not in self.tokens:
            return _Answer(
                401, _json_body({"message": "Bad credentials", "documentation_url": DOCS, "status": "401"}), common
            )
        if path == "/rate_limit":  # free: it never counts against a limit
            return _Answer(200, _json_body(self._rate_limit_body()), common)
        with self._lock:
            allowed, rate = self._take(resource, token is not None)
        if fault is not None and fault.kind == "no_rate_headers":
            rate = {}
        headers = {**common, **rate}
        if not allowed:
            who = "user ID 1" if token else "127.0.0.1"
            message = f"API rate limit exceeded for {who}."
            if not token:
                message += (
                    " (But here's the good news: Authenticated requests get a higher rate limit. Check out "
                    "the documentation for more details.)"
                )
            else:
                message += (
                    f" If you reach out to GitHub Support for help, please include the request ID "
                    f"{request_id} and timestamp {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC."
                )
            return _Answer(
                self.limit_status,
                _json_body({"message": message, "documentation_url": RATE_DOCS, "status": str(self.limit_status)}),
                headers,
            )
        if fault is not None:
            replaced = self._fault_answer(fault, headers, request_id)
            if replaced is not None:
                return replaced
        if path == "/search/repositories":
            return self._search_answer(params, headers, fault, base)
        repo_match = re.fullmatch(r"/repos/([^/]+)/([^/]+)", path)
        if repo_match:
            owner, name = unquote(repo_match.group(1)), unquote(repo_match.group(2))
            return self._repo_answer(f"{owner}/{name}", None, headers, base)
        id_match = re.fullmatch(r"/repositories/(\d+)", path)
        if id_match:
            return self._repo_answer(None, int(id_match.group(1)), headers, base)
        return _Answer(404, _json_body({"message": "Not Found", "documentation_url": DOCS, "status": "404"}), headers)

    def _fault_answer(self, fault: Fault, headers: dict[str, str], request_id: str) -> _Answer | None:
        kind = fault.kind
        if kind == "secondary":
            extra = {"retry-after": str(fault.retry_after)} if fault.retry_after is not None else {}
            message = fault.message or SECONDARY_MESSAGE
            if fault.message == SECONDARY_MESSAGE:
                message += f" If you reach out to GitHub Support for help, please include the request ID {request_id}."
            docs = (
                "https://developer.github.com/v3/#abuse-rate-limits"
                if fault.message == ABUSE_MESSAGE
                else SECONDARY_DOCS
            )
            return _Answer(
                fault.status, _json_body({"message": message, "documentation_url": docs}), {**headers, **extra}
            )
        if kind == "primary":
            reset = math.ceil(self.clock.now() + (fault.reset_in or 60))
            limited = {**headers, "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
            return _Answer(
                fault.status,
                _json_body({"message": "API rate limit exceeded for user ID 1.", "documentation_url": RATE_DOCS}),
                limited,
            )
        if kind == "status":
            default = {
                500: "Server Error",
                502: "Server Error",
                503: "No server is currently available to service your request. Sorry about that.",
                504: "We couldn't respond to your request in time. Sorry about that.",
                401: "Bad credentials",
                403: "Resource not accessible by personal access token",
                404: "Not Found",
                422: "Validation Failed",
            }
            message = fault.message or default.get(fault.status, "Error")
            body = {"message": message, "documentation_url": DOCS, "status": str(fault.status)}
            return _Answer(fault.status, _json_body(body), {**headers, **fault.headers})
        if kind == "raw":
            return _Answer(fault.status, fault.body, {**headers, **fault.headers})
        if kind == "html":
            return _Answer(fault.status, UNICORN, headers, content_type="text/html; charset=utf-8")
        if kind == "error_object":
            return _Answer(200, _json_body({"message": fault.message, "documentation_url": RATE_DOCS}), headers)
        if kind == "missing_items":
            return _Answer(200, _json_body({"total_count": 5, "incomplete_results": False}), headers)
        if kind == "redirect":
            return _Answer(
                fault.status,
                _json_body({"message": "Moved", "url": fault.location, "documentation_url": DOCS}),
                {**headers, "Location": fault.location or "/"},
            )
        return None

    def _search_answer(
        self, params: dict[str, str], headers: dict[str, str], fault: Fault | None, base: str
    ) -> _Answer:
        q = params.get("q", "")
        if not q.strip():
            return self._validation_failed(headers, "missing")
        try:
            query = parse_query(q)
            per_page = min(max(int(params.get("per_page") or 30), 1), 100)
            page = max(int(params.get("page") or 1), 1)
        except (QueryError, ValueError):
            return self._validation_failed(headers, "invalid")
        if (page - 1) * per_page >= CAP:
            return _Answer(
                422,
                _json_body(
                    {"message": "Only the first 1000 search results are available", "documentation_url": SEARCH_DOCS}
                ),
                headers,
            )
        with self._lock:
            found = self._search(query, params.get("sort", ""), params.get("order", "desc"))
            total = len(found)
            if fault is not None and fault.kind == "ignore_narrowing":
                whole = replace(query, stars=(-math.inf, math.inf), created=(-math.inf, math.inf))
                everything = self._search(whole, params.get("sort", ""), params.get("order", "desc"))
                total = len(everything)
                if not fault.count:
                    found = everything
            offset = (page - 1) * per_page
            chosen = found[offset : min(offset + per_page, CAP)]
            if fault is not None and fault.kind == "duplicate" and len(chosen) >= 2:
                chosen = [chosen[0], *chosen[:-1]]
            if fault is not None and fault.kind == "lie_total":
                chosen, total = [], fault.count
            parts = [e.json_bytes() for e in chosen]
            if fault is not None and fault.kind == "shift":
                self._shift(found, offset, per_page, fault)
        flagged = fault is not None and (fault.kind == "incomplete" or fault.incomplete_results)
        flag = b"true" if flagged else b"false"
        body = b'{"total_count":%d,"incomplete_results":%s,"items":[%s]}' % (total, flag, b",".join(parts))
        link = self._link(base, params, page, per_page, total)
        if link:
            headers = {**headers, "Link": link}
        return _Answer(200, body, headers)

    def _shift(self, found: list[Entry], offset: int, per_page: int, fault: Fault) -> None:
        """Repos move while a crawler pages: new ones land on top, some from below jump up."""
        if not found:
            return
        top, bottom = found[0], found[-1]
        joining = [(top, top.stars + 10 + i) for i in range(fault.count)]
        joining += [(bottom, bottom.stars) for _ in range(fault.enter)]
        for like, stars in joining:
            self._extra_ids += 1
            item = json.loads(like.json_bytes())
            new_id = self._extra_ids
            full_name = f"{like.full_name.split('/')[0]}/newcomer-{new_id}"
            item.update(
                id=new_id,
                node_id=f"R_new{new_id}",
                full_name=full_name,
                name=full_name.split("/")[1],
                html_url=f"https://github.com/{full_name}",
            )
            for key in ("stargazers_count", "watchers_count", "watchers"):
                item[key] = stars
            entry = Entry(
                new_id,
                item,
                stars=stars,
                created=like.created,
                pushed=like.pushed,
                archived=False,
                fork=False,
                topics=like.topics,
                name=item["name"],
                description=item.get("description"),
                language=like.language,
                forks=like.forks,
            )
            self.add_entry(entry)
        # Promoted repos land in the middle of the page just served, which the crawler will not ask for again.
        middle = found[min(offset + per_page // 2, len(found) - 1)]
        for k in range(int(fault.seconds)):
            index = offset + per_page + 5 + k
            if index < len(found):
                self.set_stars(found[index].key, middle.stars + 1)
        for k in range(fault.leave):  # repos already served leave the query (deleted)
            if k < len(found):
                self.delete(found[k].key)

    def _link(self, base: str, params: dict[str, str], page: int, per_page: int, total: int) -> str:
        last = min(math.ceil(total / per_page), math.ceil(CAP / per_page))
        if last <= 1:
            return ""

        def url(n: int) -> str:
            return f"{base}/search/repositories?{urlencode({**params, 'page': str(n)}, quote_via=quote)}"

        rels = []
        if page > 1:
            rels.append(f'<{url(page - 1)}>; rel="prev"')
        if page < last:
            rels.append(f'<{url(page + 1)}>; rel="next"')
            rels.append(f'<{url(last)}>; rel="last"')
        if page > 1:
            rels.append(f'<{url(1)}>; rel="first"')
        return ", ".join(rels)

    def _validation_failed(self, headers: dict[str, str], code: str) -> _Answer:
        return _Answer(
            422,
            _json_body(
                {
                    "message": "Validation Failed",
                    "errors": [{"resource": "Search", "field": "q", "code": code}],
                    "documentation_url": SEARCH_DOCS,
                }
            ),
            headers,
        )

    def _repo_answer(self, full_name: str | None, repo_id: int | None, headers: dict[str, str], base: str) -> _Answer:
        with self._lock:
            if full_name is not None:
                key = self._by_name.get(full_name.lower())
                if key is None and full_name.lower() in self._old_names:
                    moved = self._old_names[full_name.lower()]
                    location = f"{base}/repositories/{moved}"
                    body = {"message": "Moved Permanently", "url": location, "documentation_url": DOCS}
                    return _Answer(301, _json_body(body), {**headers, "Location": location})
            else:
                key = repo_id if repo_id in self._entries else None
            entry = self._entries.get(key) if key is not None else None
            if entry is None or entry.state == "gone":
                body = {
                    "message": "Not Found",
                    "documentation_url": f"{DOCS}/repos/repos#get-a-repository",
                    "status": "404",
                }
                return _Answer(404, _json_body(body), headers)
            if entry.state == "blocked":
                return _Answer(451, _json_body({"message": "Repository access blocked", "block": entry.block}), headers)
            item = {k: v for k, v in entry.item.items() if k != "score"}
        item.update(network_count=item.get("forks_count", 0), subscribers_count=max(1, entry.stars // 20))
        return _Answer(200, _json_body(item), headers)

    def _rate_limit_body(self) -> dict[str, Any]:
        now = self.clock.now()
        resources = {}
        for name, bucket in self._buckets.items():
            fresh = bucket.reset is None or now >= bucket.reset
            used = 0 if fresh else bucket.used
            reset = math.ceil(now + self.window_s) if fresh or bucket.reset is None else math.ceil(bucket.reset)
            resources[name] = {
                "limit": self.limits[name],
                "used": used,
                "remaining": self.limits[name] - used,
                "reset": reset,
            }
        return {"resources": resources, "rate": resources["core"]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    emulator: GitHubEmulator

    def do_GET(self) -> None:
        self.emulator.handle(self)

    def send(
        self, answer: _Answer, *, cut: bool = False, trickle_s: float = 0.0, trickle_headers: bool = False
    ) -> None:
        if trickle_headers:
            lines = [f"HTTP/1.1 {answer.status} {self.responses.get(answer.status, ('',))[0]}"]
            lines += [f"Content-Type: {answer.content_type}", f"Content-Length: {len(answer.body)}"]
            lines += [f"{name}: {value}" for name, value in answer.headers.items()]
            data = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + answer.body
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                time.sleep(trickle_s)
            return
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        for name, value in answer.headers.items():
            # A hostile server's header may hold any text (Retry-After: "\u0663"): sent as UTF-8
            # bytes, which http.server's send_header (Latin-1 only) would refuse.
            self._headers_buffer.append(f"{name}: {value}\r\n".encode())  # type: ignore[attr-defined]
        self.end_headers()
        if cut:
            self.wfile.write(answer.body[: len(answer.body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if trickle_s > 0:
            for i in range(len(answer.body)):
                self.wfile.write(answer.body[i : i + 1])
                self.wfile.flush()
                time.sleep(trickle_s)
            return
        self.wfile.write(answer.body)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        # The Date header follows the emulator's clock, as GitHub's follows real time.
        return email.utils.formatdate(self.emulator.clock.now() if timestamp is None else timestamp, usegmt=True)
