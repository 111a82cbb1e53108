"""Paths, written and read without Datasette: the pages' addresses (which the export links to, so
it need not import Datasette), and what a request's path names (the request gate and the facet
filter run before Datasette routes the request)."""

from __future__ import annotations

from urllib.parse import quote, unquote


def agent_path(full_name: str, json: bool = False) -> str:
    """The maker's page's path (without Datasette's base_url) for a repo name."""
    return "/-/agent/" + quote(full_name, safe="/") + (".json" if json else "")


def table_of_path(path: str) -> tuple[str, str] | None:
    """``(database, name)`` for ``/DB/NAME``, ``/DB/NAME.json`` or ``/DB/NAME.csv`` (a table, a view or
    a canned query); None for any other path."""
    parts = [unquote(part) for part in path.split("/") if part]
    if len(parts) != 2:
        return None
    name = parts[1]
    for suffix in (".json", ".csv"):
        name = name.removesuffix(suffix)
    return parts[0], name
