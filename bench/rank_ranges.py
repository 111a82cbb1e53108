"""Time to compute the rank and score ranges (the uncertainty model) for 10k, 100k and 1M repos.

Each case runs in a fresh child process, after the score itself, so only the ranges are timed.

    python bench/rank_ranges.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def case(n: int) -> dict:
    import numpy as np

    from scoring.score import ScoreInputs, compute_scores
    from scoring.uncertainty import draws_for, rank_ranges, weekly_noise

    rng = np.random.default_rng(n)
    as_of = 1_796_000_000
    stars = (200 / (1 - rng.random(n))).astype(np.int64)
    forks = (stars * rng.uniform(0.02, 0.3, n)).astype(np.int64)
    inputs = ScoreInputs(
        repo_id=np.arange(n),
        full_name=np.array([f"owner{i % 50_000}/repo{i}" for i in range(n)]),
        stars=stars,
        forks=forks,
        created_epoch=as_of - rng.integers(86400, 86400 * 4000, n),
        pushed_epoch=(as_of - rng.integers(0, 86400 * 800, n)).astype(float),
        osi=rng.random(n) < 0.7,
        as_of_epoch=as_of,
    )
    result = compute_scores(inputs)
    # Half the repos with a week of history (0-3 % growth), half without.
    stars_delta = np.where(rng.random(n) < 0.5, np.round(stars * rng.uniform(0, 0.03, n)), np.nan)
    forks_delta = np.where(np.isnan(stars_delta), np.nan, np.round(forks * rng.uniform(0, 0.03, n)))
    started = time.perf_counter()
    ranges = rank_ranges(inputs, result, weekly_noise(stars, stars_delta), weekly_noise(forks, forks_delta))
    seconds = time.perf_counter() - started
    width = ranges.rank_worst - ranges.rank_best
    return {"seconds": seconds, "draws": draws_for(n), "median_width": float(np.median(width))}


def _run(n: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--case", str(n)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for n in (10_000, 100_000, 1_000_000):
        r = _run(n)
        rows.append(
            (
                f"rank/score ranges, {n:,} repos",
                f"{r['seconds']:.2f} s ({r['draws']} draws; median rank range {r['median_width']:,.0f} places)",
            )
        )
        print(rows[-1])
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        sys.path.insert(0, str(ROOT))
        print(json.dumps(case(int(sys.argv[2]))))
    else:
        main()
