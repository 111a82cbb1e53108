"""Charts with dates: a repo's stars, score and rank over time, and several repos overlaid.

x is proportional to time (two runs a day apart sit close, a month apart far), the bottom axis is
labelled with dates, and each panel has its lowest and highest value on its y axis. Functions
here return plain numbers (SVG geometry in a ``WIDTH``-wide viewBox); the templates
(``_history_chart.html``, ``compare.html``) draw them, and :func:`history_svg` writes the
standalone, embeddable SVG of ``/-/agent/OWNER/REPO/history.svg``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from markupsafe import escape

from datasette_plugins.bidi import isolated
from scoring.score import shown as published_score

WIDTH = 640
PANEL = 64  # height of one series' panel
GAP = 22
LEFT, RIGHT = 150, 16  # the label, latest value and y-axis figures sit on the left
AXIS = 26  # room for the date labels under the last panel
MAX_TICKS = 5
# Line colours for overlaid repos (the compare page): distinct for colour-blind readers too.
COLOURS = ("#2f6fc6", "#d2452a", "#1d8a4c", "#8a4fbf")


def _instant(value: str) -> datetime:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class TimeAxis:
    """x positions proportional to time between the first and the last instant, and date ticks."""

    def __init__(self, instants: Sequence[str], left: float = LEFT, right: float = WIDTH - RIGHT):
        times = [_instant(i).timestamp() for i in instants]
        self.start, self.end = min(times), max(times)
        self.left, self.right = left, right

    def x(self, instant: str) -> float:
        if self.end <= self.start:
            return round((self.left + self.right) / 2, 1)
        share = (_instant(instant).timestamp() - self.start) / (self.end - self.start)
        return round(self.left + share * (self.right - self.left), 1)

    def ticks(self) -> list[dict[str, Any]]:
        """Up to ``MAX_TICKS`` dates, evenly spread in time, each labelled ``YYYY-MM-DD``."""
        if self.end <= self.start:
            day = datetime.fromtimestamp(self.start, UTC).strftime("%Y-%m-%d")
            return [{"x": round((self.left + self.right) / 2, 1), "label": day, "anchor": "middle"}]
        days = (self.end - self.start) / 86400
        count = max(2, min(MAX_TICKS, int(days) + 1))
        ticks, seen = [], set()
        for i in range(count):
            moment = self.start + (self.end - self.start) * i / (count - 1)
            label = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d")
            if label in seen:
                continue
            seen.add(label)
            anchor = "start" if i == 0 else "end" if i == count - 1 else "middle"
            x = self.left + (self.right - self.left) * i / (count - 1)
            ticks.append({"x": round(x, 1), "label": label, "anchor": anchor})
        return ticks


def _scale(values: list[float], min_span: float, ceiling: float | None = None) -> tuple[float, float]:
    """(low, high) of a panel's y axis: spans at least ``min_span``, so a 0.01 change stays flat,
    and never above ``ceiling`` (a score's 100) or below 0."""
    low, high = min(values), max(values)
    span = max(high - low, min_span)
    middle = (low + high) / 2
    low, high = middle - span / 2, middle + span / 2
    if ceiling is not None and high > ceiling:
        low, high = low - (high - ceiling), ceiling
    if low < 0 <= min(values):
        low, high = 0.0, high - low
    return low, high


def _y(value: float, low: float, high: float, top: float, invert: bool) -> float:
    share = (value - low) / (high - low)
    if invert:  # rank 1 is at the top
        share = 1 - share
    inner = PANEL - 12
    return round(top + 6 + inner * (1 - share), 1)


# (key, label, rank-like, how a value is shown, smallest span of the y axis)
SERIES: tuple[tuple[str, str, bool, Callable[[Any], str], Callable[[list[float]], float]], ...] = (
    ("stars", "stars", False, lambda v: f"{round(v):,}", lambda values: max(100.0, 0.02 * max(values))),
    ("score", "score", False, lambda v: f"{published_score(v):.1f}", lambda values: 10.0),
    ("rank", "rank", True, lambda v: f"#{round(v):,}", lambda values: 10.0),
)


def _panel_axis(low: float, high: float, top: float, invert: bool, shown: Callable[[Any], str]) -> list[dict]:
    """The y-axis figures of a panel: its top and bottom values."""
    top_value, bottom_value = (low, high) if invert else (high, low)
    if invert:
        top_value, bottom_value = max(1.0, top_value), bottom_value
    return [
        {"y": round(top + 10, 1), "label": shown(top_value)},
        {"y": round(top + PANEL - 2, 1), "label": shown(bottom_value)},
    ]


def history_chart(history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Geometry for stars, score and rank across ``history`` (oldest first, each with ``as_of``),
    x proportional to time; None with fewer than two runs."""
    if len(history) < 2:
        return None
    axis = TimeAxis([h["as_of"] for h in history])
    xs = [axis.x(h["as_of"]) for h in history]
    series = []
    for index, (key, label, invert, shown, min_span) in enumerate(SERIES):
        values = [h[key] for h in history]
        top = index * (PANEL + GAP)
        floats = [float(v) for v in values]
        low, high = _scale(floats, min_span(floats), 100.0 if key == "score" else None)
        if invert:
            low = max(0.5, low)
        ys = [_y(v, low, high, top, invert) for v in floats]
        series.append(
            {
                "key": key,
                "label": label,
                "top": top,
                "latest": shown(values[-1]),
                "points": " ".join(f"{x},{y}" for x, y in zip(xs, ys, strict=True)),
                "y_axis": _panel_axis(low, high, top, invert, shown),
                "dots": [
                    {"x": x, "y": y, "title": f"{h['as_of'][:10]} (run {h['run_id']}): {label} {shown(v)}"}
                    for x, y, h, v in zip(xs, ys, history, values, strict=True)
                ],
            }
        )
    plot_bottom = len(SERIES) * PANEL + (len(SERIES) - 1) * GAP
    markers = [
        {
            "x": round((xs[i - 1] + xs[i]) / 2, 1),
            "title": f"method version {history[i - 1]['method_version']} → {history[i]['method_version']}",
        }
        for i in range(1, len(history))
        if history[i].get("method_version") != history[i - 1].get("method_version")
    ]
    return {
        "width": WIDTH,
        "height": plot_bottom + AXIS,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "plot_bottom": plot_bottom,
        "series": series,
        "markers": markers,
        "ticks": axis.ticks(),
        "first": history[0]["as_of"][:10],
        "last": history[-1]["as_of"][:10],
        "runs": len(history),
    }


def overlay_chart(histories: list[tuple[str, list[dict[str, Any]]]], key: str) -> dict[str, Any] | None:
    """One panel with a line per repo for ``key`` (stars, score or rank) on a shared time axis:
    ``histories`` is [(full_name, history oldest first)]. None when no repo has a run."""
    spec = next(s for s in SERIES if s[0] == key)
    _, label, invert, shown, min_span = spec
    everything = [h for _, history in histories for h in history]
    if not everything:
        return None
    axis = TimeAxis([h["as_of"] for h in everything], left=70)
    floats = [float(h[key]) for h in everything]
    low, high = _scale(floats, min_span(floats), 100.0 if key == "score" else None)
    if invert:
        low = max(0.5, low)
    height = 3 * PANEL
    inner_top = 0

    def y(value: float) -> float:
        share = (value - low) / (high - low)
        if invert:
            share = 1 - share
        return round(inner_top + 8 + (height - 16) * (1 - share), 1)

    lines = []
    for index, (name, history) in enumerate(histories):
        points = [(axis.x(h["as_of"]), y(float(h[key])), h) for h in history]
        lines.append(
            {
                "name": name,
                "colour": COLOURS[index % len(COLOURS)],
                "points": " ".join(f"{px},{py}" for px, py, _ in points),
                "dots": [
                    {"x": px, "y": py, "title": f"{isolated(name)}, {h['as_of'][:10]}: {label} {shown(h[key])}"}
                    for px, py, h in points
                ],
            }
        )
    top_value, bottom_value = (low, high) if invert else (high, low)
    return {
        "key": key,
        "label": label,
        "width": WIDTH,
        "height": height + AXIS,
        "left": 70,
        "right": WIDTH - RIGHT,
        "plot_bottom": height,
        "lines": lines,
        "y_axis": [{"y": 14, "label": shown(top_value)}, {"y": height - 4, "label": shown(bottom_value)}],
        "ticks": axis.ticks(),
    }


def history_svg(full_name: str, history: list[dict[str, Any]], *, key: str = "stars", site: str = "AgentRank") -> str:
    """A standalone SVG of one series (stars by default) over time with dated axes, to embed in a
    README or a page: ``<img src=".../history.svg">``. Repository text is escaped."""
    title = f"{isolated(full_name)}: {key} over time"
    width = WIDTH
    if not history:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="60" viewBox="0 0 {width} 60" '
            f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
            f'<text x="10" y="35" font-family="sans-serif" font-size="14">{escape(full_name)}: '
            "no score run yet</text></svg>"
        )
    chart = overlay_chart([(full_name, history)], key)
    assert chart is not None
    top = 40  # the title line above the plot
    height = top + chart["height"] + 8
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" class="history-chart">',
        f"<title>{escape(title)}</title>",
        '<rect width="100%" height="100%" fill="#fff"/>',
        '<g font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="12" fill="#333">',
        f'<text x="10" y="24" font-size="15" font-weight="bold">{escape(full_name)}</text>',
        f'<text x="{width - 10}" y="24" text-anchor="end" fill="#555">{escape(key)} · {escape(site)}</text>',
        f'<g transform="translate(0,{top})">',
        f'<line x1="{chart["left"]}" x2="{chart["right"]}" y1="{chart["plot_bottom"]}" '
        f'y2="{chart["plot_bottom"]}" stroke="#bbb"/>',
        f'<line x1="{chart["left"]}" x2="{chart["left"]}" y1="0" y2="{chart["plot_bottom"]}" stroke="#bbb"/>',
    ]
    for tick in chart["y_axis"]:
        parts.append(
            f'<text class="history-value" x="{chart["left"] - 6}" y="{tick["y"]}" text-anchor="end">{escape(tick["label"])}</text>'
        )
    for tick in chart["ticks"]:
        parts.append(
            f'<text class="history-date" x="{tick["x"]}" y="{chart["plot_bottom"] + 18}" '
            f'text-anchor="{tick["anchor"]}">{tick["label"]}</text>'
        )
    for line in chart["lines"]:
        parts.append(f'<polyline points="{line["points"]}" fill="none" stroke="{line["colour"]}" stroke-width="2.5"/>')
        for dot in line["dots"]:
            parts.append(
                f'<circle cx="{dot["x"]}" cy="{dot["y"]}" r="3" fill="{line["colour"]}"><title>{escape(dot["title"])}</title></circle>'
            )
    parts.append("</g></g></svg>")
    return "".join(parts)
