"""The ``unusual-star-growth`` flag: a week's star gain that neither the repo's own history nor its
peers explain. A neutral observation shown with its figures; it never changes the score.

Inputs, all aggregate counts from the stored snapshots (GitHub no longer lets outsiders list who
starred a repo, so nothing about the stargazers themselves is used):

- the repo's stars at the end of each of the last ``WEEKS`` weeks (``weekly_stars[:, k]`` = the
  stars ``k`` weeks before ``as_of``, NaN when no snapshot falls in that week), hence its weekly
  gains; the latest gain is the last week's;
- its forks gained in the last week, whether it was pushed to in the last week, and its size
  (stars a week ago).

A repo is **judged** when it has the latest week's gain and at least ``MIN_EARLIER_WEEKS``
earlier weekly gains, and at least ``MIN_PEERS`` repos are judged (the peers). It is **flagged**
when both hold:

1. *own history*: the latest gain is at least ``MIN_GAIN`` stars and at least ``OWN_FACTOR``
   times the larger of the largest earlier weekly gain and ``OWN_FLOOR_SHARE`` of the stars a week
   ago (so ordinary growth of up to 3 % a week never passes, however quiet the earlier weeks);
2. *peers*: ln(1 + gain) exceeds what a robust least-squares fit over the judged repos predicts
   from ln(1 + forks gained), ln(1 + stars a week ago) and a pushed-this-week indicator by more
   than ``PEER_SIGMAS`` robust standard deviations and by at least ln(``PEER_FACTOR``), i.e. the
   gain is at least ``PEER_FACTOR`` times the peers' prediction. The prediction for a repo is the
   fit *without that repo* (leave-one-out, from the hat matrix): a repo must not explain its own
   jump. The pushed indicator is used only when at least ``MIN_GROUP`` judged repos are on each
   side of it; with fewer, the one quiet repo that jumped would be its own peer group.

Limits: a repo that really went viral without new forks or pushes (a mention in the news) is
flagged too, which is why the flag accuses nothing; slow, steady buying over many weeks raises
the repo's own baseline and is not caught; with fewer than ``MIN_PEERS`` judged repos nothing is
judged.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

FLAG = "unusual-star-growth"
WEEKS = 8  # weekly points looked at, the latest included
MIN_EARLIER_WEEKS = 2
MIN_PEERS = 10
MIN_GAIN = 100
OWN_FACTOR = 2.5
OWN_FLOOR_SHARE = 0.02  # a quiet history still allows 2 % of the stars a week before the factor applies
PEER_SIGMAS = 3.0
PEER_FACTOR = 3.0
MIN_GROUP = 5  # judged repos needed on each side of the pushed-last-week indicator to use it
MAX_LEVERAGE = (
    0.9  # past this a repo's leave-one-out prediction is refitted without it rather than read off the hat matrix
)
_MAD_TO_SD = 1.4826


@dataclass
class GrowthJudgement:
    judged: np.ndarray  # bool
    flagged: np.ndarray  # bool
    gain: np.ndarray  # latest week's star gain (NaN when unknown)
    earlier_max: np.ndarray  # largest earlier weekly gain (NaN when none)
    expected: np.ndarray  # the peers' prediction of the latest gain (NaN when not judged)
    peer_sd: float | None  # robust standard deviation of ln(1 + gain) around the prediction
    reason: list[str | None]  # why a repo is not judged
    own_needed: np.ndarray  # the gain the own-history test asks for (NaN when not judged)
    peers_needed: np.ndarray  # the gain the peers test asks for (NaN when not judged)

    def details(self, weekly_stars: np.ndarray, forks_gain: np.ndarray, pushed: np.ndarray) -> list[str]:
        """The figures behind each repo's judgement as JSON, for the score rows and the maker's page.

        A repo that was not judged gets only the reason (one shared string per reason).
        """
        # Only the judged repos' figures go through Python; the others share one string per reason.
        unjudged = {r: json.dumps({"judged": False, "reason": r, "flagged": False}) for r in set(self.reason)}
        out = list(map(unjudged.__getitem__, self.reason))
        rows = np.flatnonzero(self.judged)
        gains = _gains(weekly_stars)[rows, 1:].tolist()
        gain, earlier_max, expected = (
            self.gain[rows].tolist(),
            self.earlier_max[rows].tolist(),
            self.expected[rows].tolist(),
        )
        own_needed, peers_needed = self.own_needed[rows].tolist(), self.peers_needed[rows].tolist()
        forks = np.asarray(forks_gain, dtype=float)[rows].tolist()
        pushed_list, flagged = np.asarray(pushed)[rows].tolist(), self.flagged[rows].tolist()
        for j, i in enumerate(rows.tolist()):
            record = {
                "judged": True,
                "reason": None,
                "flagged": bool(flagged[j]),
                "stars_gained_last_week": _number(gain[j]),
                "earlier_weekly_gains": [int(g) for g in gains[j] if not math.isnan(g)],
                "largest_earlier_weekly_gain": _number(earlier_max[j]),
                "forks_gained_last_week": _number(forks[j]),
                "pushed_last_week": bool(pushed_list[j]),
                "expected_from_peers": round(expected[j], 1),
                "flag_needs_by_own_history": math.ceil(own_needed[j]),
                "flag_needs_by_peers": math.ceil(peers_needed[j]),
            }
            out[i] = json.dumps(record)
        return out


def _number(value: float) -> int | None:
    return None if math.isnan(value) else int(value)


def _gains(weekly_stars: np.ndarray) -> np.ndarray:
    """Weekly gains, latest first: column k is the gain over week k + 1 (NaN where a point is missing)."""
    weekly = np.asarray(weekly_stars, dtype=float)
    return weekly[:, :-1] - weekly[:, 1:]


def _least_squares(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares over the columns that vary among these rows (the first, the intercept, always
    kept); a column that does not vary gets 0. A measure the peers all share (every one gained no
    fork, or exactly one) says nothing about what a different value of it would do, and letting the
    fit extrapolate from it would let one repo alone at another value explain its own jump."""
    varying = np.ones(x.shape[1], dtype=bool)
    if len(x):
        varying[1:] = np.ptp(x[:, 1:], axis=0) > 0
    coef = np.zeros(x.shape[1])
    coef[varying], *_ = np.linalg.lstsq(x[:, varying], y, rcond=None)
    return coef


def _robust_fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Least squares, then again without the points more than 3 robust SDs off.

    Returns the coefficients, the robust SD and which points the final fit used.
    """
    keep = np.ones(len(y), dtype=bool)
    used = keep
    coef = np.zeros(x.shape[1])
    sd = 0.0
    for _ in range(2):
        used = keep
        coef = _least_squares(x[used], y[used])
        residual = y - x @ coef
        centre = np.median(residual[used])
        sd = _MAD_TO_SD * float(np.median(np.abs(residual[used] - centre)))
        keep = np.abs(residual - centre) <= 3 * max(sd, 1e-9)
    return coef, sd, used


def _leave_one_out(x: np.ndarray, y: np.ndarray, coef: np.ndarray, judged: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Each repo's prediction from the fit without it.

    A repo the fit left out (an outlier) is already predicted by the others alone. For the repos the
    fit used it is y − e / (1 − h), ``h`` the repo's leverage (the diagonal of the hat matrix): exact
    for least squares, but not for a repo the fit hangs on (``h`` near 1, e.g. the only one that
    gained forks), so those above ``MAX_LEVERAGE`` are refitted without it.
    """
    predicted = x @ coef
    rows = np.flatnonzero(judged)[used]
    fitted = x[rows]
    hat = np.einsum("ij,ji->i", fitted, np.linalg.pinv(fitted.T @ fitted) @ fitted.T)
    low = hat <= MAX_LEVERAGE
    predicted[rows[low]] = y[rows[low]] - (y[rows[low]] - predicted[rows[low]]) / (1.0 - hat[low])
    for j in np.flatnonzero(~low):
        others = np.delete(rows, j)
        predicted[rows[j]] = x[rows[j]] @ _least_squares(x[others], y[others])
    return predicted


def judge(weekly_stars: np.ndarray, forks_gain: np.ndarray, pushed_last_week: np.ndarray) -> GrowthJudgement:
    """Judge every repo; ``weekly_stars`` is N × (WEEKS + 1): column 0 now, column k k weeks ago."""
    gains = _gains(weekly_stars)
    n = len(gains)
    gain = gains[:, 0] if gains.shape[1] else np.full(n, np.nan)
    earlier = gains[:, 1:]
    earlier_count = (~np.isnan(earlier)).sum(axis=1)
    # fmax skips NaN (a missing week) and gives NaN only where every week is missing.
    earlier_max = np.fmax.reduce(earlier, axis=1) if earlier.shape[1] else np.full(n, np.nan)
    forks_gain = np.asarray(forks_gain, dtype=float)
    pushed = np.asarray(pushed_last_week, dtype=bool)
    enough = ~np.isnan(gain) & ~np.isnan(forks_gain) & (earlier_count >= MIN_EARLIER_WEEKS)
    # One shared string per reason, picked by code (a million repos without a Python loop).
    reasons = np.array(
        [None, "no star count from a week ago", f"fewer than {MIN_EARLIER_WEEKS + 1} weekly star gains in the history"],
        dtype=object,
    )
    reason: list[str | None] = reasons[np.where(enough, 0, np.where(np.isnan(gain), 1, 2))].tolist()
    judged = enough.copy()
    expected = np.full(n, np.nan)
    own_needed = np.full(n, np.nan)
    peers_needed = np.full(n, np.nan)
    flagged = np.zeros(n, dtype=bool)
    peer_sd: float | None = None
    if judged.sum() < MIN_PEERS:
        for i in np.flatnonzero(judged):
            reason[i] = f"fewer than {MIN_PEERS} repos with enough history to compare with"
        judged[:] = False
        return GrowthJudgement(judged, flagged, gain, earlier_max, expected, peer_sd, reason, own_needed, peers_needed)
    previous_stars = weekly_stars[:, 1]
    columns = [
        np.ones(n),
        np.log1p(np.maximum(np.nan_to_num(forks_gain), 0)),
        np.log1p(np.maximum(np.nan_to_num(previous_stars), 0)),
    ]
    pushed_judged = int(pushed[judged].sum())
    if min(pushed_judged, int(judged.sum()) - pushed_judged) >= MIN_GROUP:
        columns.append(pushed.astype(float))
    x = np.column_stack(columns)
    y = np.log1p(np.maximum(np.nan_to_num(gain), 0))
    coef, sd, kept = _robust_fit(x[judged], y[judged])
    peer_sd = sd
    predicted = _leave_one_out(x, y, coef, judged, kept)
    expected[judged] = np.expm1(predicted[judged])
    baseline = np.maximum(np.nan_to_num(earlier_max), OWN_FLOOR_SHARE * np.nan_to_num(previous_stars))
    own = (gain >= MIN_GAIN) & (gain >= OWN_FACTOR * baseline)
    margin = max(PEER_SIGMAS * sd, math.log(PEER_FACTOR))
    peers = (y - predicted) > margin
    flagged = judged & own & peers
    own_needed[judged] = np.maximum(OWN_FACTOR * baseline[judged], MIN_GAIN)
    peers_needed[judged] = np.expm1(predicted[judged] + margin)
    return GrowthJudgement(judged, flagged, gain, earlier_max, expected, peer_sd, reason, own_needed, peers_needed)
