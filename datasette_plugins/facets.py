"""One facet per column, and a few per request: ``?_facet=category`` on a table that already facets
by ``category`` (its metadata's ``facets``) is the same facet, not a second one Datasette would show
as ``category_2``; a facet asked for twice (``?_facet=stars&_facet=stars``) is asked for once; and
past ``MAX_REQUEST_FACETS`` facets a request's further ones are dropped. Datasette runs a query per
facet and repeats the whole query string in every facet value's link, so a URL repeating one facet
600 times made a 143 MB answer that kept the server busy for minutes.

An ASGI wrapper drops such request facets before Datasette reads the query (so the page, its
JSON, its cache key and ETag are those of the URL without them).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode

from datasette_plugins.paths import table_of_path


def default_facets(datasette: Any) -> dict[tuple[str, str], frozenset[str]]:
    """(database, table) → the column facets its metadata turns on."""
    found = {}
    for database in datasette.databases:
        for table, options in (datasette.metadata("tables", database=database, fallback=False) or {}).items():
            simple = [f for f in options.get("facets", []) if isinstance(f, str)]
            if simple:
                found[(database, table)] = frozenset(simple)
    return found


FACET_KEYS = ("_facet", "_facet_array", "_facet_date")
MAX_REQUEST_FACETS = 5  # facets one request may add to a page's own


def without_duplicate_facets(path: str, query: str, defaults: dict[tuple[str, str], frozenset[str]]) -> str | None:
    """The query string without the facets it repeats (a default facet of the table, one asked for
    already) or asks for past ``MAX_REQUEST_FACETS`` (None: unchanged)."""
    if "_facet" not in unquote(query):
        return None
    found = table_of_path(path)
    own = (defaults.get(found) if found else None) or frozenset()
    pairs = parse_qsl(query, keep_blank_values=True)
    seen: set[tuple[str, str]] = set()
    kept = []
    for key, value in pairs:
        if key in FACET_KEYS:
            if (key == "_facet" and value in own) or (key, value) in seen or len(seen) >= MAX_REQUEST_FACETS:
                continue
            seen.add((key, value))
        kept.append((key, value))
    return urlencode(kept) if len(kept) != len(pairs) else None


def dedupe_facets(app: Any, datasette: Any) -> Any:
    known: list[dict[tuple[str, str], frozenset[str]]] = []

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("query_string"):
            if not known:
                known.append(default_facets(datasette))
            query = scope["query_string"].decode("latin-1")
            rewritten = without_duplicate_facets(scope.get("path", ""), query, known[0])
            if rewritten is not None:
                scope = {**scope, "query_string": rewritten.encode("latin-1")}
        await app(scope, receive, send)

    return wrapped
