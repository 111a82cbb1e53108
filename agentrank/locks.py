"""One writer at a time: a lock file next to the database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from db.connection import DatabaseError


class LockHeld(Exception):
    """Another agentrank process holds the database's run lock."""


def lock_path(db_path: str | Path) -> Path:
    """The lock file beside the real database file, so a symlink or another spelling of the path
    takes the same lock."""
    return Path(f"{Path(db_path).resolve()}.lock")


@contextmanager
def run_lock(db_path: str | Path, what: str) -> Iterator[None]:
    """Hold the run lock for ``what`` or fail at once (never wait) with a clear message.

    The OS releases the lock when the holder dies, even by SIGKILL, so a crashed run never
    blocks the next one.
    """
    # Check the directory first: the lock file must not create it behind the user's back.
    parent = Path(db_path).resolve().parent
    if not parent.is_dir():
        raise DatabaseError(f"cannot create {db_path}: directory {parent} does not exist")
    path = lock_path(db_path)
    lock = FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise LockHeld(
            f"another agentrank run is already using {db_path} (lock {path} is held); "
            f"{what} not started, try again when it has finished"
        ) from None
    try:
        yield
    finally:
        lock.release()
