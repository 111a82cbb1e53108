"""The one way to open the product's database: connect, migrate, seed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlite_utils

from classify.categories import CATEGORIES
from db.categories import save_categories
from db.connection import (
    DatabaseError,
    check_integrity,
    connect,
    foreign_refusal,
    read_only_connection,
    refuse_read_only,
    snapshot_refusal,
    write_transaction,
)
from db.migrations import migrations


def migrate(db: sqlite_utils.Database) -> None:
    """Apply pending migrations, holding the write lock so two processes cannot race.

    A database with a migration this code does not know was made by a newer AgentRank: its schema
    is not the one this code writes, so it is refused before anything touches it."""
    refuse_newer_schema(db)
    if migrations.pending(db):
        with write_transaction(db):
            migrations.apply(db)


def refuse_newer_schema(db: sqlite_utils.Database) -> None:
    known = {m.name for m in migrations._migrations}
    unknown = [m.name for m in migrations.applied(db) if m.name not in known]
    if unknown:
        raise DatabaseError(
            f"this database was made by a newer AgentRank (its schema has {unknown[-1]}, which this version "
            "does not know): upgrade AgentRank to use it"
        )


def check_writable_store(path: str | Path) -> None:
    """Refuse, by reading only, a file no command could write into: not an SQLite database, made by
    a newer AgentRank, damaged, or another program's. The run lock calls it before it creates the
    lock file (DB.lock), so such a refusal leaves nothing behind; ``open_store`` checks again under
    the lock. A missing or empty file passes: the command creates the database."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return
    refuse_read_only(path, "this command writes into it")
    if refusal := foreign_refusal(path):
        raise DatabaseError(refusal)
    try:
        conn = read_only_connection(path)
    except sqlite3.Error:
        return  # cannot even be opened to read (permissions): the command's own open says why
    try:
        try:
            conn.execute("select count(*) from sqlite_master").fetchone()
        except sqlite3.DatabaseError as e:
            raise DatabaseError(f"cannot use {path} as an AgentRank database: {e}") from None
        db = sqlite_utils.Database(conn)
        check_integrity(db, path)
        refuse_newer_schema(db)
    finally:
        conn.close()


def open_store(path: str | Path, *, must_exist: bool = False, check: bool = False) -> sqlite_utils.Database:
    """Open the database at ``path`` ready for use: pragmas set, migrations applied, categories seeded.

    Every command and job opens the database through here, so none has to remember a second step
    (as ``ensure_db_shape`` does in github-to-sqlite). With ``must_exist`` a missing file is a
    ``DatabaseError`` instead of a new, empty database: read-only commands use it so that a
    mistake never leaves a file behind. With ``check`` (every command that writes) a damaged file
    is refused before anything is written into it (``check_integrity``).
    """
    path = Path(path)
    # A zero-byte file is no database either: opening it would write the schema into it.
    if must_exist and (not path.exists() or (path.is_file() and path.stat().st_size == 0)):
        raise DatabaseError(f"no database at {path}: run `make demo`, `agentrank crawl` or `agentrank import` first")
    if refusal := foreign_refusal(path):
        raise DatabaseError(refusal)
    if check and (refusal := snapshot_refusal(path)):
        raise DatabaseError(refusal)
    db = connect(path)
    try:
        if check:
            check_integrity(db, path)
        migrate(db)
        save_categories(db, CATEGORIES)
    except DatabaseError:
        db.close()
        raise
    except sqlite3.DatabaseError as e:
        db.close()
        raise DatabaseError(f"cannot use {path} as an AgentRank database: {e}") from None
    return db
