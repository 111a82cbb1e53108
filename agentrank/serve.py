"""Starting Datasette on the database with the project's metadata and plugins."""

from __future__ import annotations

import socket
from importlib.resources import files
from pathlib import Path


def metadata_path() -> Path:
    return Path(str(files("datasette_plugins").joinpath("metadata.json")))


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


def datasette_args(db_path: str | Path, host: str, port: int) -> list[str]:
    return ["serve", str(db_path), "--host", host, "--port", str(port), "--metadata", str(metadata_path())]


def serve(db_path: str | Path, host: str, port: int) -> None:
    """Run Datasette in this process until interrupted."""
    from datasette.cli import cli as datasette_cli

    datasette_cli.main(args=datasette_args(db_path, host, port), prog_name="datasette")
