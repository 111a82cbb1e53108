"""The benchmark methods' pages under ``/-/benchmark/``: RS9 runs and the over-time chart, the indexes,
the FitScores and each task's validation. No SQL in front: every page reads through
``leaderboard.views``, and each has a ``.json`` twin (a run's is its full results download).

Agent names link to the maker's page when the agent is a listed directory repo.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote, unquote

from datasette import Response
from datasette.utils import tilde_decode, tilde_encode
from markupsafe import Markup

from datasette_plugins.reading import ranking_database, read_page
from db.repos import listed_names
from leaderboard import page_views, views
from leaderboard.attempt import agent_key
from leaderboard.fairness import run_order

PANEL_HEIGHT = 130
# The runs spread between these shares of the chart's width (the axis labels sit left of them).
LEFT_PCT, RIGHT_PCT = 18.0, 84.0

# A page is rendered from bounded values: ledger text past these sizes (a 2 MB note, thousands of
# judgements or per-test results) is cut, with a note saying so; the .json twin keeps everything.
PAGE_TEXT_CHARS = 4_000
PAGE_LIST_ITEMS = 300
# The plugin's own reads may return a stored value longer than the served SQL's value limit
# (import accepted it); the page then shows it cut. Raised for those reads only.
PAGE_READ_VALUE_BYTES = 64 * 1024 * 1024


def segment(name: Any) -> str:
    """One path segment for a benchmark name: Datasette's tilde encoding, so ``/``, a ``.json`` ending,
    ``.`` and ``..`` stay inside the segment and resolve to the named page."""
    return tilde_encode(str(name))


def bench_path(*parts: Any, json: bool = False) -> str:
    """``/-/benchmark/<part>/<part>...`` with each name encoded as one segment."""
    return "/-/benchmark/" + "/".join(segment(p) for p in parts) + (".json" if json else "")


class Cut:
    """Counts what bounded() cut, for the page's note."""

    def __init__(self) -> None:
        self.texts = 0
        self.items = 0


def bounded(value: Any, cut: Cut) -> Any:
    """A copy of page data with long strings and long lists cut (strings end in "… [cut]")."""
    if isinstance(value, str):
        if len(value) > PAGE_TEXT_CHARS:
            cut.texts += 1
            return value[:PAGE_TEXT_CHARS] + f"… [cut: {len(value):,} characters in all]"
        return value
    if isinstance(value, dict):
        return {k: bounded(v, cut) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) > PAGE_LIST_ITEMS:
            cut.items += len(value) - PAGE_LIST_ITEMS
            return [bounded(v, cut) for v in value[:PAGE_LIST_ITEMS]]
        return [bounded(v, cut) for v in value]
    return value


def _read(reader: Callable[[sqlite3.Connection], Any]) -> Callable[[sqlite3.Connection], Any]:
    def run(conn: sqlite3.Connection) -> Any:
        limit = conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(limit, PAGE_READ_VALUE_BYTES))
        try:
            return {"data": reader(conn), "listed": listed_names(conn)}
        finally:
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limit)

    return run


def short_run(run: str) -> str:
    """A run's label on a phone: a date without its year, or the name's first 8 characters."""
    if len(run) >= 10 and run[4] == "-" and run[:4].isdigit() and run[5:7].isdigit():
        return run[5:10]
    return run if len(run) <= 8 else run[:7] + "…"


def _x(i: int, runs: int) -> str:
    """A run's horizontal place, in % of the chart's width, runs evenly spaced: the chart takes the
    page's width while its labels keep their size in pixels (no viewBox scaling, so they stay
    readable on a phone)."""
    step = (RIGHT_PCT - LEFT_PCT) / max(runs - 1, 1)
    return f"{LEFT_PCT + step * i:.2f}%"


# Runs close in time are drawn at least this share of the even spacing apart, so their labels stay
# readable on a phone; farther ones keep the proportions of their dates.
MIN_GAP_OF_EVEN = 0.8


def run_places(runs: list[str], dates: dict[str, str]) -> dict[str, str]:
    """Each run's horizontal place, spaced by its date (its earliest attempt's), no two closer than
    ``MIN_GAP_OF_EVEN`` of the even spacing; evenly when a date is unknown or all share one day."""
    try:
        days = [datetime.fromisoformat(dates[r].replace("Z", "+00:00")).timestamp() / 86400 for r in runs]
    except (KeyError, AttributeError, ValueError):
        days = []
    span = days[-1] - days[0] if len(days) > 1 else 0.0
    if len(runs) < 2 or span <= 0:
        return {run: _x(i, len(runs)) for i, run in enumerate(runs)}
    diffs = [b - a for a, b in zip(days, days[1:], strict=False)]
    # the smallest gap m with m / (the sum of the gaps, each at least m) = MIN_GAP_OF_EVEN / (runs - 1):
    # a contraction (the share times the gaps is under 1), so a few rounds settle it
    share, least = MIN_GAP_OF_EVEN / len(diffs), 0.0
    for _ in range(60):
        least = share * sum(max(d, least) for d in diffs)
    gaps = [max(d, least) for d in diffs]
    total, at, places = sum(gaps), 0.0, {runs[0]: f"{LEFT_PCT:.2f}%"}
    for run, gap in zip(runs[1:], gaps, strict=True):
        at += gap
        places[run] = f"{LEFT_PCT + (RIGHT_PCT - LEFT_PCT) * at / total:.2f}%"
    return places


def _point(x: str, y: float, changed: bool, title: str) -> Markup:
    if changed:
        # A square turned 45° about its centre, placed with <svg x=%>: a diamond at a %-place.
        shape = Markup(
            '<svg x="{}" y="{}" width="1" height="1" overflow="visible"><g class="agentrank-diamond">'
            '<rect x="-6" y="-6" width="12" height="12" transform="rotate(45)"/><title>{}</title></g></svg>'
        )
        return shape.format(x, y, title)
    return Markup('<circle cx="{}" cy="{}" r="5"><title>{}</title></circle>').format(x, y, title)


def _panel(
    points: list[dict[str, Any]], places: dict[str, str], key: str, label: str, top: float, fmt: str, high: float
) -> Markup:
    """One panel from 0 (its bottom, labelled) to ``high`` (its top, labelled): the same ``high`` on
    every chart of a page, so a chart's heights compare with the next one's."""
    base = top + PANEL_HEIGHT - 20
    parts = [
        Markup('<text class="agentrank-axis agentrank-panel-label" x="0" y="{}">{}</text>').format(top + 14, label),
        Markup('<line class="agentrank-axis" x1="{}%" y1="{}" x2="{}%" y2="{}"/>').format(
            LEFT_PCT - 2, base, RIGHT_PCT + 2, base
        ),
        Markup('<text class="agentrank-axis" x="0" y="{}">{}</text>').format(base + 4, fmt.format(0)),
        Markup('<text class="agentrank-axis agentrank-scale-top" x="0" y="{}">{}</text>').format(
            top + 34, fmt.format(high)
        ),
    ]
    coords: list[tuple[str, float]] = []
    shapes = []
    for p in points:
        x = places[p["run"]]
        if p[key] is None:
            what = ("nothing passed" if p["passed"] == 0 else "price unknown") if key == "cost_per_pass" else "unknown"
            # A dash at the run's place (the reason on hover, and in the line under the chart).
            shapes.append(
                Markup(
                    '<text class="agentrank-unknown" x="{}" y="{}" text-anchor="middle">—<title>{}: {}</title></text>'
                ).format(x, top + PANEL_HEIGHT // 2 + 4, p["run"], what)
            )
            continue
        y = top + 30 + (PANEL_HEIGHT - 56) * (1 - p[key] / high)
        coords.append((x, y))
        what = fmt.format(p[key]) + (" (lower bound)" if key == "cost_per_pass" and p["cost_lower_bound"] else "")
        title = f"{p['run']}: {label} {what}; {p['agent_version']} on {p['model']}"
        if p["version_changed"]:
            title = f"version changed ({p['previous_version']} → {p['agent_version']}, {p['model']}). " + title
        shapes.append(_point(x, y, p["version_changed"], title))
        shapes.append(
            Markup('<text class="agentrank-value" x="{}" y="{}" text-anchor="middle">{}</text>').format(
                x, y - 10, fmt.format(p[key])
            )
        )
    for (x1, y1), (x2, y2) in zip(coords, coords[1:], strict=False):
        parts.append(Markup('<line class="agentrank-line" x1="{}" y1="{}" x2="{}" y2="{}"/>').format(x1, y1, x2, y2))
    return Markup("").join(parts + shapes)


def highest_cost(entries: list[dict[str, Any]]) -> float | None:
    """The top of the cost-per-pass panels of a page: the highest cost per pass of any of ``entries``,
    None when none is known (or all are $0)."""
    return max((e["cost_per_pass"] for e in entries if e.get("cost_per_pass") is not None), default=0) or None


def over_time_svg(
    points: list[dict[str, Any]], runs: list[str], dates: dict[str, str] | None = None, cost_high: float | None = None
) -> Markup:
    """The share of tasks passed (0 to 100 %) and the cost per pass (0 to ``cost_high``, the page's
    highest; this agent's own highest when not given) across the suite's runs, placed by date
    (``dates``: each run's date); a diamond where the version or model changed."""
    places = run_places(runs, dates or {})
    # Each run's name, and a short form a phone shows instead (every other one when there are many).
    label = Markup(
        '<text class="agentrank-axis agentrank-run-label ar-run-full" x="{x}" y="{y}" text-anchor="middle">{full}</text>'
        '<text class="agentrank-axis agentrank-run-label ar-run-short{skip}" x="{x}" y="{y}" text-anchor="middle">'
        "{short}</text>"
    )
    labels = Markup("").join(
        label.format(
            x=places[run],
            y=2 * PANEL_HEIGHT + 16,
            full=run,
            short=short_run(run),
            skip=" ar-run-skip" if len(runs) > 4 and (len(runs) - 1 - i) % 2 else "",
        )
        for i, run in enumerate(runs)
    )
    # the share, not the count: runs of one suite may hold different numbers of tasks
    body = _panel(points, places, "headline", "tasks passed", 0, "{:.0f} %", 100.0)
    cost_top = (highest_cost(points) if cost_high is None else cost_high) or 1.0
    body += _panel(points, places, "cost_per_pass", "cost per pass", PANEL_HEIGHT, "${:,.2f}", cost_top)
    summary = f"Tasks passed and cost per pass across {len(runs)} runs (the figures are listed below the chart)"
    return Markup(
        '<svg class="agentrank-over-time" role="img" aria-label="{summary}" width="100%" height="{h}">{body}{labels}</svg>'
    ).format(summary=summary, h=2 * PANEL_HEIGHT + 24, body=body, labels=labels)


def over_time(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One chart per suite, tier and agent variant (agent and settings) across the tier's runs.

    ``entries`` come from ``views.rs9_runs``, runs in date order (the name breaking ties): the
    charts keep that order (``run-9`` before ``run-10``), never the names' alphabetical one. A run's
    date is per tier, so each tier has its own run order. An agent is one series however its GitHub
    name is cased from run to run (``agent_key``), named as in its latest run.
    """
    charts: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    runs: dict[tuple[str, str], list[str]] = {}
    dates: dict[tuple[str, str, str], str] = {}
    for entry in entries:
        settings = json.dumps(entry["settings"], sort_keys=True)
        charts.setdefault((entry["suite"], entry["tier"], agent_key(entry["agent"]), settings), []).append(entry)
        tier_runs = runs.setdefault((entry["suite"], entry["tier"]), [])
        if entry["run"] not in tier_runs:
            tier_runs.append(entry["run"])
            dates[(entry["suite"], entry["tier"], entry["run"])] = entry.get("run_date") or ""
    # One scale for every chart of the page: heights compare from one agent's chart to the next.
    cost_high = highest_cost(entries)
    out = []
    for (suite, tier, _, settings), points in sorted(
        charts.items(), key=lambda item: (item[0][0], item[0][1] == "community", *item[0][2:])
    ):
        tier_runs = sorted(runs[(suite, tier)], key=lambda r: run_order(r, dates[(suite, tier, r)]))
        points.sort(key=lambda p: tier_runs.index(p["run"]))
        out.append(
            {
                "suite": suite,
                "tier": tier,
                "agent": points[-1]["agent"],
                "settings": json.loads(settings),
                "points": points,
                "svg": over_time_svg(points, tier_runs, {r: dates[(suite, tier, r)] for r in tier_runs}, cost_high),
                "cost_high": cost_high,
                "changes": sum(1 for p in points if p["version_changed"]),
            }
        )
    return out


def agent_link(datasette: Any, listed: set[str]) -> Callable[[str], Markup]:
    def link(name: str) -> Markup:
        # A name with a "." or ".." segment would resolve to another page: shown, not linked.
        dots = any(part in (".", "..") for part in name.split("/"))
        if "/" in name and name.lower() in listed and not dots:
            href = datasette.urls.path("/-/agent/" + quote(name, safe="/"))
            return Markup('<a class="agentrank-breakdown" href="{}">{}</a>').format(href, name)
        # In an isolate (a link is one by the stylesheet): a right-to-left override in a name
        # cannot reverse the version and model printed after it.
        return Markup("<bdi>{}</bdi>").format(name)

    return link


async def _page(
    datasette: Any,
    request: Any,
    template: str,
    reader: Callable[[sqlite3.Connection], Any],
    **extra: Any,
) -> Response:
    """``reader`` gives the page's data and its .json twin (in full; the page renders it bounded)."""
    database = await ranking_database(datasette)
    if database is None:
        return Response.html("No AgentRank database is served.", status=404)
    found = await read_page(datasette, database, _read(reader))
    if found["data"] is None:
        return Response.html(
            await datasette.render_template("benchmark_404.html", {"what": extra.get("what", "page")}, request=request),
            status=404,
        )
    if request.url_vars.get("format") == "json":
        return Response.json(found["data"], default=str)
    cut = Cut()
    context = {
        "data": bounded(found["data"], cut),
        "cut": cut,
        "agent_link": agent_link(datasette, found["listed"]),
        "database": database.name,
        "bench_url": lambda *parts, json=False: datasette.urls.path(bench_path(*parts, json=json)),
    }
    return Response.html(await datasette.render_template(template, {**context, **extra}, request=request))


def _var(request: Any, name: str) -> str:
    return tilde_decode(unquote(request.url_vars[name]))


async def home(datasette: Any, request: Any) -> Response:
    def read(conn: sqlite3.Connection) -> dict[str, Any]:
        return {
            **page_views.hub(conn),
            "runs": views.run_list(conn),
            "indexes": views.indexes(conn),
            "tasks": views.task_list(conn),
        }

    return await _page(datasette, request, "benchmark_home.html", read)


async def scorecard_page(datasette: Any, request: Any) -> Response:
    return await _page(datasette, request, "benchmark_scorecard.html", views.scorecards)


async def run_page(datasette: Any, request: Any) -> Response:
    suite, run = _var(request, "suite"), _var(request, "run")

    def read(conn: sqlite3.Connection) -> dict[str, Any] | None:
        entries = views.rs9_runs(conn, suite, run, results=True)
        return {"suite": suite, "run": run, "entries": entries} if entries else None

    return await _page(datasette, request, "benchmark_run.html", read, what=f"run {run} of {suite}")


async def over_time_page(datasette: Any, request: Any) -> Response:
    suite = _var(request, "suite")

    def read(conn: sqlite3.Connection) -> dict[str, Any] | None:
        entries = views.rs9_runs(conn, suite)
        return {"suite": suite, "entries": entries} if entries else None

    return await _page(datasette, request, "benchmark_over_time.html", read, what=f"suite {suite}", charts=over_time)


async def index_page(datasette: Any, request: Any) -> Response:
    return await _page(datasette, request, "benchmark_index.html", views.indexes)


async def fitscore_page(datasette: Any, request: Any) -> Response:
    return await _page(datasette, request, "benchmark_fitscore.html", views.fitscores)


async def task_page(datasette: Any, request: Any) -> Response:
    suite, task_id = _var(request, "suite"), _var(request, "task")
    return await _page(
        datasette,
        request,
        "benchmark_task.html",
        lambda conn: views.task_page(conn, suite, task_id),
        what=f"task {task_id} of {suite}",
    )


async def method_page(datasette: Any, request: Any) -> Response:
    """A registered method without a page of its own: its items' declared figures, by tier."""
    from leaderboard.methods import METHODS

    key = _var(request, "method")
    spec = METHODS.get(key)

    def read(conn: sqlite3.Connection) -> dict[str, Any] | None:
        if spec is None or spec.table is not None:
            return None
        return {
            "key": key,
            "export_name": spec.export_name,
            "figures": list(spec.figures),
            "items": views.method_items(conn, key),
        }

    return await _page(datasette, request, "benchmark_method.html", read, what=f"method {key}")


_JSON = r"(?:\.(?P<format>json))?$"
ROUTES = [
    (r"^/-/benchmark/?" + _JSON, home),
    (r"^/-/benchmark/runs/(?P<suite>[^/]+)/(?P<run>[^/]+?)" + _JSON, run_page),
    (r"^/-/benchmark/over-time/(?P<suite>[^/]+?)" + _JSON, over_time_page),
    (r"^/-/benchmark/index" + _JSON, index_page),
    (r"^/-/benchmark/fitscore" + _JSON, fitscore_page),
    (r"^/-/benchmark/scorecard" + _JSON, scorecard_page),
    (r"^/-/benchmark/tasks/(?P<suite>[^/]+)/(?P<task>[^/]+?)" + _JSON, task_page),
    (r"^/-/benchmark/methods/(?P<method>[^/]+?)" + _JSON, method_page),
]
