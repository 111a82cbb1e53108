"""What the site export reads from the database: the rows of one score run and its categories.

The document itself is built, validated and written in ``agentrank/exporter.py``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from db.rows import dicts


def load_export_rows(conn: sqlite3.Connection, run_id: int) -> list[dict[str, Any]]:
    """Every score row of the run with the repo fields the export shows, by rank."""
    return dicts(
        conn.execute(
            """
            select s.*, r.html_url, r.description, r.homepage, r.owner_login, r.owner_avatar_url, r.topics,
                   r.language, cat.name as category_name, rc.reason as category_reason
            from scores s
            join repos r on r.id = s.repo_id
            left join categories cat on cat.id = s.category
            left join repo_categories rc
              on rc.repo_id = s.repo_id and rc.category = s.category and s.category_source = 'model'
                 and rc.source = 'model'
            where s.run_id = ?
            order by s.rank
            """,
            [run_id],
        )
    )


def load_categories(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return dicts(conn.execute("select id, name, description from categories order by position"))


def run_as_of(conn: sqlite3.Connection, run_id: int) -> str | None:
    row = conn.execute("select as_of from runs where id = ?", [run_id]).fetchone()
    return row[0] if row else None


def stored_method_version(conn: sqlite3.Connection, run_id: int) -> str | None:
    row = conn.execute("select method_version from scores where run_id = ? limit 1", [run_id]).fetchone()
    return row[0] if row else None
