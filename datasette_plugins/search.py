"""A search for nothing but quote marks (``?_search="``) shows the table unsearched.

Datasette escapes a plain ``_search`` into FTS5 phrases, and a query made only of quote marks
escapes to an empty string, which FTS5 refuses as a syntax error: a visitor who typed ``"`` into
the search box got an "Invalid SQL" page. An ASGI wrapper drops such a parameter before Datasette
reads the query (``_searchmode=raw`` is left alone: that syntax is the visitor's own).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode


def _searches_nothing(name: str, value: str) -> bool:
    return (name == "_search" or name.startswith("_search_")) and not value.replace('"', "").strip()


def without_empty_searches(query: str) -> str | None:
    """The query string without searches for quote marks only (None: unchanged)."""
    if "_search" not in unquote(query):
        return None
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(k == "_searchmode" and v == "raw" for k, v in pairs):
        return None
    kept = [(k, v) for k, v in pairs if not (_searches_nothing(k, v) and '"' in v)]
    return urlencode(kept) if len(kept) != len(pairs) else None


def drop_empty_searches(app: Any) -> Any:
    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("query_string"):
            rewritten = without_empty_searches(scope["query_string"].decode("latin-1"))
            if rewritten is not None:
                scope = {**scope, "query_string": rewritten.encode("latin-1")}
        await app(scope, receive, send)

    return wrapped
