"""`make bench`: run every benchmark script in bench/ (each has a ``main()``) and print its figures."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def main() -> None:
    here = Path(__file__).resolve().parent
    for script in sorted(here.glob("*.py")):
        if script.name == "run_all.py" or script.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"bench_{script.stem}", script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not hasattr(module, "main"):
            continue
        print(f"== {script.name}")
        module.main([])
        print()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
