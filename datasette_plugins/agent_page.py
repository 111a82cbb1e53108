"""The maker's page: ``/-/agent/{owner}/{repo}`` (HTML) and ``/-/agent/{owner}/{repo}.json``.

Everything the page shows comes from :func:`agent_context`, one dict, which the JSON returns
as is; the breakdown inside it is :func:`db.breakdown.load_breakdown`, the same one
``agentrank explain`` prints. Add a section by adding a key here and a block to ``agent.html``.
"""

from __future__ import annotations

import math
import sqlite3
from functools import partial
from typing import Any
from urllib.parse import quote, unquote, urlencode

import numpy as np
from datasette import Response, hookimpl
from markupsafe import escape

from classify.categories import CATEGORY_IDS, CATEGORY_NAMES
from datasette_plugins.benchmark_pages import ROUTES as BENCHMARK_ROUTES
from datasette_plugins.cache import per_run
from datasette_plugins.charts import history_chart, history_svg
from datasette_plugins.limits import limits
from datasette_plugins.paths import agent_path
from datasette_plugins.reading import ranking_database, read_page
from db import directory
from db.breakdown import (
    UnknownRun,
    claims,
    load_breakdown,
    load_change,
    resolve_repo,
    run_identity,
    run_population,
    score_history,
)
from db.reading import ReadTooSlow
from leaderboard.summary import benchmark_summary
from leaderboard.views import agent_methods
from scoring import movement
from scoring.components import RANKED_VALUES
from scoring.explain import flag_sentences, likely_rank_phrase
from scoring.uncertainty import INTERVAL

HISTOGRAM_BINS = 24


def histogram(values: np.ndarray) -> dict[str, Any]:
    """The part of a distribution that is the same for every repo of the run (kept per run)."""
    ordered = np.sort(values)
    logs = np.log10(1.0 + ordered)
    low, high = float(logs[0]), float(logs[-1])
    if high <= low:
        high = low + 1.0
    counts, edges = np.histogram(logs, bins=HISTOGRAM_BINS, range=(low, high))
    return {
        "sorted": ordered,
        "low": low,
        "high": high,
        "figures": {
            "listed": len(values),
            "min": int(ordered[0]),
            "median": float(np.median(ordered)),
            "max": int(ordered[-1]),
            "max_count": int(counts.max()),
            "bins": [
                {"from": round(10**a - 1), "to": round(10**b - 1), "count": int(c)}
                for a, b, c in zip(edges[:-1], edges[1:], counts, strict=False)
            ],
        },
    }


def place(shape: dict[str, Any], value: int) -> dict[str, Any]:
    """Where ``value`` sits in a run's :func:`histogram`."""
    ordered = shape["sorted"]
    position = (math.log10(1.0 + value) - shape["low"]) / (shape["high"] - shape["low"])
    return {
        "value": value,
        **shape["figures"],
        "fewer": int(np.searchsorted(ordered, value, side="left")),  # listed repos with strictly less
        "more": int(len(ordered) - np.searchsorted(ordered, value, side="right")),
        "position": min(max(position, 0.0), 1.0),  # 0..1 along the log axis
    }


def _run_key(conn: sqlite3.Connection, run_id: int, what: str) -> tuple[Any, ...]:
    """What names a score run's rows for :func:`per_run`: the file, the run and when it started."""
    return (what, *run_identity(conn, run_id))


def sorted_population(conn: sqlite3.Connection, run_id: int) -> dict[str, np.ndarray]:
    """:func:`db.breakdown.run_population` with each column also sorted (``sorted_stars``...), so a
    page takes percentiles and the others' values without sorting the whole run (at 31,000 listed,
    sorting on every page made a first visit of a maker's page twice as slow as at 1,300)."""
    arrays = run_population(conn, run_id)
    return {**arrays, **{f"sorted_{k}": np.sort(arrays[k]) for k in RANKED_VALUES}}


def cached_population(conn: sqlite3.Connection, run_id: int) -> dict[str, np.ndarray]:
    """:func:`sorted_population`, read once per run by this process."""
    return per_run(_run_key(conn, run_id, "population"), lambda: sorted_population(conn, run_id))


def cached_histograms(conn: sqlite3.Connection, run_id: int) -> dict[str, dict[str, Any]]:
    """The stars and forks histograms of a run, computed once per run by this process."""

    def compute() -> dict[str, dict[str, Any]]:
        population = cached_population(conn, run_id)
        return {"stars": histogram(population["stars"]), "forks": histogram(population["forks"])}

    return per_run(_run_key(conn, run_id, "histograms"), compute)


def badge_snippet(public_url: str, full_name: str, score: float, rank: int) -> dict[str, str]:
    """What a maker pastes into a README: the badge image linking to this page (Markdown and HTML)."""
    base = public_url.rstrip("/")
    page = base + agent_path(full_name)
    image = page + "/badge.svg"
    alt = "AgentRank score and rank"
    shields = page + "/shields.json"
    shields_image = "https://img.shields.io/endpoint?url=" + quote(shields, safe="")
    return {
        "page_url": page,
        "badge_url": image,
        "shields_url": shields,
        "shields_image": shields_image,
        "shields_markdown": f"[![{alt}]({shields_image})]({page})",
        "markdown": f"[![{alt}]({image})]({page})",
        "html": f'<a href="{escape(page)}"><img src="{escape(image)}" alt="{escape(alt)}"></a>',
    }


def correction(
    source_url: str, full_name: str, category: str | None = None, *, uncertain: bool = False
) -> dict[str, str]:
    """The maker's correction: a new issue naming the repo and, when given, the category shown (its
    id, named as the pages name it) and whether it is marked uncertain, with the category ids a
    correction can name."""
    shown = ""
    if category:
        mark = ", marked uncertain (the classifier was not confident)" if uncertain else ""
        shown = f"Category shown: {CATEGORY_NAMES.get(category, category)} (`{category}`){mark}\n"
    body = (
        f"Repository: https://github.com/{full_name}\n{shown}\n"
        "What is wrong (category, listing, or a figure), and what it should be "
        f"(a category is one of: {', '.join(CATEGORY_IDS)}):\n\n"
        "Evidence (a link, or why you are in a position to say):\n"
    )
    return {
        "how": "Wrong category, or should this repository not be listed (or be listed)? Open an issue with the "
        "repository's name, what is wrong and what it should be. Maintainers record corrections in the "
        "corrections file, and they take effect at the next weekly refresh. Stars, forks, pushes and the licence "
        "come from GitHub: change them on GitHub and the next refresh picks them up.",
        "issue_url": f"{source_url.rstrip('/')}/issues/new?"
        + urlencode({"title": f"Correction: {full_name}", "body": body}),
    }


def _category_id(breakdown: dict[str, Any]) -> str | None:
    return (breakdown.get("category") or {}).get("category")


def _uncertain(breakdown: dict[str, Any]) -> bool:
    category = breakdown.get("category") or {}
    return bool(category.get("uncertain")) and category.get("source") != "correction"


def change_since_previous(conn: sqlite3.Connection, full_name: str, run_id: int | None) -> dict[str, Any] | None:
    """Why the score moved since the previous score run (None when there is no earlier run with the repo)."""
    if run_id is None:
        return None
    try:
        return load_change(conn, full_name, "previous", run_id, population=cached_population)
    except UnknownRun:
        return None


def passings(conn: sqlite3.Connection, repo_id: int, change: dict[str, Any] | None) -> dict[str, Any] | None:
    """Who passed the repo since the previous run and whom it passed, each with why in words
    (scoring.movement), and why the repo itself moved; None without a change."""
    if change is None:
        return None
    run_id, previous = change["run_id"], change["since_run_id"]
    pairs = per_run(
        (*_run_key(conn, run_id, "rank pairs"), *run_identity(conn, previous)),
        lambda: directory.rank_pairs(conn, run_id, previous),
    )
    found = directory.passed(conn, repo_id, run_id, previous, pairs=pairs)
    population = movement.sorted_population(cached_population(conn, previous))
    for key in ("passed_it", "it_passed"):
        found[key] = [
            {
                "full_name": row["full_name"],
                "rank_before": row["before"]["rank"],
                "rank_after": row["after"]["rank"],
                **movement.classify(
                    row["before"],
                    row["after"],
                    population,
                    directory.places_in_both(pairs, row["before"]["rank"], row["after"]["rank"]),
                ),
            }
            for row in found[key]
        ]
    mine = found.pop("mine")
    if mine is not None:
        # Places among the repos ranked in both runs (those it passed less those that passed it); the
        # rest of its rank change is repos joining or leaving the list above it.
        places = found["it_passed_count"] - found["passed_it_count"]
        found["own"] = movement.classify(mine["before"], mine["after"], population, places)
        if mine["before"]["rank"] is not None and mine["after"]["rank"] is not None:
            found["own"] |= directory.arrivals_above(conn, repo_id, run_id, previous)
    return found


def agent_context(
    conn: sqlite3.Connection, full_name: str, source_url: str, public_url: str = "http://127.0.0.1:8001"
) -> dict[str, Any] | None:
    """Everything the maker's page shows about one repo; None when the name is unknown."""
    breakdown = load_breakdown(conn, full_name, population=cached_population)
    if breakdown is None:
        return None
    repo = breakdown["repo"]
    context: dict[str, Any] = {
        "requested_name": full_name,
        "renamed_from": full_name if full_name.lower() != repo["full_name"].lower() else None,
        "github_url": "https://github.com/" + quote(repo["full_name"], safe="/"),
        "breakdown": breakdown,
        "distributions": None,
        "history": score_history(conn, repo["id"]),
        "badge": None,
        "correction": correction(
            source_url, repo["full_name"], _category_id(breakdown), uncertain=_uncertain(breakdown)
        ),
        "benchmark": benchmark_summary(conn, repo["full_name"]),
        "methods": agent_methods(conn, repo["full_name"]),
        "claims": claims(conn, repo["id"]),
        "change": change_since_previous(conn, repo["full_name"], breakdown["run_id"]),
        "likely_rank": likely_rank_phrase(breakdown),
        # INTERVAL is (0.05, 0.95): the ranges hold 9 re-runs in 10.
        "range_share": f"{round((INTERVAL[1] - INTERVAL[0]) * 10):g} times in 10",
        "flag_sentences": flag_sentences(breakdown),
    }
    context["passings"] = passings(conn, repo["id"], context["change"])
    context["chart"] = history_chart(context["history"])
    if breakdown["score"] is not None:
        context["badge"] = badge_snippet(public_url, repo["full_name"], breakdown["score"], breakdown["rank"])
        shapes = cached_histograms(conn, breakdown["run_id"])
        inputs = {c["component"]: c["input"] for c in breakdown["components"]}
        context["distributions"] = {
            "stars": place(shapes["stars"], inputs["popularity"]["stars"]),
            "forks": place(shapes["forks"], inputs["adoption"]["forks"]),
        }
    return context


async def _not_found(datasette: Any, request: Any, full_name: str, as_json: bool) -> Response:
    message = f"No repository called {full_name} is in this directory."
    database = await ranking_database(datasette)
    close: list[str] = []
    if database is not None:
        close = await read_page(datasette, database, lambda conn: directory.similar_names(conn, full_name))
    if as_json:
        return Response.json({"ok": False, "error": message, "status": 404, "did_you_mean": close}, status=404)
    html = await datasette.render_template(
        "agent_404.html", {"full_name": full_name, "message": message, "suggestions": close}, request=request
    )
    return Response.html(html, status=404)


async def agent_page(datasette: Any, request: Any) -> Response:
    # Datasette leaves percent-escapes in URL parts (so that %2F is not a slash).
    full_name = "/".join(unquote(request.url_vars[part]) for part in ("owner", "repo"))
    database = await ranking_database(datasette)
    source_url = limits(datasette).source_url
    public_url = limits(datasette).public_url
    candidates = [(full_name, False)]
    if full_name.endswith(".json"):
        # ".json" asks for JSON, unless the repository's own name ends in .json.
        candidates.insert(0, (full_name[: -len(".json")], True))
    for name, as_json in candidates:
        if database is None:
            break
        context: dict[str, Any] | None
        try:
            context = await read_page(
                datasette,
                database,
                partial(agent_context, full_name=name, source_url=source_url, public_url=public_url),
            )
        except ReadTooSlow:
            message = "the page took too long to build; try again in a few seconds"
            headers = {"Retry-After": "5"}
            if as_json:
                return Response.json({"ok": False, "error": message, "status": 503}, status=503, headers=headers)
            return Response.text(message, status=503, headers=headers)
        if context is None:
            continue
        if as_json:
            return Response.json(context)
        return Response.html(
            await datasette.render_template(
                "agent.html",
                {
                    "agent": context,
                    "database": database.name,
                    "json_url": datasette.urls.path(agent_path(context["breakdown"]["repo"]["full_name"], json=True)),
                },
                request=request,
            )
        )
    name, as_json = candidates[0]
    return await _not_found(datasette, request, name, as_json)


def _history_of(conn: sqlite3.Connection, full_name: str) -> tuple[str, list[dict[str, Any]]] | None:
    repo = resolve_repo(conn, full_name)
    return None if repo is None else (repo["full_name"], score_history(conn, repo["id"]))


async def history_image(datasette: Any, request: Any) -> Response:
    """``/-/agent/OWNER/REPO/history.svg``: the repo's stars over time as a standalone SVG with
    dated axes, to embed anywhere (``?series=score`` or ``rank`` for those)."""
    full_name = "/".join(unquote(request.url_vars[part]) for part in ("owner", "repo"))
    database = await ranking_database(datasette)
    found = (
        None if database is None else await read_page(datasette, database, lambda conn: _history_of(conn, full_name))
    )
    key = request.args.get("series", "stars")
    key = key if key in ("stars", "score", "rank") else "stars"
    svg = history_svg(found[0], found[1], key=key) if found else history_svg(full_name, [], key=key)
    return Response(
        svg,
        status=200 if found else 404,
        headers={"Cache-Control": "public, max-age=86400"},
        content_type="image/svg+xml; charset=utf-8",
    )


@hookimpl
def register_routes():
    return [
        (r"^/-/agent/(?P<owner>[^/]+)/(?P<repo>[^/]+)$", agent_page),
        (r"^/-/agent/(?P<owner>[^/]+)/(?P<repo>[^/]+)/history\.svg$", history_image),
        *BENCHMARK_ROUTES,
    ]
