"""The ``categories`` table and each repo's current category in ``repo_categories``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlite_utils

from db.connection import write_transaction


def save_categories(db: sqlite_utils.Database, categories: Iterable[Any]) -> None:
    """Upsert the category list (objects with ``id``, ``name`` and ``description``)."""
    rows = [
        {"id": c.id, "name": c.name, "description": c.description, "position": position}
        for position, c in enumerate(categories)
    ]
    with write_transaction(db):
        db["categories"].upsert_all(rows, pk="id")


def save_classifications(db: sqlite_utils.Database, rows: Iterable[dict[str, Any]]) -> int:
    """Upsert one row per repo: category, probability, runner-up, model version and source."""
    rows = list(rows)
    if rows:
        with write_transaction(db):
            db["repo_categories"].upsert_all(rows, pk="repo_id")
    return len(rows)
