"""``make bench``: run every ``bench/*.py`` script's ``main()`` and print their figures as one table.

Each script's ``main()`` prints its own table and returns its rows (a list of dicts); this runner
collects them into one long table: bench, row, figure, value.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def main() -> list[tuple[str, str, str, Any]]:
    sys.path.insert(0, str(HERE.parent))
    table: list[tuple[str, str, str, Any]] = []
    for path in sorted(HERE.glob("*.py")):
        if path.name == Path(__file__).name or path.name.startswith("_"):
            continue
        module = load(path)
        if not hasattr(module, "main"):
            continue
        print(f"\n== {path.name}", flush=True)
        started = time.perf_counter()
        rows = module.main() or []
        for number, row in enumerate(rows, 1):
            label = str(next(iter(row.values()))) if row else str(number)
            for figure, value in row.items():
                table.append((path.stem, label, figure, value))
        table.append((path.stem, "-", "bench wall s", round(time.perf_counter() - started, 1)))
    print("\n== all figures")
    widths = [max(len(str(row[i])) for row in table + [("bench", "row", "figure", "value")]) for i in range(4)]
    for row in [("bench", "row", "figure", "value"), *table]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)))
    return table


if __name__ == "__main__":
    main()
