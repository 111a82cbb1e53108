"""Run every benchmark in bench/ and print one table of figures.

Each ``bench/*.py`` module has a ``main()`` that prints its own details and returns rows for the
summary table: ``(figure, value)`` pairs, or dicts whose first value labels the row.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3f}"
    return str(value)


def main() -> int:
    sys.path.insert(0, str(HERE.parent))
    rows: list[tuple[str, str, str]] = []
    for path in sorted(HERE.glob("*.py")):
        if path.name == "run_all.py" or path.name.startswith("_"):
            continue
        print(f"\n=== {path.name} ===", flush=True)
        started = time.perf_counter()
        module = _load(path)
        if not hasattr(module, "main"):
            continue
        # main(argv) scripts get no arguments; main() or main(n=...) ones run with their defaults.
        required = [p for p in inspect.signature(module.main).parameters.values() if p.default is p.empty]
        figures = (module.main([]) if required else module.main()) or []
        if isinstance(figures, dict):
            figures = list(figures.items())
        for row in figures:
            if isinstance(row, dict):  # one row of a bench's own table: label it by its first value
                label, *rest = row.items()
                rows.extend((path.stem, f"{label[1]}: {figure}", _shown(value)) for figure, value in rest)
            else:
                rows.append((path.stem, row[0], _shown(row[1])))
        print(f"({path.name} took {time.perf_counter() - started:.1f} s)")
    width_b = max((len(r[0]) for r in rows), default=5)
    width_f = max((len(r[1]) for r in rows), default=6)
    print("\n" + "bench".ljust(width_b), "figure".ljust(width_f), "value")
    print("-" * (width_b + width_f + 20))
    for bench, figure, value in rows:
        print(bench.ljust(width_b), figure.ljust(width_f), value)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
