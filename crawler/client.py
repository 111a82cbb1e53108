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

import email.utils
import json
import logging
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import tenacity

from crawler.clock import Clock, RealClock
from crawler.secrets import REDACTED, redact, register_secret
from crawler.settings import GitHubConfig

log = logging.getLogger("agentrank.crawler")

API_VERSION = "2022-11-28"
SECONDARY_WAIT_CAP_S = 900.0  # longest single back-off after repeated secondary limits
TRANSIENT_BACKOFF = tenacity.wait_exponential_jitter(multiplier=2, max=60, jitter=1)
LONG_WAIT_S = 5.0  # rate-limit pauses at least this long print a line

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

    def __init__(self, until: float, reason: str):
        hhmm = datetime.fromtimestamp(until, UTC).strftime("%H:%M")
        super().__init__(f"rate-limited until {hhmm} UTC; resume later")
        self.until = until
        self.reason = reason


class _Transient(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, *, unreachable: bool = False):
        super().__init__(reason)
        self.retry_after = retry_after
        self.unreachable = unreachable  # no answer at all: the network, a proxy or the URL


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
    value = headers.get(name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S")


def describe_request(request: httpx.Request) -> str:
    """``GET /path?q=...`` for messages: decoded, never with headers."""
    url = request.url
    query = unquote(url.query.decode("ascii", "replace")).replace("+", " ") if url.query else ""
    return f"{request.method} {url.path}" + (f"?{query}" if query else "")


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
        parts = urlsplit(self.api_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise GitHubError(f"API URL must be an http(s) URL, got {self.api_url!r}")
        self.clock = clock or RealClock()
        self._token = token or None
        register_secret(self._token)
        headers = {
            "User-Agent": config.user_agent,
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
        }
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        self._http = httpx.Client(
            base_url=self.api_url, headers=headers, timeout=httpx.Timeout(config.timeout_s), follow_redirects=False
        )
        self.stats = ClientStats()
        self._paused_until = 0.0
        self._pause_reason = ""
        self._last_search_at: float | None = None
        self._buckets: dict[str, tuple[int, float]] = {}  # resource -> (remaining, reset epoch)
        self._secondary_streak = 0
        self._last_request = ""

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
        self._last_request = describe_request(self._http.build_request("GET", url, params=params))
        try:
            r = self._http.get(url, params=params)
        except httpx.TimeoutException as e:
            raise _Transient(f"timed out: {type(e).__name__}", unreachable=True) from None
        except httpx.TransportError as e:
            raise _Transient(f"connection failed: {type(e).__name__}", unreachable=True) from None
        self._note_rate_headers(r, resource)
        status = r.status_code
        data = self._json(r)
        where = self._last_request
        if status in allow:
            return Response(status, str(r.url), r.headers, None if data is _NOT_JSON else data, dict(r.links))
        if status == 200:
            if data is _NOT_JSON:
                kind = r.headers.get("content-type", "no content type").split(";")[0]
                raise _Transient(f"200 with a body that is not JSON ({kind})")
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
            raise _Transient(f"{status} {message}", self._retry_after(r.headers))
        if status == 401:
            raise GitHubError(self._redact(f"GitHub refused the credentials (401 {message}): check GITHUB_TOKEN"), 401)
        raise GitHubError(self._redact(f"GitHub answered {status} to {where}: {message}"), status)

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
            wait, reason = max(reset + 1 - now, 1.0), "primary rate limit"
        else:
            self._secondary_streak += 1
            wait = min(self.config.secondary_wait_s * 2 ** (self._secondary_streak - 1), SECONDARY_WAIT_CAP_S)
            reason = "secondary rate limit"
        self._pause(wait, reason, now)

    def _pause(self, wait: float, reason: str, now: float) -> None:
        until = now + wait
        if wait > self.config.max_wait_s:
            log.warning("%s: the next request is allowed at %s UTC, past max_wait_s; stopping", reason, _utc(until))
            raise RateLimitStop(until, reason)
        if until > self._paused_until:
            self._paused_until, self._pause_reason = until, reason
        raise _RateLimited(reason, wait)

    def _gate(self, resource: str) -> None:
        """Hold the request while a pause is in force, the bucket is empty, or too soon after a search."""
        now = self.clock.now()
        bucket = self._buckets.get(resource)
        if bucket is not None and bucket[0] <= 0 and bucket[1] + 1 > now:
            # Never spend a request the headers say is not there: wait for the window to reset.
            until = bucket[1] + 1
            if until - now > self.config.max_wait_s:
                raise RateLimitStop(until, f"{resource} rate limit used up")
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
        value = headers.get("retry-after")
        if value is None:
            return None
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - self.clock.now(), 0.0)

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
                urlsplit(self.api_url).netloc or self.api_url,
                self._redact(str(error)),
                state.attempt_number + 1,
                self.config.max_retries + 1,
            )
        elif isinstance(error, _Transient):
            log.info(
                "retrying after a transient failure (%s), attempt %d",
                self._redact(str(error)),
                state.attempt_number + 1,
            )

    def _unreachable(self, url: str) -> str:
        host = urlsplit(url).netloc or url
        return (
            f"cannot reach {host}: check the network connection, the proxy settings (HTTPS_PROXY) "
            "and the API URL (--api-url, GITHUB_API_URL)"
        )

    # -- bodies ------------------------------------------------------------------------------
    def _json(self, r: httpx.Response) -> Any:
        """The body as JSON, the token taken out first: a server that echoes it back (in an item's
        field, a message) must not get it into the database."""
        try:
            text = r.text
            if self._token and self._token in text:
                text = text.replace(self._token, REDACTED)
            return json.loads(text)
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


class _NotJson:
    def __repr__(self) -> str:
        return "<not JSON>"


_NOT_JSON: Any = _NotJson()
