"""Repository search: the queries, splitting them past the 1,000-result cap, and fetching pages.

Nothing here touches the database: ``fetch_*`` functions do HTTP and return or yield pages,
``plan_split`` is pure arithmetic on what a first page taught us.

A query part is one search: a configured topic or keyword, a ``stars:`` range and, when a single
star value holds more than 1,000 repos, a ``created:`` window. Ranges are inclusive at both ends
(as GitHub reads them), so sibling parts never share a value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from crawler.client import GitHubClient
from crawler.items import format_timestamp, parse_timestamp

CAP = 1000  # GitHub returns at most the first 1,000 results of any search
PER_PAGE = 100
MAX_PAGE = CAP // PER_PAGE  # page 11 at per_page=100 is GitHub's 422
TARGET = 800  # items a split aims to put in each part, leaving room for estimation error
INCOMPLETE_RETRIES = 2
INCOMPLETE_PAUSE_S = 3.0
# No search can match more repositories than GitHub holds (some 500 million in 2026): a larger or
# negative total_count is not an answer. A split never plans more parts than this at once (a part
# still over the cap is split again), so a huge count cannot turn into a loop of millions.
MAX_TOTAL_COUNT = 10**10
MAX_SPLIT_PARTS = 100
# No repository was created before GitHub opened; the lowest created: window starts here.
GITHUB_EPOCH = datetime(2007, 10, 1, tzinfo=UTC)
# Why a page is flagged incomplete (``SearchPage.flags``).
INCOMPLETE_RESULTS = "incomplete_results"
EMPTY_BELOW_TOTAL = "empty page below total_count"
# A split's parts partition their parent, so no two of them can each hold nearly all of its
# results. Not the sum of all parts against the whole: a result that slips past the stars: filter
# (GitHub's search lets some through) shows up in every star range, so 60 parts count it 60 times
# and an honest split of a query with many such results adds up to several times its whole. Two
# parts each reporting 90 % or more of the whole is past any such slip and any drift of the counts
# between requests (repos created or starred while the crawl runs): the narrower searches do not
# narrow (a server or proxy ignoring stars:/created:, a total_count that never shrinks).
NARROWED_SHARE = 0.9
# A part can hold all of its parent's results (a star value holding every repo of its range), but
# not through this many splits in a row: a total that has not shrunk by then is not being narrowed.
# This catches what the parts' totals cannot judge (a whole taken from an incomplete page may be short).
UNSHRUNK_SPLITS = 3


@dataclass(frozen=True)
class Part:
    """One search: ``base`` (``topic:X`` or a quoted keyword) narrowed by stars and created ranges."""

    base: str
    stars_lo: int
    stars_hi: int | None = None  # None: no upper bound
    created_lo: str | None = None  # 'YYYY-MM-DDTHH:MM:SSZ', inclusive; None: unbounded
    created_hi: str | None = None

    @property
    def q(self) -> str:
        if self.stars_hi is None:
            stars = f">={self.stars_lo}"
        elif self.stars_hi == self.stars_lo:
            stars = str(self.stars_lo)
        else:
            stars = f"{self.stars_lo}..{self.stars_hi}"
        words = [self.base, f"stars:{stars}"]
        if self.created_lo and self.created_hi:
            words.append(f"created:{self.created_lo}..{self.created_hi}")
        elif self.created_lo:
            words.append(f"created:>={self.created_lo}")
        elif self.created_hi:
            words.append(f"created:<={self.created_hi}")
        words.append("archived:false")
        return " ".join(words)


def base_queries(topics: list[str], keywords: list[str]) -> list[str]:
    """One search per configured topic (``topic:X``) and keyword (quoted when it has spaces)."""
    bases = [f"topic:{t.strip()}" for t in topics if t.strip()]
    for keyword in keywords:
        keyword = keyword.strip().replace('"', "")
        if keyword:
            bases.append(f'"{keyword}"' if any(c.isspace() for c in keyword) else keyword)
    return list(dict.fromkeys(bases))


@dataclass
class SearchPage:
    number: int
    total_count: int
    incomplete: bool  # GitHub said incomplete_results, or the page is suspiciously empty
    items: list[Any]
    next_page: int | None = None
    next_url: str | None = None
    attempts: int = 1
    flags: list[str] = field(default_factory=list)


def _is_search_body(data: Any) -> bool:
    """A search answer: a count GitHub could hold, at most one page of items (``per_page``), a flag."""
    return (
        isinstance(data, dict)
        and type(data.get("total_count")) is int
        and 0 <= data["total_count"] <= MAX_TOTAL_COUNT
        and isinstance(data.get("items"), list)
        and len(data["items"]) <= PER_PAGE
        and isinstance(data.get("incomplete_results", False), bool)
    )


def _next_link(
    client: GitHubClient, links: dict[str | None, dict[str, str]], number: int, q: str
) -> tuple[int | None, str | None]:
    nxt = links.get("next")
    if not nxt or not nxt.get("url") or number >= MAX_PAGE:
        return None, None
    url = nxt["url"]
    given = parse_qs(urlsplit(url).query)
    try:
        page = int(given.get("page", [""])[0])
    except ValueError:
        page = number + 1
    if page != number + 1:
        # A link to another page than the next (GitHub's never does): ask for the next page by number.
        return number + 1, None
    asked = {k: [str(v)] for k, v in search_params(q, page).items()}
    if {k: given.get(k) for k in asked} != asked:
        # A link to another search (another q, order or page size): its results are not this
        # query's, so ask for the next page of this one by number.
        return page, None
    # Follow the link GitHub gave, but never to another origin (the token goes with it).
    return page, url if client.same_origin(url) else None


def search_params(q: str, page: int) -> dict[str, Any]:
    return {"q": q, "sort": "stars", "order": "desc", "per_page": PER_PAGE, "page": page}


def fetch_search_page(client: GitHubClient, q: str, page: int, *, url: str | None = None) -> SearchPage:
    """One page of results; an incomplete or suspiciously empty page is asked for again, twice."""
    if page > MAX_PAGE:
        raise ValueError(f"page {page} is past the {CAP}-result cap")
    result: SearchPage | None = None
    for attempt in range(1, INCOMPLETE_RETRIES + 2):
        if attempt > 1:
            client.clock.sleep(INCOMPLETE_PAUSE_S)
        r = client.get(
            url or "/search/repositories", params=None if url else search_params(q, page), expect=_is_search_body
        )
        data = r.data
        next_page, next_url = _next_link(client, r.links, page, q)
        flags = []
        if data.get("incomplete_results"):
            flags.append(INCOMPLETE_RESULTS)
        if not data["items"] and data["total_count"] > (page - 1) * PER_PAGE:
            flags.append(EMPTY_BELOW_TOTAL)
        result = SearchPage(page, data["total_count"], bool(flags), data["items"], next_page, next_url, attempt, flags)
        if not flags:
            break
    assert result is not None
    return result


def fetch_pages(client: GitHubClient, q: str, *, first_page: int = 1) -> Iterator[SearchPage]:
    """Pages of one query from ``first_page``, following ``Link: rel="next"``; never past page 10."""
    number, url = first_page, None
    while number <= MAX_PAGE:
        page = fetch_search_page(client, q, number, url=url)
        yield page
        if page.next_page is None:
            return
        number, url = page.next_page, page.next_url


def pages_for(total: int) -> int:
    return min(max(math.ceil(total / PER_PAGE), 1), MAX_PAGE)


# -- splitting ---------------------------------------------------------------------------------


def _survival(s: float, lo: float, hi: float | None, alpha: float) -> float:
    """Share of a power-law population on [lo, hi) at or above ``s`` (density ∝ s^-(alpha+1))."""
    if abs(alpha) < 1e-9:
        top = math.log(hi) if hi else math.inf
        return (top - math.log(s)) / (top - math.log(lo)) if hi else 1.0
    h = hi**-alpha if hi else 0.0
    return (s**-alpha - h) / (lo**-alpha - h)


def _inverse_survival(p: float, lo: float, hi: float | None, alpha: float) -> float:
    if abs(alpha) < 1e-9 and hi:
        return hi * (lo / hi) ** p
    h = hi**-alpha if hi else 0.0
    return (h + p * (lo**-alpha - h)) ** (-1 / alpha)


def _fit_alpha(lo: float, hi: float | None, total: int, kth: float, k: int) -> float:
    """The power-law exponent that puts exactly k of ``total`` repos at or above ``kth`` stars.

    Two facts the first page gives us for free: the part's total_count and the star count of its
    k-th result (results come sorted by stars, descending).
    """
    target = k / total
    low, high = (0.05 if hi is None else -0.95), 8.0
    if _survival(kth, lo, hi, low) <= target:
        return low
    if _survival(kth, lo, hi, high) >= target:
        return high
    for _ in range(60):
        mid = (low + high) / 2
        if abs(mid) < 1e-6:
            mid = 1e-6
        if _survival(kth, lo, hi, mid) > target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def star_bounds(lo: int, hi: int | None, total: int, top_stars: list[int], parts: int) -> list[int]:
    """Lower edges b1 < b2 < … inside (lo, hi] cutting [lo, hi] into about ``parts`` equal parts."""
    if hi is not None and hi <= lo:
        return []
    top = sorted((s for s in top_stars if s >= lo and (hi is None or s <= hi)), reverse=True)
    if not top:
        mid = (lo + hi + 1) // 2 if hi is not None else lo * 2 + 1
        return [mid] if mid > lo and (hi is None or mid <= hi) else []
    kth = top[-1]
    if kth <= lo:
        return [lo + 1] if hi is None or lo + 1 <= hi else []
    upper = float(hi + 1) if hi is not None else None
    alpha = _fit_alpha(float(lo), upper, total, float(kth), len(top))
    bounds: list[int] = []
    for j in range(1, parts):
        b = round(_inverse_survival(1 - j / parts, float(lo), upper, alpha))
        if b > lo and (hi is None or b <= hi) and (not bounds or b > bounds[-1]):
            bounds.append(b)
    if not bounds:
        bounds = [lo + 1]
    return bounds


def _created_of(item: Any) -> datetime | None:
    value = item.get("created_at") if isinstance(item, dict) else None
    if not isinstance(value, str):
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def created_bounds(part: Part, sample: list[Any], parts: int, now: datetime) -> list[datetime]:
    """Lower edges of ``created:`` windows inside the part's window, from the sample's quantiles."""
    lo = parse_timestamp(part.created_lo) if part.created_lo else GITHUB_EPOCH
    hi = parse_timestamp(part.created_hi) if part.created_hi else max(now, lo) + timedelta(days=1)
    dates = sorted(d for d in map(_created_of, sample) if d is not None and lo <= d <= hi)
    bounds: list[datetime] = []
    for j in range(1, parts):
        if len(dates) >= 2:
            edge = dates[min(len(dates) - 1, round(j * len(dates) / parts))]
        else:
            edge = lo + (hi - lo) * j / parts
        edge = edge.replace(microsecond=0)
        if lo < edge <= hi and (not bounds or edge > bounds[-1]):
            bounds.append(edge)
    if not bounds and hi - lo >= timedelta(seconds=2):
        bounds = [(lo + (hi - lo) / 2).replace(microsecond=0)]
    return bounds


def narrowing_fails(whole: int, parts: Iterable[int]) -> bool:
    """Whether two parts of a split each report nearly all (NARROWED_SHARE) of the ``whole`` they divide."""
    top = sorted(parts, reverse=True)[:2]
    return len(top) == 2 and top[1] > 0 and top[1] >= whole * NARROWED_SHARE


def plan_split(part: Part, total: int, sample: list[Any], *, now: datetime, min_parts: int = 2) -> list[Part]:
    """Children covering exactly the part's range, each expected to hold at most ``TARGET`` repos.

    Star ranges first; a single star value splits into ``created:`` windows. An empty list means
    the part cannot be narrowed further (one star value, one second).
    """
    parts = min(max(min_parts, math.ceil(total / TARGET)), MAX_SPLIT_PARTS)
    top_stars = [
        item["stargazers_count"]
        for item in sample
        if isinstance(item, dict) and type(item.get("stargazers_count")) is int
    ]
    bounds = star_bounds(part.stars_lo, part.stars_hi, total, top_stars, parts)
    if bounds:
        edges = [part.stars_lo, *bounds]
        children = []
        for i, low in enumerate(edges):
            high = edges[i + 1] - 1 if i + 1 < len(edges) else part.stars_hi
            children.append(replace(part, stars_lo=low, stars_hi=high))
        return children
    windows = created_bounds(part, sample, parts, now)
    if not windows:
        return []
    children = []
    lows: list[datetime | None] = [None, *windows]
    highs: list[datetime | None] = [*windows, None]
    for start, end in zip(lows, highs, strict=True):
        created_lo = format_timestamp(start) if start is not None else part.created_lo
        created_hi = format_timestamp(end - timedelta(seconds=1)) if end is not None else part.created_hi
        children.append(replace(part, created_lo=created_lo, created_hi=created_hi))
    return children
