"""Why a repo moved in the ranking between two score runs, in words: news or noise.

A rank move is **news** when the repo's own stars and forks (or its licence) drove it, and
**noise** when its activity bucket flipped (a push, or time passing without one) or the other
repos' changes moved it. The split follows :func:`scoring.explain.explain_change`: a percentile
component's own part is what its new stars/forks would have scored against the *previous*
population, the rest is the population's part; activity and openness have no population part.

Everything here works on two stored score rows (dicts with the ``scores`` columns) and the
previous run's sorted ``stars``, ``forks`` and ``stars_per_day`` (this repo included: it is taken
out arithmetically), so the movers feed and the maker's page classify many repos cheaply.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from scoring.score import ACTIVITY_BUCKETS, WEIGHTS

PERCENTILE_INPUTS = {"popularity": "stars", "adoption": "forks", "momentum": "stars_per_day"}
NEWS = ("stars", "licence")
# A part smaller than half a shown decimal moved nobody: a repo whose own part is that small (its
# shown score the same) was passed by others, whatever its own stars did.
MATERIAL_POINTS = 0.05
# What each part is called in a heading (the sentence for each is built in ``reason``).
PARTS = {
    "stars": "its own stars and forks",
    "licence": "its licence",
    "activity": "its activity bucket",
    "others": "the other repos' changes",
}


def sorted_population(population: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A run's population (``db.breakdown.run_population``) as the sorted columns ``classify`` takes."""
    return {column: np.sort(np.asarray(population[column], dtype=float)) for column in PERCENTILE_INPUTS.values()}


def bucket_label(days: float | None) -> str:
    """The activity bucket of ``days`` since the last push, as the pages name it."""
    if days is None:
        return "no push"
    return next((f"≤ {bound:g} days" for bound, _ in ACTIVITY_BUCKETS if days <= bound), "> 365 days")


def _percentile_without(sorted_all: np.ndarray, own_before: float, value: float) -> float:
    """The percentile ``value`` has among the run's other repos (the repo's ``own_before`` taken out)."""
    others = len(sorted_all) - 1
    if others <= 0:
        return 100.0
    smaller = int(np.searchsorted(sorted_all, value, side="left")) - (1 if own_before < value else 0)
    return 100.0 * smaller / others


def split(before: dict[str, Any], after: dict[str, Any], previous: dict[str, np.ndarray]) -> dict[str, float]:
    """The score change in points, split into ``stars`` (its own stars and forks), ``licence``,
    ``activity`` (its bucket) and ``others`` (the population's part, and time alone ageing its
    stars per day when its stars and forks did not change). The parts add up to the change."""
    own_moved = before["stars"] != after["stars"] or before["forks"] != after["forks"]
    parts = {"stars": 0.0, "licence": 0.0, "activity": 0.0, "others": 0.0}
    for component, column in PERCENTILE_INPUTS.items():
        weight = WEIGHTS[component]
        total = after[component] - before[component]
        own = _percentile_without(previous[column], float(before[column]), float(after[column])) - before[component]
        parts["stars" if own_moved else "others"] += weight * own
        parts["others"] += weight * (total - own)
    parts["activity"] = WEIGHTS["activity"] * (after["activity"] - before["activity"])
    parts["licence"] = WEIGHTS["openness"] * (after["openness"] - before["openness"])
    return parts


def driver(parts: dict[str, float], places_up: int) -> str:
    """The part that pushed the repo the way it moved (``others`` when its own score moved the
    other way, or not at all)."""
    sign = 1.0 if places_up > 0 else -1.0
    best = max(parts, key=lambda name: (sign * parts[name], name == "others"))
    return best if sign * parts[best] > 1e-9 else "others"


def _days_between(before: str, after: str) -> float | None:
    try:
        start = datetime.fromisoformat(before.replace("Z", "+00:00"))
        end = datetime.fromisoformat(after.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return None
    return (end - start).total_seconds() / 86400


def period(before_as_of: str, after_as_of: str) -> str:
    """``this week`` for runs about a week apart, else ``in 12 days`` / ``since the previous run``."""
    days = _days_between(before_as_of, after_as_of)
    if days is None or days < 0.5:
        return "since the previous run"
    if 6 <= days <= 8:
        return "this week"
    return f"in {round(days):,} days"


def _count(value: int, word: str) -> str:
    sign = "+" if value > 0 else "−"
    return f"{sign}{abs(value):,} {word if abs(value) == 1 else word + 's'}"


def _own_figures(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    figures = []
    for column, word in (("stars", "star"), ("forks", "fork")):
        gained = int(after[column]) - int(before[column])
        if gained:
            figures.append(_count(gained, word))
    return figures


def reason(before: dict[str, Any], after: dict[str, Any], why: str, *, slower: bool = False) -> str:
    """The move in words for people: ``+3,100 stars this week`` or ``its activity bucket changed
    (last push ≤ 30 days → ≤ 7 days)``. ``slower``: its own stars and forks lowered its score (it
    gained stars, but fewer a day than over its life so far: its momentum fell)."""
    when = period(before["as_of"], after["as_of"])
    own = _own_figures(before, after)
    if why == "stars":
        said = f"{' and '.join(own) or 'no new stars or forks'} {when}"
        if slower and any(int(after[c]) > int(before[c]) for c in ("stars", "forks")):
            said += ", fewer a day than before (its stars per day of age fell)"
        return said
    if why == "licence":
        was, now = before.get("license_spdx") or "none", after.get("license_spdx") or "none"
        gained = after["openness"] > before["openness"]
        what = "gained an OSI-approved licence" if gained else "lost its OSI-approved licence"
        return f"it {what} ({was} → {now})"
    tail = f"; its own: {' and '.join(own)} {when}" if own else f"; no new stars or forks {when}"
    if why == "activity":
        was, now = bucket_label(before.get("days_since_push")), bucket_label(after.get("days_since_push"))
        return f"its activity bucket changed (last push {was} → {now}){tail}"
    return f"the other repos' changes moved it{tail}"


def title(full_name: str, move: dict[str, Any], rank: int) -> str:
    """A feed entry's title: a rise or a fall only when its own stars, forks or licence drove it."""
    places = abs(move["places_up"])
    way = "up" if move["places_up"] > 0 else "down"
    count = f"{places:,} place{'' if places == 1 else 's'}"
    if move["kind"] == "news":
        verb = "rose" if move["places_up"] > 0 else "fell"
        return f"{full_name} {verb} {count} to #{rank:,}: {move['reason']}"
    return f"{full_name} moved {way} {count} to #{rank:,}, not on its own stars or forks: {move['reason']}"


def classify(
    before: dict[str, Any], after: dict[str, Any], previous: dict[str, np.ndarray], places_up: int | None = None
) -> dict[str, Any]:
    """A move between two score rows of one repo: ``places_up``, ``why`` (a key of ``PARTS``),
    ``kind`` (``news`` or ``noise``), ``reason`` in words and the points of each part.

    ``places_up`` is best counted among the repos ranked in both runs (``db.directory.places_in_both``):
    repos that joined or left the list change a rank number without anyone moving. Without it, the
    difference of the two ranks."""
    if places_up is None:
        places_up = int(before["rank"]) - int(after["rank"])
    parts = split(before, after, previous)
    why = driver(parts, places_up) if places_up else "others"
    if why != "others" and abs(parts[why]) < MATERIAL_POINTS:
        why = "others"
    return {
        "places_up": places_up,
        "why": why,
        "kind": "news" if why in NEWS else "noise",
        "reason": reason(before, after, why, slower=why == "stars" and parts["stars"] < 0),
        "parts": parts,
        "stars_gained": int(after["stars"]) - int(before["stars"]),
        "forks_gained": int(after["forks"]) - int(before["forks"]),
    }
