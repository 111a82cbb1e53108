"""The maker's page history chart: score, rank and stars across score runs, as SVG geometry.

:func:`history_chart` returns plain numbers (one panel per series, points in a 600-wide viewBox,
and where the method version changed); ``_history_chart.html`` draws them as an inline
``<svg class="history-chart">``. Nothing to draw before two runs.
"""

from __future__ import annotations

from typing import Any

from scoring.score import shown as published_score

WIDTH = 600
PANEL = 56  # height of one series' panel
GAP = 18
LEFT, RIGHT = 175, 12  # room for the label and latest value on the left


def _panel(values: list[float], top: float, invert: bool = False, min_span: float = 1.0) -> list[float]:
    """y for each value in a panel whose scale spans at least ``min_span`` (so a 0.01 change stays flat)."""
    low, high = min(values), max(values)
    span = max(high - low, min_span)
    low = (low + high) / 2 - span / 2
    inner = PANEL - 12
    ys = []
    for value in values:
        share = (value - low) / span
        if invert:  # rank 1 is at the top
            share = 1 - share
        ys.append(round(top + 6 + inner * (1 - share), 1))
    return ys


def history_chart(history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Geometry for score, rank and stars across ``history`` (oldest first); None with fewer than two runs."""
    if len(history) < 2:
        return None
    step = (WIDTH - LEFT - RIGHT) / (len(history) - 1)
    xs = [round(LEFT + i * step, 1) for i in range(len(history))]
    series = []
    specs = (
        ("score", "score", False, lambda v: f"{published_score(v):.1f}", lambda values: 10.0),
        ("rank", "rank", True, lambda v: f"#{v:,}", lambda values: 10.0),
        ("stars", "stars", False, lambda v: f"{v:,}", lambda values: max(10.0, 0.1 * max(values))),
    )
    for index, (key, label, invert, shown, min_span) in enumerate(specs):
        values = [h[key] for h in history]
        top = index * (PANEL + GAP)
        floats = [float(v) for v in values]
        ys = _panel(floats, top, invert, min_span(floats))
        series.append(
            {
                "key": key,
                "label": label,
                "top": top,
                "latest": shown(values[-1]),
                "points": " ".join(f"{x},{y}" for x, y in zip(xs, ys, strict=True)),
                "dots": [
                    {"x": x, "y": y, "title": f"{h['as_of'][:10]} (run {h['run_id']}): {label} {shown(v)}"}
                    for x, y, h, v in zip(xs, ys, history, values, strict=True)
                ],
            }
        )
    markers = [
        {
            "x": round((xs[i - 1] + xs[i]) / 2, 1),
            "title": f"method version {history[i - 1]['method_version']} → {history[i]['method_version']}",
        }
        for i in range(1, len(history))
        if history[i].get("method_version") != history[i - 1].get("method_version")
    ]
    height = len(specs) * PANEL + (len(specs) - 1) * GAP + 16
    return {
        "width": WIDTH,
        "height": height,
        "left": LEFT,
        "series": series,
        "markers": markers,
        "first": history[0]["as_of"][:10],
        "last": history[-1]["as_of"][:10],
        "runs": len(history),
    }
