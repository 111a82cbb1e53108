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
        db.table("categories").upsert_all(rows, pk="id")


def save_classifications(db: sqlite_utils.Database, rows: Iterable[dict[str, Any]]) -> int:
    """Upsert one row per repo: category, probability, runner-up, model version and source."""
    rows = list(rows)
    if rows:
        with write_transaction(db):
            db.table("repo_categories").upsert_all(rows, pk="repo_id")
    return len(rows)


def save_category_corrections(
    db: sqlite_utils.Database, rows: Iterable[dict[str, Any]], *, replace: bool = False
) -> list[str]:
    """Upsert corrections keyed by full_name (case-insensitive); with ``replace`` the given rows become
    the whole set. Returns the full names of the corrections that were removed."""
    rows = list(rows)
    removed: list[str] = []
    with write_transaction(db):
        if replace:
            keep = {r["full_name"].lower() for r in rows}
            removed = [
                r["full_name"]
                for r in db.query("select full_name from category_corrections")
                if r["full_name"].lower() not in keep
            ]
            for name in removed:
                db.execute("delete from category_corrections where full_name = ?", [name])
        if rows:
            db.table("category_corrections").upsert_all(rows, pk="full_name")
    return removed


def load_category_corrections(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Every stored correction, oldest first (so a later one for the same repo wins)."""
    return list(db.query("select * from category_corrections order by updated_at, full_name"))


def mark_for_reclassification(db: sqlite_utils.Database, repo_ids: Iterable[int]) -> None:
    """Forget the model version of these repos' categories, so `classify --only-changed` redoes them."""
    ids = list(repo_ids)
    with write_transaction(db):
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            db.execute(
                "update repo_categories set model_version = null, input_hash = null where repo_id in ({})".format(
                    ", ".join("?" for _ in chunk)
                ),
                chunk,
            )
