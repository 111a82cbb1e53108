"""The benchmark methods' pages under ``/-/benchmark/``: RS9 runs and the over-time chart, the indexes,
the FitScores and each task's validation. No SQL in front: every page reads through
``leaderboard.views``, and each has a ``.json`` twin (a run's is its full results download).

Agent names link to the maker's page when the agent is a listed directory repo.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from datasette import Response
from markupsafe import Markup, escape

from datasette_plugins.reading import ranking_database, read_page
from db.repos import listed_names
from leaderboard import views

CHART_WIDTH, PANEL_HEIGHT, MARGIN = 560, 120, 44


def _read(reader: Callable[[sqlite3.Connection], Any]) -> Callable[[sqlite3.Connection], Any]:
    def run(conn: sqlite3.Connection) -> Any:
        return {"data": reader(conn), "listed": listed_names(conn)}

    return run


def _point(x: float, y: float, changed: bool, title: str) -> Markup:
    if changed:
        shape = Markup(
            '<polygon class="agentrank-diamond" points="{},{} {},{} {},{} {},{}"><title>{}</title></polygon>'
        )
        return shape.format(x, y - 7, x + 7, y, x, y + 7, x - 7, y, title)
    return Markup('<circle cx="{}" cy="{}" r="4"><title>{}</title></circle>').format(x, y, title)


def _panel(points: list[dict[str, Any]], runs: list[str], key: str, label: str, top: float, fmt: str) -> Markup:
    known = [p[key] for p in points if p[key] is not None]
    high = max(known, default=0) or 1
    step = (CHART_WIDTH - 2 * MARGIN) / max(len(runs) - 1, 1)
    parts = [
        Markup('<text class="agentrank-axis" x="4" y="{}">{}</text>').format(top + 10, label),
        Markup('<line class="agentrank-axis" x1="{}" y1="{}" x2="{}" y2="{}"/>').format(
            MARGIN, top + PANEL_HEIGHT - 16, CHART_WIDTH - MARGIN, top + PANEL_HEIGHT - 16
        ),
        Markup('<text class="agentrank-axis" x="4" y="{}">{}</text>').format(top + PANEL_HEIGHT - 16, fmt.format(0)),
    ]
    if known:
        parts.append(Markup('<text class="agentrank-axis" x="4" y="{}">{}</text>').format(top + 24, fmt.format(high)))
    coords = []
    for p in points:
        x = MARGIN + step * runs.index(p["run"])
        if p[key] is None:
            what = ("nothing passed" if p["passed"] == 0 else "price unknown") if key == "cost_per_pass" else "unknown"
            parts.append(
                Markup(
                    '<text class="agentrank-unknown" x="{}" y="{}" text-anchor="middle">— {}<title>{}: {}</title></text>'
                ).format(x, top + PANEL_HEIGHT // 2 + 4, what, p["run"], what)
            )
            continue
        y = top + 20 + (PANEL_HEIGHT - 40) * (1 - p[key] / high)
        coords.append(f"{x:.1f},{y:.1f}")
        what = fmt.format(p[key]) + (" (lower bound)" if key == "cost_per_pass" and p["cost_lower_bound"] else "")
        title = f"{p['run']}: {label} {what}; {p['agent_version']} on {p['model']}"
        if p["version_changed"]:
            title = f"version changed ({p['previous_version']} → {p['agent_version']}, {p['model']}). " + title
        parts.append(_point(x, y, p["version_changed"], title))
    if len(coords) > 1:
        parts.insert(2, Markup('<polyline class="agentrank-line" points="{}"/>').format(" ".join(coords)))
    return Markup("").join(parts)


def over_time_svg(points: list[dict[str, Any]], runs: list[str]) -> Markup:
    """Tasks passed and cost per pass across the suite's runs; a diamond where the version or model changed."""
    labels = Markup("").join(
        Markup('<text class="agentrank-axis" x="{}" y="{}" text-anchor="middle">{}</text>').format(
            MARGIN + (CHART_WIDTH - 2 * MARGIN) / max(len(runs) - 1, 1) * i, 2 * PANEL_HEIGHT + 14, run
        )
        for i, run in enumerate(runs)
    )
    body = _panel(points, runs, "passed", "tasks passed", 0, "{:g}")
    body += _panel(points, runs, "cost_per_pass", "cost per pass", PANEL_HEIGHT, "${:.2f}")
    return Markup(
        '<svg class="agentrank-over-time" role="img" viewBox="0 0 {w} {h}" width="{w}" height="{h}">{body}{labels}</svg>'
    ).format(w=CHART_WIDTH, h=2 * PANEL_HEIGHT + 20, body=body, labels=labels)


def over_time(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One chart per suite and agent variant (agent and settings) across the suite's runs."""
    charts: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    runs: dict[str, list[str]] = {}
    for entry in entries:
        settings = json.dumps(entry["settings"], sort_keys=True)
        charts.setdefault((entry["suite"], entry["agent"], settings), []).append(entry)
        runs.setdefault(entry["suite"], [])
        if entry["run"] not in runs[entry["suite"]]:
            runs[entry["suite"]].append(entry["run"])
    out = []
    for (suite, agent, settings), points in sorted(charts.items()):
        suite_runs = sorted(runs[suite])
        points.sort(key=lambda p: p["run"])
        out.append(
            {
                "suite": suite,
                "agent": agent,
                "settings": json.loads(settings),
                "points": points,
                "svg": over_time_svg(points, suite_runs),
                "changes": sum(1 for p in points if p["version_changed"]),
            }
        )
    return out


def agent_link(datasette: Any, listed: set[str]) -> Callable[[str], Markup]:
    def link(name: str) -> Markup:
        if "/" in name and name.lower() in listed:
            href = datasette.urls.path("/-/agent/" + quote(name, safe="/"))
            return Markup('<a class="agentrank-breakdown" href="{}">{}</a>').format(href, name)
        return escape(name)

    return link


async def _page(datasette: Any, request: Any, template: str, reader: Callable[[sqlite3.Connection], Any], **extra):
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
    context = {"data": found["data"], "agent_link": agent_link(datasette, found["listed"]), "database": database.name}
    return Response.html(await datasette.render_template(template, {**context, **extra}, request=request))


def _var(request: Any, name: str) -> str:
    return unquote(request.url_vars[name])


async def home(datasette: Any, request: Any) -> Response:
    def read(conn: sqlite3.Connection) -> dict[str, Any]:
        return {"runs": views.run_list(conn), "indexes": views.indexes(conn), "tasks": views.task_list(conn)}

    return await _page(datasette, request, "benchmark_home.html", read)


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


_JSON = r"(?:\.(?P<format>json))?$"
ROUTES = [
    (r"^/-/benchmark/?" + _JSON, home),
    (r"^/-/benchmark/runs/(?P<suite>[^/]+)/(?P<run>[^/]+?)" + _JSON, run_page),
    (r"^/-/benchmark/over-time/(?P<suite>[^/]+?)" + _JSON, over_time_page),
    (r"^/-/benchmark/index" + _JSON, index_page),
    (r"^/-/benchmark/fitscore" + _JSON, fitscore_page),
    (r"^/-/benchmark/tasks/(?P<suite>[^/]+)/(?P<task>[^/]+?)" + _JSON, task_page),
]
