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
    LedgerFileError,
    checked_assessments,
    checked_prices,
    read_tasks,
    save_assessments,
    save_prices,
    save_tasks,
    sync_indexes,
    uncounted_by,
    unknown_runs,
)
from leaderboard.ingest import one_line
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


def import_ledger_file(
    db: sqlite_utils.Database, config: Config, kind: str, path: str | Path, **options: Any
) -> ImportResult:
    """Run one of the ledger's import commands (``import-tasks`` …) on ``path``: read, then write.

    ``options`` go to the command's save step (``leave_uncounted`` for ``import-tasks``).
    """
    read, save = IMPORTERS[kind]
    parsed = read(path)  # a refused file raises here, before anything is written
    if kind == "import-tasks" and not options.get("leave_uncounted"):
        problems = uncounted_by(db, parsed)
        if problems:  # refused before the index definitions are touched
            raise LedgerFileError(one_line(f"{path}: {problems[0]}; add their records, or pass --leave-uncounted"))
    if kind == "import-assessments":
        problems = unknown_runs(db, parsed)
        if problems:
            raise LedgerFileError(one_line(f"{path}: {problems[0]}"))
    prepare_methods(db, config)
    return save(db, path, parsed, **options)
