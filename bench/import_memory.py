"""Peak memory and time of `agentrank import` on a large saved file (issue 13/17: streamed, one
transaction). The import runs as its own process so its peak RSS is measured alone.

    python bench/import_memory.py [--items 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from crawler.emulator.population import generate_population, to_search_item

REFERENCE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def write_items(path: Path, n: int) -> None:
    """A JSON list of n search items, written in slices so this process stays small too."""
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        first = True
        for start in range(0, n, 10_000):
            repos = generate_population(min(10_000, n - start), seed=start + 1, reference=REFERENCE)
            for offset, repo in enumerate(repos):
                item = to_search_item(repo)
                item["id"] = start + offset + 1
                item["full_name"] = f"{item['full_name']}-{start + offset}"
                f.write(("" if first else ",") + json.dumps(item))
                first = False
        f.write("]")


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentrank-import-memory-") as tmp:
        items = Path(tmp) / "items.json"
        write_items(items, args.items)
        size_mb = items.stat().st_size / 1e6
        command = [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(Path(tmp) / "a.db")]
        started = time.perf_counter()
        with tempfile.TemporaryFile("w+") as output:
            child = subprocess.Popen([*command, "import", str(items)], stdout=output, stderr=subprocess.STDOUT)
            # wait4 gives this child's own peak RSS; RUSAGE_CHILDREN would be the largest of every
            # child this process ever waited for (under `make bench`, earlier benchmarks' too).
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            took = time.perf_counter() - started
            output.seek(0)
            out = output.read()
        if child.returncode != 0:
            raise SystemExit(f"agentrank import failed ({child.returncode}): {out.strip()[-500:]}")
        peak_mb = usage.ru_maxrss / 1024
        print(out.strip().splitlines()[0])
        print(
            f"import of {args.items:,} items ({size_mb:.0f} MB of JSON): {took:.1f} s, "
            f"{args.items / took:,.0f} items/s, peak RSS {peak_mb:.0f} MB (target < 200 MB)"
        )
        return [
            (f"import {args.items:,} items: peak RSS", f"{peak_mb:.0f} MB"),
            (f"import {args.items:,} items: time", f"{took:.1f} s"),
        ]


if __name__ == "__main__":
    main()
