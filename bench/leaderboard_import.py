"""How long the task-benchmark ledger takes: import, re-import, recompute and export a large attempts file.

Run: ``.venv/bin/python bench/leaderboard_import.py [--agents N] [--tasks N] [--attempts N]``
(default 50 agents x 2 versions x 40 tasks x 5 attempts = 20,000 attempts). Prints figures only.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from db.store import open_store
from leaderboard.ingest import import_attempts
from leaderboard.summary import benchmarks_by_repo, leaderboards

FLAGS = ["modified-tests", "added-dependency", "reward-hacking", "infra-error", "timed-out"]


def synthetic_attempts(agents: int, tasks: int, attempts: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    records = []
    for a in range(agents):
        tier = "verified" if a % 3 else "community"
        for version, date in (("1.0", "2026-10-01T10:00:00Z"), ("1.1", "2026-11-01T10:00:00Z")):
            for t in range(tasks):
                total = rng.randint(1, 40)
                for n in range(1, attempts + 1):
                    flags = [rng.choice(FLAGS)] if rng.random() < 0.05 else []
                    cost = None if rng.random() < 0.02 else round(rng.uniform(0.01, 3), 4)
                    source = "self-reported" if tier == "community" else "api-list-price"
                    records.append(
                        {
                            "agent": f"owner{a}/agent{a}",
                            "agent_version": version,
                            "model": "m",
                            "task_id": f"task-{t}",
                            "attempt": n,
                            "date": date,
                            "tier": tier,
                            "tests_passed": None if "infra-error" in flags else rng.randint(0, total),
                            "tests_total": None if "infra-error" in flags else total,
                            "wall_seconds": rng.uniform(10, 3000),
                            "cost_usd": cost,
                            "cost_source": None if cost is None else source,
                            "flags": flags,
                            "log_url": f"https://logs.example.org/{a}/{version}/{t}/{n}",
                        }
                    )
    return records


def main() -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--attempts", type=int, default=5)
    args = parser.parse_args([] if __name__ != "__main__" else None)
    records = synthetic_attempts(args.agents, args.tasks, args.attempts)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "attempts.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        db = open_store(Path(tmp) / "bench.db")
        rows = []
        for label in ("first import", "re-import (unchanged)"):
            started = time.perf_counter()
            result = import_attempts(db, path, verified=True)
            elapsed = time.perf_counter() - started
            print(
                f"leaderboard {label}: {len(records)} attempts in {elapsed:.2f} s "
                f"({len(records) / elapsed:,.0f}/s; {result.counts.new} new, {result.counts.unchanged} unchanged)"
            )
            rows.append((f"{label} of {len(records):,} attempts", f"{len(records) / elapsed:,.0f} attempts/s"))
        conn = sqlite3.connect(Path(tmp) / "bench.db")
        started = time.perf_counter()
        boards = leaderboards(conn)
        benchmarks_by_repo(conn)
        seconds = time.perf_counter() - started
        print(f"leaderboard export sections: {sum(map(len, boards.values()))} entries in {seconds:.3f} s")
        rows.append(("export sections", f"{seconds:.3f} s"))
    return rows


if __name__ == "__main__":
    main()
