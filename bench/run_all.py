"""Run every benchmark in bench/ and print one table of figures.

Each ``bench/*.py`` module has a ``main()`` that prints its own details and returns rows for the
summary table: ``(figure, value)`` pairs, or dicts whose first value labels the row.

Every benchmark runs in a fresh child process of this one: what one leaves behind (a big heap,
objects the garbage collector must walk, a page cache) does not slow the next, and a benchmark
that forks (classify) forks a process of its own size.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.3f}"
    return str(value)


def run_one(path: Path) -> list[tuple[str, str]]:
    """Run one benchmark's ``main()`` in this process: its summary rows as (figure, value) text."""
    sys.path.insert(0, str(HERE.parent))
    module = _load(path)
    if not hasattr(module, "main"):
        return []
    # main(argv) scripts get no arguments; main() or main(n=...) ones run with their defaults.
    required = [p for p in inspect.signature(module.main).parameters.values() if p.default is p.empty]
    figures = (module.main([]) if required else module.main()) or []
    if isinstance(figures, dict):
        figures = list(figures.items())
    rows: list[tuple[str, str]] = []
    for row in figures:
        if isinstance(row, dict):  # one row of a bench's own table: label it by its first value
            label, *rest = row.items()
            rows.extend((f"{label[1]}: {figure}", _shown(value)) for figure, value in rest)
        else:
            rows.append((row[0], _shown(row[1])))
    return rows


def main() -> int:
    rows: list[tuple[str, str, str]] = []
    failed: list[str] = []
    for path in sorted(HERE.glob("*.py")):
        if path.name == "run_all.py" or path.name.startswith("_"):
            continue
        print(f"\n=== {path.name} ===", flush=True)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "rows.json"
            done = subprocess.run([sys.executable, __file__, "--one", str(path), str(out)], check=False)
            if done.returncode != 0 or not out.exists():
                failed.append(path.name)
                print(f"({path.name} failed with exit status {done.returncode})")
                continue
            rows.extend((path.stem, figure, value) for figure, value in json.loads(out.read_text()))
        print(f"({path.name} took {time.perf_counter() - started:.1f} s)", flush=True)
    width_b = max((len(r[0]) for r in rows), default=5)
    width_f = max((len(r[1]) for r in rows), default=6)
    print("\n" + "bench".ljust(width_b), "figure".ljust(width_f), "value")
    print("-" * (width_b + width_f + 20))
    for bench, figure, value in rows:
        print(bench.ljust(width_b), figure.ljust(width_f), value)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        one, rows_file = Path(sys.argv[2]), Path(sys.argv[3])
        sys.argv = [str(one)]  # a benchmark that parses its own arguments runs with its defaults
        rows_file.write_text(json.dumps(run_one(one)))
    else:
        raise SystemExit(main())
