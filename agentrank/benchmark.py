"""The benchmark methods stage: the configured indexes, then one of the ledger's import commands.

Datasette and the export read the methods' stored tables, so the index definitions from
``[[benchmark.index]]`` are stored (and every figure recomputed when they changed) with each
ledger command. The file is read and validated first: a refused file changes nothing at all (not
even the stored index definitions).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank.config import Config
from db.connection import write_transaction
from leaderboard.imports import (
    ImportResult,
    checked_assessments,
    checked_prices,
    read_tasks,
    save_assessments,
    save_prices,
    save_tasks,
    sync_indexes,
)
from leaderboard.store import refresh_boards

# Each ledger command: how its file is read (validated whole, nothing written) and how it is saved.
IMPORTERS: dict[
    str, tuple[Callable[[str | Path], Any], Callable[[sqlite_utils.Database, str | Path, Any], ImportResult]]
] = {
    "import-tasks": (read_tasks, save_tasks),
    "import-prices": (checked_prices, save_prices),
    "import-assessments": (checked_assessments, save_assessments),
}


def prepare_methods(db: sqlite_utils.Database, config: Config) -> None:
    """Store the configured indexes; recompute every figure when they changed (one transaction)."""
    with write_transaction(db):
        if sync_indexes(db, config.benchmark.index):
            refresh_boards(db)


def import_ledger_file(db: sqlite_utils.Database, config: Config, kind: str, path: str | Path) -> ImportResult:
    """Run one of the ledger's import commands (``import-tasks`` …) on ``path``: read, then write."""
    read, save = IMPORTERS[kind]
    parsed = read(path)  # a refused file raises here, before anything is written
    prepare_methods(db, config)
    return save(db, path, parsed)
