"""How far each rank and score could move: the uncertainty model behind ``rank_range`` and ``score_range``.

The model (seeded, so the same inputs always give the same ranges):

- **weights**: each of ``DRAWS`` draws takes the five weights from a Dirichlet distribution
  centred on 30/20/25/15/10 with concentration ``WEIGHT_CONCENTRATION`` (a standard deviation
  of about 4.6 points around 30 %, 3 points around 10 %): reasonable people could weigh the
  components somewhat differently;
- **one week of noise**: each repo's stars and forks move by up to one week of its own observed
  change (``stars_delta_7d``, ``forks_delta_7d``), uniformly up or down; a repo without a week of
  history moves by up to ``DEFAULT_WEEKLY_SHARE`` of its count. The percentiles (popularity,
  adoption, momentum) are recomputed from the moved counts; activity and openness are known
  exactly and stay as they are;
- the range is the 5th to 95th percentile of the draws' ranks (and scores), widened where needed
  to contain the published rank (and score), so ``best <= rank <= worst`` always holds.

Everything is vectorised over the listed set: each draw is four argsorts of N numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.score import COMPONENTS, MIN_AGE_DAYS, WEIGHTS, ScoreInputs

DRAWS = 100
SEED = 14
WEIGHT_CONCENTRATION = 100.0
DEFAULT_WEEKLY_SHARE = 0.01
INTERVAL = (0.05, 0.95)


@dataclass
class Ranges:
    rank_best: np.ndarray  # int64
    rank_worst: np.ndarray  # int64
    score_low: np.ndarray  # float64
    score_high: np.ndarray  # float64


def weekly_noise(counts: np.ndarray, delta_7d: np.ndarray) -> np.ndarray:
    """How far a count may move in a draw: its own last week's change, else a share of the count.

    ``delta_7d`` is NaN where the repo has no snapshot a week old.
    """
    counts = np.asarray(counts, dtype=float)
    delta = np.asarray(delta_7d, dtype=float)
    return np.where(np.isnan(delta), DEFAULT_WEEKLY_SHARE * counts, np.abs(delta))


def _percentile(values: np.ndarray) -> np.ndarray:
    """The design's percentile (ties share the lowest rank) for one draw."""
    n = len(values)
    if n == 1:
        return np.full(1, 100.0)
    # One argsort; each value's count of strictly smaller ones is where its run of equals starts.
    order = np.argsort(values)
    ordered = values[order]
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = np.where(ordered[1:] != ordered[:-1], np.arange(1, n), 0)
    smaller = np.empty(n, dtype=np.int64)
    smaller[order] = np.maximum.accumulate(starts)
    return smaller * (100.0 / (n - 1))


def rank_ranges(
    inputs: ScoreInputs,
    result: dict[str, np.ndarray],
    stars_noise: np.ndarray,
    forks_noise: np.ndarray,
    *,
    draws: int = DRAWS,
    seed: int = SEED,
) -> Ranges:
    """``[best, worst]`` rank and ``[low, high]`` score of every repo under the model above.

    ``result`` is :func:`scoring.score.compute_scores`'s output for ``inputs``; the noise arrays
    come from :func:`weekly_noise`. Random numbers are drawn in repo-id order, so the ranges do
    not depend on the order the repos were loaded in.
    """
    n = len(inputs)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Ranges(empty, empty, np.zeros(0), np.zeros(0))
    # Work in published rank order, so the draws' arrays line up with the published ranks.
    order = np.argsort(result["rank"])
    by_id = np.argsort(inputs.repo_id[order], kind="stable")
    stars = inputs.stars[order].astype(float)
    forks = inputs.forks[order].astype(float)
    s_noise = np.asarray(stars_noise, dtype=float)[order]
    f_noise = np.asarray(forks_noise, dtype=float)[order]
    effective_age = np.maximum(result["age_days"][order], MIN_AGE_DAYS)
    fixed = {"activity": result["activity"][order], "openness": result["openness"][order]}
    rng = np.random.default_rng(seed)
    alpha = WEIGHT_CONCENTRATION * np.array([WEIGHTS[c] for c in COMPONENTS])
    ranks = np.empty((draws, n), dtype=np.int32)
    scores = np.empty((draws, n), dtype=np.float32)
    positions = np.arange(1, n + 1, dtype=np.int32)
    for d in range(draws):
        weights = dict(zip(COMPONENTS, rng.dirichlet(alpha), strict=True))
        u = np.empty((2, n))
        u[:, by_id] = rng.uniform(-1.0, 1.0, size=(2, n))
        s = np.maximum(stars + u[0] * s_noise, 0.0)
        f = np.maximum(forks + u[1] * f_noise, 0.0)
        components = {
            "popularity": _percentile(s),
            "adoption": _percentile(f),
            "momentum": _percentile(s / effective_age),
            **fixed,
        }
        score = sum(weights[c] * components[c] for c in COMPONENTS)
        scores[d] = score
        # Draw scores that are exactly equal belong to repos the draw cannot tell apart: their order
        # among themselves is left to the (deterministic) sort, and the range widens to cover both.
        ranks[d, np.argsort(-score)] = positions
    low_q, high_q = INTERVAL
    rank = result["rank"][order]
    exact = result["score"][order]
    best = np.minimum(np.quantile(ranks, low_q, axis=0, method="lower").astype(np.int64), rank)
    worst = np.maximum(np.quantile(ranks, high_q, axis=0, method="higher").astype(np.int64), rank)
    low = np.minimum(np.quantile(scores, low_q, axis=0, method="lower").astype(float), exact)
    high = np.maximum(np.quantile(scores, high_q, axis=0, method="higher").astype(float), exact)
    back = np.empty(n, dtype=np.int64)
    back[order] = np.arange(n)
    return Ranges(best[back], worst[back], np.clip(low[back], 0, 100), np.clip(high[back], 0, 100))
