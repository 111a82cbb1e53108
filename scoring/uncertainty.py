"""How far each rank and score could move: the uncertainty model behind ``rank_range`` and ``score_range``.

The model (seeded, so the same inputs always give the same ranges):

- **weights**: each draw takes the weights from a Dirichlet distribution centred on the
  published ones (30/20/25/15/10) with concentration ``WEIGHT_CONCENTRATION`` (a standard deviation of about 4.6
  points around 30 %, 3 points around 10 %): reasonable people could weigh the components
  somewhat differently;
- **one week of noise**: each repo's stars and forks move by up to one week of its own observed
  change (``stars_delta_7d``, ``forks_delta_7d``), uniformly up or down; a repo without a week of
  history moves by up to ``DEFAULT_WEEKLY_SHARE`` of its count. The percentiles that read them
  (popularity, adoption, momentum: ``moves_with`` in :mod:`scoring.components`) are recomputed
  from the moved counts; the other components (activity, openness) are known exactly and stay as
  they are;
- the range is the 5th to 95th percentile of the draws' ranks (and scores), widened where needed
  to contain the published rank (and score), so ``best <= rank <= worst`` always holds.

How many draws: ``DRAWS`` (100) up to ``DRAW_BUDGET / DRAWS`` listed repos, then fewer, down to
``MIN_DRAWS`` (20) from 500,000 repos on, so a million repos still score in seconds. With 20
draws the 5th–95th percentile is the lowest and highest draw, which on average covers 19/21 ≈ 90 %
of the draws' distribution, the same share as the 5th–95th percentile of 100 draws: the range
means the same, it is only estimated from fewer draws. :func:`draws_for` gives the count.

How it is computed, for a million repos in about a second on two cores:

- each draw has its own random generator, seeded from ``(SEED, draw)``, and draws its numbers in
  repo-id order, so the ranges depend neither on the order the repos were loaded in nor on how the
  draws are split between threads;
- a sort of N numbers is one ``np.sort`` of 64-bit keys that pack the value (its IEEE bits, which
  order non-negative doubles, less the lowest ``log2 N`` bits of the mantissa) above the position:
  several times faster than ``argsort``. Values within a few parts in 10^10 of each other count as
  equal, far below any difference a star count or a score can show;
- the percentiles are kept as running order statistics (the k lowest and k highest ranks and
  scores seen so far), not as a draws × N matrix, so memory does not grow with the draws;
- the draws are split between up to ``THREADS`` threads (NumPy's sorts and arithmetic release the
  interpreter lock) and the running statistics merged at the end.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from scoring.components import TABLE
from scoring.score import COMPONENTS, MIN_AGE_DAYS, WEIGHTS, ScoreInputs

DRAWS = 100
MIN_DRAWS = 20
DRAW_BUDGET = 10_000_000  # repos × draws; above it the draws are cut (see draws_for)
SEED = 14
WEIGHT_CONCENTRATION = 100.0
DEFAULT_WEEKLY_SHARE = 0.01
INTERVAL = (0.05, 0.95)
THREADS = 2


@dataclass
class Ranges:
    rank_best: np.ndarray  # int64
    rank_worst: np.ndarray  # int64
    score_low: np.ndarray  # float64
    score_high: np.ndarray  # float64


def draws_for(n: int) -> int:
    """The number of draws for ``n`` listed repos: ``DRAWS`` until ``DRAW_BUDGET`` repo-draws, then
    fewer, never under ``MIN_DRAWS``."""
    return max(MIN_DRAWS, min(DRAWS, DRAW_BUDGET // max(n, 1)))


def weekly_noise(counts: np.ndarray, delta_7d: np.ndarray) -> np.ndarray:
    """How far a count may move in a draw: its own last week's change, else a share of the count.

    ``delta_7d`` is NaN where the repo has no snapshot a week old.
    """
    counts = np.asarray(counts, dtype=float)
    delta = np.asarray(delta_7d, dtype=float)
    return np.where(np.isnan(delta), DEFAULT_WEEKLY_SHARE * counts, np.abs(delta))


def _return_freed_memory() -> None:
    """Hand the worker threads' freed arrays back to the system (glibc only).

    glibc keeps what a thread freed in that thread's arena, so without this the process would
    carry the draws' working memory (about 200 MB at a million repos) through the score write.
    """
    if sys.platform == "linux":
        # Another C library (musl) has no malloc_trim: nothing to hand back then.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


class _Sorter:
    """Sorts of non-negative doubles for one N, as one ``np.sort`` of packed 64-bit keys."""

    def __init__(self, n: int):
        self.n = n
        self.bits = np.uint64(max(1, (n - 1).bit_length()))
        self.mask = np.uint64((1 << int(self.bits)) - 1)
        self.positions = np.arange(n, dtype=np.uint64)
        self.counting = np.arange(n, dtype=np.float64)

    def sort(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(order, truncated keys in that order) of ``values`` (float64, all >= 0), ascending."""
        # abs() turns a -0.0 (its sign bit would sort it last) into 0.0.
        key = np.abs(values).view(np.uint64) >> self.bits
        key <<= self.bits
        key |= self.positions
        key.sort()
        order = (key & self.mask).astype(np.intp)
        key >>= self.bits
        return order, key

    def smaller(self, values: np.ndarray) -> np.ndarray:
        """For each value, how many values are strictly smaller (float64, aligned with ``values``)."""
        order, key = self.sort(values)
        out = np.empty(self.n)
        same = key[1:] == key[:-1]
        if not same.any():
            out[order] = self.counting
            return out
        # Equal values share the count of the first of their run.
        starts = np.where(same, 0.0, self.counting[1:])
        counts = np.empty(self.n)
        counts[0] = 0.0
        np.maximum.accumulate(starts, out=counts[1:])
        out[order] = counts
        return out


class _Extremes:
    """The ``k_low`` lowest and ``k_high`` highest values seen so far at each of N positions."""

    def __init__(self, n: int, k_low: int, k_high: int, dtype: type):
        high = np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else np.inf
        low = np.iinfo(dtype).min if np.issubdtype(dtype, np.integer) else -np.inf
        self.lowest: np.ndarray = np.full((k_low, n), high, dtype=dtype)  # ascending down the rows
        self.highest: np.ndarray = np.full((k_high, n), low, dtype=dtype)  # descending down the rows

    def add(self, values: np.ndarray) -> None:
        # An insertion pass per row: each row keeps the smaller (larger) of itself and the carried
        # value and passes the other one down.
        carry = values.copy()
        for row in self.lowest:
            kept = np.minimum(row, carry)
            np.maximum(row, carry, out=carry)
            row[:] = kept
        carry = values.copy()
        for row in self.highest:
            kept = np.maximum(row, carry)
            np.minimum(row, carry, out=carry)
            row[:] = kept

    def merge(self, other: _Extremes) -> None:
        k_low, k_high = len(self.lowest), len(self.highest)
        self.lowest = np.sort(np.concatenate([self.lowest, other.lowest]), axis=0)[:k_low]
        self.highest = -np.sort(-np.concatenate([self.highest, other.highest]), axis=0)[:k_high]

    def low(self) -> np.ndarray:
        return self.lowest[-1]

    def high(self) -> np.ndarray:
        return self.highest[-1]


def rank_ranges(
    inputs: ScoreInputs,
    result: dict[str, np.ndarray],
    stars_noise: np.ndarray,
    forks_noise: np.ndarray,
    *,
    draws: int | None = None,
    seed: int = SEED,
    threads: int | None = None,
) -> Ranges:
    """``[best, worst]`` rank and ``[low, high]`` score of every repo under the model above.

    ``result`` is :func:`scoring.score.compute_scores`'s output for ``inputs``; the noise arrays
    come from :func:`weekly_noise`. ``draws`` defaults to :func:`draws_for` of the listed count.
    """
    n = len(inputs)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Ranges(empty, empty, np.zeros(0), np.zeros(0))
    draws = draws or draws_for(n)
    low_q, high_q = INTERVAL
    # np.quantile's "lower" and "higher" positions among the sorted draws, as running order statistics.
    k_low = math.floor(low_q * (draws - 1)) + 1
    k_high = draws - math.ceil(high_q * (draws - 1))
    # Random numbers are drawn in repo-id order: id_slot[j] is where the j-th smallest id sits.
    id_slot = np.argsort(inputs.repo_id, kind="stable")
    in_id_order = bool(np.all(id_slot == np.arange(n)))
    stars = inputs.stars.astype(float)
    forks = inputs.forks.astype(float)
    s_noise = np.asarray(stars_noise, dtype=float)
    f_noise = np.asarray(forks_noise, dtype=float)
    age = np.maximum(result["age_days"], MIN_AGE_DAYS)
    # The components recomputed from each draw's moved counts, then those that stay as published.
    moving = [(c.name, c.moves_with) for c in TABLE if c.moves_with]
    fixed = [(c.name, result[c.name]) for c in TABLE if not c.moves_with]
    moves = {moves_with for _, moves_with in moving}
    alpha = WEIGHT_CONCENTRATION * np.array([WEIGHTS[c] for c in COMPONENTS])
    per_percent = 100.0 / (n - 1) if n > 1 else 0.0
    sorter = _Sorter(n)
    descending = np.arange(n, 0, -1, dtype=np.int32)  # rank of the k-th smallest draw score

    def draw(rng: np.random.Generator, counts: np.ndarray, noise: np.ndarray) -> np.ndarray:
        u = rng.random(n)
        if not in_id_order:
            u[id_slot] = u.copy()
        u *= 2.0
        u -= 1.0
        u *= noise
        u += counts
        return np.maximum(u, 0.0, out=u)

    def run(part: list[int]) -> tuple[_Extremes, _Extremes]:
        ranks = _Extremes(n, k_low, k_high, np.int32)
        scores = _Extremes(n, k_low, k_high, np.float32)
        rank = np.empty(n, dtype=np.int32)
        for d in part:
            rng = np.random.default_rng([seed, d])
            w = dict(zip(COMPONENTS, rng.dirichlet(alpha), strict=True))
            # The stars' uniforms, then the forks' (the stream rng.random((2, n)) would give), each
            # scaled to [-1, 1) and applied in place: a million repos per thread in a few arrays.
            s, f = draw(rng, stars, s_noise), draw(rng, forks, f_noise)
            if n > 1:
                moved = {"stars": s, "forks": f}
                if "stars_per_day" in moves:
                    moved["stars_per_day"] = s / age
                score = np.zeros(n)
                for i, (name, moves_with) in enumerate(moving):
                    term = sorter.smaller(moved[moves_with]) * (w[name] * per_percent)
                    if i == 0:
                        score = term
                    else:
                        score += term
            else:  # one repo is at the 100th percentile of everything
                score = np.full(1, 100.0 * sum(w[name] for name, _ in moving))
            for name, published in fixed:
                score += w[name] * published
            scores.add(score.astype(np.float32))
            # Draw scores that are equal belong to repos the draw cannot tell apart: their order
            # among themselves is left to the (deterministic) sort, and the range covers both.
            order, _ = sorter.sort(score)
            rank[order] = descending
            ranks.add(rank)
        return ranks, scores

    workers = max(1, min(threads or min(THREADS, os.cpu_count() or 1), draws))
    parts = [list(range(i, draws, workers)) for i in range(workers)]
    if workers == 1:
        done = [run(parts[0])]
    else:
        with ThreadPoolExecutor(workers) as pool:
            done = list(pool.map(run, parts))
        _return_freed_memory()
    ranks, scores = done[0]
    for more_ranks, more_scores in done[1:]:
        ranks.merge(more_ranks)
        scores.merge(more_scores)
    rank, exact = result["rank"], result["score"]
    best = np.minimum(ranks.low().astype(np.int64), rank)
    worst = np.maximum(ranks.high().astype(np.int64), rank)
    low = np.minimum(scores.low().astype(float), exact)
    high = np.maximum(scores.high().astype(float), exact)
    return Ranges(best, worst, np.clip(low, 0, 100), np.clip(high, 0, 100))
