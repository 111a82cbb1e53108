"""The demo marker: the row that says ``agentrank demo`` built this database from synthetic data.

A database with the marker may be rebuilt by the next ``agentrank demo``; one without it is never
touched. The pages and the export read it to label the data as a demo.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import sqlite_utils

from db.connection import read_only_connection, write_transaction

DEMO_NOTE = (
    "Demo data: built by `agentrank demo` from a synthetic population of invented repositories and "
    "invented benchmark attempts; nothing here describes a real project."
)


def mark_demo(db: sqlite_utils.Database, *, built_at: str, first_week: str, seed: int, size: int, weeks: int) -> None:
    """Record (or update) that the demo built this database, and how (so a refresh can go on)."""
    row = {
        "id": 1,
        "built_at": built_at,
        "first_week": first_week,
        "seed": seed,
        "size": size,
        "weeks": weeks,
        "note": DEMO_NOTE,
    }
    with write_transaction(db):
        db.table("demo_marker").upsert(row, pk="id")


def demo_marker(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """The marker row, or None for a database the demo did not build."""
    if not conn.execute("select 1 from sqlite_master where type = 'table' and name = 'demo_marker'").fetchone():
        return None
    cursor = conn.execute("select * from demo_marker where id = 1")
    row = cursor.fetchone()
    return dict(zip([d[0] for d in cursor.description], row, strict=True)) if row else None


def file_demo_marker(path: str | Path) -> dict[str, Any] | None:
    """The marker of the database file at ``path``, read without writing anything; None when the
    file is not a demo database (or not an SQLite database at all)."""
    try:
        conn = read_only_connection(path)
    except sqlite3.Error:
        return None
    try:
        return demo_marker(conn)
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def file_refresh_instants(path: str | Path, *, since: str) -> list[str]:
    """When each refresh of the database file at ``path`` that ended well, from ``since`` on, was run
    (its ``started_at``), oldest first; read without writing anything."""
    conn = read_only_connection(path)
    try:
        rows = conn.execute(
            "select started_at from runs where kind = 'refresh' and parent_id is null and status = 'ok' "
            "and started_at >= ? order by id",
            [since],
        ).fetchall()
    finally:
        conn.close()
    return [row[0] for row in rows]


def biggest_riser(conn: sqlite3.Connection, top: int = 100) -> str | None:
    """The repo in the published ranking's first ``top`` that climbed most since the score run
    before it (None before there are two runs): the one whose "what changed" is worth reading."""
    row = conn.execute(
        """
        select c.full_name from scores c
        join scores p on p.repo_id = c.repo_id
         and p.run_id = (select previous_id from score_run_previous
                         where run_id = (select score_run_id from published where id = 1))
        where c.run_id = (select score_run_id from published where id = 1) and c.rank <= ?
        order by p.rank - c.rank desc, c.rank limit 1
        """,
        [top],
    ).fetchone()
    return row[0] if row else None


def top_in_category(conn: sqlite3.Connection, category: str, limit: int) -> list[str]:
    """The first ``limit`` repos of a category in the published ranking."""
    rows = conn.execute("select full_name from agents where category = ? order by rank limit ?", [category, limit])
    return [row[0] for row in rows]
