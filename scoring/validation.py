"""The figures published with every score run to show how far the ranking can be trusted.

Pure functions over arrays; ``agentrank/scorer.py`` gathers the inputs and ``db/validation.py``
stores the result.

- ``spearman_vs_stars``: Spearman's rho between the rank and the star count over the listed set,
  with average ranks for ties, signed so that more stars with a better (smaller) rank is
  positive. Near 1: the ranking mostly follows stars; lower: the other components matter.
- ``kendall_tau_vs_previous``: Kendall's tau-b between this run's and the previous published
  run's ranks over the repos ranked in both (ranks are distinct within a run, so tau-b is
  tau-a there). Near 1: a stable ranking week to week.
- ``wide_rank_range_share``: the share of repos whose rank range spans more than ``WIDE_RANGE``
  places: how much of the ranking is within its own noise.
"""

from __future__ import annotations

import numpy as np

WIDE_RANGE = 10


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties getting the average of the ranks they span."""
    values = np.asarray(values)
    n = len(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    boundaries = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])
    starts, ends = boundaries[:-1], boundaries[1:]
    averaged = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    ranks = np.empty(n)
    ranks[order] = averaged
    return ranks


def spearman_vs_stars(rank: np.ndarray, stars: np.ndarray) -> float | None:
    """Spearman's rho of (−rank, stars): positive when more stars go with better ranks; None below 2 repos
    or when either side is constant."""
    if len(rank) < 2:
        return None
    a = average_ranks(-np.asarray(rank, dtype=float))
    b = average_ranks(np.asarray(stars, dtype=float))
    a, b = a - a.mean(), b - b.mean()
    denominator = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return None if denominator == 0 else float((a * b).sum() / denominator)


def _inversions(values: np.ndarray) -> int:
    """Pairs i < j with values[i] > values[j] (distinct integers), by a vectorised bottom-up merge count."""
    a = np.asarray(values, dtype=np.int64)
    n = len(a)
    a = a - a.min() if n else a
    span = int(a.max()) + 1 if n else 1
    index = np.arange(n)
    total = 0
    width = 1
    while width < n:
        block = index // (2 * width)
        left = (index % (2 * width)) < width
        keyed = a + block * span  # blocks stay apart; each half is already sorted
        left_keys = keyed[left]
        right_keys, right_block = keyed[~left], block[~left]
        end_of_block = np.searchsorted(left_keys, (right_block + 1) * span, side="left")
        total += int((end_of_block - np.searchsorted(left_keys, right_keys, side="right")).sum())
        a = np.sort(keyed) - np.sort(block) * span
        width *= 2
    return total


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float | None:
    """Kendall's tau between two rankings without ties (each a set of distinct values); None below 2."""
    n = len(x)
    if n < 2:
        return None
    by_x = np.argsort(np.asarray(x), kind="stable")
    discordant = _inversions(np.asarray(y)[by_x])
    pairs = n * (n - 1) // 2
    return float((pairs - 2 * discordant) / pairs)


def wide_range_share(rank_best: np.ndarray, rank_worst: np.ndarray) -> float | None:
    """The share of repos whose ``[best, worst]`` rank range spans more than ``WIDE_RANGE`` places."""
    if len(rank_best) == 0:
        return None
    return float(np.mean((np.asarray(rank_worst) - np.asarray(rank_best)) > WIDE_RANGE))
