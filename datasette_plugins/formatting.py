"""How numbers, changes and dates read on the directory pages (Jinja filters and plain functions)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from datasette import hookimpl
from markupsafe import Markup

from crawler.items import parse_timestamp
from datasette_plugins.agent_page import correction
from datasette_plugins.benchmark_pages import bench_path
from datasette_plugins.bidi import isolated
from datasette_plugins.ledger_words import settings_words, source_label
from datasette_plugins.limits import limits
from datasette_plugins.paths import agent_path
from datasette_plugins.query_columns import cell, dollars, duration, heading, next_page, parameter_label
from db.listing import reason_parts
from scoring.explain import field_label, field_value, likely_rank_phrase, own_label, rank_range_text, when
from scoring.explain import signed as explain_signed
from scoring.score import half_up, shown


def thousands(value: Any) -> str:
    """``94483`` → ``94,483``; empty for None."""
    if not isinstance(value, int | float):
        return "" if value is None or not isinstance(value, str) else value
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{int(value):,}"


def signed(value: Any, decimals: int = 0) -> str:
    """``+1,204`` / ``−3`` / ``0``: a change, never ``-0`` or ``+0.0``; ``—`` when unknown."""
    if not isinstance(value, int | float):
        return "—"
    return explain_signed(float(value), decimals)


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 repository``, ``2 repositories``, with the count's thousands separated."""
    many = words or (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s")
    return f"{count:,} {word if count == 1 else many}"


def parse_time(value: str) -> datetime | None:
    try:
        return parse_timestamp(value)
    except (AttributeError, ValueError):
        return None


def ago(value: Any, now: datetime | None = None) -> str:
    """``2026-11-27T06:00:00Z`` → ``3 days ago`` (today, yesterday, weeks, months, years)."""
    when = parse_time(value) if isinstance(value, str) else None
    if when is None:
        return "never"
    days = ((now or datetime.now(UTC)) - when).total_seconds() / 86400
    if days < 1:
        return "today"
    if days < 2:
        return "yesterday"
    for size, unit, least in ((365.25, "year", 547), (30.44, "month", 45), (7, "week", 14)):
        if days >= least:
            return f"{plural(round(days / size), unit)} ago"
    return f"{int(days)} days ago"


def share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage that never claims 100 % or 0 % when it is not."""
    if not whole:
        return "0 %"
    percent = 100 * part / whole
    text = f"{percent:.0f}"
    if (text == "100" and part < whole) or (text == "0" and part > 0):
        text = f"{percent:.1f}" if 0.1 <= percent <= 99.9 else ("99.9" if part < whole and percent > 50 else "0.1")
    return f"{text} %"


def day(value: Any) -> str:
    """The day of a stored timestamp as the maker's and benchmark pages say it ("26 Nov 2026")."""
    return when(value[:10]) if isinstance(value, str) else ""


def anchor(value: Any) -> str:
    """An HTML id (and ``#fragment``) for a name: no spaces or other separators, e.g. "Demo Index" → "demo-index"."""
    slug = re.sub(r"[^\w]+", "-", str(value).lower(), flags=re.UNICODE).strip("-")
    return slug or "section"


def topic_list(value: Any, limit: int = 4) -> list[str]:
    """A repo's topics (a JSON array as stored) as a list of at most ``limit`` strings."""
    if isinstance(value, list):
        found = value
    else:
        try:
            found = json.loads(value) if isinstance(value, str) and value else []
        except ValueError:
            return []
    return [str(t) for t in found if isinstance(t, str | int)][:limit] if isinstance(found, list) else []


def reason_html(reason: Any) -> Markup | None:
    """A stored unlisted reason in words for a page, escaped, with the text we did not write (a
    maintainer's exclusion reason) in a ``<bdi>``: a right-to-left override in it cannot reorder
    the sentence around it."""
    if not isinstance(reason, str):
        return None
    ours, theirs = reason_parts(reason)
    return Markup("{}<bdi>{}</bdi>").format(ours, theirs) if theirs else Markup.escape(ours)


def own_words(change: dict[str, Any]) -> str:
    """The repo's own share of a score change, naming only what changed (a week without a push
    is not called "pushes")."""
    if change.get("own_is_time_only") and round(change["own_points"], 2) != 0:
        return own_label(change)
    own = change.get("own_changes", {})
    words = (("stars", "stars"), ("forks", "forks"), ("pushed_at", "a push"), ("license_spdx", "its licence"))
    changed = [word for key, word in words if key in own and own[key]["before"] != own[key]["after"]]
    aged = any(c["component"] == "activity" and c["before"] != c["after"] for c in change.get("components", []))
    if aged and "a push" not in changed:
        changed.append("time since its last push")
    return "its own change" + (
        f" ({', '.join(changed)})" if changed else " (nothing: no new stars, forks, push or licence)"
    )


@hookimpl
def prepare_jinja2_environment(env: Any, datasette: Any) -> None:
    env.filters.update(
        anchor=anchor,
        isolate=lambda value: isolated(str(value)),
        # a figure to n decimals, halves up: as the tables (SQLite's round) and the score show it
        decimals=lambda value, n=1: "" if value is None else f"{half_up(float(value), n):.{n}f}",
        thousands=thousands,
        signed=signed,
        plural=plural,
        ago=ago,
        day=day,
        # "27 Nov 2026"; with time=true "27 Nov 2026, 01:11 UTC", as the canned queries' instants read
        when=lambda value, time=False: when(value, time=time) if isinstance(value, str) else "",
        share=share,
        reason=reason_html,
        # a likely-rank range: "11–19", or "14" when best and worst are the same rank (never "14–14")
        rank_range=lambda best, worst: rank_range_text(int(best), int(worst)),
        likely_rank=likely_rank_phrase,
        score=lambda value: "" if value is None else f"{shown(value):.1f}",
        field_label=field_label,
        # the ledger's names in words, as the canned queries show them too (datasette_plugins/ledger_words.py)
        source_label=source_label,
        settings_words=settings_words,
        # a cost and a duration, as the canned queries show them too (query_columns.FORMATS)
        dollars=dollars,
        duration=duration,
        field_value=field_value,
        own_label=own_label,
        own_words=own_words,
        topics=topic_list,
        agent_url=lambda name: datasette.urls.path(agent_path(name)),
        bench_url=lambda parts: datasette.urls.path(bench_path(*parts)),
        category_url=lambda category: datasette.urls.path("/-/category/" + quote(str(category), safe="")),
        owner_url=lambda login: datasette.urls.path("/-/owner/" + quote(str(login), safe="")),
        # the maker's correction, one click from an uncertain category on any list
        correction_url=lambda name, category=None, uncertain=False: correction(
            limits(datasette).source_url, str(name), category, uncertain=uncertain
        )["issue_url"],
    )
    # a canned query's columns and form fields in words, its figures as the site shows them (templates/query.html)
    env.globals.update(
        query_heading=heading, query_cell=cell, query_next_page=next_page, query_parameter=parameter_label
    )
