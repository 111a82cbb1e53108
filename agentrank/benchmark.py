"""The benchmark methods stage: the configured indexes, then one of the ledger's import commands.

Datasette and the export read the methods' stored tables, so the index definitions from
``[[benchmark.index]]`` are stored (and every figure recomputed when they changed) before each
ledger command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from agentrank.config import Config
from leaderboard.imports import ImportResult, import_assessments, import_prices, import_tasks, sync_indexes
from leaderboard.store import refresh_boards

IMPORTERS: dict[str, Callable[[sqlite_utils.Database, str | Path], ImportResult]] = {
    "import-tasks": import_tasks,
    "import-prices": import_prices,
    "import-assessments": import_assessments,
}


def prepare_methods(db: sqlite_utils.Database, config: Config) -> None:
    """Store the configured indexes; recompute every figure when they changed."""
    if sync_indexes(db, config.benchmark.index):
        refresh_boards(db)


def import_ledger_file(db: sqlite_utils.Database, config: Config, kind: str, path: str | Path) -> ImportResult:
    """Run one of the ledger's import commands (``import-tasks`` …) on ``path``."""
    prepare_methods(db, config)
    return IMPORTERS[kind](db, path)
