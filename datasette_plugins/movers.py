"""``/-/movers``: the latest run's biggest movers, in words, for people (the movers feed is the
same list for feed readers).

Moves are counted in places among the repos ranked in both runs and split into news (the repo's
own stars, forks or licence moved it) and the rest (its activity bucket, or the other repos'
changes), as :mod:`scoring.movement` says; the maker's page says the same of each repo.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from datasette import Response

from datasette_plugins.feeds import MIN_PLACES, mover_entries
from datasette_plugins.pages import read, render
from datasette_plugins.reading import ranking_database
from db import directory

PER_KIND = 25  # moves shown of each kind


def movers_context(conn: sqlite3.Connection) -> dict[str, Any]:
    runs = directory.score_runs(conn, 2)  # the published run, and the one before it when there is one
    run = runs[0] if runs else None
    if run is None or run["previous_id"] is None:
        return {"run": run, "previous": None, "news": [], "noise": []}
    previous = next((r for r in runs[1:] if r["id"] == run["previous_id"]), None)
    moves = mover_entries(conn, run["id"], run["previous_id"], run["as_of"], limit=None)
    return {
        "run": run,
        "previous": previous or {"id": run["previous_id"], "as_of": None},
        # each kind its own list (the feed's twenty can be all news, and then the page would say no
        # repo moved on a push)
        "news": [m for m in moves if m["kind"] == "news"][:PER_KIND],
        "noise": [m for m in moves if m["kind"] != "news"][:PER_KIND],
        "min_places": MIN_PLACES,
    }


async def movers_page(datasette: Any, request: Any) -> Response:
    database = await ranking_database(datasette)
    if database is None:
        return Response.text("not an AgentRank database", status=404)
    context = await read(datasette, database, movers_context)
    return await render(datasette, request, "movers.html", {"database": database.name, **context})


ROUTES = [(r"^/-/movers$", movers_page)]
