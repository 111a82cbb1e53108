"""The published ranking as a table: ``agents``, refreshed by :func:`db.scores.publish`.

The ranking's definition is the view ``published_ranking`` (the published score run joined to each
repo's details, migration m002's SQL). Datasette used to run that join, and its four facets and
count over it, on every page view; the table holds its rows once per publish instead, with an
index for each facet and sort the pages use. Keeping the name ``agents`` keeps every link and
query that points at it.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import sqlite_utils

from db.connection import read_only_connection

SOURCE_VIEW = "published_ranking"
TABLE = "agents"
# The columns the public pages facet, sort or look up on (metadata.py's agents options), and the
# other facets within a category (a category page counts them over its own rows only).
INDEXED: tuple[tuple[str, ...], ...] = (
    ("category",),
    ("license_spdx",),
    ("language",),
    ("activity_bucket",),
    ("owner",),
    ("score",),
    ("stars",),
    ("full_name",),
    # Looked up by repo_id, and a search (repo_id in the full-text matches) counts its four facets
    # from this index alone instead of fetching every matching row (migration m022).
    ("repo_id", "category", "license_spdx", "language", "activity_bucket"),
    ("category", "license_spdx"),
    ("category", "language"),
    ("category", "activity_bucket"),
)


def _columns(conn: sqlite3.Connection, name: str) -> list[tuple[str, str]]:
    return [(row[1], row[2]) for row in conn.execute(f"pragma table_info([{name}])").fetchall()]


def _create(conn: sqlite3.Connection, columns: list[tuple[str, str]]) -> None:
    # rank is unique in a score run, so it is the rowid: the default order costs nothing.
    definitions = ", ".join(
        f'"{name}" INTEGER PRIMARY KEY' if name == "rank" else f'"{name}" {kind}'.rstrip() for name, kind in columns
    )
    conn.execute(f"create table {TABLE} ({definitions})")


def _index(conn: sqlite3.Connection, names: set[str]) -> None:
    for indexed in INDEXED:
        if set(indexed) <= names:
            quoted = ", ".join(f'"{column}"' for column in indexed)
            conn.execute(f"create index idx_{TABLE}_{'_'.join(indexed)} on {TABLE}({quoted})")


def refresh_agents(db: sqlite_utils.Database) -> int:
    """Replace ``agents`` with the published ranking; call it inside the publishing transaction.

    The table is rebuilt whole: rows appended in rank order (the rowid), then each index built
    once by sorting, which at a million rows is many times faster than keeping twelve indexes up
    to date row by row. It follows the view's columns should a later migration change them.
    """
    conn = db.conn
    wanted = _columns(conn, SOURCE_VIEW)
    if not wanted:
        return 0
    conn.execute(f"drop table if exists {TABLE}")
    _create(conn, wanted)
    names = ", ".join(f'"{name}"' for name, _ in wanted)
    cursor = conn.execute(f'insert into {TABLE} ({names}) select {names} from {SOURCE_VIEW} order by "rank"')
    _index(conn, {name for name, _ in wanted})
    return cursor.rowcount


def make_agents_table(db: sqlite_utils.Database) -> None:
    """Turn the ``agents`` view into ``published_ranking`` plus the ``agents`` table (migration m017)."""
    conn = db.conn
    found = conn.execute("select sql from sqlite_master where type = 'view' and name = ?", [TABLE]).fetchall()
    if not found:
        return
    select = re.sub(r"^\s*create\s+view\s+\S+\s+as\s", "", found[0][0], count=1, flags=re.I)
    conn.execute(f"drop view {TABLE}")
    conn.execute(f"create view {SOURCE_VIEW} as {select}")
    refresh_agents(db)


def describe_file(db_path: str | Path) -> tuple[list[str], str | None, str | None]:
    """The file's table and view names, the top-ranked repo (None before anything is published),
    and the demo note when ``agentrank demo`` built it; read-only, so serving never writes."""
    from db.demo import demo_marker

    conn = read_only_connection(db_path)
    try:
        names = [row[0] for row in conn.execute("select name from sqlite_master where type in ('table', 'view')")]
        top = (
            conn.execute(f"select full_name from {TABLE} order by rank limit 1").fetchone() if TABLE in names else None
        )
        marker = demo_marker(conn)
    finally:
        conn.close()
    return names, top[0] if top else None, marker["note"] if marker else None
