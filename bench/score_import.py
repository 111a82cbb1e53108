"""Scoring time at 10k, 100k and 1M repos; import throughput; peak memory.

Each case runs in a fresh child process so its peak RSS (ru_maxrss) is its own.

    python bench/score_import.py
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _reset_peak() -> None:
    """Start the peak (VmHWM) afresh, so a case's figure is its own and not its set-up's."""
    with contextlib.suppress(OSError):  # not Linux: the figure then includes the set-up
        Path("/proc/self/clear_refs").write_text("5")


def _peak_mb() -> float:
    # VmHWM starts afresh with the process image; ru_maxrss would carry the parent's peak across exec.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def case_compute(n: int) -> dict:
    import numpy as np

    from scoring.score import ScoreInputs, compute_scores

    rng = np.random.default_rng(n)
    as_of = 1_796_000_000
    inputs = ScoreInputs(
        repo_id=np.arange(n),
        full_name=np.array([f"owner{i % 50_000}/repo{i}" for i in range(n)]),
        stars=(200 / (1 - rng.random(n))).astype(np.int64),
        forks=rng.integers(0, 5000, n),
        created_epoch=as_of - rng.integers(86400, 86400 * 4000, n),
        pushed_epoch=(as_of - rng.integers(0, 86400 * 800, n)).astype(float),
        osi=rng.random(n) < 0.7,
        as_of_epoch=as_of,
    )
    started = time.perf_counter()
    compute_scores(inputs)
    return {"seconds": time.perf_counter() - started, "peak_mb": _peak_mb()}


def _synthetic_repos(db, n: int, classified_every: int = 4) -> None:
    """``n`` listed repos, one in ``classified_every`` of them classified (set-up, not timed).

    The full-text triggers are dropped for the set-up only: scoring never touches the index, and
    indexing a million descriptions would take longer than everything measured.
    """
    import numpy as np

    rng = np.random.default_rng(n)
    stars = (200 / (1 - rng.random(n))).astype(np.int64).tolist()
    forks = rng.integers(0, 5000, n).tolist()
    months = rng.integers(1, 12, n).tolist()
    categories = [row[0] for row in db.execute("select id from categories")] or [None]
    for (name,) in db.execute(
        "select name from sqlite_master where type = 'trigger' and tbl_name = 'repos'"
    ).fetchall():
        db.execute(f"drop trigger [{name}]")
    with db.conn:
        db.conn.executemany(
            "insert into repos (id, full_name, owner_login, stars, forks, created_at, pushed_at, license_spdx, archived,"
            " fork, matched, listed, topics) values (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 1, 1, '[]')",
            (
                (
                    i + 1,
                    f"owner{i % 50_000}/repo{i}",
                    f"owner{i % 50_000}",
                    stars[i],
                    forks[i],
                    "2024-01-01T00:00:00Z",
                    f"2026-{months[i]:02d}-01T00:00:00Z",
                    "MIT" if i % 3 else None,
                )
                for i in range(n)
            ),
        )
        if categories[0] is not None:
            db.conn.executemany(
                "insert into repo_categories (repo_id, category, source, probability, uncertain) values (?, ?, 'model', 0.9, 0)",
                ((i + 1, categories[i % len(categories)]) for i in range(0, n, classified_every)),
            )


def case_db_score(n: int) -> dict:
    """End to end through SQLite: read the listed set, score, write every score row, publish."""
    from agentrank import scorer
    from db.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        db = open_store(Path(tmp) / "bench.db")
        _synthetic_repos(db, n)
        _reset_peak()
        started = time.perf_counter()
        scorer.score(db, as_of="2026-11-30T06:00:00Z", publish_result=False)
        scored = time.perf_counter() - started
        score_peak = _peak_mb()  # VmHWM since the set-up: the scoring, before publishing
        from db.scores import publish

        run_id = db.execute("select max(id) from runs where kind = 'score'").fetchone()[0]
        publish(db, run_id)
        return {
            "seconds": scored,
            "publish_seconds": time.perf_counter() - started - scored,
            "peak_mb": score_peak,
            "publish_peak_mb": _peak_mb(),
        }


def case_import(n: int) -> dict:
    from agentrank import importer
    from agentrank.config import load_config
    from crawler.emulator.population import generate_population, to_search_item
    from db.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.json"
        path.write_text(json.dumps([to_search_item(r) for r in generate_population(n, seed=3)]))
        db = open_store(Path(tmp) / "bench.db")
        started = time.perf_counter()
        importer.import_files(db, [path], min_stars=load_config(None, environ={}).crawl.min_stars)
        seconds = time.perf_counter() - started
        return {"seconds": seconds, "per_second": n / seconds, "peak_mb": _peak_mb()}


CASES = {"compute": case_compute, "db_score": case_db_score, "import": case_import}


def _run(case: str, n: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--case", case, str(n)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for n in (10_000, 100_000, 1_000_000):
        r = _run("compute", n)
        rows.append((f"score compute, {n:,} repos", f"{r['seconds']:.2f} s (peak {r['peak_mb']:.0f} MB)"))
        print(rows[-1])
    for n in (100_000, 1_000_000):
        r = _run("db_score", n)
        rows.append(
            (f"score through SQLite (read+compute+write), {n:,}", f"{r['seconds']:.2f} s (peak {r['peak_mb']:.0f} MB)")
        )
        print(rows[-1])
        rows.append(
            (
                f"publish (rebuild the agents table), {n:,}",
                f"{r['publish_seconds']:.2f} s (peak {r['publish_peak_mb']:.0f} MB)",
            )
        )
        print(rows[-1])
    r = _run("import", 20_000)
    rows.append(("import 20,000 search items", f"{r['per_second']:,.0f} repos/s (peak {r['peak_mb']:.0f} MB)"))
    print(rows[-1])
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--case":
        sys.path.insert(0, str(ROOT))
        print(json.dumps(CASES[sys.argv[2]](int(sys.argv[3]))))
    else:
        main()
