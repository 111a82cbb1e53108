"""Scoring time at 10k, 100k and 1M repos; import throughput; peak memory; what scoring a million
repos through SQLite costs at the least on this machine.

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
from collections.abc import Callable
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
        steps: dict[str, float] = {}
        started = time.perf_counter()
        scorer.score(db, as_of="2026-11-30T06:00:00Z", publish_result=False, steps=steps)
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
            "steps": steps,
        }


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def case_floor(n: int) -> dict:
    """Each part any implementation must do to score ``n`` repos through SQLite, on its own, done
    the cheapest way measured; their sum is a lower bound for the whole on this machine.

    - read: the six input columns of the listed set out of ``repos`` as arrays (one aggregate pass,
      no copy, no names);
    - compute: the score and the rank (numpy);
    - ranges: the rank and score ranges alone (the uncertainty model's draws, both cores);
    - bind: the values only Python knows into SQLite, into an unindexed in-memory table: the
      ``rank``, the two rank and two score bounds (the least: the components could be recomputed in
      SQL) and the 18 columns the pipeline binds;
    - write: a million finished score rows copied within SQLite (``insert … select`` from another
      file, no Python) into ``scores`` as shipped and with its primary key only, and the commit.
    """
    import sqlite3

    import numpy as np

    from agentrank import scorer
    from crawler.items import parse_timestamp
    from db.scores import _COMPUTED, _INPUTS_SQL, load_score_inputs
    from db.store import open_store
    from scoring.score import compute_scores
    from scoring.uncertainty import rank_ranges, weekly_noise

    as_of = "2026-11-30T06:00:00Z"
    as_of_epoch = int(parse_timestamp(as_of).timestamp())
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source.db"
        db = open_store(source)
        _synthetic_repos(db, n)
        scorer.score(db, as_of=as_of, publish_result=False)  # the score rows the write copies

        bare = _INPUTS_SQL.replace("temp.score_inputs", "repos where listed = 1").replace("repo_id", "id")
        columns: list[np.ndarray] = []
        out["read"] = _timed(lambda: columns.extend(np.array(json.loads(t)) for t in db.execute(bare).fetchone()))
        inputs, _ = load_score_inputs(db, as_of_epoch)
        result: dict = {}
        out["compute"] = _timed(lambda: result.update(compute_scores(inputs)))
        nan = np.full(n, np.nan)
        ranges = []
        out["ranges"] = _timed(
            lambda: ranges.append(
                rank_ranges(inputs, result, weekly_noise(inputs.stars, nan), weekly_noise(inputs.forks, nan))
            )
        )
        least = [
            inputs.repo_id,
            result["rank"],
            ranges[0].rank_best,
            ranges[0].rank_worst,
            ranges[0].score_low,
            ranges[0].score_high,
        ]
        shipped = least + [result[k] for k in _COMPUTED[2:] if k != "rank"]  # the columns save_scores binds
        shipped += [inputs.osi.astype(np.int64)] + [np.zeros(n, dtype=np.int64)] * 2  # licence, flags, checks
        for name, arrays in (("bind_least", least), ("bind_shipped", shipped)):
            memory = sqlite3.connect(":memory:")
            memory.execute(f"create table t ({', '.join(f'c{i}' for i in range(len(arrays)))})")
            insert = f"insert into t values ({', '.join('?' * len(arrays))})"

            def bind(arrays=arrays, insert=insert, memory=memory) -> None:
                with memory:
                    for start in range(0, n, 50_000):
                        memory.executemany(
                            insert, zip(*(a[start : start + 50_000].tolist() for a in arrays), strict=True)
                        )

            out[name] = _timed(bind)
            memory.close()
        ddl = db.execute("select sql from sqlite_master where name = 'scores'").fetchone()[0]
        db.conn.close()
        for name in ("write_shipped", "write_key_only"):
            target = Path(tmp) / f"{name}.db"
            if name == "write_shipped":
                open_store(target).conn.close()  # every migration: the table and its indexes
            else:
                sqlite3.connect(target).execute(ddl).connection.close()  # rowid and primary key only
            conn = sqlite3.connect(target, isolation_level=None)
            conn.execute("pragma journal_mode = wal")
            conn.execute("pragma synchronous = normal")
            conn.execute("pragma cache_size = -262144")
            conn.execute("attach ? as source", [str(source)])
            conn.execute("begin")
            started = time.perf_counter()
            conn.execute("insert into main.scores select * from source.scores")
            out[name] = time.perf_counter() - started
            out[name + "_commit"] = _timed(conn.commit)
            conn.close()
    return out


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


CASES = {"compute": case_compute, "db_score": case_db_score, "import": case_import, "floor": case_floor}


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
    for step, seconds in r["steps"].items():
        print(f"  {step:32s} {seconds:6.2f} s")
    r = _run("import", 20_000)
    rows.append(("import 20,000 search items", f"{r['per_second']:,.0f} repos/s (peak {r['peak_mb']:.0f} MB)"))
    print(rows[-1])
    rows.extend(floor(1_000_000))
    return rows


def floor(n: int) -> list[tuple[str, str]]:
    """The least each part of scoring ``n`` repos through SQLite takes here, and their sum."""
    r = _run("floor", n)
    parts = {
        "read the inputs (one pass, no copy)": r["read"],
        "compute the score and rank": r["compute"],
        "rank and score ranges alone": r["ranges"],
        "bind rank and ranges (5 values a row)": r["bind_least"],
        "write the rows, primary key only (SQLite copy)": r["write_key_only"] + r["write_key_only_commit"],
    }
    print(f"\nThe least each part takes, {n:,} repos:")
    for part, seconds in parts.items():
        print(f"  {part:48s} {seconds:6.2f} s")
    print(f"  {'(bind the 18 columns the pipeline binds)':48s} {r['bind_shipped']:6.2f} s")
    shipped = r["write_shipped"] + r["write_shipped_commit"]
    print(f"  {'(write into scores as shipped, all indexes)':48s} {shipped:6.2f} s")
    total = sum(parts.values())
    print(f"  {'sum: a lower bound for the whole':48s} {total:6.2f} s")
    return [
        (f"score through SQLite, {n:,}: sum of the least each part takes", f"{total:.2f} s"),
        (
            f"  writing {n:,} finished score rows as shipped / primary key only",
            f"{shipped:.2f} s / {r['write_key_only'] + r['write_key_only_commit']:.2f} s",
        ),
    ]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--case":
        sys.path.insert(0, str(ROOT))
        print(json.dumps(CASES[sys.argv[2]](int(sys.argv[3]))))
    else:
        main()
