"""The packages' import directions, read from the source (function-level imports included).

Bottom to top; a module may import from its own package or from a lower layer, never from a
higher one or a sibling of its own layer, and no two modules may import each other (directly or
around a cycle). docs/architecture.md explains each layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. crawler.emulator is the fake GitHub: a part of its own, above the crawler it fakes.
LAYERS: list[set[str]] = [
    {"scoring", "classify", "crawler"},
    {"crawler.emulator"},
    {"db"},
    {"leaderboard", "schedules"},
    {"datasette_plugins"},
    {"agentrank"},
    {"agentrank.cli"},
]
PACKAGES = ("agentrank", "crawler", "scoring", "classify", "db", "datasette_plugins", "schedules", "leaderboard")


def _unit(module: str) -> str:
    """The layer unit a module belongs to: the most specific name listed in LAYERS."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if any(name in layer for layer in LAYERS):
            return name
    raise AssertionError(f"{module} belongs to no layer")


def _layer(module: str) -> int:
    unit = _unit(module)
    return next(i for i, layer in enumerate(LAYERS) if unit in layer)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str) -> set[str]:
    """Project modules imported anywhere in the file (module level, functions, TYPE_CHECKING)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # "from package import module" imports the module when it is one.
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            if name.split(".")[0] in PACKAGES:
                found.add(name)
    return found


def _modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[_module_name(path)] = path
    return modules


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an imported name refers to (a name imported from a module → that module)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


GRAPH = {
    module: {target for name in _imports(path, module) if (target := _resolve(name)) and target != module}
    for module, path in MODULES.items()
}


def test_every_module_is_in_a_layer():
    for module in MODULES:
        _layer(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_down(module):
    own = _unit(module)
    wrong = []
    for target in sorted(GRAPH[module]):
        unit = _unit(target)
        if unit == own:
            continue
        if _layer(target) >= _layer(module):
            wrong.append(f"{target} (layer {_layer(target)}: {unit})")
    assert not wrong, f"{module} (layer {_layer(module)}: {own}) imports upward or sideways: {', '.join(wrong)}"


def test_the_crawler_never_touches_sqlite():
    for module, path in MODULES.items():
        if _unit(module) in ("crawler", "crawler.emulator"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                    assert not any(n.split(".")[0] in ("sqlite3", "sqlite_utils") for n in names), module


def test_no_import_cycles():
    """No two modules import each other, directly or around a longer cycle."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)


def test_no_loop_between_packages():
    """Seen package by package (agentrank.cli counted in agentrank), imports never lead back: the
    command line once imported schedules, whose job imported agentrank.pipeline."""
    packages = {package: set() for package in PACKAGES}
    for module, targets in GRAPH.items():
        for target in targets:
            if target.split(".")[0] != module.split(".")[0]:
                packages[module.split(".")[0]].add(target.split(".")[0])
    for package in PACKAGES:
        seen, todo = set(), list(packages[package])
        while todo:
            reached = todo.pop()
            assert reached != package, f"{package} imports a package that imports it back"
            if reached not in seen:
                seen.add(reached)
                todo.extend(packages[reached])


def test_the_checker_sees_a_wrong_import(tmp_path):
    """The walk finds function-level and relative imports, so the tests above can fail."""
    source = tmp_path / "probe.py"
    source.write_text("def f():\n    from agentrank.cli import cli\n    from . import score\n", encoding="utf-8")
    assert _imports(source, "scoring.probe") == {"agentrank.cli", "agentrank.cli.cli", "scoring", "scoring.score"}
    assert _layer("agentrank.cli") > _layer("scoring.probe")


def test_every_library_the_product_imports_is_declared():
    """A library imported by the product is in pyproject.toml's dependencies, not merely installed
    because another package pulls it in (scipy, markupsafe and uvicorn once were)."""
    import re
    import sys
    import tomllib
    from importlib.metadata import packages_distributions

    declared = {
        re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower().replace("_", "-")
        for spec in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    }
    distributions = packages_distributions()
    imported = {
        name.split(".")[0]
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0)
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
    }
    third_party = {n for n in imported if n and n not in sys.stdlib_module_names and n not in PACKAGES}
    missing = {
        name: distributions.get(name, [name])
        for name in third_party
        if not {d.lower().replace("_", "-") for d in distributions.get(name, [name])} & declared
    }
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
