"""A repo's score breakdown for its maker: each component's input, where it stands, the points
it brings, and the concrete change that would move it.

One implementation, used by ``agentrank explain`` and by the maker's page in Datasette. It works
on the stored score rows of one run, so what it says always matches the published numbers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np

from scoring.components import EXTRA_INPUTS, PERCENTILE, RANKED_VALUES, TABLE, Component, explain_measure
from scoring.score import ACTIVITY_BUCKETS, MIN_AGE_DAYS, SECONDS_PER_DAY, WEIGHTS, half_up, shown, shown_range

STEP_SHARE = 0.10  # "pass the next 10 % of listed repos"


def _plural(n: int | float, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def signed(value: float, decimals: int = 2) -> str:
    """``+1.25``, ``−0.40``, and ``0.00`` for anything that rounds to zero (never ``-0.0`` or ``+0.0``)."""
    rounded = round(value, decimals)
    if rounded == 0:
        return f"{0:.{decimals}f}"
    return ("+" if rounded > 0 else "−") + f"{abs(rounded):,.{decimals}f}"


def _gain(percentile: float, weight: float) -> str:
    """A percentile gain in words (what moves: the share of the other listed repos it is ahead of,
    which the component's 0-100 follows) and its points, precise enough that a real gain never
    reads as +0.0."""
    decimals = 1 if percentile >= 0.1 else 2
    return f"ahead of {percentile:.{decimals}f} % more of the other listed repos, +{weight * percentile:.2f} points"


# How each stored input is called in what people read (explain and the maker's page).
FIELD_LABELS = {
    "stars": "stars",
    "forks": "forks",
    "pushed_at": "last push",
    "days_since_push": "days since the last push",
    "created_at": "created",
    "age_days": "age in days",
    "license_spdx": "licence",
    "osi_approved": "OSI-approved",
    "stars_per_day": "stars per day",
}


def field_label(key: str) -> str:
    return FIELD_LABELS.get(key, key.replace("_", " "))


def field_value(value: Any) -> str:
    """An input's value as people read it: yes/no, thousands separated, one decimal, none."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, str):
        return when(value)
    return str(value)


_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def when(timestamp: str, *, time: bool = False) -> str:
    """A stored UTC timestamp as people read it, ``15 Jan 2026`` (the exact instant stays in the JSON),
    or with ``time`` its hour and minute too, ``15 Jan 2026, 09:30 UTC``; a bare date (``2026-01-15``,
    a run's day or a price's) reads ``15 Jan 2026``, with no hour to add; any other text unchanged."""
    try:
        if _TIMESTAMP.fullmatch(timestamp):
            moment = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%SZ")
        elif _DATE.fullmatch(timestamp):
            moment, time = datetime.strptime(timestamp, "%Y-%m-%d"), False
        else:
            moment = None
    except ValueError:
        moment = None
    if moment is None:
        return timestamp
    return f"{moment.day} {moment:%b %Y}" + (f", {moment:%H:%M} UTC" if time else "")


def _days(d: float) -> str:
    whole = max(0, math.floor(d))
    return "less than a day" if whole == 0 else _plural(whole, "day")


def sorted_values(values: np.ndarray) -> np.ndarray:
    """``values`` in ascending order. An array already in order (a server keeps each run's columns
    sorted) is checked in one pass and not sorted again: a maker's page takes half a dozen of them."""
    if len(values) < 2 or bool((values[:-1] <= values[1:]).all()):
        return values
    return np.sort(values)


def _median_of_sorted(values: np.ndarray) -> float:
    middle = len(values) // 2
    return float(values[middle]) if len(values) % 2 else float((values[middle - 1] + values[middle]) / 2)


def _target_value(others_sorted: np.ndarray, smaller: int, step: int) -> tuple[int, float] | None:
    """The value to beat so that ``step`` more repos sit strictly below; None at the top."""
    n_others = len(others_sorted)
    if smaller >= n_others:
        return None
    target = min(smaller + step, n_others)
    return target, float(others_sorted[target - 1])


def _passed(others_sorted: np.ndarray, value: float, target: int) -> int:
    """How many other repos sit strictly below ``value``: at least ``target``, and more where repos
    tie with the one passed (passing one of them passes them all at once)."""
    return max(target, int(np.searchsorted(others_sorted, value, side="left")))


def _percentile_advice(
    name: str, unit: str, current: int, others_sorted: np.ndarray, n: int, weight: float, percentile: float
) -> list[str]:
    smaller = int(np.searchsorted(others_sorted, current, side="left"))
    if n == 1:
        return [f"no other listed repo to pass: more {unit}s change nothing yet"]
    advice = []
    step = max(1, math.ceil(STEP_SHARE * (n - 1)))
    nxt = _target_value(others_sorted, smaller, 1)
    if nxt is None:
        return [f"more {unit}s than every other listed repo: {name} is at its maximum of 100"]
    # Passing a repo means having strictly more than it (ties share the lower rank).
    need_one = int(nxt[1]) + 1 - current
    passed_one = _passed(others_sorted, current + need_one, nxt[0])
    gain_one = 100.0 * (passed_one / (n - 1)) - percentile
    if passed_one >= len(others_sorted):
        whom, verb = f"the most {unit}s of any listed repo", "to have"
    elif passed_one - smaller > 1:
        whom, verb = f"the next {passed_one - smaller:,} listed repos (tied on {unit}s)", "to pass"
    else:
        whom, verb = "the next listed repo", "to pass"
    advice.append(f"{_plural(need_one, 'more ' + unit)} {verb} {whom} ({_gain(gain_one, weight)})")
    decile = _target_value(others_sorted, smaller, step)
    if decile is not None:
        need = int(decile[1]) + 1 - current
        passed = _passed(others_sorted, current + need, decile[0])
        if passed > passed_one:
            gain = 100.0 * (passed / (n - 1)) - percentile
            advice.append(
                f"{_plural(need, 'more ' + unit)} to pass {_step_phrase(passed, len(others_sorted))} "
                f"({_gain(gain, weight)})"
            )
    return advice


def _step_phrase(target: int, n_others: int) -> str:
    if target >= n_others:
        return "every other listed repo"
    return f"the next {int(STEP_SHARE * 100)} % of listed repos"


def _activity_advice(days: float | None, activity: float) -> list[str]:
    weight = WEIGHTS["activity"]
    if days is None:
        return [f"GitHub reports no push; a push would raise activity to 100 (+{weight * 100:.2f} points)"]
    advice = []
    for bound, points in ACTIVITY_BUCKETS:
        if days <= bound:
            lower = next((p for b, p in ACTIVITY_BUCKETS if b > bound), 0.0)
            if points == 100.0:
                left = _days(bound - days)
                within = "within a day" if left == "less than a day" else f"in the next {left}"
                advice.append(f"a push {within} keeps activity at 100")
            else:
                advice.append(
                    f"a push now raises activity from {points:g} to 100 (+{weight * (100 - points):.2f} points)"
                )
            advice.append(
                f"without a push, activity drops from {points:g} to {lower:g} in {_days(bound - days)} "
                f"(−{weight * (points - lower):.2f} points)"
            )
            return advice
    return [f"a push now raises activity from 0 to 100 (+{weight * 100:.2f} points)"]


def _openness_advice(spdx: str | None, osi: bool) -> list[str]:
    if osi:
        return [f"{spdx} is OSI-approved: openness is at its maximum of 100"]
    gain = f"+{WEIGHTS['openness'] * 100:.0f} points"
    if not spdx:
        return [f"GitHub detected no licence; adding an OSI-approved one such as MIT or Apache-2.0 gives {gain}"]
    if spdx.upper() == "NOASSERTION":
        return [
            "GitHub found a licence file but could not identify it (NOASSERTION); using the unmodified text "
            f"of an OSI-approved licence lets GitHub detect its SPDX id ({gain})"
        ]
    return [f"{spdx} is not OSI-approved; an OSI-approved licence such as MIT or Apache-2.0 gives {gain}"]


_UNITS = {c.name: c.units for c in TABLE if c.kind == PERCENTILE}


def _advise_the_top(components: list[dict[str, Any]]) -> None:
    """The #1 repo is ahead overall, not necessarily on each measure: say so where it is not first,
    before the advice on whom to pass on that measure."""
    for item in components:
        name = item["component"]
        room = 100.0 - item.get("percentile", 100.0)
        if name in _UNITS and room > 0:
            item["advice"].insert(
                0,
                f"ranked #1 overall, yet not first on {_UNITS[name]}: more {_UNITS[name]} can put it ahead of "
                f"the remaining {room:.1f} % of the other listed repos (up to +{WEIGHTS[name] * room:.2f} points "
                f"on {name})",
            )


Others = Callable[[str, float], np.ndarray]


def _count_entry(c: Component, row: dict[str, Any], others: Others, n: int) -> dict[str, Any]:
    """A percentile of a count (stars, forks): how many more to pass the next repos."""
    column = c.value
    return {
        "component": c.name,
        "input": {column: row[column]},
        "measure": explain_measure(c),
        "value": math.log1p(row[column]) if c.log_scale else row[column],
        "percentile": row[c.name],
        "advice": _percentile_advice(
            c.name, c.unit, row[column], others(column, row[column]), n, c.weight, row[c.name]
        ),
    }


def _push_entry(c: Component, row: dict[str, Any], others: Others, n: int) -> dict[str, Any]:
    days = row.get("days_since_push")
    bucket = next(
        (f"≤ {b:g} days" for b, _ in c.buckets if days is not None and days <= b), f"> {c.buckets[-1][0]:g} days"
    )
    return {
        "component": c.name,
        "input": {"pushed_at": row.get("pushed_at"), "days_since_push": days},
        "measure": explain_measure(c),
        "value": days,
        "bucket": "no push" if days is None else bucket,
        "advice": _activity_advice(days, row[c.name]),
    }


def _rate_entry(c: Component, row: dict[str, Any], others: Others, n: int) -> dict[str, Any]:
    """Stars per day of age: how many more stars at the same age pass the next repos."""
    age = row["age_days"]
    momentum_others = others("stars_per_day", row["stars_per_day"])
    smaller = int(np.searchsorted(momentum_others, row["stars_per_day"], side="left"))
    momentum_advice = []
    nxt = _target_value(momentum_others, smaller, max(1, math.ceil(STEP_SHARE * (n - 1)))) if n > 1 else None
    if n == 1:
        momentum_advice.append("no other listed repo to pass: more stars per day change nothing yet")
    elif nxt is None:
        momentum_advice.append("more stars per day than every other listed repo: momentum is at its maximum of 100")
    else:
        need = _stars_to_beat(row["stars"], row["age_days"], nxt[1])
        passed = _passed(momentum_others, _rate(row["stars"] + need, row["age_days"]), nxt[0])
        gain = 100.0 * (passed / (n - 1)) - row[c.name]
        momentum_advice.append(
            f"{_plural(need, 'more star')} at the same age to pass "
            f"{_step_phrase(passed, len(momentum_others))} on stars per day ({_gain(gain, c.weight)})"
        )
    momentum_advice.append(
        "stars per day is averaged over the repo's whole life"
        + (" (counted as 30 days until it is 30 days old)" if age < MIN_AGE_DAYS else "")
        + ", so it falls as the repo ages unless stars keep coming"
    )
    return {
        "component": c.name,
        "input": {"stars": row["stars"], "created_at": row["created_at"], "age_days": age},
        "measure": explain_measure(c),
        "value": row["stars_per_day"],
        "percentile": row[c.name],
        "advice": momentum_advice,
    }


def _rate(stars: int, age_days: float) -> float:
    """Stars per day as the score computes it (scoring.score.stars_per_day_of): one division of
    stars × 86,400 by the age in seconds, at least MIN_AGE_DAYS."""
    seconds = max(round(age_days * SECONDS_PER_DAY), round(MIN_AGE_DAYS * SECONDS_PER_DAY))
    return float(stars * round(SECONDS_PER_DAY)) / float(seconds)


def _stars_to_beat(stars: int, age_days: float, rate: float) -> int:
    """The fewest more stars (at least 1) that put stars per day strictly above ``rate`` at the same age."""
    need = max(math.floor(rate * max(age_days, MIN_AGE_DAYS)) + 1 - stars, 1)
    while _rate(stars + need, age_days) <= rate:  # the product rounded down past a whole number
        need += 1
    while need > 1 and _rate(stars + need - 1, age_days) > rate:
        need -= 1
    return need


def _licence_entry(c: Component, row: dict[str, Any], others: Others, n: int) -> dict[str, Any]:
    osi = bool(row["license_osi"])
    return {
        "component": c.name,
        "input": {"license_spdx": row.get("license_spdx"), "osi_approved": osi},
        "measure": explain_measure(c),
        "value": 100.0 if osi else 0.0,
        "advice": _openness_advice(row.get("license_spdx"), osi),
    }


# Each component's entry, by the kind of advice its table row names (scoring.components).
_ENTRIES = {"count": _count_entry, "push": _push_entry, "rate": _rate_entry, "licence": _licence_entry}


def explain_row(row: dict[str, Any], population: dict[str, np.ndarray]) -> dict[str, Any]:
    """The breakdown of one stored score row against its run's population.

    ``population`` holds the run's arrays of the percentile components' inputs
    (``scoring.components.RANKED_VALUES``: ``stars``, ``forks``, ``stars_per_day``), all repos, this
    one included.
    """
    n = len(population[RANKED_VALUES[0]])

    def others(column: str, value: float) -> np.ndarray:
        values = sorted_values(np.asarray(population[column]))
        index = int(np.searchsorted(values, value, side="left"))
        return np.delete(values, index) if index < len(values) and values[index] == value else values

    components = [_ENTRIES[c.advice](c, row, others, n) for c in TABLE]
    if row["rank"] == 1:
        _advise_the_top(components)
    for item in components:
        name = item["component"]
        item["score"] = row[name]
        item["weight"] = WEIGHTS[name]
        item["points"] = WEIGHTS[name] * row[name]
    return {
        "repo_id": row["repo_id"],
        "full_name": row["full_name"],
        "run_id": row["run_id"],
        "as_of": row["as_of"],
        "method_version": row["method_version"],
        "score": row["score"],
        "rank": row["rank"],
        "listed_count": n,
        "components": components,
        **trust_fields(row),
    }


def trust_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A score row's rank and score ranges, flags and growth figures (None for runs scored before them)."""
    has_ranges = row.get("rank_best") is not None and row.get("score_low") is not None
    check = row.get("growth_check")
    return {
        "rank_range": [row["rank_best"], row["rank_worst"]] if has_ranges else None,
        # As published everywhere: one decimal, rounded outwards (scoring.score.shown_range).
        "score_range": list(shown_range(row["score_low"], row["score_high"])) if has_ranges else None,
        "flags": json.loads(row.get("flags") or "[]"),
        "growth_check": json.loads(check) if check else None,
    }


def rank_range_text(best: int, worst: int) -> str:
    """A likely-rank range as people read it: ``11–19``, and just ``14`` when the best and the worst
    rank are the same (never ``14–14``)."""
    return f"{best:,}" if best == worst else f"{best:,}–{worst:,}"


def likely_rank_phrase(breakdown: dict[str, Any]) -> str | None:
    """ "likely 11–19" (or "likely exactly 14"), from the rank range; None without one."""
    found = breakdown.get("rank_range")
    if not found:
        return None
    best, worst = found
    return f"likely exactly {best:,}" if best == worst else f"likely {rank_range_text(best, worst)}"


def flag_sentences(breakdown: dict[str, Any]) -> list[str]:
    """One sentence per flag, with the figures behind it."""
    check = breakdown.get("growth_check") or {}
    sentences = []
    if "unusual-star-growth" in (breakdown.get("flags") or []):
        earlier = check.get("largest_earlier_weekly_gain")
        expected = check.get("expected_from_peers")
        sentences.append(
            f"unusual star growth: {check.get('stars_gained_last_week') or 0:,} stars gained in the last week, "
            f"against at most {earlier or 0:,} a week in the {len(check.get('earlier_weekly_gains') or [])} weeks "
            f"before, and about {expected or 0:,.0f} expected from other listed repos with its fork gain "
            f"({check.get('forks_gained_last_week') or 0:,}), pushes and size (the flag needs at least "
            f"{check.get('flag_needs_by_own_history') or 0:,} by its own history and more than "
            f"{check.get('flag_needs_by_peers') or 0:,} by its peers). A neutral observation from public "
            "star counts; it does not change the score."
        )
    return sentences


def correction_words(correction: dict[str, Any]) -> str:
    """A correction's why, who and when as one phrase: "maker's request (asked by octocat, 2026-11-20)"."""
    extra = ", ".join(
        part
        for part in (f"asked by {correction['by']}" if correction.get("by") else "", correction.get("date") or "")
        if part
    )
    why = correction.get("reason") or "no reason given"
    return f"{why} ({extra})" if extra else why


def format_breakdown(breakdown: dict[str, Any]) -> str:
    """The breakdown as text for a terminal."""
    repo = breakdown["repo"]
    lines = [repo["full_name"]]
    category = breakdown.get("category")
    if category:
        note = " (uncertain)" if category.get("uncertain") else ""
        # The name the pages show, with the id that --json, the export and the corrections file use.
        name = category.get("category_name") or category["category"]
        label = name if name == category["category"] else f"{name} ({category['category']})"
        lines.append(f"category: {label}{note}, from the {category['source']}")
        if category.get("correction"):
            lines.append(f"  {correction_words(category['correction'])}")
        if (category.get("reason") or {}).get("text"):
            lines.append(f"  {category['reason']['text']}")
    if breakdown.get("score") is None:
        reason = repo.get("unlisted_reason_words") or repo.get("unlisted_reason") or "not in the scored run"
        run = breakdown.get("run_id")
        if run is None:
            lines.append("not scored yet: run `agentrank score` to score the listed repos")
        else:
            lines.append(f"not scored in run {run}: {reason}")
        exclusion = repo.get("exclusion")
        if exclusion and (exclusion.get("by") or exclusion.get("date")):
            lines.append("  " + correction_words({**exclusion, "reason": "the correction"}))
        return "\n".join(lines)
    lines.append(
        f"AgentRank Score {shown(breakdown['score']):.1f} — rank {breakdown['rank']:,} of {breakdown['listed_count']:,} "
        f"listed repos, as of {breakdown['as_of']} (method v{breakdown['method_version']}, run {breakdown['run_id']})"
    )
    likely = likely_rank_phrase(breakdown)
    if likely and breakdown.get("score_range"):
        low, high = breakdown["score_range"]
        lines.append(
            f"rank {breakdown['rank']:,}, {likely}; score likely {low:.1f}–{high:.1f} "
            "(9 times in 10 if the weights were a little different and every repo's stars and forks moved by a "
            "normal week's change)"
        )
    lines.extend(f"flag: {sentence}" for sentence in flag_sentences(breakdown))
    if breakdown.get("figures_from"):
        lines.append(
            f"GitHub figures from {breakdown['figures_from']}: the latest crawl or import did not return it "
            "(it stays listed with them until a complete crawl no longer finds it)"
        )
    for c in breakdown["components"]:
        inputs = ", ".join(f"{field_label(k)} {field_value(v)}" for k, v in c["input"].items())
        where = c.get("bucket", "")
        if "percentile" in c:
            # In the maker's page's words: the share of the other listed repos it is ahead of.
            where = (
                "the only listed repo: 100 by the method's rule"
                if breakdown["listed_count"] == 1
                else f"ahead of {half_up(c['percentile']):.1f} % of the other listed repos"
            )
        if c["component"] == "openness":
            where = "OSI-approved" if c["input"]["osi_approved"] else "not OSI-approved"
        lines.append("")
        lines.append(
            f"{c['component']:<10} {half_up(c['score']):5.1f} × {c['weight']:.2f} = {half_up(c['points'], 2):5.2f} points   "
            f"({where}; {inputs})"
        )
        lines.extend(f"           → {advice}" for advice in c["advice"])
    return "\n".join(lines)


def _percentile_against(others: np.ndarray, value: float) -> float:
    """The percentile ``value`` would have among ``others`` (sorted), the design's rule."""
    if len(others) == 0:
        return 100.0
    return 100.0 * (int(np.searchsorted(others, value, side="left")) / len(others))


def explain_change(
    before: dict[str, Any],
    after: dict[str, Any],
    population_before: dict[str, np.ndarray],
    population_after: dict[str, np.ndarray],
) -> dict[str, Any]:
    """Why a repo's score moved between two runs, split into its own change and the population's.

    For each percentile component c, with x the repo's inputs and P the other listed repos:

        own c        = c(x_after | P_before) − c(x_before | P_before)
        population c = c(x_after | P_after)  − c(x_after | P_before)

    so own + population is exactly the component's change, and the weighted sum over components
    is exactly the score's change. Activity and openness do not depend on other repos: their whole
    change is the repo's own (a push, time passing without one, a licence change). ``population_*``
    hold the *other* repos' ``stars``, ``forks`` and ``stars_per_day`` (this repo excluded).
    """
    sorted_before = {k: sorted_values(np.asarray(v, dtype=float)) for k, v in population_before.items()}
    sorted_after = {k: sorted_values(np.asarray(v, dtype=float)) for k, v in population_after.items()}
    inputs = {c.name: c.value for c in TABLE if c.kind == PERCENTILE}
    components = []
    for name, weight in WEIGHTS.items():
        total = after[name] - before[name]
        if name in inputs:
            column = inputs[name]
            hypothetical = _percentile_against(sorted_before[column], after[column])
            own = hypothetical - before[name]
            population = after[name] - hypothetical
        else:
            own, population = total, 0.0
        components.append(
            {
                "component": name,
                "weight": weight,
                "before": before[name],
                "after": after[name],
                "delta": total,
                "own": own,
                "population": population,
                "points_delta": weight * total,
                "own_points": weight * own,
                "population_points": weight * population,
            }
        )
    own_points = sum(c["own_points"] for c in components)
    population_points = sum(c["population_points"] for c in components)
    changes = {
        key: {"before": before.get(key), "after": after.get(key)}
        for key in ("stars", "forks", "pushed_at", "license_spdx", "stars_per_day", "days_since_push", *EXTRA_INPUTS)
    }
    # Nothing the maker does (stars, forks, a push, the licence) changed: only time passed, which ages
    # the last push (activity) and the repo (stars per day).
    time_only = all(changes[key]["before"] == changes[key]["after"] for key in MAKER_INPUTS)
    return {
        "full_name": after["full_name"],
        "since_run_id": before["run_id"],
        "run_id": after["run_id"],
        "as_of_before": before["as_of"],
        "as_of_after": after["as_of"],
        "score_before": before["score"],
        "score_after": after["score"],
        "score_delta": after["score"] - before["score"],
        "rank_before": before["rank"],
        "rank_after": after["rank"],
        "own_points": own_points,
        "own_is_time_only": time_only,
        "population_points": population_points,
        "listed_before": len(sorted_before["stars"]) + 1,
        "listed_after": len(sorted_after["stars"]) + 1,
        "median_stars_before": _median_of_sorted(sorted_before["stars"]) if len(sorted_before["stars"]) else None,
        "median_stars_after": _median_of_sorted(sorted_after["stars"]) if len(sorted_after["stars"]) else None,
        "own_changes": changes,
        "components": components,
    }


MAKER_INPUTS = ("stars", "forks", "pushed_at", "license_spdx", *EXTRA_INPUTS)


def own_label(change: dict[str, Any]) -> str:
    """What the repo's own share of a change is called: time alone, when the maker changed nothing."""
    if change.get("own_is_time_only") and round(change["own_points"], 2) != 0:
        return "time since the last push alone (no new stars, forks, push or licence)"
    return "its own change (stars, forks, pushes, licence)"


def format_change(change: dict[str, Any]) -> str:
    """The change explanation as text for a terminal."""
    lines = [
        f"{change['full_name']}: score {shown(change['score_before']):.1f} → {shown(change['score_after']):.1f} "
        f"({signed(change['score_delta'])} points), rank {change['rank_before']:,} → {change['rank_after']:,}",
        f"between run {change['since_run_id']} (as of {change['as_of_before']}) and run {change['run_id']} "
        f"(as of {change['as_of_after']})",
        f"  {own_label(change)}: {signed(change['own_points'])} points",
        f"  the other listed repos' changes: {signed(change['population_points'])} points "
        f"(listed repos {change['listed_before']:,} → {change['listed_after']:,}; the others' median stars "
        f"{change['median_stars_before'] or 0:,.0f} → {change['median_stars_after'] or 0:,.0f})",
        "",
        "own inputs:",
    ]
    for key, pair in change["own_changes"].items():
        if pair["before"] != pair["after"]:
            lines.append(f"  {field_label(key)}: {field_value(pair['before'])} → {field_value(pair['after'])}")
    lines.append("")
    lines.append("component    before   after   delta  = own     + population   (points)")
    for c in change["components"]:
        lines.append(
            f"{c['component']:<11} {half_up(c['before']):7.1f} {half_up(c['after']):7.1f} {signed(c['delta'], 1):>7}  = "
            f"{signed(c['own'], 1):>7} + {signed(c['population'], 1):>7}     ({signed(c['points_delta'])})"
        )
    return "\n".join(lines)
