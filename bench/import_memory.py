"""Peak memory and time of `agentrank import` on a large saved file (issue 13/17: streamed, one
transaction). The import runs as its own process so its peak RSS is measured alone.

    python bench/import_memory.py [--items 100000]
"""

from __future__ import annotations

import argparse
import json
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


# The child reports its own peak (VmHWM, which starts afresh with the new process image). Neither
# RUSAGE_CHILDREN nor wait4's ru_maxrss would do: both carry the parent's peak across fork + exec,
# and under `make bench` the parent has run the other benchmarks.
CHILD = """
import atexit

def _peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            open({peak_file!r}, "w").write(line.split()[1])

atexit.register(_peak)
from agentrank.cli import cli
cli()
"""


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentrank-import-memory-") as tmp:
        items = Path(tmp) / "items.json"
        write_items(items, args.items)
        size_mb = items.stat().st_size / 1e6
        peak_file = Path(tmp) / "peak-kb"
        child = [sys.executable, "-c", CHILD.format(peak_file=str(peak_file))]
        started = time.perf_counter()
        out = subprocess.run(
            [*child, "--db", str(Path(tmp) / "a.db"), "import", str(items)], capture_output=True, text=True, check=True
        ).stdout
        took = time.perf_counter() - started
        peak_mb = int(peak_file.read_text()) / 1024
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
