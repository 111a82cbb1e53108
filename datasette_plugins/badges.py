"""README badges: ``/-/agent/{owner}/{repo}/badge.svg`` and the shields.io endpoint ``.../shields.json``.

The badge shows the score with one decimal (as the maker's page does), the rank and the category,
coloured by score band. A repo not in the published ranking gets a grey "not listed" badge; an
unknown name gets the same SVG badge with status 404, and the same ``shields.json`` with status 200
(shields.io shows only a 200's answer). Both are cached for a day. Text widths come from real
glyph metrics (``badge_font.py``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from datasette import Response
from markupsafe import escape

from datasette_plugins.badge_font import text_width
from datasette_plugins.pages import category_shown, read
from datasette_plugins.reading import ranking_database
from db.directory import badge_facts
from scoring.score import shown

CACHE = "public, max-age=86400"
LABEL = "AgentRank"
GREY = ("lightgrey", "#9f9f9f")
# (lowest score, shields.io colour name, hex) from the top band down.
BANDS = (
    (80.0, "brightgreen", "#4c1"),
    (60.0, "green", "#97ca00"),
    (40.0, "yellow", "#dfb317"),
    (20.0, "orange", "#fe7d37"),
    (0.0, "red", "#e05d44"),
)


def band(score: float | None) -> tuple[str, str]:
    """(shields.io colour name, hex colour) for a score; grey when there is none."""
    if score is None:
        return GREY
    return next((name, hex_colour) for low, name, hex_colour in BANDS if score >= low)


def message(facts: dict[str, Any] | None, with_category: bool = False) -> str:
    if not facts or facts["score"] is None:
        return "not listed"
    text = f"{shown(facts['score']):.1f} · #{facts['rank']:,}"
    if with_category and facts.get("category_name"):
        text += f" · {category_shown(facts)}"
    return text


def _text_width(text: str) -> int:
    """Width in px of one part of the badge: the text at 11 px from real glyph metrics
    (``badge_font``: DejaVu Sans, Verdana-like, as shields.io measures Verdana), 5 px each side."""
    return round(text_width(text)) + 10


def badge_svg(label: str, value: str, colour: str) -> str:
    """A flat two-part badge; every text is XML-escaped."""
    left, right = _text_width(label), _text_width(value)
    width = left + right
    title = escape(f"{label}: {value}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2:.1f}" y="14">{escape(label)}</text>'
        f'<text x="{left + right / 2:.1f}" y="14">{escape(value)}</text></g></svg>'
    )


async def _facts(datasette: Any, request: Any) -> dict[str, Any] | None:
    full_name = "/".join(unquote(request.url_vars[part]) for part in ("owner", "repo"))
    database = await ranking_database(datasette)
    if database is None:
        return None
    return await read(datasette, database, lambda conn: badge_facts(conn, full_name))


async def badge(datasette: Any, request: Any) -> Response:
    facts = await _facts(datasette, request)
    svg = badge_svg(LABEL, message(facts, with_category=True), band(facts["score"] if facts else None)[1])
    return Response(
        svg,
        status=200 if facts else 404,
        headers={"Cache-Control": CACHE},
        content_type="image/svg+xml; charset=utf-8",
    )


async def shields(datasette: Any, request: Any) -> Response:
    facts = await _facts(datasette, request)
    body = {
        "schemaVersion": 1,
        "label": LABEL,
        "message": message(facts),
        "color": band(facts["score"] if facts else None)[0],
    }
    # 200 even for a name nobody knows: shields.io shows an endpoint's answer only when it is a 200
    # (a 404 becomes "resource not found"), and "not listed" is the true answer.
    return Response.json(body, headers={"Cache-Control": CACHE})


ROUTES = [
    (r"^/-/agent/(?P<owner>[^/]+)/(?P<repo>[^/]+)/badge\.svg$", badge),
    (r"^/-/agent/(?P<owner>[^/]+)/(?P<repo>[^/]+)/shields\.json$", shields),
]
