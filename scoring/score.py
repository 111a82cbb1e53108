"""The AgentRank Score, method version 1 (written up in ``docs/score.md``).

Everything is relative to the listed set L (N repos) and one instant ``as_of``:

- percentile(x_i) = 100 * (r_i - 1) / (N - 1) with r_i = 1 + #{j : x_j < x_i} (ties share the
  lowest rank, like SQL's ``percent_rank()``); 100 when N = 1;
- the components, their inputs, weights and buckets are the table in :mod:`scoring.components`
  (popularity = percentile of ln(1 + stars), adoption = percentile of ln(1 + forks), momentum =
  percentile of stars / max(age_days, 30), activity from the days since the last push in buckets,
  openness = 100 for an OSI-approved SPDX licence, else 0);
- score = the sum of weight × component, in the table's order;
- rank by score desc, then stars desc, then full_name asc (then id, should two names be equal).

Scores that are equal in exact arithmetic tie, whatever floating point makes of them: the rank
compares :func:`tie_key`, the score times 4·(N − 1) as an exact integer (the percentiles are
multiples of 100/(N − 1) and the bucket points whole numbers), not the float score.

The arithmetic is done in the same order as the SQL in :mod:`scoring.sql`, so both give the same
doubles, not merely close ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from scoring.components import (
    ACTIVITY_BUCKETS,
    BUCKETS,
    FLAG,
    METHOD_VERSION,
    MIN_AGE_DAYS,
    NAMES,
    PERCENTILE,
    SECONDS_PER_DAY,
    TABLE,
    WEIGHTS,
)

COMPONENTS = NAMES
__all__ = ["ACTIVITY_BUCKETS", "COMPONENTS", "METHOD_VERSION", "MIN_AGE_DAYS", "SECONDS_PER_DAY", "WEIGHTS"]

# How a score is shown: one decimal, halves up. A score that is x.x5 in exact arithmetic may be
# stored a hair below it, so a value within SHOWN_SLACK of a half rounds up (the ranking's exact ties
# use the same tolerance). SHOWN_SQL is the same arithmetic, operation for operation, so Datasette's
# tables, the pages, the badge, `explain` and the export all show one figure.
SHOWN_SLACK = 1e-9
SHOWN_SQL = f"(cast(({{0}}) * 10 + 0.5 + {SHOWN_SLACK!r} as integer) / 10.0)"


def shown(score: float) -> float:
    """``score`` as published: one decimal, halves up (see ``SHOWN_SQL``)."""
    return half_up(score, 1)


def half_up(value: float, decimals: int = 1) -> float:
    """``value`` to ``decimals`` places, halves up, as SQLite's ``round`` and the published score show it
    (56.25 → 56.3, where Python's ``f"{56.25:.1f}"`` gives 56.2: a maker reads one figure everywhere)."""
    scale = 10**decimals
    return math.floor(value * scale + 0.5 + SHOWN_SLACK) / scale


def shown_range(low: float, high: float) -> tuple[float, float]:
    """A score range as published: one decimal, rounded outwards (``low`` down, ``high`` up, within
    0–100), so it still holds the unrounded score as well as the shown one. ``SHOWN_LOW_SQL`` and
    ``SHOWN_HIGH_SQL`` are the same arithmetic for the ranking tables."""
    down, up = math.floor(low * 10) / 10, math.ceil(high * 10) / 10
    if down > low:  # a tenth that is not exact in binary, stored a hair above
        down = round(down - 0.1, 1)
    if up < high:
        up = round(up + 0.1, 1)
    return min(100.0, max(0.0, down)), min(100.0, max(0.0, up))


# {0} is the column; for the non-negative scores, cast(… as integer) truncates, i.e. floors.
SHOWN_LOW_SQL = (
    "max(0.0, min(100.0, case when cast(({0}) * 10 as integer) / 10.0 > ({0}) "
    "then round(cast(({0}) * 10 as integer) / 10.0 - 0.1, 1) else cast(({0}) * 10 as integer) / 10.0 end))"
)
SHOWN_HIGH_SQL = (
    "max(0.0, min(100.0, case when (cast(({0}) * 10 as integer) + (({0}) * 10 > cast(({0}) * 10 as integer))) / 10.0 "
    "< ({0}) then round((cast(({0}) * 10 as integer) + (({0}) * 10 > cast(({0}) * 10 as integer))) / 10.0 + 0.1, 1) "
    "else (cast(({0}) * 10 as integer) + (({0}) * 10 > cast(({0}) * 10 as integer))) / 10.0 end))"
)


class Names(Protocol):
    """The full names of some of the listed repos, looked up by position when needed."""

    def __getitem__(self, positions: np.ndarray) -> np.ndarray: ...


@dataclass
class ScoreInputs:
    """Column arrays for the listed set; timestamps as UTC epoch seconds.

    ``full_name`` may be an array of names or anything that gives the names at some positions
    (:class:`Names`): the rank needs a name only where score and stars tie, which is rare, so a
    million names need not be read to rank a million repos.
    """

    repo_id: np.ndarray  # int64, the last tie-break so the rank order is total
    full_name: np.ndarray | Names  # str
    stars: np.ndarray  # int64
    forks: np.ndarray  # int64
    created_epoch: np.ndarray  # int64
    pushed_epoch: np.ndarray  # float64, NaN when GitHub reports no push
    osi: np.ndarray  # bool
    as_of_epoch: int
    # The stored inputs a component adds (scoring.components.EXTRA_INPUTS): a structured array, one
    # field per column (none by default), so it is indexed and reordered like the other arrays.
    extra: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.extra is None:
            self.extra = np.zeros(len(self.stars), dtype=np.dtype([]))

    def __len__(self) -> int:
        return len(self.stars)

    def extra_columns(self) -> dict[str, np.ndarray]:
        """The extra inputs by column name."""
        extra = self.extra
        return {} if extra is None else {name: extra[name] for name in extra.dtype.names or ()}


# The score times 4·(N − 1) is an integer: 400·weight is whole for every weight, each percentile
# is 100·smaller/(N − 1), bucket points are whole and a flag is 0 or 100.
TIE_SCALE = 400
INTEGER_WEIGHTS = {name: round(TIE_SCALE * w) for name, w in WEIGHTS.items()}
assert all(abs(TIE_SCALE * w - INTEGER_WEIGHTS[name]) < 1e-9 for name, w in WEIGHTS.items())
assert all(INTEGER_WEIGHTS[c.name] * points % 100 == 0 for c in TABLE for _, points in c.buckets)


def smaller_counts(values: np.ndarray) -> np.ndarray:
    """For each value, how many values are strictly smaller (r − 1 in the percentile rule)."""
    values = np.asarray(values)
    n = len(values)
    out = np.empty(n, dtype=np.int64)
    if n == 0:
        return out
    # One sort; equal values (compared exactly) share the count of the first of their run. Several
    # times faster at a million than searching every value in the sorted copy.
    order = np.argsort(values)  # the order within a run of equal values does not matter
    ordered = values[order]
    starts = np.arange(n, dtype=np.int64)
    starts[1:][ordered[1:] == ordered[:-1]] = 0
    out[order] = np.maximum.accumulate(starts)
    return out


def percentile_of_counts(smaller: np.ndarray, n: int) -> np.ndarray:
    """100 * (number of strictly smaller values) / (N - 1); 100 when N = 1."""
    if n == 1:
        return np.full(1, 100.0)
    # (r - 1) / (N - 1) first, then * 100: the order percent_rank() * 100.0 uses in SQL.
    return 100.0 * (np.asarray(smaller, dtype=np.int64) / max(n - 1, 1))


def percentile(values: np.ndarray) -> np.ndarray:
    """100 * (number of strictly smaller values) / (N - 1); 100 when N = 1."""
    n = len(values)
    if n == 0:
        return np.zeros(0)
    return percentile_of_counts(smaller_counts(values), n)


def tie_key(smaller: dict[str, np.ndarray], points: dict[str, np.ndarray], n: int) -> np.ndarray:
    """The score times 4·(N − 1), exactly, as int64: equal exact scores get equal keys.

    ``smaller`` holds the strictly-smaller counts of the percentile components' inputs, ``points``
    the other components' (whole) points. With N = 1 every key is 0.
    :data:`scoring.sql.RECOMPUTE_SQL` ranks by the same integer.
    """
    key = np.zeros(n, dtype=np.int64)
    for name, counts in smaller.items():
        key += INTEGER_WEIGHTS[name] * np.asarray(counts, dtype=np.int64)
    whole = np.zeros(n, dtype=np.int64)
    for name, values in points.items():
        whole += INTEGER_WEIGHTS[name] * values.astype(np.int64)
    return key + max(n - 1, 0) * (whole // 100)


def bucket_points(values: np.ndarray, buckets: tuple[tuple[float, float], ...]) -> np.ndarray:
    """Bucket points for each value (upper bounds inclusive); above the last bound or NaN, 0."""
    values = np.asarray(values, dtype=float)
    conditions = [values <= bound for bound, _ in buckets]
    return np.select(conditions, [points for _, points in buckets], default=0.0)


def activity_points(days_since_push: np.ndarray) -> np.ndarray:
    """Bucket points for fractional days since the last push; NaN (no push) scores 0."""
    return bucket_points(days_since_push, ACTIVITY_BUCKETS)


def _by_key_then_stars(key: np.ndarray, stars: np.ndarray) -> np.ndarray:
    """Positions by key descending, then stars descending (ties in both in any order)."""
    if not len(key):
        return np.zeros(0, dtype=np.intp)
    key_span, stars_span = int(key.max()) - int(key.min()), int(stars.max()) - int(stars.min())
    stars_bits = stars_span.bit_length()
    if key_span.bit_length() + stars_bits > 62:  # does not fit one int64: sort on both
        return np.lexsort((-stars, -key))
    # Both in one int64, so one plain sort does it (several times faster than lexsort).
    packed = (int(key.max()) - key.astype(np.int64)) << stars_bits
    packed |= int(stars.max()) - stars.astype(np.int64)
    return np.argsort(packed)


def rank_order(key: np.ndarray, stars: np.ndarray, repo_id: np.ndarray, names: np.ndarray | Names) -> np.ndarray:
    """The positions in rank order: tie key descending, then stars descending, then full name,
    then id. Names are looked up only for the repos that tie on key and stars."""
    order = _by_key_then_stars(key, stars)
    ordered_key, ordered_stars = key[order], stars[order]
    same = (ordered_key[1:] == ordered_key[:-1]) & (ordered_stars[1:] == ordered_stars[:-1])
    if not same.any():
        return order
    # The slots of `order` in a run of equal (key, stars): only they are put in name, then id,
    # order, each run staying in its own slots.
    run = np.concatenate(([0], np.cumsum(~same)))
    slots = np.zeros(len(order), dtype=bool)
    slots[1:] |= same
    slots[:-1] |= same
    slots = np.flatnonzero(slots)
    members = order[slots]
    by_name = np.asarray(names[members], dtype=str)
    order[slots] = members[np.lexsort((np.asarray(repo_id, dtype=np.int64)[members], by_name, run[slots]))]
    return order


def stars_per_day_of(stars: np.ndarray, age_seconds: np.ndarray) -> np.ndarray:
    """stars / max(age_days, 30) as one division of two exact integers: stars × 86,400 over the age in
    seconds (at least 30 days). One correctly rounded division gives rates that are equal in exact
    arithmetic the same float, so they share a percentile; stars / (seconds / 86,400) rounds twice
    and can tell them apart (1,000 stars in 100.1 days and 3,000 in 300.3)."""
    minimum = int(MIN_AGE_DAYS * SECONDS_PER_DAY)
    numerator = np.asarray(stars, dtype=np.int64) * int(SECONDS_PER_DAY)
    return numerator.astype(float) / np.maximum(np.asarray(age_seconds, dtype=np.int64), minimum).astype(float)


def compute_scores(inputs: ScoreInputs) -> dict[str, np.ndarray]:
    """Every component, the score and the rank for each repo (arrays aligned with the inputs)."""
    stars = inputs.stars.astype(np.int64)
    forks = inputs.forks.astype(np.int64)
    age_seconds = inputs.as_of_epoch - inputs.created_epoch.astype(np.int64)
    age_days = age_seconds / SECONDS_PER_DAY
    days_since_push = np.maximum(0.0, (inputs.as_of_epoch - inputs.pushed_epoch) / SECONDS_PER_DAY)
    stars_per_day = stars_per_day_of(stars, age_seconds)
    # What the components read (scoring.components' ``value``). ln(1 + x) is strictly increasing,
    # so ranking the integers gives the same percentiles and avoids two huge star counts colliding
    # in floating point.
    columns = {
        "stars": stars,
        "forks": forks,
        "stars_per_day": stars_per_day,
        "days_since_push": days_since_push,
        "osi": inputs.osi.astype(bool),
        **inputs.extra_columns(),
    }
    n = len(stars)
    smaller: dict[str, np.ndarray] = {}
    points: dict[str, np.ndarray] = {}
    values: dict[str, np.ndarray] = {}
    for c in TABLE:
        if c.kind == PERCENTILE:
            smaller[c.name] = smaller_counts(columns[c.value])
            values[c.name] = percentile_of_counts(smaller[c.name], n)
        elif c.kind == BUCKETS:
            values[c.name] = points[c.name] = bucket_points(columns[c.value], c.buckets)
        elif c.kind == FLAG:
            values[c.name] = points[c.name] = np.where(columns[c.value].astype(bool), 100.0, 0.0)
    # The weighted sum in the table's order, as the SQL adds it.
    score = np.zeros(n)
    for i, c in enumerate(TABLE):
        score = c.weight * values[c.name] if i == 0 else score + c.weight * values[c.name]
    key = tie_key(smaller, points, n)
    rank = np.empty(n, dtype=np.int64)
    if n:
        rank[rank_order(key, stars, inputs.repo_id, inputs.full_name)] = np.arange(1, n + 1)
    return {
        "age_days": age_days,
        "days_since_push": days_since_push,
        "stars_per_day": stars_per_day,
        **values,
        "score": score,
        "tie_key": key,
        "rank": rank,
    }
