"""How long the command line spends importing before it starts, from ``python -X importtime``.

Two commands: ``agentrank --help`` (nothing should load but click) and ``agentrank explain`` on a
small published database (what a maker runs most). The figure is the sum of the top-level imports'
cumulative times (microseconds as Python reports them), the least of five runs, so a busy machine
does not inflate it. The target is under 0.5 s for both.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
_LINE = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \| (\S.*)$")  # a top-level import: no indent


def import_seconds(args: list[str], cwd: Path) -> tuple[float, list[tuple[float, str]]]:
    """Seconds of imports for one run of ``agentrank ARGS``, and the largest top-level imports."""
    process = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "from agentrank.cli import cli; cli()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    top = [(int(m.group(1)) / 1e6, m.group(2)) for m in map(_LINE.match, process.stderr.splitlines()) if m]
    return sum(seconds for seconds, _ in top), sorted(top, reverse=True)[:5]


def _database(folder: Path) -> tuple[Path, str]:
    sys.path.insert(0, str(ROOT))
    from crawler.emulator.population import generate_population, to_search_item
    from db.store import open_store

    items = [to_search_item(repo) for repo in generate_population(300, seed=3)]
    saved = folder / "items.json"
    import json

    saved.write_text(json.dumps(items), encoding="utf-8")
    path = folder / "bench.db"
    for command in (["import", str(saved)], ["score"]):
        subprocess.run(
            [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(path), *command],
            check=True,
            capture_output=True,
            cwd=folder,
        )
    db = open_store(path)
    name = db.execute("select full_name from agents order by rank limit 1").fetchone()[0]
    db.close()
    return path, name


def main() -> list[tuple[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, name = _database(folder)
        rows = []
        for label, args in (
            ("agentrank --help", ["--help"]),
            ("agentrank explain", ["--db", str(path), "explain", name]),
        ):
            runs = [import_seconds(args, folder) for _ in range(RUNS)]
            seconds, largest = min(runs)
            print(
                f"{label}: {seconds:.3f} s of imports (least of {RUNS}); largest: "
                + ", ".join(f"{module} {s:.3f} s" for s, module in largest)
            )
            rows.append((f"{label}: import seconds", seconds))
    return rows


if __name__ == "__main__":
    main()
