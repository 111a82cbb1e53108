"""The ``corrections`` table: the corrections file as the latest refresh applied it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlite_utils

from db.connection import write_transaction


def save_corrections(db: sqlite_utils.Database, rows: Iterable[dict[str, Any]], *, run_id: int, at: str) -> int:
    """Replace the table with this refresh's corrections (the file's history is in git)."""
    rows = [{**row, "run_id": run_id, "updated_at": at} for row in rows]
    with write_transaction(db):
        db.execute("delete from corrections")
        if rows:
            db.table("corrections").insert_all(rows, pk="id")
    return len(rows)
