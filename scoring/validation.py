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

from scoring.score import smaller_counts

WIDE_RANGE = 10


def spearman_vs_stars(rank: np.ndarray, stars: np.ndarray) -> float | None:
    """Spearman's rho of (−rank, stars) with average ranks for ties: Pearson's correlation of the
    average ranks, as scipy's ``spearmanr`` computes it (a test checks the two agree). Positive when
    more stars go with better ranks; None below 2 repos or when either side is constant."""
    if len(rank) < 2:
        return None
    rank, stars = np.asarray(rank, dtype=float), np.asarray(stars, dtype=float)
    if np.ptp(rank) == 0 or np.ptp(stars) == 0:
        return None
    # Written out rather than imported: scipy.stats takes half a second to import, which every
    # `agentrank score` paid for this one figure (Kendall's tau below is only needed from the
    # second run on).
    return _clean(float(np.corrcoef(average_ranks(-rank), average_ranks(stars))[0, 1]))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties given the mean of the ranks they span (scipy's ``rankdata``, "average"):
    a run of equal values spans ranks smaller + 1 … n − larger."""
    values = np.asarray(values, dtype=float)
    return (len(values) + 1 + smaller_counts(values) - smaller_counts(-values)) / 2


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float | None:
    """Kendall's tau-b between two rankings (scipy's ``kendalltau``); without ties, as between the
    ranks of two runs, it is tau-a. None below 2."""
    if len(x) < 2:
        return None
    from scipy.stats import kendalltau

    return _clean(kendalltau(np.asarray(x), np.asarray(y)).statistic)


def _clean(value: float) -> float:
    """The coefficient to 12 decimals: a perfect agreement is 1, not 0.9999999999999999 (the
    floating-point noise of its arithmetic), and no reader needs more places."""
    return round(float(value), 12) + 0.0


def wide_range_share(rank_best: np.ndarray, rank_worst: np.ndarray) -> float | None:
    """The share of repos whose ``[best, worst]`` rank range spans more than ``WIDE_RANGE`` places."""
    if len(rank_best) == 0:
        return None
    return float(np.mean((np.asarray(rank_worst) - np.asarray(rank_best)) > WIDE_RANGE))
