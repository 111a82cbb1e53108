"""Reading one repo's score breakdown from the stored score rows of a run.

Written against a plain ``sqlite3`` connection so that Datasette's maker's page (through
``execute_fn``) and ``agentrank explain`` share this one implementation.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np

from scoring.explain import explain_row


def _rows(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def resolve_repo(conn: sqlite3.Connection, full_name: str) -> dict[str, Any] | None:
    """The repo by current name, else by a previous name (renames keep the numeric id)."""
    rows = _rows(conn, "select * from repos where full_name = ? collate nocase", [full_name])
    if not rows:
        rows = _rows(
            conn,
            "select repos.* from repo_names join repos on repos.id = repo_names.repo_id "
            "where repo_names.full_name = ? collate nocase order by repo_names.last_seen_at desc limit 1",
            [full_name],
        )
    return rows[0] if rows else None


def published_run_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("select score_run_id from published where id = 1").fetchone()
    return row[0] if row else None


def load_breakdown(conn: sqlite3.Connection, full_name: str, run_id: int | None = None) -> dict[str, Any] | None:
    """The breakdown of ``full_name`` in a score run (default: the published run).

    Returns None when the repo is unknown. A known repo that is not in the run comes back with
    ``score`` None and the reason it is not listed.
    """
    repo = resolve_repo(conn, full_name)
    if repo is None:
        return None
    run_id = run_id or published_run_id(conn)
    category = _rows(
        conn,
        "select c.*, cat.name as category_name from repo_categories c left join categories cat "
        "on cat.id = c.category where c.repo_id = ?",
        [repo["id"]],
    )
    base = {
        "repo": {
            "id": repo["id"],
            "full_name": repo["full_name"],
            "html_url": repo["html_url"],
            "description": repo["description"],
            "listed": bool(repo["listed"]),
            "unlisted_reason": repo["unlisted_reason"],
        },
        "category": category[0] if category else None,
    }
    row = None
    if run_id is not None:
        found = _rows(conn, "select * from scores where run_id = ? and repo_id = ?", [run_id, repo["id"]])
        row = found[0] if found else None
    if row is None:
        return {**base, "run_id": run_id, "score": None, "rank": None, "components": []}
    population = conn.execute("select stars, forks, stars_per_day from scores where run_id = ?", [run_id]).fetchall()
    arrays = np.asarray(population, dtype=float).T
    breakdown = explain_row(row, {"stars": arrays[0], "forks": arrays[1], "stars_per_day": arrays[2]})
    return {**base, **breakdown}
