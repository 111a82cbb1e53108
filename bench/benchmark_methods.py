"""How long the benchmark methods take over a large ledger: import and publish 100,000 attempts.

Run: ``.venv/bin/python bench/benchmark_methods.py [--agents N]`` (default 25 agents x 2 settings
variants x 2 suites x 4 dated runs x 50 tasks x 5 attempts = 100,000 attempts, with task records,
a price list, an index over both suites and an assessment per agent). "import" is
``agentrank import-attempts`` (validate, store, recompute every board and method); "publish" is
what the export and the pages read back: the leaderboards, the ``methods`` object and every
agent's over-time chart. Prints figures only.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from datasette_plugins.benchmark_pages import over_time
from db.store import open_store
from leaderboard.imports import import_assessments, import_prices, import_tasks, sync_indexes
from leaderboard.ingest import MAX_ATTEMPT_RECORDS, import_attempts
from leaderboard.settings import IndexConfig
from leaderboard.summary import leaderboards
from leaderboard.views import methods_document

SUITES, RUNS, TASKS, ATTEMPTS = ("deep", "term"), ("2026-09-01", "2026-10-01", "2026-11-01", "2026-12-01"), 50, 5


def synthetic(agents: int, seed: int = 16) -> list[dict]:
    rng = random.Random(seed)
    records = []
    for a in range(agents):
        for effort in ("low", "high"):
            for suite in SUITES:
                for r, run in enumerate(RUNS):
                    for t in range(TASKS):
                        for n in range(1, ATTEMPTS + 1):
                            flags = ["infra-error"] if rng.random() < 0.02 else []
                            tokens = {"input": rng.randint(10_000, 900_000), "output": rng.randint(500, 40_000)}
                            tokens["cached"] = tokens["input"] // 2
                            records.append(
                                {
                                    "agent": f"owner{a}/agent{a}",
                                    "agent_version": f"1.{r // 2}",
                                    "model": "m-large" if a % 5 else "m-unpriced",
                                    "settings": {"reasoning": effort},
                                    "suite": suite,
                                    "run": run,
                                    "task_id": f"{suite}-{t}",
                                    "attempt": n,
                                    "date": f"{run}T10:00:00Z",
                                    "tier": "verified",
                                    "tests_passed": None if flags else rng.randint(0, 10),
                                    "tests_total": None if flags else 10,
                                    "quality": rng.choice((1, 2, 4, 5)),
                                    "wall_seconds": rng.uniform(10, 1800),
                                    "tokens": tokens,
                                    "flags": flags,
                                    "log_url": f"https://logs.example.org/{a}/{effort}/{suite}/{run}/{t}/{n}",
                                }
                            )
    return records


def _files(directory: Path, agents: int) -> None:
    tasks = [
        {
            "suite": s,
            "task_id": f"{s}-{t}",
            "title": f"task {t}",
            "hidden_tests": 10,
            "baseline_passed": 10 if t == 0 else 3,
            "reference_passed": 10,
        }
        for s in SUITES
        for t in range(TASKS)
    ]
    (directory / "tasks.json").write_text(json.dumps(tasks))
    (directory / "prices.toml").write_text(
        '[[price]]\nmodel = "m-large"\nfrom = 2026-01-01\ninput = 3.0\ncached_input = 0.3\ncache_write = 3.75\n'
        "output = 15.0\n"
    )
    blocks = [
        f'[[assessment]]\nagent = "owner{a}/agent{a}"\nsuite = "deep"\n'
        "scores = { cost = 3, speed = 5, setup = 4, agent = 5, privacy = 4 }\npublished = 80\n"
        '[[assessment.judgement]]\ncall = "setup 3"\nscores = { setup = 3 }\n'
        for a in range(agents)
    ]
    (directory / "assessments.toml").write_text("\n".join(blocks))


def main() -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, default=25)
    args = parser.parse_args([] if __name__ != "__main__" else None)
    records = synthetic(args.agents)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        _files(directory, args.agents)
        # One file may hold MAX_ATTEMPT_RECORDS attempts: the records go in as parts, one after another,
        # as a maintainer would import them.
        paths = []
        for part, start in enumerate(range(0, len(records), MAX_ATTEMPT_RECORDS)):
            path = directory / f"attempts-{part}.jsonl"
            chunk = records[start : start + MAX_ATTEMPT_RECORDS]
            path.write_text("".join(json.dumps(r) + "\n" for r in chunk), encoding="utf-8")
            paths.append(path)
        db = open_store(directory / "bench.db")
        sync_indexes(db, [IndexConfig(name="Bench Index", version="1", suites=list(SUITES))])
        import_tasks(db, directory / "tasks.json")
        import_prices(db, directory / "prices.toml")
        import_assessments(db, directory / "assessments.toml")
        for label in ("import", "re-import (unchanged)"):
            started, cpu = time.perf_counter(), time.process_time()
            new = sum(import_attempts(db, path, verified=True).counts.new for path in paths)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            print(
                f"benchmark methods {label}: {len(records):,} attempts in {len(paths)} files, {seconds:.2f} s wall, "
                f"{cpu:.2f} s CPU ({len(records) / seconds:,.0f}/s; {new:,} new)"
            )
            rows.append((f"{label} of {len(records):,} attempts", f"{seconds:.2f} s ({cpu:.2f} s CPU)"))
        conn = sqlite3.connect(directory / "bench.db")
        started, cpu = time.perf_counter(), time.process_time()
        boards = leaderboards(conn)
        document = methods_document(conn)
        charts = over_time(document["rs9_runs"])
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"benchmark methods publish: {sum(map(len, boards.values())):,} board entries, "
            f"{len(document['rs9_runs']):,} RS9 entries, {len(charts):,} over-time charts, "
            f"{len(document['fitscores'])} FitScores in {seconds:.2f} s wall, {cpu:.2f} s CPU"
        )
        rows.append(
            (f"publish (boards, methods, charts) of {len(records):,} attempts", f"{seconds:.2f} s ({cpu:.2f} s CPU)")
        )
    return rows


if __name__ == "__main__":
    main()
