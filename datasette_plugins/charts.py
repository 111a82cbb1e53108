"""The maker's page history chart: score, rank and stars across score runs, as SVG geometry.

:func:`history_chart` returns plain numbers (one panel per series, points in a 600-wide viewBox,
and where the method version changed); ``_history_chart.html`` draws them as an inline
``<svg class="history-chart">``. Nothing to draw before two runs.
"""

from __future__ import annotations

from typing import Any

WIDTH = 600
PANEL = 56  # height of one series' panel
GAP = 18
LEFT, RIGHT = 150, 12  # room for the label and latest value on the left


def _panel(values: list[float], top: float, invert: bool = False) -> list[float]:
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    inner = PANEL - 12
    ys = []
    for value in values:
        share = (value - low) / span if high > low else 0.5
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
        ("score", "score", False, lambda v: f"{v:.1f}"),
        ("rank", "rank", True, lambda v: f"#{v:,}"),
        ("stars", "stars", False, lambda v: f"{v:,}"),
    )
    for index, (key, label, invert, shown) in enumerate(specs):
        values = [h[key] for h in history]
        top = index * (PANEL + GAP)
        ys = _panel([float(v) for v in values], top, invert)
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
