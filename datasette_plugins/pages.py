"""The directory's own pages on top of Datasette: home ``/``, ``/-/category/{id}`` and ``/-/owner/{login}``.

Each page is one context built from :mod:`db.directory` readers on the published run and one
template; an unknown category or owner is a 404 page with a way home.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from datasette import Response, hookimpl

from classify.categories import CATEGORIES
from datasette_plugins.formatting import plural
from datasette_plugins.metadata import COMPONENT_MEASURES, FORMULA
from datasette_plugins.reading import ranking_database, read_page
from db import directory
from db.categories import category_names
from leaderboard import page_views
from leaderboard.attempt import DEFAULT_SUITE, DISQUALIFYING
from scoring.score import ACTIVITY_BUCKETS, METHOD_VERSION, MIN_AGE_DAYS, WEIGHTS

# The feeds the home page links to (path under /-/feeds/, title).
FEEDS = {
    "new": "Newly listed repositories",
    "left": "Repositories that left the list",
    "movers": "The week's biggest movers",
}
# The activity buckets of the agents view, in the order people read them.
BUCKET_ORDER = (
    *(f"≤ {bound:g} days" for bound, _ in ACTIVITY_BUCKETS),
    f"> {ACTIVITY_BUCKETS[-1][0]:g} days",
    "no push",
)


async def read(datasette: Any, database: Any, reader: Callable[[sqlite3.Connection], Any]) -> Any:
    """Run a reader on the served database under the page bounds (``reading.read_page``)."""
    return await read_page(datasette, database, reader)


async def render(datasette: Any, request: Any, template: str, context: dict[str, Any], status: int = 200) -> Response:
    context = {"metadata": datasette.metadata(), "feeds": FEEDS, **context}
    return Response.html(await datasette.render_template(template, context, request=request), status=status)


async def not_found(datasette: Any, request: Any, title: str, message: str) -> Response:
    return await render(datasette, request, "agentrank_404.html", {"title": title, "message": message}, status=404)


def home_context(conn: sqlite3.Connection) -> dict[str, Any]:
    run = directory.published_run(conn)
    runs = directory.score_runs(conn, 1)
    previous = runs[0]["previous_id"] if runs else None
    return {
        "run": run,
        "previous_run_id": previous,
        "categories": directory.category_counts(conn),
        "top": directory.top(conn, 10),
        "risers": directory.risers(conn, 10),
        "newly": directory.newly_listed(conn, run["id"], previous, 10) if run and previous else [],
    }


async def home(datasette: Any, request: Any) -> Response:
    database = await ranking_database(datasette)
    if database is None:  # not an AgentRank database: Datasette's own index
        from datasette.views.index import IndexView

        return await IndexView(datasette).get(request)
    context = await read(datasette, database, home_context)
    return await render(datasette, request, "home.html", {"database": database.name, **context})


def category_context(conn: sqlite3.Connection, category_id: str) -> dict[str, Any] | None:
    found = directory.category(conn, category_id)
    if found is None:
        return None
    return {
        "category": found,
        "count": next((c["repos"] for c in directory.category_counts(conn) if c["id"] == category_id), 0),
        "ranking": directory.top(conn, 100, category_id),
        "risers": directory.risers(conn, 5, category_id),
        "run": directory.published_run(conn),
    }


async def category_page(datasette: Any, request: Any) -> Response:
    category_id = unquote(request.url_vars["category"])
    database = await ranking_database(datasette)
    context = (
        None if database is None else await read(datasette, database, lambda conn: category_context(conn, category_id))
    )
    if context is None:
        return await not_found(datasette, request, "Category not found", f"There is no category called {category_id}.")
    return await render(datasette, request, "category.html", {"database": database.name, **context})


OWNER_PAGE_SIZE = 100  # repos on one page of an owner's list


def owner_context(conn: sqlite3.Connection, login: str, page: int) -> dict[str, Any] | None:
    """One page of an owner's repos, with the counts; None when the owner is unknown."""
    total, listed = directory.owner_counts(conn, login)
    if total == 0:
        return None
    pages = -(-total // OWNER_PAGE_SIZE)
    repos = directory.owner_repos(conn, login, OWNER_PAGE_SIZE, (page - 1) * OWNER_PAGE_SIZE) if page <= pages else []
    return {"total": total, "listed": listed, "repos": repos, "page": page, "pages": pages}


async def owner_page(datasette: Any, request: Any) -> Response:
    login = unquote(request.url_vars["login"])
    asked = request.args.get("page", "1")
    if not asked.isdigit() or not 1 <= int(asked) <= 1_000_000:
        return Response.text(f"bad page number {asked!r}: pages are numbered from 1", status=400)
    page = int(asked)
    database = await ranking_database(datasette)
    context = (
        None if database is None else await read(datasette, database, lambda conn: owner_context(conn, login, page))
    )
    if context is None:
        return await not_found(datasette, request, "Owner not found", f"No repository of {login} is in this directory.")
    if not context["repos"]:
        last = context["pages"]
        return await not_found(
            datasette, request, "Page not found", f"{login}'s repositories fill {plural(last, 'page')}."
        )
    return await render(
        datasette,
        request,
        "owner.html",
        {"database": database.name, "login": context["repos"][0]["owner_login"], "path": request.path, **context},
    )


def line_rows(rows: list[Any], category_names: dict[str, str]) -> list[dict[str, Any]]:
    """Datasette's rows of the agents view as dicts for one compact line each (missing columns are None)."""
    lines = []
    for row in rows:
        keys = row.keys()
        line = {key: row[key] for key in keys}
        for key in ("rank", "full_name", "description", "category", "score", "stars", "forks", "stars_delta_7d"):
            line.setdefault(key, None)
        line.setdefault("last_push", None)
        line["category_name"] = category_names.get(line["category"] or "", line["category"])
        lines.append(line)
    return lines


def ordered_facets(facet_results: dict[str, Any], category_names: dict[str, str]) -> list[dict[str, Any]]:
    """The agents page's facets with category names for ids and the activity buckets in their natural order."""
    facets = []
    for name, facet in facet_results.items():
        results = [dict(r) for r in facet["results"]]
        if name == "category":
            for r in results:
                r["label"] = category_names.get(str(r["value"]), r["label"])
        if name == "activity_bucket":
            results.sort(key=lambda r: BUCKET_ORDER.index(r["value"]) if r["value"] in BUCKET_ORDER else 99)
        facets.append({**facet, "name": name, "results": results})
    return facets


@hookimpl
def extra_template_vars(template: str, database: str | None, table: str | None, view_name: str, datasette: Any):
    if view_name != "table" or table != "agents" or database is None:
        return None

    async def inner() -> dict[str, Any]:
        db = datasette.get_database(database)
        names: dict[str, str] = {}
        if await db.table_exists("categories"):
            names = await read_page(datasette, db, category_names)
        return {
            "agentrank_lines": lambda rows: line_rows(rows, names),
            "agentrank_facets": lambda results: ordered_facets(results, names),
        }

    return inner


# The two tiers, in the order the page shows them, with what each one is.
TIERS = {
    "verified": "Run by the site itself, with a published log of every attempt.",
    "community": "Submitted by others: the score is re-checked from the submitted results, but who ran it, "
    "the time and the cost are self-reported.",
}


def leaderboard_with_sources(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return page_views.with_cost_sources(conn, directory.leaderboard_entries(conn))


async def leaderboard_page(datasette: Any, request: Any) -> Response:
    database = await ranking_database(datasette)
    entries = [] if database is None else await read(datasette, database, leaderboard_with_sources)
    # Within a tier, each suite is its own board (entries are ranked within their suite): the
    # product's own suite first, then the others by name.
    tiers: dict[str, dict[str, list[dict[str, Any]]]] = {tier: {} for tier in TIERS}
    for e in sorted(entries, key=lambda e: e["suite"] != DEFAULT_SUITE):
        e["settings"] = json.loads(e["settings"] or "{}")  # variants of one agent version and model
        tiers[e["tier"]].setdefault(e["suite"], []).append(e)
    return await render(
        datasette,
        request,
        "leaderboard.html",
        {"database": database.name if database else None, "tiers": tiers, "tier_text": TIERS},
    )


# What the marks on a listing or a leaderboard mean.
FLAGS = {
    "uncertain": "The classifier was not confident about the category; it is shown, marked, until a maintainer "
    "confirms or corrects it.",
    "set by a maintainer's correction": "The category (or the listing) comes from the corrections file, not the "
    "classifier.",
    "NOASSERTION": "GitHub found a licence file but could not identify it: it does not count as OSI-approved.",
    **dict.fromkeys(sorted(DISQUALIFYING), "A disqualifying benchmark flag: the attempt scores 0."),
    "infra-error": "The benchmark attempt was lost to an infrastructure error: it counts neither for nor against.",
    "timed-out": "The benchmark attempt ran out of time; it keeps the tests it passed.",
}


def method_context() -> dict[str, Any]:
    """The method as the code defines it: weights, measures, buckets, categories and flags."""
    return {
        "method_version": METHOD_VERSION,
        "formula": FORMULA,
        "components": [
            {"name": name, "percent": round(weight * 100, 6), "measure": COMPONENT_MEASURES[name]}
            for name, weight in WEIGHTS.items()
        ],
        "buckets": [{"days": bound, "points": points} for bound, points in ACTIVITY_BUCKETS],
        "min_age_days": MIN_AGE_DAYS,
        "categories": CATEGORIES,
        "flags": FLAGS,
    }


async def method_page(datasette: Any, request: Any) -> Response:
    database = await ranking_database(datasette)
    return await render(
        datasette, request, "method.html", {"database": database.name if database else None, **method_context()}
    )


async def owner_redirect(datasette: Any, request: Any) -> Response:
    """``/-/agent/OWNER`` (a maker's page without the repo) is the owner's page."""
    return Response.redirect(datasette.urls.path("/-/owner/" + request.url_vars["login"]))


ROUTES = [
    (r"^/-/method$", method_page),
    (r"^/-/agent/(?P<login>[^/]+)$", owner_redirect),
    (r"^/-/leaderboard$", leaderboard_page),
    (r"^/$", home),
    (r"^/-/category/(?P<category>[^/]+)$", category_page),
    (r"^/-/owner/(?P<login>[^/]+)$", owner_page),
]
