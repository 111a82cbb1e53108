"""The directory's own pages on top of Datasette: home ``/``, ``/-/category/{id}`` and ``/-/owner/{login}``.

Each page is one context built from :mod:`db.directory` readers on the published run and one
template; an unknown category or owner is a 404 page with a way home.
"""

from __future__ import annotations

import json
import math
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
from scoring.score import ACTIVITY_BUCKETS, METHOD_VERSION, MIN_AGE_DAYS, WEIGHTS, shown

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


# The periods "rising" can be measured over (days), and the home page's ranking length.
RISING_DAYS = (7, 28)
HOME_TOP = 25


def rising_days(request: Any) -> int:
    """The period the visitor chose (``?rising=28``), else 7 days."""
    chosen = request.args.get("rising", "")
    return int(chosen) if chosen in {str(d) for d in RISING_DAYS} else RISING_DAYS[0]


def home_context(conn: sqlite3.Connection, days: int = 7) -> dict[str, Any]:
    run = directory.published_run(conn)
    runs = directory.score_runs(conn, 1)
    previous = runs[0]["previous_id"] if runs else None
    return {
        "run": run,
        "previous_run_id": previous,
        "categories": directory.category_counts(conn),
        "top": directory.top(conn, HOME_TOP),
        "rising_days": days,
        "rising_periods": RISING_DAYS,
        "rising_since": directory.rising_start(conn, days),
        "risers": directory.risers(conn, 10, days=days),
        "newly": directory.newly_listed(conn, run["id"], previous, 10) if run and previous else [],
    }


async def home(datasette: Any, request: Any) -> Response:
    database = await ranking_database(datasette)
    if database is None:  # not an AgentRank database: Datasette's own index
        from datasette.views.index import IndexView

        return await IndexView(datasette).get(request)
    days = rising_days(request)
    context = await read(datasette, database, lambda conn: home_context(conn, days))
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
        line.setdefault("last_push", line.get("pushed_at"))  # the line template's name for it
        line["category_name"] = category_names.get(line["category"] or "", line["category"])
        lines.append(line)
    return lines


def ordered_facets(facet_results: dict[str, Any] | list[Any], category_names: dict[str, str]) -> list[dict[str, Any]]:
    """The agents page's facets with category names for ids and the activity buckets in their natural
    order (``facet_results`` by name, or Datasette's sorted list of them)."""
    facets = []
    pairs = facet_results.items() if isinstance(facet_results, dict) else [(f["name"], f) for f in facet_results]
    for name, facet in pairs:
        results = [dict(r) for r in facet["results"]]
        if name == "category":
            for r in results:
                r["label"] = category_names.get(str(r["value"]), r["label"])
        if name == "activity_bucket":
            results.sort(key=lambda r: BUCKET_ORDER.index(r["value"]) if r["value"] in BUCKET_ORDER else 99)
        facets.append({**facet, "name": name, "results": results})
    return facets


# How the compact list's sorts read.
SORT_WORDS = {
    "rank": "by rank",
    "score": "by score",
    "stars": "by stars",
    "forks": "by forks",
    "stars_delta_7d": "by stars gained in 7 days",
    "pushed_at": "by last push",
    "full_name": "by name",
}


def listing_description(args: Any, category_names: dict[str, str]) -> str:
    """What the list shows, in words: ``in Coding agent, licence MIT, sorted by stars gained in 7
    days, most first`` (Datasette's own description names columns and operators)."""
    parts = []
    for column, label in (("category", None), ("license_spdx", "licence"), ("language", "language")):
        value = args.get(column)
        if value:
            parts.append(f"in {category_names.get(value, value)}" if label is None else f"{label} {value}")
    if args.get("activity_bucket"):
        parts.append(f"last push {args.get('activity_bucket')}")
    if args.get("_search"):
        parts.append(f"matching “{args.get('_search')}”")
    descending = args.get("_sort_desc")
    ascending = args.get("_sort")
    if descending and descending in SORT_WORDS:
        parts.append(
            f"sorted {SORT_WORDS[descending]}, most first" if descending != "pushed_at" else "newest push first"
        )
    elif ascending and ascending in SORT_WORDS and ascending != "rank":
        parts.append(f"sorted {SORT_WORDS[ascending]}, fewest first" if ascending != "full_name" else "sorted by name")
    return ", ".join(parts)


@hookimpl
def extra_template_vars(
    template: str, database: str | None, table: str | None, view_name: str, request: Any, datasette: Any
):
    if view_name != "table" or table != "agents" or database is None:
        return None

    async def inner() -> dict[str, Any]:
        db = datasette.get_database(database)
        names: dict[str, str] = {}
        if await db.table_exists("categories"):
            names = await read_page(datasette, db, category_names)
        args = request.args if request is not None else {}
        searched = (args.get("_search") or "").strip()
        close: list[str] = []
        if searched and await db.table_exists("repos"):
            close = await read_page(datasette, db, lambda conn: directory.similar_names(conn, searched))
        return {
            "agentrank_lines": lambda rows: line_rows(rows, names),
            "agentrank_facets": lambda results: ordered_facets(results, names),
            "agentrank_did_you_mean": close,
            "agentrank_description": listing_description(args, names),
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
    if request.url_vars.get("format") == "json":  # the page's .json twin: the same boards, as data
        return Response.json({"tiers": tiers, "tier_text": TIERS}, default=str)
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


# How many repos "your own weights" re-ranks (the best published ones) and how many it lists.
WEIGHTS_REPOS = 20_000
WEIGHTS_SHOWN = 100


def chosen_weights(request: Any) -> tuple[dict[str, float], list[str]]:
    """The weights in the URL (``?popularity=40&…``, percent, each from 0 to 100), and what was
    changed to get them, in words: the published weight for a missing or unreadable value, 0 or
    100 for one outside that range, and the published weights when all are 0 (nothing to rank by)."""
    weights, notes = {}, []
    for name, weight in WEIGHTS.items():
        published = weight * 100
        given = request.args.get(name)
        try:
            value = float(given) if given is not None else published
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            notes.append(f"{name}: {given!r} is not a number, so the published {published:g} % is used")
            value = published
        elif not 0 <= value <= 100:
            notes.append(f"{name}: {value:g} is outside 0–100, so {min(max(value, 0), 100):g} % is used")
            value = min(max(value, 0.0), 100.0)
        weights[name] = value
    if not any(weights.values()):
        notes.append("every weight is 0, which ranks nothing: the published weights are used")
        weights = {name: weight * 100 for name, weight in WEIGHTS.items()}
    return weights, notes


def reranked(rows: list[dict[str, Any]], weights: dict[str, float]) -> list[dict[str, Any]]:
    """``rows`` re-scored with ``weights`` (scaled to add up to 1) and re-ranked: score, then stars,
    then name, as the published ranking breaks ties. Each row gains ``mine``, ``my_rank`` and
    ``moved`` (places up against the published rank)."""
    total = sum(weights.values()) or 1.0
    shares = {name: w / total for name, w in weights.items()}
    scored = [{**r, "mine": sum(shares[n] * (r[n] or 0.0) for n in WEIGHTS)} for r in rows]
    for r in scored:
        r["mine_shown"] = shown(r["mine"])  # as the published score is shown: one decimal, halves up
    scored.sort(key=lambda r: (-round(r["mine"], 9), -(r["stars"] or 0), r["full_name"]))
    for position, r in enumerate(scored, start=1):
        r["my_rank"], r["moved"] = position, r["rank"] - position
    return scored


def category_shown(row: dict[str, Any]) -> str | None:
    """The category's name as the lists show it, marked when the classifier was not confident."""
    name = row["category_name"]
    return f"{name} (uncertain)" if name and row.get("category_uncertain") else name


async def weights_page(datasette: Any, request: Any) -> Response:
    """``/-/weights``: the ranking re-ranked with the visitor's weights, in the browser (the list
    is rendered on the server too, so a shared link shows the same before any script runs)."""
    database = await ranking_database(datasette)
    if database is None:
        return await not_found(datasette, request, "No ranking", "This database has no published ranking.")
    rows = await read(datasette, database, lambda conn: directory.published_components(conn, WEIGHTS_REPOS))
    weights, notes = chosen_weights(request)
    data = [[r["rank"], r["full_name"], r["stars"], category_shown(r), *(r[n] for n in WEIGHTS)] for r in rows]
    return await render(
        datasette,
        request,
        "weights.html",
        {
            "database": database.name,
            "components": [
                {"name": n, "published": round(w * 100, 6), "chosen": weights[n], "measure": COMPONENT_MEASURES[n]}
                for n, w in WEIGHTS.items()
            ],
            "shown": reranked(rows, weights)[:WEIGHTS_SHOWN],
            "notes": notes,
            "count": len(rows),
            "limited": len(rows) >= WEIGHTS_REPOS,
            # For the script: escaped so that no repository text can end the <script> element.
            "data_json": json.dumps(
                {
                    "names": list(WEIGHTS),
                    "published": [w * 100 for w in WEIGHTS.values()],
                    "shown": WEIGHTS_SHOWN,
                    "rows": data,
                }
            )
            .replace("<", "\\u003c")
            .replace(">", "\\u003e")
            .replace("&", "\\u0026"),
        },
    )


COMPARE_MOST = 4
# How the compare page says its limit ("Two to four repositories").
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
LEFT_OUT_NAMED = 5  # names the page repeats when more than COMPARE_MOST were asked for; the rest are counted


def compared_names(request: Any) -> tuple[list[str], list[str]]:
    """The repos to compare, ``?repo=A&repo=B`` (or ``?repos=A,B``), blanks and repeats dropped: the
    first ``COMPARE_MOST``, and the ones after them, which the page says it left out."""
    names = [*request.args.getlist("repo"), *",".join(request.args.getlist("repos")).split(",")]
    unique = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    return unique[:COMPARE_MOST], unique[COMPARE_MOST:]


def compare_context(conn: sqlite3.Connection, names: list[str]) -> dict[str, Any]:
    """Each named repo's breakdown and history (side by side and overlaid), and for a name that is
    not in the directory, the names it may have meant."""
    from datasette_plugins.agent_page import cached_population
    from datasette_plugins.charts import COLOURS, overlay_chart
    from db.breakdown import load_breakdown, score_history

    repos: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    for name in names:
        breakdown = load_breakdown(conn, name, population=cached_population)
        if breakdown is None:
            unknown.append({"name": name, "suggestions": directory.similar_names(conn, name)})
            continue
        if any(r["full_name"] == breakdown["repo"]["full_name"] for r in repos):
            continue
        repos.append(
            {
                "full_name": breakdown["repo"]["full_name"],
                "breakdown": breakdown,
                "components": {c["component"]: c for c in breakdown["components"]},
                "history": score_history(conn, breakdown["repo"]["id"]),
                "colour": COLOURS[len(repos) % len(COLOURS)],
            }
        )
    histories = [(r["full_name"], r["history"]) for r in repos]
    return {
        "repos": repos,
        "unknown": unknown,
        "names": names,
        "component_names": list(WEIGHTS),
        "weights": WEIGHTS,
        "charts": [c for c in (overlay_chart(histories, key) for key in ("stars", "score", "rank")) if c]
        if repos
        else [],
    }


async def compare_page(datasette: Any, request: Any) -> Response:
    """``/-/compare?repo=A&repo=B``: two to ``COMPARE_MOST`` repos' score components side by side and
    their histories overlaid on dated axes; the page says which names past the limit it left out."""
    database = await ranking_database(datasette)
    if database is None:
        return await not_found(datasette, request, "No ranking", "This database has no published ranking.")
    names, left_out = compared_names(request)
    context = await read(datasette, database, lambda conn: compare_context(conn, names))
    return await render(
        datasette,
        request,
        "compare.html",
        {
            "database": database.name,
            "most": COMPARE_MOST,
            "most_words": NUMBER_WORDS.get(COMPARE_MOST, f"{COMPARE_MOST:,}"),
            "left_out": left_out[:LEFT_OUT_NAMED],
            "left_out_count": len(left_out),
            **context,
        },
    )


async def owner_redirect(datasette: Any, request: Any) -> Response:
    """``/-/agent/OWNER`` (a maker's page without the repo) is the owner's page."""
    return Response.redirect(datasette.urls.path("/-/owner/" + request.url_vars["login"]))


ROUTES = [
    (r"^/-/method$", method_page),
    (r"^/-/weights$", weights_page),
    (r"^/-/compare$", compare_page),
    (r"^/-/agent/(?P<login>[^/]+)$", owner_redirect),
    (r"^/-/leaderboard(?:\.(?P<format>json))?$", leaderboard_page),
    (r"^/$", home),
    (r"^/-/category/(?P<category>[^/]+)$", category_page),
    (r"^/-/owner/(?P<login>[^/]+)$", owner_page),
]
