"""The ledger's own names as the pages say them, for the benchmark pages (``_benchmark_macros.html``,
through filters) and the ledger's canned queries (``query_columns.py``) alike: a cost's source
("list price", not ``api-list-price``) and an entry's other settings ("max_turns=50, reasoning=high",
not a JSON object). The JSON and CSV keep the ledger's names and JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from datasette_plugins.bidi import isolated
from leaderboard.attempt import COST_SOURCE_LABELS

NO_SOURCE = "source not recorded"
# The demo's marker setting: every page of a demo database already says the data is synthetic.
DEMO_SETTING = "demo_data"
# A source's name where a query printed it among other words ("0.40 (api-list-price; lower bound)").
_SOURCE = re.compile(
    "(?<![\\w-])("
    + "|".join(re.escape(name) for name in sorted(COST_SOURCE_LABELS, key=len, reverse=True))
    + ")(?![\\w-])"
)


def source_label(source: Any) -> str:
    """A cost's source in words ("list price"); a source the site has no words for as recorded."""
    return COST_SOURCE_LABELS.get(source, source) if source else NO_SOURCE


def sources_in_words(text: str) -> str:
    """``text`` with each cost source's name in it in words: "0.40 (api-list-price)" → "0.40 (list price)"."""
    return _SOURCE.sub(lambda found: COST_SOURCE_LABELS[found.group()], text)


def _setting_value(value: Any) -> str:
    return "true" if value is True else "false" if value is False else str(value)


def settings_words(settings: Mapping[str, Any] | None) -> str:
    """An entry's other settings as the pages list them, ``key=value, ...`` by name, the demo's marker
    left out; empty when there are none. Each name and value is the import's text: one holding a
    bidirectional control sits in an isolate, so it cannot reorder the rest of the line."""
    shown = sorted(((k, v) for k, v in (settings or {}).items() if k != DEMO_SETTING), key=lambda kv: kv[0].lower())
    return ", ".join(f"{isolated(str(k))}={isolated(_setting_value(v))}" for k, v in shown)
