"""``make bench``: run every benchmark script in this folder (each has a ``main()`` that prints its figures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    sys.path.insert(0, str(HERE.parent))
    for path in sorted(HERE.glob("*.py")):
        if path.name in {"run_all.py", "__init__.py"}:
            continue
        spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if hasattr(module, "main"):
            print(f"== {path.stem}", flush=True)
            module.main()


if __name__ == "__main__":
    main()
