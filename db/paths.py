"""The folder an output file (the export, a snapshot) is written into."""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import time
from pathlib import Path

# A staging file's name carries the id of the process that writes it: ".site.json.4242.k3j_x9a1.tmp"
# (and SQLite's "-journal" beside a snapshot's). A run killed before its rename leaves the file
# behind; the next run removes those whose process is gone, never one another live process is writing.
_STAGING = re.compile(r"(?P<pid>\d+)\.\w+\.tmp(?:-journal|-wal|-shm)?")
# Staging files named before the process id was part of the name: removed once this old.
_OLD_STAGING = re.compile(r"\w+\.tmp(?:-journal|-wal|-shm)?")
OLD_STAGING_AGE_S = 24 * 3600


def make_folder_for(path: Path) -> Path:
    """Create the folder ``path`` goes in, as ``mkdir -p``, and return it.

    Raises ``OSError`` whose ``strerror`` says what is wrong, including the case ``mkdir`` reports as
    "File exists": a part of the path that is a file, not a folder.
    """
    directory = path.parent if str(path.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next((p for p in (directory, *directory.parents) if p.exists() and not p.is_dir()), directory)
        raise NotADirectoryError(20, f"{blocking} is a file, not a folder") from None
    return directory


def staging_file(path: Path) -> tuple[int, Path]:
    """Create the file ``path`` is written to before its atomic rename, beside it (the rename stays
    in one file system), after removing what killed runs left there; returns (fd, path) as
    ``tempfile.mkstemp`` does. Folders are created as by :func:`make_folder_for`."""
    directory = make_folder_for(path)
    remove_abandoned_staging(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    return fd, Path(name)


def remove_abandoned_staging(path: Path) -> list[Path]:
    """Remove the staging files for ``path`` whose writing process is gone; returns them."""
    prefix = f".{path.name}."
    directory = path.parent if str(path.parent) else Path(".")
    removed: list[Path] = []
    try:
        entries = list(directory.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        rest = entry.name[len(prefix) :]
        match = _STAGING.fullmatch(rest)
        if match:
            abandoned = not _writer_alive(int(match["pid"]), entry)
        elif _OLD_STAGING.fullmatch(rest):
            try:
                abandoned = time.time() - entry.stat().st_mtime > OLD_STAGING_AGE_S
            except OSError:
                continue
        else:
            continue
        if abandoned and entry.is_file() and not entry.is_symlink():
            try:
                entry.unlink()
                removed.append(entry)
            except OSError:
                pass  # not ours to remove (permissions): the next run tries again
    return removed


# This process's start: a staging file named with its own id but older than that was left by an
# earlier process that had the same id (a container's programs are often process 1 every run).
_STARTED = time.time()


def _writer_alive(pid: int, entry: Path) -> bool:
    """Is the process that named ``entry`` still running? Checked in this machine's (this
    container's) process table only: an export folder shared between machines needs one writer."""
    if pid == os.getpid():
        try:
            return entry.stat().st_mtime >= _STARTED - 1
        except OSError:
            return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or an id no process can have
        return False
    except PermissionError:
        return True  # another user's process, alive
    return True


SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def database_files(database: Path) -> dict[Path, str]:
    """The database and the files SQLite and the run lock keep beside it, each with what it is."""
    real = database.resolve()
    return {
        real: "the database itself",
        **{Path(f"{real}{suffix}"): f"the database's {suffix[1:]} file" for suffix in ("-wal", "-shm", "-journal")},
        Path(f"{real}.lock"): "the database's run lock",
        Path(f"{real}.schedule.lock"): "the database's scheduler lock",
    }


def database_file(conn: sqlite3.Connection) -> Path | None:
    """The file of the connection's main database (None for one in memory)."""
    name = next((row[2] for row in conn.execute("pragma database_list").fetchall() if row[1] == "main"), "")
    return Path(name) if name else None


def output_refusal(out: Path, database: Path | None, *, sqlite: bool) -> str | None:
    """Why an output file (the export: ``sqlite`` False; a snapshot: True) must not be written at
    ``out``, or None. Replacing it would lose data or break something in use: the database or a file
    beside it, a device or anything else that is not a regular file, or an existing file of the
    other kind (an export is not replaced by a database, nor a database by an export)."""
    what = database_files(database).get(out.resolve()) if database else None
    if what:
        return f"{out} is {what}"
    if out.is_dir():
        return f"{out} is a folder; give a file in it"
    if out.exists() and not out.is_file():
        return f"{out} is not a regular file"
    if out.is_file() and out.stat().st_size and is_sqlite_file(out) != sqlite:
        kind = "an SQLite database" if not sqlite else "not an SQLite database"
        return f"{out} exists and is {kind}: remove it or choose another path"
    return None
