"""One facet per column: ``?_facet=category`` on a table that already facets by ``category`` (its
metadata's ``facets``) is the same facet, not a second one Datasette would show as ``category_2``.

An ASGI wrapper drops such a request facet before Datasette reads the query (so the page, its
JSON, its cache key and ETag are those of the URL without it).
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


def without_duplicate_facets(path: str, query: str, defaults: dict[tuple[str, str], frozenset[str]]) -> str | None:
    """The query string without ``_facet=X`` where X is already a default facet of the table (None: unchanged)."""
    if "_facet" not in unquote(query):
        return None
    found = table_of_path(path)
    facets = defaults.get(found) if found else None
    if not facets:
        return None
    pairs = parse_qsl(query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not (k == "_facet" and v in facets)]
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
