"""One writer at a time: a lock on the database file itself, and a lock file next to it.

The lock file (``DB.lock``, beside the real file a symlink points to) covers a database that does
not exist yet; once it exists, the file itself is locked too (``flock``), which holds whatever path
reaches it: a symlink, a bind mount or another spelling. A hard link would reach it as well, but a
second name also gives SQLite a second write-ahead log for the same file (it keeps one per path),
so a database file with more than one link is refused outright (``db.connection.check_links``).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from db.connection import DatabaseError, check_links

# One descriptor per database file (device, inode), kept open for the life of the process: closing
# a descriptor drops every POSIX lock this process holds on the file, SQLite's included.
_identity_fds: dict[tuple[int, int], int] = {}
_fds_lock = threading.Lock()


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
    check_links(Path(db_path))
    from db.store import check_writable_store

    check_writable_store(db_path)  # a file every write would refuse: refused before DB.lock exists
    path = lock_path(db_path)
    held = f"another agentrank run is already using {db_path}"
    later = f"{what} not started, try again when it has finished"
    lock = FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise LockHeld(f"{held} (lock {path} is held); {later}") from None
    except OSError as e:
        raise DatabaseError(f"cannot lock {db_path}: cannot create {path}: {e.strerror or e}") from None
    try:
        fd = _lock_identity(Path(db_path))
    except BlockingIOError:
        lock.release()
        raise LockHeld(f"{held} (through another path to the same file); {later}") from None
    except BaseException:
        lock.release()
        raise
    try:
        yield
    finally:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        lock.release()


def schedule_lock_path(db_path: str | Path) -> Path:
    """The scheduler's lock file, beside the real database file (as :func:`lock_path`)."""
    return Path(f"{Path(db_path).resolve()}.schedule.lock")


@contextmanager
def schedule_lock(db_path: str | Path) -> Iterator[None]:
    """Be the only ``agentrank schedule`` on ``db_path`` while the block runs, or fail at once with
    :class:`LockHeld` naming the one that is (its pid, written into the lock file).

    The run lock keeps two refreshes apart, but two schedulers would both go on running (each
    finding the week refreshed by the other). The OS releases this lock when the scheduler ends,
    even by SIGKILL; the file stays, as ``DB.lock`` does, and the next scheduler writes its own pid.
    """
    parent = Path(db_path).resolve().parent
    if not parent.is_dir():
        raise DatabaseError(f"cannot create {db_path}: directory {parent} does not exist")
    path = schedule_lock_path(db_path)
    lock = FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        pid = _holder_pid(path)
        running = f"another `agentrank schedule` (pid {pid})" if pid else "another `agentrank schedule`"
        raise LockHeld(
            f"{running} is already running on {db_path} (lock {path} is held): one scheduler per database, "
            "so this one is not started"
        ) from None
    except OSError as e:
        raise DatabaseError(
            f"cannot lock {db_path} for the scheduler: cannot create {path}: {e.strerror or e}"
        ) from None
    try:
        _write_pid(path)
        yield
    finally:
        lock.release()


def _write_pid(path: Path) -> None:
    """This process's id into the lock file it holds, for a second scheduler's message (a nicety:
    a file that cannot be written leaves the message without it)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def _holder_pid(path: Path) -> int | None:
    """The pid the lock's holder wrote, if it names a running process (None if not written yet)."""
    try:
        with open(path, "rb") as f:
            text = f.read(32).strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    try:
        os.kill(pid, 0)
    except PermissionError:
        return pid  # another user's process, alive
    except (OSError, OverflowError):
        return None
    return pid


def _lock_identity(db_path: Path) -> int | None:
    """flock the database file itself (not its path), or BlockingIOError; None when there is no file yet."""
    try:
        fd = os.open(db_path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise DatabaseError(f"cannot lock {db_path}: {e.strerror or e}") from None
    stat = os.fstat(fd)
    key = (stat.st_dev, stat.st_ino)
    with _fds_lock:
        kept = _identity_fds.get(key)
        if kept is None:
            _identity_fds[key] = fd
        else:
            os.close(fd)  # nothing of ours is locked through it yet, and SQLite does not know it
            fd = kept
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd
