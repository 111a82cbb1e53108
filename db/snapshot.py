"""The published database as a file to deploy read-only: ``agentrank snapshot --out FILE``.

The copy is made with ``VACUUM INTO`` (one read transaction, so it is consistent even while a
refresh writes), stripped of operator-only state, vacuumed again so no freed page keeps what was
dropped, switched to ``journal_mode=DELETE`` (a single file, nothing beside it), checked, and only
then renamed over FILE. Datasette serves it with ``datasette -i FILE -m FILE's metadata``.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from db.connection import PRIVATE_TABLE_PREFIXES, file_tables, is_snapshot_schema, is_working_schema
from db.paths import is_sqlite_file, staging_file
from db.scores import published_score_run

# Operator-side details that say nothing about the data: local file paths and error texts (which
# quote paths and hosts). The live server hides them from queries; the snapshot leaves them out.
_SCRUB_SQL = ("update rejects set item_ref = null", "update runs set error = null")
_PRIVATE_DETAILS = frozenset(
    {"file", "files", "path", "conflicting_duplicates", "corrections", "export", "error", "errors"}
)


def _without_private(value: Any) -> Any:
    """``value`` (a run's details) without the private keys, at any depth (e.g. each stage's error)."""
    if isinstance(value, dict):
        return {k: _without_private(v) for k, v in value.items() if k not in _PRIVATE_DETAILS}
    if isinstance(value, list):
        return [_without_private(v) for v in value]
    return value


class SnapshotError(Exception):
    """The snapshot cannot be made or failed its checks; FILE was left as it was."""


@dataclass
class SnapshotResult:
    path: Path
    metadata_path: Path
    size_bytes: int
    agents: int
    dropped: list[str]


def metadata_path_for(path: str | Path) -> Path:
    """Where the snapshot's Datasette metadata goes: ``agentrank.db`` → ``agentrank.metadata.json``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.metadata.json")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _strip_private(conn: sqlite3.Connection) -> list[str]:
    tables = [row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")]
    dropped = [name for name in tables if name.startswith(PRIVATE_TABLE_PREFIXES)]
    conn.execute("PRAGMA secure_delete = ON")
    with conn:
        for name in dropped:
            conn.execute(f'DROP TABLE "{name}"')
        for sql in _SCRUB_SQL:
            conn.execute(sql)
        rows = conn.execute("select id, details from runs where json_valid(details)").fetchall()
        conn.executemany(
            "update runs set details = ? where id = ?",
            [(json.dumps(_without_private(json.loads(details)), sort_keys=True), run) for run, details in rows],
        )
    return dropped


def check_snapshot(conn: sqlite3.Connection) -> int:
    """Raise SnapshotError unless the copy is sound and its scores recompute; returns the agents count."""
    from scoring.sql import RECOMPUTE_SQL

    problems = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise SnapshotError("integrity check failed: " + "; ".join(problems[:5]))
    try:
        conn.execute("insert into repos_fts(repos_fts) values ('integrity-check')")
        for (view,) in conn.execute("select name from sqlite_master where type = 'view'").fetchall():
            conn.execute(f'select * from "{view}" limit 1').fetchall()
        agents = conn.execute("select count(*) from agents").fetchone()[0]
        worst, mismatched = conn.execute(
            f"select max(abs(difference)), sum(rank != stored_rank) from ({RECOMPUTE_SQL})", {"run_id": ""}
        ).fetchone()
    except sqlite3.DatabaseError as e:
        raise SnapshotError(f"check failed: {e}") from None
    if agents == 0:
        raise SnapshotError("check failed: the published ranking is empty")
    if worst is None or worst > 1e-9 or mismatched:
        raise SnapshotError(f"check failed: the recompute query differs (max {worst}, {mismatched} ranks)")
    return agents


def replace_refusal(out: Path) -> str | None:
    """Why an existing SQLite file at ``out`` must not be replaced by a snapshot, or None.

    Only an earlier snapshot may be replaced (the weekly publish writes over last week's): a working
    AgentRank database (it holds the crawl's private tables, which a snapshot leaves out) or any
    other SQLite database would lose its data without a word."""
    if not (out.is_file() and out.stat().st_size and is_sqlite_file(out)):
        return None
    try:
        tables = file_tables(out)
    except sqlite3.DatabaseError as e:
        return f"{out} exists and cannot be read as a database ({e}): remove it or choose another path"
    if is_snapshot_schema(tables):
        return None
    if is_working_schema(tables):
        return f"{out} exists and is a working AgentRank database, not a snapshot: choose another path"
    return f"{out} exists and is an SQLite database that is not an AgentRank snapshot: remove it or choose another path"


def make_snapshot(db: sqlite_utils.Database, out: str | Path) -> SnapshotResult:
    """Write the snapshot to ``out`` atomically; FILE stays as it was if anything fails."""
    out = Path(out)
    if published_score_run(db) is None:
        raise SnapshotError("nothing is published yet: run `agentrank score` (or `agentrank refresh`) first")
    try:
        # Missing folders are created, as `mkdir -p`; the same directory as the target, so the final
        # rename is atomic; what a killed run left there is removed first.
        fd, tmp = staging_file(out)
        directory = tmp.parent
        os.fchmod(fd, 0o644)  # mkstemp makes it owner-only; the file is published
        os.close(fd)
    except OSError as e:
        raise SnapshotError(f"cannot write {out}: {e.strerror or e}") from None
    try:
        db.execute("VACUUM INTO ?", [str(tmp)])
        conn = sqlite3.connect(tmp)
        try:
            dropped = _strip_private(conn)
            conn.execute("VACUUM")
            conn.execute("PRAGMA journal_mode = DELETE")
            agents = check_snapshot(conn)
        finally:
            conn.close()
        _fsync(tmp)
        os.replace(tmp, out)
        _fsync(directory)
    except sqlite3.DatabaseError as e:
        tmp.unlink(missing_ok=True)
        raise SnapshotError(f"cannot write {out}: {e}") from None
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise SnapshotError(f"cannot write {out}: {e.strerror or e}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return SnapshotResult(
        path=out, metadata_path=metadata_path_for(out), size_bytes=out.stat().st_size, agents=agents, dropped=dropped
    )
