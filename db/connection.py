"""Opening the database: pragmas, migrations, and the one way to write."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlite_utils

BUSY_TIMEOUT_MS = 10_000


class DatabaseError(Exception):
    """The database file cannot be opened or used; the message says why."""


def check_links(path: Path) -> None:
    """Refuse a database file that has another name (a hard link): SQLite keeps its write-ahead log
    per name, so two names are two logs for one file, and writes through both corrupt it."""
    try:
        links = path.stat().st_nlink
    except OSError:
        return
    if links > 1 and path.is_file():
        raise DatabaseError(
            f"{path} has {links} names (hard links): SQLite keeps a write-ahead log per name, so writes "
            "through two names corrupt it; use one name (remove the other links, or copy the file)"
        )


def connect(path: str | Path) -> sqlite_utils.Database:
    """Open (or create) the database file with WAL, a busy timeout and foreign keys; no migrations.

    Use ``db.store.open_store`` to get a database ready for the product.
    """
    path = Path(path)
    if path.exists() and path.is_dir():
        raise DatabaseError(f"{path} is a directory, not a database file")
    if not path.parent.exists():
        raise DatabaseError(f"cannot create {path}: directory {path.parent} does not exist")
    check_links(path)
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000)
        db = sqlite_utils.Database(conn)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal" and not is_snapshot(db):
            db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as e:
        raise DatabaseError(f"cannot use {path} as an AgentRank database: {e}{_read_only_hint(path)}") from None
    return db


# Operator-only tables (the crawl's state): hidden on the live server, left out of a snapshot.
PRIVATE_TABLE_PREFIXES = ("crawl_",)


def is_working_schema(tables: set[str]) -> bool:
    """Tables of a working database: it holds the crawl's private state, which a snapshot leaves out."""
    return any(name.startswith(PRIVATE_TABLE_PREFIXES) for name in tables)


def is_snapshot_schema(tables: set[str]) -> bool:
    """Tables of a published snapshot (``agentrank snapshot``): the ranking without the private ones."""
    return "agents" in tables and not is_working_schema(tables)


def is_snapshot(db: sqlite_utils.Database) -> bool:
    """A snapshot is one self-contained file in rollback-journal mode, served as it is (``datasette
    -i``), so opening it to read (``explain``) must not switch it to WAL, which rewrites its header."""
    return is_snapshot_schema({row[0] for row in db.execute("select name from sqlite_master where type = 'table'")})


SIDECARS = ("-wal", "-shm", "-journal")


def read_only_connection(path: str | Path) -> sqlite3.Connection:
    """A connection that reads the file at ``path`` and creates nothing beside it.

    ``mode=ro`` alone is not enough: reading a WAL database creates its -wal and -shm files, and
    only the last connection that may write removes them on close, so a read-only look (a check
    before a refusal) left both behind. With none of them there, every commit is in the file
    itself, so it is read as ``immutable=1`` (no locks, no sidecars); when they exist (another
    connection is using the file, or one was killed) ``mode=ro`` reads the log as well.
    """
    path = Path(path)
    quiet = not any(Path(f"{path}{end}").exists() for end in SIDECARS)
    # mode=ro with immutable=1 too: without it a file deleted just before this look was created again
    # (empty), and the next command took it for a new database.
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{'&immutable=1' if quiet else ''}", uri=True)


def release_sidecars(path: str | Path) -> None:
    """Let SQLite remove the -wal and -shm files beside ``path`` that read-only connections left: the
    last connection to close removes them, but only one that may write. Opening and closing one
    does it, and SQLite leaves them alone while another process still has the file open."""
    if not Path(path).is_file() or not any(Path(f"{path}{end}").exists() for end in ("-wal", "-shm")):
        return
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.execute("select count(*) from sqlite_master").fetchone()  # SQLite opens the file lazily
        finally:
            conn.close()
    except sqlite3.Error:
        pass  # a file this process cannot write: what was beside it stays, as before


def file_tables(path: Path) -> set[str]:
    """The table names of the SQLite file at ``path``, read through a read-only connection (nothing
    is written or created beside it); ``sqlite3.DatabaseError`` when it is not a database."""
    conn = read_only_connection(path)
    try:
        return {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
    finally:
        conn.close()


SNAPSHOT_REFUSAL = (
    "{path} is a published snapshot (a read-only copy made by `agentrank snapshot`): nothing writes "
    "into it; run this on the database it was made from, and snapshot that again"
)


def snapshot_refusal(path: str | Path) -> str | None:
    """Why a command that writes must not use ``path`` (a published snapshot), or None. Read through
    a read-only connection, so asking changes nothing and creates no file."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        tables = file_tables(path)
    except sqlite3.DatabaseError:
        return None  # not a database at all: the command's own open says so
    return SNAPSHOT_REFUSAL.format(path=path) if is_snapshot_schema(tables) else None


def foreign_refusal(path: str | Path) -> str | None:
    """Why ``path`` is some other program's SQLite file, or None. AgentRank's own files (working
    databases and snapshots) record their migrations under the set named ``agentrank``; a file with
    tables and no such record belongs to something else, and opening it would switch it to WAL and
    write our schema beside its tables. Read through a read-only connection: asking changes nothing."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        conn = read_only_connection(path)
        try:
            tables = {row[0] for row in conn.execute("select name from sqlite_master where type = 'table'")}
            if not tables:
                return None
            if (
                "_sqlite_migrations" in tables
                and conn.execute(
                    "select 1 from _sqlite_migrations where migration_set = 'agentrank' limit 1"
                ).fetchone()
            ):
                return None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None  # not a database at all (or unreadable): the command's own open says so
    shown = ", ".join(sorted(tables)[:3]) + (", …" if len(tables) > 3 else "")
    return (
        f"{path} is not an AgentRank database (it holds other tables: {shown}); nothing was changed: "
        "give --db a new file name or an AgentRank database"
    )


def immutable_refusal(path: str | Path) -> str | None:
    """Why ``path`` must not be served as immutable, or None: a working database (it holds the
    crawl's private tables) is written by every refresh, and a reader that was promised an
    unchanging file answers with errors ("database disk image is malformed") and stale pages."""
    path = Path(path)
    try:
        tables = file_tables(path)
    except sqlite3.DatabaseError:
        return None  # not a database: Datasette's own open says so
    if is_working_schema(tables):
        return (
            f"--immutable: {path} is a working database that every refresh writes to, not a snapshot; "
            "serve it without --immutable, or serve a snapshot of it (`agentrank snapshot --out FILE`)"
        )
    return None


def refuse_read_only(path: str | Path, why: str) -> None:
    """Refuse, in one line, a database file this user may not write, before SQLite opens it: SQLite
    would fall back to reading, then fail at the first write ("attempt to write a readonly
    database") and leave a read-only -shm file that broke the next command even after a chmod."""
    path = Path(path)
    if path.is_file() and not os.access(path, os.W_OK):
        raise DatabaseError(
            f"{path} is read-only: {why}; make it writable (chmod u+w {path}) or give --db a copy you can write"
        )


def _read_only_hint(path: Path) -> str:
    """Why SQLite could not open a file in a read-only folder, which its own message does not say."""
    folder = path.resolve().parent
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY) or not os.access(folder, os.W_OK)
    except OSError:
        return ""
    if not read_only:
        return ""
    return f" (the folder {folder} is read-only: SQLite writes its -wal and -shm files beside the database)"


DAMAGED = "the file is damaged: restore it from a backup (such as the last `agentrank snapshot`)"


def check_integrity(db: sqlite_utils.Database, path: str | Path) -> None:
    """Refuse a damaged database before a command writes into it (``PRAGMA quick_check``: every page
    and index structure, in one read of the file: 0.07 s for 71 MB, 40k repos over four weeks)."""
    try:
        rows = db.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.DatabaseError as e:
        raise DatabaseError(f"cannot use {path}: {e}; {DAMAGED}") from None
    if rows and rows[0][0] != "ok":
        detail = " ".join(str(rows[0][0]).split())[:200]
        raise DatabaseError(f"cannot use {path}: {detail}; {DAMAGED}")


@contextmanager
def write_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One write transaction, opened with BEGIN IMMEDIATE.

    A deferred BEGIN that reads and then writes fails at once with "database is locked" when
    another connection is writing, whatever the busy timeout; IMMEDIATE takes the write lock
    up front and so waits for it. Nested use becomes a savepoint.
    """
    conn = db.conn
    if conn.in_transaction:
        with db.atomic():
            yield db
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    try:
        conn.commit()
    except BaseException:
        # A COMMIT that fails can leave the transaction open (SQLITE_BUSY, a deferred constraint):
        # what it wrote is rolled back, not left holding the write lock for the next statement.
        if conn.in_transaction:
            conn.rollback()
        raise


# Page cache for a bulk write (KiB): the indexes of a million-row write stay in memory, and index
# builds sort in memory, instead of re-reading pages for each row.
BULK_CACHE_KIB = 64 * 1024


@contextmanager
def bulk_cache(db: sqlite_utils.Database) -> Iterator[None]:
    """A large page cache on this connection for the duration of one bulk write."""
    conn = db.conn
    before = conn.execute("pragma cache_size").fetchall()[0][0]
    conn.execute(f"pragma cache_size = -{BULK_CACHE_KIB}")
    try:
        yield
    finally:
        conn.execute(f"pragma cache_size = {before}")


def checkpoint_wal(db: sqlite_utils.Database) -> None:
    """Fold the write-ahead log into the database file and truncate it (after a long write)."""
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
