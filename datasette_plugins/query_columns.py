"""A canned query's columns in words on its page (``templates/query.html``): each heading is what the
column is ("Classifier's confidence", not ``probability``) and each figure reads as the rest of the
site shows it (a probability as a percentage, a score to one decimal). The query's metadata says
how, with ``headings`` (column → words) and ``formats`` (column → one of ``FORMATS``); the JSON and
CSV keep the SQL's column names and every digit, and a heading's hover names its column there.
A figure the query already printed as text (the ledger's queries print a missing one as "—" and
add words to some: "0.40 (self-reported)") is formatted where the text holds it, the words kept.
Text has kinds of its own (``TEXT_FORMATS``): a stored instant reads as the maker's page dates
("27 Nov 2026, 01:11 UTC", in a ``<time>`` holding the instant), an entry's settings and a cost's
source in the benchmark pages' words (``ledger_words``). Its form's fields are labelled in words
too (``parameter_labels``: parameter → words), their names, which the URLs use, unchanged. A
visitor's own SQL keeps its column names as they are."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

from markupsafe import Markup

from datasette_plugins.bidi import isolated
from datasette_plugins.ledger_words import settings_words, source_label, sources_in_words
from scoring.explain import when
from scoring.score import half_up, shown


def _percent(value: float) -> str:
    # A probability (0 to 1, already cut to two decimals by the query) as a whole percentage: 0.54 → 54 %.
    return f"{half_up(value * 100, 0):.0f} %"


def _difference(value: float) -> str:
    # Recomputed minus stored: every digit when it is not zero, so a mismatch is never rounded away.
    return "0" if value == 0 else f"{value:+.3g}"


def dollars(value: float) -> str:
    """A cost as the benchmark pages and the queries show it: $1,234.56 (the pages' ``money`` macro)."""
    return f"${value:,.2f}"


def duration(value: float) -> str:
    """Seconds as people read them: "54 s", "14 min 14 s", "1 h 05 min" (the pages' ``seconds`` macro)."""
    t = int(value + 0.5)
    if t < 60:
        return f"{t} s"
    if t < 3600:
        return f"{t // 60} min" + (f" {t % 60} s" if t % 60 else "")
    return f"{t // 3600:,} h {(t % 3600) // 60:02d} min"


FORMATS: dict[str, Callable[[float], str]] = {
    "percent": _percent,
    "points": lambda value: f"{value:.1f} %",  # a figure already in percent (a solve rate): 45.0 → 45.0 %
    "score": lambda value: f"{shown(value):.1f}",  # as the ranking, the maker's page and the badge show it
    "decimals": lambda value: f"{half_up(value, 1):.1f}",  # a component or a day count, halves up
    "decimals3": lambda value: f"{half_up(value, 3):.3f}",
    "difference": _difference,
    "dollars": dollars,
    "duration": duration,
}

_NUMBER = r"\d+(?:\.\d+)?"
_FIGURE = re.compile(rf"(?P<low>{_NUMBER})(?:–(?P<high>{_NUMBER}))?")  # a figure, or a range "20.7–100.0"
_AMOUNT = re.compile(r"(?<![\d.])\d+\.\d\d(?![\d.])")  # an amount printed to the cent ("%.2f"), in words or not


def _instant(text: str) -> Markup | None:
    # A stored UTC instant as the maker's page dates it, with its hour and minute; the instant itself in
    # the <time> element (and the JSON and CSV). None for any other text.
    words = when(text, time=True)
    return None if words == text else Markup('<time datetime="{}">{}</time>').format(text, words)


def _settings(text: str) -> str | None:
    # An entry's other settings (the JSON object the ledger stores) as the benchmark pages list them;
    # "—" when there are none to show. None for text that is not such an object.
    try:
        settings = json.loads(text)
    except ValueError:
        return None
    return (settings_words(settings) or "—") if isinstance(settings, dict) else None


def _names(text: str) -> str | None:
    # A JSON list of names (an attempt's flags): the names, comma-separated, each isolated; "none"
    # for an empty list. None for text that is not such a list.
    try:
        names = json.loads(text)
    except ValueError:
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    return ", ".join(isolated(n) for n in names) or "none"


# Kinds for text: each returns None for text it does not read, which then shows as Datasette shows it.
TEXT_FORMATS: dict[str, Callable[[str], str | None]] = {
    "datetime": _instant,
    "settings": _settings,
    "names": _names,
    "cost_source": lambda text: source_label(text) if text else None,
}


def _in_text(kind: str, text: str) -> str | None:
    """A figure the query printed as text, read as ``kind`` says; None when the text holds none (a "—").
    A cost is each amount to the cent in the text ("not ranked; 2.00 per attempt" → "… $2.00 …", a
    count in "— (cost unknown for 1 of 3 attempts)" left alone); a percentage keeps the query's
    digits and gains its sign ("20.7–100.0" → "20.7–100.0 %"); any other kind takes the whole text."""
    if kind == "dollars":
        # and its source in words, as the pages say it: "0.40 (api-list-price)" → "$0.40 (list price)"
        if not _AMOUNT.search(text):
            return None
        return sources_in_words(_AMOUNT.sub(lambda found: dollars(float(found.group())), text))
    found = _FIGURE.fullmatch(text)
    if not found:
        return None
    if kind == "points":
        return f"{text} %"
    if found.group("high"):
        return None
    return FORMATS[kind](float(text))


def heading(query: Mapping[str, Any] | None, column: str) -> str:
    """What ``column`` of a canned query is headed with on its page: its words, else its name with spaces."""
    words = ((query or {}).get("headings") or {}).get(column)
    return words if isinstance(words, str) and words else column.replace("_", " ")


def cell(query: Mapping[str, Any] | None, column: str, value: Any, display: Any) -> Any:
    """``value`` as the query's ``formats`` say it reads ("—" for null); otherwise Datasette's ``display`` of it."""
    kind = ((query or {}).get("formats") or {}).get(column)
    if value is None and kind:
        return "—"  # not given: what the benchmark pages show for a measurement not taken (not a blank)
    if kind in TEXT_FORMATS:
        shown = TEXT_FORMATS[kind](value) if isinstance(value, str) else None
        return display if shown is None else shown
    if kind not in FORMATS or isinstance(value, bool):
        return display
    if isinstance(value, int | float):
        return FORMATS[kind](float(value))
    shown = _in_text(kind, value) if isinstance(value, str) else None
    return display if shown is None else shown


def parameter_label(query: Mapping[str, Any] | None, name: str) -> str:
    """The words a canned query's form labels its parameter ``name`` with (the field keeps the name, which
    the URLs use): its ``parameter_labels`` entry, else the name with spaces."""
    words = ((query or {}).get("parameter_labels") or {}).get(name)
    return words if isinstance(words, str) and words else name.replace("_", " ")


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
