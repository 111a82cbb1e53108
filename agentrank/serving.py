"""Which servers are serving a database file: ``FILE.serving``, one line per server (pid and URL).

``agentrank serve`` and ``agentrank demo`` add their line while they serve and take it away when
they stop. A server keeps serving the file it opened even after the demo replaces it, so the
demo reads these lines before rebuilding and warns that a running server shows the old data.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def marker_path(db_path: Path) -> Path:
    return Path(f"{db_path}.serving")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def running_servers(db_path: Path) -> list[tuple[int, str]]:
    """(pid, URL) of every live server recorded for ``db_path``; lines of dead processes are ignored."""
    try:
        lines = marker_path(db_path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        pid, _, url = line.partition(" ")
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            found.append((int(pid), url))
    return found


@contextmanager
def serving(db_path: Path, url: str) -> Iterator[None]:
    """Record this process as serving ``db_path`` at ``url`` until the block ends."""
    path = marker_path(db_path)
    line = f"{os.getpid()} {url}"
    try:
        kept = [f"{pid} {u}" for pid, u in running_servers(db_path)]
        path.write_text("\n".join([*kept, line]) + "\n", encoding="utf-8")
    except OSError:
        pass  # a read-only folder: nothing to warn about later
    try:
        yield
    finally:
        try:
            others = [f"{pid} {u}" for pid, u in running_servers(db_path)]
            if others:
                path.write_text("\n".join(others) + "\n", encoding="utf-8")
            else:
                path.unlink(missing_ok=True)
        except OSError:
            pass


def stale_server_warning(db_path: Path) -> str | None:
    """A warning when a server is serving ``db_path`` (about to be replaced), else None."""
    servers = running_servers(db_path)
    if not servers:
        return None
    where = ", ".join(f"{url} (pid {pid})" for pid, url in servers)
    return (
        f"warning: a server is serving {db_path} at {where}; it keeps showing the old data after the demo "
        "rebuilds it: stop it (Ctrl-C) and serve again"
    )
