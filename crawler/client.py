"""The one HTTP client the crawler talks to GitHub through.

Requests are serial. Before each one a gate holds it while a rate-limit pause is in force (the
pause holds every request, not only the one that was refused), while the bucket the headers
reported is empty, and until ``min_interval_s`` has passed since the previous search call.
A refused request is classified in GitHub's documented order (``retry-after``, then
``x-ratelimit-remaining: 0``, then a secondary-limit message) and retried through tenacity; 5xx,
timeouts, broken connections and a 200 whose body is not what was asked for are retried with
capped, jittered exponential backoff; 400/401/plain 403/404/422 are never retried. A wait longer
than ``max_wait_s`` is not slept: the run stops with :class:`RateLimitStop` and resumes later.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import math
import time
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import httpcore
import httpx
import tenacity

from crawler.clock import Clock, RealClock
from crawler.secrets import REDACTED, redact, register_secret, spellings
from crawler.settings import GitHubConfig, api_url_problem, without_userinfo

log = logging.getLogger("agentrank.crawler")

API_VERSION = "2022-11-28"
SECONDARY_WAIT_CAP_S = 900.0  # longest single back-off after repeated secondary limits
TRANSIENT_BACKOFF = tenacity.wait_exponential_jitter(multiplier=2, max=60, jitter=1)
LONG_WAIT_S = 5.0  # rate-limit pauses at least this long print a line
# The most a body may hold once decompressed: a search page of 100 items is about 0.5 MB, so this
# leaves room for long descriptions while a gzip bomb (300 kB that unpack to 300 MB) stops here.
MAX_BODY_BYTES = 32 * 2**20
CHUNK_BYTES = 64 * 1024
# The longest wait a header may ask for that is taken as written (a year); a longer or unreadable
# one is clamped to it, and is in any case past max_wait_s, so the run stops, resumable.
MAX_HEADER_WAIT_S = 366 * 24 * 3600.0
_MAX_HEADER_DIGITS = 12
# How far this machine's clock may be from the Date GitHub's answers carry (NTP keeps it within a second).
MAX_CLOCK_SKEW_S = 300.0  # x-ratelimit-reset is epoch seconds (10 digits until the year 2286)

# Lower-cased message tests, after PyGithub's (GithubRetry / Requester) and octokit's.
_PRIMARY_PREFIX = "api rate limit exceeded"
_SECONDARY_MARKERS = ("secondary rate limit", "abuse detection")
_SECONDARY_SUFFIXES = ("please retry your request again later.", "please wait a few minutes before you try again.")


class GitHubError(Exception):
    """GitHub refused a request in a way retrying cannot fix; the message is one line."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class GitHubUnavailable(GitHubError):
    """Transient failures (5xx, timeouts, broken bodies) went on past ``max_retries``."""


class RateLimitExhausted(GitHubError):
    """Still rate-limited after ``max_retries`` waits."""


class RateLimitStop(GitHubError):
    """The next allowed request is further away than ``max_wait_s``: stop now, resume later."""

    def __init__(self, until: float, reason: str, *, wait: float = 0.0):
        # A wait of more than a day names the date too.
        shown = _utc(until, "%Y-%m-%d %H:%M" if wait > 24 * 3600 else "%H:%M")
        if reason[:1].isdigit():  # a server error asking to come back later (503 with Retry-After)
            super().__init__(
                f"GitHub answered {reason.split(', retry-after')[0]} and asks to wait until {shown} UTC; resume later"
            )
        else:
            super().__init__(f"rate-limited until {shown} UTC; resume later")
        self.until = until
        self.reason = reason


class ClockSkew(GitHubError):
    """This machine's clock disagrees with GitHub's by more than ``MAX_CLOCK_SKEW_S``: every time
    the run recorded would be wrong (a run dated a year ahead blocks every later import)."""


class _Transient(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, *, unreachable: bool = False):
        super().__init__(reason)
        self.retry_after = retry_after
        self.unreachable = unreachable  # no answer at all: the network, a proxy or the URL


class _Unreachable(Exception):
    """Nothing answers at the API's address (connection refused, no such host): not retried."""


class _RateLimited(Exception):
    def __init__(self, reason: str, wait: float):
        super().__init__(reason)
        self.wait = wait


@dataclass
class ClientStats:
    requests: int = 0
    search_requests: int = 0
    waits: int = 0  # rate-limit pauses
    wait_s: float = 0.0
    retries: int = 0


@dataclass
class Response:
    status: int
    url: str
    headers: httpx.Headers
    data: Any
    links: dict[str | None, dict[str, str]] = field(default_factory=dict)


def is_rate_limit_message(message: str) -> bool:
    text = message.strip().lower()
    return text.startswith(_PRIMARY_PREFIX) or _is_secondary_message(text)


def _is_secondary_message(text: str) -> bool:
    text = text.strip().lower()
    return any(m in text for m in _SECONDARY_MARKERS) or text.endswith(_SECONDARY_SUFFIXES)


def _int_header(headers: httpx.Headers, name: str) -> int | None:
    """A header holding a whole number of ASCII digits (at most 12), else None: "²" is a digit to
    Python but not to HTTP, and a 400-digit number is no epoch time."""
    value = (headers.get(name) or "").strip()
    if not value or not value.isascii() or not value.isdigit() or len(value) > _MAX_HEADER_DIGITS:
        return None
    return int(value)


def _utc(epoch: float, pattern: str = "%H:%M:%S") -> str:
    try:
        return datetime.fromtimestamp(epoch, UTC).strftime(pattern)
    except (OverflowError, OSError, ValueError):
        return "a time past the year 9999"


def _span(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.0f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 60:.0f} minutes"


def _host(url: str) -> str:
    """``host[:port]`` of ``url``, never a user name or password."""
    return urlsplit(url).netloc.rpartition("@")[2] or url


def describe_request(request: httpx.Request) -> str:
    """``GET /path?q=...`` for messages: decoded, never with headers."""
    url = request.url
    query = unquote(url.query.decode("ascii", "replace")).replace("+", " ") if url.query else ""
    return f"{request.method} {url.path}" + (f"?{query}" if query else "")


def check_api_url(url: str) -> None:
    """Raise GitHubError (its message without any credentials in the URL) unless ``url`` can be used."""
    problem = api_url_problem(url.rstrip("/"))
    if problem:
        shown = without_userinfo(url.rstrip("/"))
        if problem.startswith("expected an http(s) URL"):
            raise GitHubError(f"API URL must be an http(s) URL, got {shown!r}")
        raise GitHubError(f"API URL {shown!r} {problem}")


class GitHubClient:
    """Serial, paced, rate-limit-aware GET requests to one GitHub API origin."""

    def __init__(
        self,
        config: GitHubConfig,
        *,
        api_url: str | None = None,
        token: str | None = None,
        clock: Clock | None = None,
    ):
        self.config = config
        self.api_url = (api_url or config.api_url).rstrip("/")
        check_api_url(self.api_url)
        self.clock = clock or RealClock()
        self._token = token or None
        register_secret(self._token)
        headers = {
            "User-Agent": config.user_agent,
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            # Only what _read_body can unpack while counting the bytes.
            "Accept-Encoding": "gzip, deflate",
        }
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        self._http = httpx.Client(
            base_url=self.api_url, headers=headers, timeout=httpx.Timeout(config.timeout_s), follow_redirects=False
        )
        self._deadline = _Deadline()
        _hold_to_deadline(self._http, self._deadline)
        self.stats = ClientStats()
        self._paused_until = 0.0
        self._pause_reason = ""
        self._last_search_at: float | None = None
        self._buckets: dict[str, tuple[int, float]] = {}  # resource -> (remaining, reset epoch)
        self._secondary_streak = 0
        self._last_request = ""
        self.server_time: float | None = None  # the Date of the latest answer, as epoch seconds
        self._clock_checked = False

    def check_clock(self) -> None:
        """Compare the clock with the ``Date`` of ``GET /rate_limit`` (free of the rate limit), once
        per client; raise :class:`ClockSkew` when they are more than ``MAX_CLOCK_SKEW_S`` apart. An
        API that sends no Date is not checked."""
        if self._clock_checked:
            return
        self.get("/rate_limit", allow=(404,))
        self._clock_checked = True
        if self.server_time is None:
            return
        ahead = self.clock.now() - self.server_time
        if abs(ahead) > MAX_CLOCK_SKEW_S:
            direction = "ahead of" if ahead > 0 else "behind"
            raise ClockSkew(
                f"this machine's clock ({_utc(self.clock.now(), '%Y-%m-%d %H:%M')} UTC) is {_span(abs(ahead))} "
                f"{direction} GitHub's ({_utc(self.server_time, '%Y-%m-%d %H:%M')} UTC): set the clock right "
                "(e.g. enable NTP) and run again; nothing was recorded"
            )

    # -- lifecycle -----------------------------------------------------------------------------
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def same_origin(self, url: str) -> bool:
        a, b = urlsplit(self.api_url), urlsplit(url)
        return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)

    def _redact(self, text: str) -> str:
        return redact(text, self._token)

    # -- the request -------------------------------------------------------------------------
    def get(
        self,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        expect: Callable[[Any], bool] | None = None,
        allow: Collection[int] = (),
    ) -> Response:
        """GET ``url`` (relative to the API base, or absolute on the same origin).

        ``expect`` checks a 200 body's shape; a body that fails it is retried (or, when it carries
        a rate-limit message, handled as a rate limit). Statuses in ``allow`` are returned, not
        raised (``fetch_repo`` handles 301/404/451 itself).
        """
        if url.startswith(("http://", "https://")) and not self.same_origin(url):
            raise GitHubError(f"refusing to send a request to another origin: {urlsplit(url).netloc}")
        resource = "search" if "/search/" in urlsplit(url).path else "core"
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type((_Transient, _RateLimited)),
            stop=tenacity.stop_after_attempt(self.config.max_retries + 1),
            wait=self._backoff,
            sleep=self._backoff_sleep,
            before_sleep=self._note_retry,
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return self._attempt(url, params, resource, expect, allow)
        except _Transient as e:
            where = self._last_request or f"GET {url}"
            hint = f"; {self._unreachable(self.api_url)}" if e.unreachable else ""
            raise GitHubUnavailable(
                self._redact(f"GitHub kept failing after {self.config.max_retries + 1} attempts ({e}): {where}{hint}")
            ) from None
        except _Unreachable as e:
            where = self._last_request or f"GET {url}"
            raise GitHubUnavailable(
                self._redact(f"GitHub did not answer ({e}): {where}; {self._unreachable(self.api_url)}")
            ) from None
        except _RateLimited as e:
            raise RateLimitExhausted(
                self._redact(f"still rate-limited ({e}) after {self.config.max_retries} retries; resume later")
            ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(
        self,
        url: str,
        params: dict[str, Any] | None,
        resource: str,
        expect: Callable[[Any], bool] | None,
        allow: Collection[int],
    ) -> Response:
        self._gate(resource)
        self.stats.requests += 1
        if resource == "search":
            self.stats.search_requests += 1
            self._last_search_at = self.clock.now()
        request = self._http.build_request("GET", url, params=params)
        self._last_request = describe_request(request)
        r, body = self._send(request)
        self._note_rate_headers(r, resource)
        self._note_server_time(r)
        status = r.status_code
        data = self._json(body)
        where = self._last_request
        if status in allow:
            return Response(status, str(r.url), r.headers, None if isinstance(data, _NotJson) else data, dict(r.links))
        if status == 200:
            if isinstance(data, _NotJson):
                kind = r.headers.get("content-type", "no content type").split(";")[0]
                raise _Transient(f"200 with a body that is not JSON ({kind}{data.why})")
            if expect is not None and not expect(data):
                message = data.get("message") if isinstance(data, dict) else None
                if isinstance(message, str) and is_rate_limit_message(message):
                    self._rate_limited(r, message)
                raise _Transient("200 with a body that is not a valid response")
            self._secondary_streak = 0
            return Response(status, str(r.url), r.headers, data, dict(r.links))
        message = self._message(data, r)
        if status in (403, 429):
            if (
                r.headers.get("retry-after") is not None
                or r.headers.get("x-ratelimit-remaining") == "0"
                or is_rate_limit_message(message)
                or status == 429
            ):
                self._rate_limited(r, message)
            raise GitHubError(
                self._redact(f"GitHub refused {where} (403 {message}); check the token's permissions"), status
            )
        if status >= 500:
            retry_after = self._retry_after(r.headers)
            if retry_after is not None and retry_after > self.config.max_wait_s:
                # A maintenance page or proxy saying "come back in an hour" is a wait like a rate
                # limit's: past max_wait_s the run stops, resumable, instead of sleeping silently.
                self._pause(retry_after, f"{status} {message}, retry-after {retry_after:g} s", self.clock.now())
            raise _Transient(f"{status} {message}", retry_after)
        if status == 401:
            raise GitHubError(self._redact(f"GitHub refused the credentials (401 {message}): check GITHUB_TOKEN"), 401)
        raise GitHubError(self._redact(f"GitHub answered {status} to {where}: {message}"), status)

    def _send(self, request: httpx.Request) -> tuple[httpx.Response, bytes]:
        """Send ``request`` and read its whole answer within ``timeout_s``: a total deadline, not a
        per-read one (every socket read and write of the request stops there, so an answer trickled
        a byte at a time, headers included, never outlasts it), decompressed by us so that at most
        ``MAX_BODY_BYTES`` are ever held (a gzip bomb stops there)."""
        deadline = time.monotonic() + self.config.timeout_s
        self._deadline.at = deadline
        try:
            return self._exchange(request, deadline)
        finally:
            self._deadline.at = None

    def _exchange(self, request: httpx.Request, deadline: float) -> tuple[httpx.Response, bytes]:
        try:
            r = self._http.send(request, stream=True)
        except httpx.ConnectError as e:
            # Nobody answers at that address (refused, no such host): waiting does not fix that.
            raise _Unreachable(f"connection failed: {type(e).__name__}") from None
        except httpx.ConnectTimeout as e:
            raise _Transient(self._timed_out(e, deadline), unreachable=True) from None
        except httpx.TimeoutException as e:
            # Connected, but the answer did not come in time: a slow server, not an unreachable one.
            raise _Transient(self._timed_out(e, deadline)) from None
        except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as e:
            # Connected, then reset or dropped by the other side: the host answers, this request broke.
            raise _Transient(f"the connection broke off: {type(e).__name__}") from None
        except httpx.TransportError as e:
            raise _Transient(f"connection failed: {type(e).__name__}", unreachable=True) from None
        try:
            return r, self._read_body(r, deadline)
        except httpx.TimeoutException as e:
            raise _Transient(self._timed_out(e, deadline)) from None
        except httpx.TransportError as e:
            raise _Transient(f"the answer broke off: {type(e).__name__}") from None
        finally:
            r.close()

    def _timed_out(self, error: Exception, deadline: float) -> str:
        if time.monotonic() >= deadline:
            return f"no complete answer within timeout_s ({self.config.timeout_s:g} s)"
        return f"timed out: {type(error).__name__}"

    def _read_body(self, r: httpx.Response, deadline: float) -> bytes:
        encoding = r.headers.get("content-encoding", "").strip().lower()
        if encoding in ("gzip", "x-gzip"):
            decoder: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            decoder = zlib.decompressobj()
        elif encoding in ("", "identity"):
            decoder = None
        else:
            raise _Transient(f"a body in an encoding that was not asked for ({encoding[:40]})")
        parts: list[bytes] = []
        size = 0
        try:
            for chunk in r.iter_raw(CHUNK_BYTES):
                if time.monotonic() > deadline:
                    raise _Transient(f"no complete answer within timeout_s ({self.config.timeout_s:g} s)")
                pending = chunk
                while pending:
                    if decoder is None:
                        out, pending = pending, b""
                    else:
                        out = decoder.decompress(pending, MAX_BODY_BYTES - size + 1)
                        pending = decoder.unconsumed_tail
                    size += len(out)
                    if size > MAX_BODY_BYTES:
                        raise _Transient(f"a body larger than {MAX_BODY_BYTES // 2**20} MB")
                    parts.append(out)
            if decoder is not None:
                parts.append(decoder.flush())
        except zlib.error:
            raise _Transient(f"a broken {encoding} body") from None
        return b"".join(parts)

    # -- classification --------------------------------------------------------------------
    def _rate_limited(self, r: httpx.Response, message: str) -> None:
        """Work out how long to wait, in GitHub's documented order, and pause every request."""
        now = self.clock.now()
        retry_after = self._retry_after(r.headers)
        reset = _int_header(r.headers, "x-ratelimit-reset")
        if retry_after is not None:
            kind = "secondary rate limit" if _is_secondary_message(message) else "rate limit"
            wait, reason = retry_after, f"{kind}, retry-after {retry_after:g} s"
        elif r.headers.get("x-ratelimit-remaining") == "0" and reset is not None:
            wait, reason = min(max(reset + 1 - now, 1.0), MAX_HEADER_WAIT_S), "primary rate limit"
        else:
            self._secondary_streak += 1
            wait = min(self.config.secondary_wait_s * 2 ** (self._secondary_streak - 1), SECONDARY_WAIT_CAP_S)
            # A primary-limit message without its headers (a proxy dropped them) is waited out the same
            # way, but named for what GitHub said.
            reason = "secondary rate limit" if _is_secondary_message(message) else "rate limit, no reset time given"
        self._pause(wait, reason, now)

    def _pause(self, wait: float, reason: str, now: float) -> None:
        wait = min(wait, MAX_HEADER_WAIT_S)
        until = now + wait
        if wait > self.config.max_wait_s:
            # A wait past a day is shown with its date: "at 17:59:24" read as today for a year's wait.
            when = _utc(until, "%Y-%m-%d %H:%M:%S") if wait > 86_400 else _utc(until)
            log.warning("%s: the next request is allowed at %s UTC, past max_wait_s; stopping", reason, when)
            raise RateLimitStop(until, reason, wait=wait)
        if until > self._paused_until:
            self._paused_until, self._pause_reason = until, reason
        raise _RateLimited(reason, wait)

    def _gate(self, resource: str) -> None:
        """Hold the request while a pause is in force, the bucket is empty, or too soon after a search."""
        now = self.clock.now()
        bucket = self._buckets.get(resource)
        if bucket is not None and bucket[0] <= 0 and bucket[1] + 1 > now:
            # Never spend a request the headers say is not there: wait for the window to reset.
            until = min(bucket[1] + 1, now + MAX_HEADER_WAIT_S)
            if until - now > self.config.max_wait_s:
                raise RateLimitStop(until, f"{resource} rate limit used up", wait=until - now)
            if until > self._paused_until:
                self._paused_until, self._pause_reason = until, f"{resource} rate limit used up"
        if self._paused_until > now:
            wait = self._paused_until - now
            if wait >= LONG_WAIT_S:
                log.warning(
                    "rate-limited (%s): waiting %d s, until %s UTC",
                    self._pause_reason,
                    math.ceil(wait),
                    _utc(self._paused_until),
                )
            self.stats.waits += 1
            self.stats.wait_s += wait
            self.clock.sleep(wait)
            self._buckets.pop(resource, None)
        if resource == "search" and self._last_search_at is not None:
            gap = self._last_search_at + self.config.min_interval_s - self.clock.now()
            if gap > 0:
                self.clock.sleep(gap)

    def _note_rate_headers(self, r: httpx.Response, resource: str) -> None:
        remaining = _int_header(r.headers, "x-ratelimit-remaining")
        reset = _int_header(r.headers, "x-ratelimit-reset")
        if remaining is not None and reset is not None:
            self._buckets[r.headers.get("x-ratelimit-resource") or resource] = (remaining, float(reset))

    def _retry_after(self, headers: httpx.Headers) -> float | None:
        """Seconds to wait from ``Retry-After`` (delta-seconds or an HTTP date), at most a year;
        None when it is absent or unreadable."""
        value = headers.get("retry-after")
        if value is None:
            return None
        value = value.strip()
        if value.isascii() and value.isdigit():
            return float(value) if len(value) <= _MAX_HEADER_DIGITS else MAX_HEADER_WAIT_S
        try:
            when = email.utils.parsedate_to_datetime(value)
            wait = when.timestamp() - self.clock.now()
        except (TypeError, ValueError, OverflowError, IndexError):
            return None
        return min(max(wait, 0.0), MAX_HEADER_WAIT_S)

    def _note_server_time(self, r: httpx.Response) -> None:
        value = r.headers.get("date")
        if not value:
            return
        with contextlib.suppress(TypeError, ValueError, OverflowError, IndexError):
            self.server_time = email.utils.parsedate_to_datetime(value).timestamp()

    # -- tenacity hooks ------------------------------------------------------------------------
    def _backoff(self, state: tenacity.RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _RateLimited):
            return 0.0  # the gate sleeps out the pause before the next attempt
        wait = TRANSIENT_BACKOFF(state)
        if isinstance(error, _Transient) and error.retry_after is not None:
            wait = max(wait, error.retry_after)
        return wait

    def _backoff_sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.clock.sleep(seconds)

    def _note_retry(self, state: tenacity.RetryCallState) -> None:
        self.stats.retries += 1
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _Transient) and error.unreachable:
            # Said at once (a warning shows without -v), not only after every retry has failed.
            log.warning(
                "cannot reach %s (%s); retrying, attempt %d of %d",
                _host(self.api_url),
                self._redact(str(error)),
                state.attempt_number + 1,
                self.config.max_retries + 1,
            )
        elif isinstance(error, _Transient) and error.retry_after is not None and error.retry_after >= LONG_WAIT_S:
            log.warning(
                "GitHub answered %s; waiting %d s as its Retry-After asks, attempt %d",
                self._redact(str(error)),
                math.ceil(max(error.retry_after, 0)),
                state.attempt_number + 1,
            )
        elif isinstance(error, _Transient):
            log.info(
                "retrying after a transient failure (%s), attempt %d",
                self._redact(str(error)),
                state.attempt_number + 1,
            )

    def _unreachable(self, url: str) -> str:
        host = _host(url)
        return (
            f"cannot reach {host}: check the network connection, the proxy settings (HTTPS_PROXY) "
            "and the API URL (--api-url, GITHUB_API_URL)"
        )

    # -- bodies ------------------------------------------------------------------------------
    def _json(self, body: bytes) -> Any:
        """The body as JSON, the token taken out first: a server that echoes it back (in an item's
        field, a message) must not get it into the database. An object with the same key twice is
        not an answer (which value would be meant?), nor is JSON nested deeper than Python recurses."""
        try:
            text = body.decode("utf-8-sig")
            secrets = sorted(spellings(self._token), key=len, reverse=True) if self._token else []
            for secret in secrets:  # as sent, or quoted back URL- or JSON-encoded
                if secret in text:
                    text = text.replace(secret, REDACTED)
            data = json.loads(text, object_pairs_hook=_unique_keys)
            if "\\u" in text:
                # An escaped copy (\u0067hp_…) only becomes the token once decoded.
                for secret in secrets:
                    data = _without(data, secret)
            return data
        except _DuplicateKey as e:
            return _NotJson(f"; the key {str(e)[:40]!r} twice in one object")
        except RecursionError:
            return _NotJson("; nested too deeply")
        except ValueError:
            return _NOT_JSON

    def _message(self, data: Any, r: httpx.Response) -> str:
        if isinstance(data, dict) and isinstance(data.get("message"), str):
            text = data["message"]
        else:
            text = r.reason_phrase or "no message"
        text = " ".join(text.split())
        if len(text) > 300:
            text = text[:297] + "..."
        return self._redact(text)


class _Deadline:
    """When the request in flight must be over (monotonic seconds); None: no request."""

    def __init__(self) -> None:
        self.at: float | None = None

    def left(self, timeout: float | None) -> float | None:
        """The socket timeout to use now: ``timeout``, cut to what is left before the deadline."""
        if self.at is None:
            return timeout
        left = self.at - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the request's deadline passed")
        return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write stops at the request's deadline, so an answer
    trickled a byte at a time (its headers included) cannot outlast ``timeout_s``."""

    def __init__(self, stream: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self._stream, self._deadline = stream, deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._deadline.left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._deadline.left(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, self._deadline.left(timeout)), self._deadline
        )

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend, deadline: _Deadline) -> None:
        self._backend, self._deadline = backend, deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        stream = self._backend.connect_tcp(host, port, self._deadline.left(timeout), local_address, socket_options)
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        stream = self._backend.connect_unix_socket(path, self._deadline.left(timeout), socket_options)
        return _DeadlineStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _hold_to_deadline(client: httpx.Client, deadline: _Deadline) -> None:
    """Put every connection ``client`` opens (directly or through a proxy) under ``deadline``."""
    transports = [client._transport, *client._mounts.values()]  # httpx has no public hook for this
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is not None and not isinstance(backend, _DeadlineBackend):
            pool._network_backend = _DeadlineBackend(backend, deadline)  # type: ignore[union-attr]


class _NotJson:
    def __init__(self, why: str = ""):
        self.why = why

    def __repr__(self) -> str:
        return "<not JSON>"


_NOT_JSON: Any = _NotJson()


class _DuplicateKey(ValueError):
    pass


def _without(data: Any, secret: str) -> Any:
    """``data`` with ``secret`` replaced in every string, keys included."""
    if isinstance(data, str):
        return data.replace(secret, REDACTED) if secret in data else data
    if isinstance(data, list):
        return [_without(v, secret) for v in data]
    if isinstance(data, dict):
        return {_without(k, secret): _without(v, secret) for k, v in data.items()}
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result
