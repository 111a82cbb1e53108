"""Running Datasette on the database with the project's metadata, plugins and limits."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
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


# Descriptors kept for everything but client connections (the database, SQL threads, logs).
RESERVED_DESCRIPTORS = 64


def descriptor_budget(max_connections: int) -> int:
    """Client connections the process can hold: ``max_connections``, within the descriptor limit.

    Raises the soft limit on open files towards the hard one first (on Linux often 1,024 soft),
    so the setting is what decides, not the shell's default.
    """
    try:
        import resource
    except ImportError:  # not on this platform: the setting alone
        return max_connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = max_connections + RESERVED_DESCRIPTORS
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return max_connections
    return max(1, min(max_connections, soft - RESERVED_DESCRIPTORS))


def bounded_protocol(max_connections: int, header_timeout_s: float) -> type:
    """uvicorn's HTTP/1.1 protocol with a cap on open connections and a deadline for each request's headers.

    uvicorn accepts every connection and waits for its request without a deadline, so 21,000 slow
    connections (a byte now and then, or nothing) took every file descriptor. Here a connection
    past ``max_connections`` is closed as soon as it is accepted, and one that has not sent a
    whole request ``header_timeout_s`` after it opened (or after its previous response) is closed;
    one whose request is being answered is left alone. uvicorn's ``limit_concurrency`` answers
    ``503`` to requests at the cap.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.abort()  # connection_lost() forgets it
                return
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(header_timeout_s, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.cycle is not None and not self.cycle.response_complete:
                return  # a request is being answered: on_response_complete() arms the next deadline
            if not self.transport.is_closing():
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return BoundedH11Protocol


def uvicorn_config(app: Any, settings: ServeConfig) -> Any:
    """How ``agentrank serve`` runs uvicorn: its address and the connection bounds."""
    import uvicorn

    connections = descriptor_budget(settings.max_connections)
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        lifespan="on",
        http=bounded_protocol(connections, settings.header_timeout_s),
        limit_concurrency=connections,
        backlog=min(2048, connections),
        timeout_keep_alive=5,
        timeout_graceful_shutdown=settings.stop_timeout_s,
    )


class StopMessages(logging.Filter):
    """uvicorn's words when a stop passes ``stop_timeout_s``, for an operator: one line, no traceback.

    uvicorn logs the count of answers it cancels, then a traceback ("Exception in ASGI application")
    for each one: a cut-off download is what the deadline is for, not a fault of the program.
    """

    def __init__(self, stop_timeout_s: int) -> None:
        super().__init__()
        self.stop_timeout_s = stop_timeout_s

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            return False
        if "graceful shutdown" in str(record.msg) and record.args:
            record.msg = "stopping: %s answer(s) still being sent after stop_timeout_s (%s s) were cut off"
            record.args = (record.args[0] if isinstance(record.args, tuple) else "some", self.stop_timeout_s)
            record.levelno, record.levelname = logging.WARNING, "WARNING"  # asked for, not a fault
        return True


class Stopped(Exception):
    """SIGTERM (or SIGHUP) before or after uvicorn runs: a requested stop, like Ctrl-C."""


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    raise Stopped(signum)


def stop_reason(signum: int | None) -> str:
    """What stopped the server, in the words of its last line."""
    import signal

    if signum == signal.SIGINT:
        return "Ctrl-C"
    if signum == getattr(signal, "SIGHUP", None):
        return "SIGHUP (the terminal or session it ran in closed)"
    return signal.Signals(signum).name if signum is not None else "the server ended"


def _server(config: Any) -> Any:
    """uvicorn's server, stopped gracefully by the signals every command stops on
    (:func:`schedules.stops.stop_signals`: SIGHUP too unless it is ignored, as under ``nohup``),
    not only by SIGINT and SIGTERM. ``stopped_by`` is the first signal that stopped it."""
    import signal
    import threading

    import uvicorn
    from uvicorn.server import HANDLED_SIGNALS

    from schedules.stops import stop_signals

    class Server(uvicorn.Server):
        stopped_by: int | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.stopped_by is None:
                self.stopped_by = sig
            super().handle_exit(sig, frame)

        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            # uvicorn's own handlers cover SIGINT and SIGTERM; SIGHUP otherwise raised Terminated in
            # the event loop, which tore it down without the graceful stop (or hung on an answer
            # being sent).
            extra = [s for s in stop_signals() if s not in HANDLED_SIGNALS]
            if threading.current_thread() is not threading.main_thread():
                extra = []
            previous = {s: signal.signal(s, self.handle_exit) for s in extra}
            try:
                with super().capture_signals():
                    yield
            finally:
                for s, handler in previous.items():
                    signal.signal(s, handler)

    return Server(config)


def serve(db_path: str | Path, settings: ServeConfig) -> str:
    """Run Datasette in this process until stopped (Ctrl-C, SIGTERM from a service manager, or SIGHUP
    when its terminal closes, unless started under ``nohup``), then return what stopped it (for the
    last line): stopping a server is what the user asked for, not a failure."""
    import signal

    from db.connection import release_sidecars
    from schedules.stops import stop_signals

    limit_malloc_arenas()
    datasette = build_datasette(db_path, settings)
    # uvicorn shuts down gracefully on SIGINT or SIGTERM (and here SIGHUP), then raises the signal
    # again for the handler it found: Python's defaults would end the process there ("Aborted!" and
    # status 1 for Ctrl-C, death by the signal for SIGTERM), skipping the clean-up after serving
    # (the FILE.serving line, the -wal and -shm files). Each becomes an ordinary return here.
    config = uvicorn_config(datasette.app(), settings)  # configures uvicorn's loggers: filter after it
    logging.getLogger("uvicorn.error").addFilter(StopMessages(settings.stop_timeout_s))
    server = _server(config)
    previous = {signum: signal.signal(signum, _stop_on_sigterm) for signum in stop_signals()}
    stopped_by: int | None = None
    try:
        server.run()
    except KeyboardInterrupt:
        stopped_by = signal.SIGINT
    except Stopped as e:
        stopped_by = e.args[0]
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        # Datasette's readers (mode=ro) cannot remove the -wal and -shm files they made; once they
        # are closed, a connection that may write can, when no other process is using the file.
        for database in datasette.databases.values():
            database.close()
        if not settings.immutable:
            release_sidecars(db_path)
    return stop_reason(server.stopped_by or stopped_by)
