"""A canned query's columns in words on its page (``templates/query.html``): each heading is what the
column is ("Classifier's confidence", not ``probability``) and each figure reads as the rest of the
site shows it (a probability as a percentage, a score to one decimal). The query's metadata says
how, with ``headings`` (column → words) and ``formats`` (column → one of ``FORMATS``); the JSON and
CSV keep the SQL's column names and every digit, and a heading's hover names its column there.
A visitor's own SQL keeps its column names as they are."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

from scoring.score import half_up, shown


def _percent(value: float) -> str:
    # A probability (0 to 1, already cut to two decimals by the query) as a whole percentage: 0.54 → 54 %.
    return f"{half_up(value * 100, 0):.0f} %"


def _difference(value: float) -> str:
    # Recomputed minus stored: every digit when it is not zero, so a mismatch is never rounded away.
    return "0" if value == 0 else f"{value:+.3g}"


FORMATS: dict[str, Callable[[float], str]] = {
    "percent": _percent,
    "score": lambda value: f"{shown(value):.1f}",  # as the ranking, the maker's page and the badge show it
    "decimals": lambda value: f"{half_up(value, 1):.1f}",  # a component or a day count, halves up
    "decimals3": lambda value: f"{half_up(value, 3):.3f}",
    "difference": _difference,
}


def heading(query: Mapping[str, Any] | None, column: str) -> str:
    """What ``column`` of a canned query is headed with on its page: its words, else its name with spaces."""
    words = ((query or {}).get("headings") or {}).get(column)
    return words if isinstance(words, str) and words else column.replace("_", " ")


def cell(query: Mapping[str, Any] | None, column: str, value: Any, display: Any) -> Any:
    """``value`` as the query's ``formats`` say it reads; otherwise Datasette's ``display`` of it."""
    kind = ((query or {}).get("formats") or {}).get(column)
    if kind in FORMATS and isinstance(value, int | float) and not isinstance(value, bool):
        return FORMATS[kind](float(value))
    return display


def next_page(query: Mapping[str, Any] | None, request: Any, columns: Sequence[str], rows: Sequence[Any]) -> str | None:
    """The link to the rows after the last one shown, for a query whose ``next_page`` names the column it
    is ordered by and the parameter it starts from (the recompute query: ``rank``, ``from_rank``); None
    when it has none or the rows do not say."""
    spec = (query or {}).get("next_page") or {}
    column, parameter = spec.get("column"), spec.get("parameter")
    if not rows or not isinstance(column, str) or column not in columns or not parameter:
        return None
    last = rows[-1][list(columns).index(column)]
    if not isinstance(last, int) or isinstance(last, bool):
        return None
    args = [(k, v) for k, v in parse_qsl(request.query_string, keep_blank_values=True) if k != parameter]
    return str(request.path) + "?" + urlencode([*args, (parameter, str(last + 1))])
