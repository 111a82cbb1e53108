"""Running Datasette on the database with the project's metadata, plugins and limits."""

from __future__ import annotations

import contextlib
import ctypes
import socket
import sys
from pathlib import Path
from typing import Any

from datasette_plugins.settings import ServeConfig


def free_port(host: str, preferred: int) -> int:
    """``preferred`` when it is free, else any free port."""
    for port in (preferred, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError(f"no free port on {host}")


def metadata_for(db_path: str | Path, settings: ServeConfig) -> dict[str, Any]:
    from datasette_plugins.metadata import build_metadata
    from db.agents import describe_file

    names, top, demo_note = describe_file(db_path)
    return build_metadata(Path(db_path).stem, settings, names, example=top, demo_note=demo_note)


def publish_snapshot(db, out: str | Path, settings: ServeConfig):
    """``agentrank snapshot``: the checked copy, then its Datasette metadata next to it."""
    from agentrank.exporter import write_json_atomic
    from db.snapshot import make_snapshot

    result = make_snapshot(db, out)
    write_json_atomic(metadata_for(result.path, settings), result.metadata_path)
    return result


def datasette_command(result, settings: ServeConfig) -> str:
    """The plain ``datasette`` command line that serves a snapshot like ``agentrank serve`` would."""

    def value(v: Any) -> str:
        return ("on" if v else "off") if isinstance(v, bool) else str(v)

    flags = " ".join(f"--setting {k} {value(v)}" for k, v in settings.datasette_settings().items())
    return f"datasette serve -i {result.path} -m {result.metadata_path} {flags}"


def build_datasette(db_path: str | Path, settings: ServeConfig):
    """The Datasette instance ``agentrank serve`` runs: read-only, bounded, with our metadata."""
    from datasette.app import Datasette

    path = str(db_path)
    # Datasette reads a file it was not told is immutable with mode=ro: no writes, and it sees the
    # weekly refresh's commits. immutable=1 is for a snapshot nothing writes to.
    files, immutables = ([], [path]) if settings.immutable else ([path], [])
    return Datasette(
        files,
        immutables=immutables,
        metadata=metadata_for(db_path, settings),
        settings=settings.datasette_settings(),
    )


# glibc's M_ARENA_MAX (mallopt parameter -8): how many malloc arenas threads may spread over.
_M_ARENA_MAX = -8
SERVER_ARENAS = 2


def limit_malloc_arenas(arenas: int = SERVER_ARENAS) -> None:
    """Keep the server's threads to a few malloc arenas.

    By default glibc gives threads up to eight arenas per core; Datasette's SQL threads then leave
    freed SQLite memory scattered over them and the process keeps it. Under the 60 concurrent heavy
    requests of bench/serve_concurrency.py the server peaked at 547-647 MB (RSS 321-568 MB after);
    with two arenas, 533-537 MB (about 305 MB after). It must run before the threads start; a C
    library without mallopt (musl) leaves things as they are.
    """
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).mallopt(_M_ARENA_MAX, arenas)


def serve(db_path: str | Path, settings: ServeConfig) -> None:
    """Run Datasette in this process until interrupted."""
    import uvicorn

    limit_malloc_arenas()
    datasette = build_datasette(db_path, settings)
    uvicorn.run(datasette.app(), host=settings.host, port=settings.port, log_level="warning", lifespan="on")
