"""Helpers for the first-hour tests: the demo built once in a folder, and the CLI run there as a user would."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DEMO_ARGS = ("demo", "--no-serve", "--size", "400", "--weeks", "4")


@dataclass
class Folder:
    path: Path
    demo_output: str = ""
    demo_stderr: str = ""  # the progress lines the demo wrote without a terminal

    @property
    def db(self) -> Path:
        return self.path / "agentrank.db"

    @property
    def riser(self) -> str:
        """The repo the demo suggests explaining (it climbed most last week)."""
        match = re.search(r"explain (\S+) --since previous", self.demo_output)
        assert match, self.demo_output
        return match.group(1)

    def copy(self, to: Path) -> Folder:
        shutil.copytree(self.path, to)
        return Folder(to, self.demo_output, self.demo_stderr)


def agentrank(folder: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``agentrank ARGS`` run in ``folder`` with no --db, no config and no GitHub API in the environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("AGENTRANK_DB", "AGENTRANK_CONFIG", "GITHUB_API_URL")}
    return subprocess.run(
        [sys.executable, "-m", "agentrank.cli", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def build_demo_folder(path: Path) -> Folder:
    path.mkdir(parents=True, exist_ok=True)
    result = agentrank(path, *DEMO_ARGS)
    assert result.returncode == 0, result.stderr
    return Folder(path, result.stdout, result.stderr)


def published_state(db: Path) -> tuple[list[tuple], list[tuple], int]:
    """What a visitor sees and what was recorded: the published pointer, the ranking, the run count."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        published = conn.execute("select * from published").fetchall()
        ranking = conn.execute("select * from agents order by rank").fetchall()
        runs = conn.execute("select count(*) from runs").fetchone()[0]
    finally:
        conn.close()
    return published, ranking, runs
