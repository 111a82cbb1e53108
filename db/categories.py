"""The ``categories`` table and each repo's current category in ``repo_categories``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

import sqlite_utils

from db.connection import write_transaction
from db.rows import dicts, iter_dicts


def save_categories(db: sqlite_utils.Database, categories: Iterable[Any]) -> None:
    """Upsert the category list (objects with ``id``, ``name`` and ``description``)."""
    rows = [
        {"id": c.id, "name": c.name, "description": c.description, "position": position}
        for position, c in enumerate(categories)
    ]
    # Every command opens the store through here: when the list is already stored, nothing is
    # written, so a read-only command leaves the database file as it found it.
    stored = db.execute("select id, name, description, position from categories order by position, id").fetchall()
    if stored == [(r["id"], r["name"], r["description"], r["position"]) for r in rows]:
        return
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


# Readers (a plain connection, as Datasette and the classifier stage use).


def repo_name(conn: sqlite3.Connection, repo_id: int) -> str | None:
    row = conn.execute("select full_name from repos where id = ?", [repo_id]).fetchone()
    return row[0] if row else None


def repo_texts(conn: sqlite3.Connection, *, repo_ids: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """id, full_name, name, description and topics of every listed repo (or of the given ids), by id."""
    columns = "select id, full_name, name, description, topics from repos"
    if repo_ids is None:
        yield from iter_dicts(conn.execute(f"{columns} where listed = 1 order by id"))
        return
    for repo_id in repo_ids:
        yield from iter_dicts(conn.execute(f"{columns} where id = ?", [repo_id]))


def classification_state(conn: sqlite3.Connection) -> dict[int, tuple[str | None, str | None]]:
    """Repo id → (model version, input hash) of its stored category."""
    return {r[0]: (r[1], r[2]) for r in conn.execute("select repo_id, model_version, input_hash from repo_categories")}


def stored_classifications(conn: sqlite3.Connection) -> dict[int, dict[str, Any]]:
    return {r["repo_id"]: r for r in dicts(conn.execute("select * from repo_categories"))}


def listed_category_counts(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(category, listed repos in it), largest first."""
    return [
        (row[0], row[1])
        for row in conn.execute(
            "select category, count(*) from repo_categories where repo_id in (select id from repos where listed = 1) "
            "group by category order by 2 desc, 1"
        )
    ]


def category_names(conn: sqlite3.Connection) -> dict[str, str]:
    """Each category's id → its name for people."""
    return dict(conn.execute("select id, name from categories").fetchall())
