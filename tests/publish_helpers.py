"""Helpers for the publishing tests: a database built through the real pipeline, and a real server.

The database has two score runs a week apart (so history and rank changes exist), a repository
renamed between them, and one whose description is hostile HTML.
"""

from __future__ import annotations

import copy
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from agentrank import classifier, importer, scorer, serve
from agentrank.config import Config
from crawler.emulator.population import generate_population, to_search_item
from db.store import open_store

REFERENCE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
FIRST_AS_OF = "2026-11-23T06:00:00Z"
SECOND_AS_OF = "2026-11-30T06:00:00Z"
XSS_NAME = "hostile-owner/xss-agent"
XSS_DESCRIPTION = '<script>window.__agentrank_xss = 1</script><img src="x" onerror="window.__agentrank_xss = 2">'
OLD_NAME = "oldowner/old-agent"
NEW_NAME = "newowner/renamed-agent"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# The churn database's second week: a hostile newcomer (HTML, an RTL override, 10,000 characters).
# Its name is as long as GitHub allows a repo name to be (100 characters), in one word.
HOSTILE_NEW_NAME = "rtl-owner/long-agent-" + "x" * 89
HOSTILE_TEXT = (
    '<b onmouseover="alert(1)">bold</b> \u202egnp.exe <script>window.__agentrank_xss = 3</script> ' + "x" * 10_000
)


@dataclass
class PublishedDb:
    path: Path
    top_name: str  # rank 1 in the published run
    owner: str  # an owner with more than one repo
    category: str | None  # a category with at least five repos


def _rename(item: dict, full_name: str) -> dict:
    owner, name = full_name.split("/")
    item = copy.deepcopy(item)
    item.update(full_name=full_name, name=name, html_url=f"https://github.com/{full_name}")
    item["owner"]["login"] = owner
    return item


def build_published_db(path: Path, n: int = 300, seed: int = 11, weeks: int = 2, churn: bool = False) -> PublishedDb:
    """Import, classify and score through the pipeline, as ``weeks`` weekly runs (1 or 2) would.

    With ``churn`` the second week adds new repositories (one of them with hostile text) and archives two,
    so some are newly listed and some leave the list.
    """
    config = Config()
    repos = generate_population(n, seed=seed, reference=REFERENCE, star_floor=200)
    items = [to_search_item(r) for r in repos if not r.fork and not r.archived]
    # Everyone gets a second repo from the same owner in the second run: the "my agents" case.
    items[1] = _rename(items[1], items[0]["full_name"].split("/")[0] + "/second-agent")
    items[2] = _rename(items[2], OLD_NAME)
    xss = _rename(items[3], XSS_NAME)
    xss["description"] = XSS_DESCRIPTION
    xss["topics"] = ["ai-agent", "security"]
    items[3] = xss
    db = open_store(path)
    first = path.parent / "first-week.json"
    first.write_text(json.dumps(items), encoding="utf-8")
    # Dated when they were "fetched", as weekly saves are: the snapshots fall on the runs' as-of.
    importer.import_files(db, [first], min_stars=config.crawl.min_stars, observed_at=FIRST_AS_OF)
    classifier.classify_listed(db, uncertain_below=config.classify.uncertain_below)
    scorer.score(db, as_of=FIRST_AS_OF)
    if weeks > 1:
        _second_week(db, path.parent, items, config, churn)
    top = db.execute("select full_name from agents order by rank limit 1").fetchone()[0]
    category = db.execute(
        "select category from agents group by category having count(*) >= 5 order by count(*) desc limit 1"
    ).fetchone()
    owner = items[0]["full_name"].split("/")[0]
    if churn:  # benchmark attempts too, the top repo standing in for the ledger's directory agent
        from leaderboard.ingest import import_attempts
        from tests.benchmark_attempts import ATTEMPTS

        attempts = [{**a, "agent": top if a["agent"] == "acme/coder" else a["agent"]} for a in ATTEMPTS]
        ledger = path.parent / "attempts.json"
        ledger.write_text(json.dumps(attempts), encoding="utf-8")
        import_attempts(db, ledger, verified=True)
    db.close()
    return PublishedDb(path=path, top_name=top, owner=owner, category=category[0] if category else None)


def _newcomers(count: int) -> list[dict]:
    repos = generate_population(count * 3, seed=99, reference=REFERENCE, star_floor=200)
    items = [to_search_item(r) for r in repos if not r.fork and not r.archived][:count]
    items = [_rename(item, f"newcomer{index}/fresh-agent") for index, item in enumerate(items)]
    items[0] = _rename(items[0], HOSTILE_NEW_NAME)
    items[0]["description"] = HOSTILE_TEXT
    items[0]["topics"] = ["ai-agent"]
    return items


def _second_week(db, directory: Path, items: list[dict], config: Config, churn: bool = False) -> None:
    second_items = []
    for index, item in enumerate(items):
        item = copy.deepcopy(item)
        # Stars move unevenly in a week, so ranks change.
        item["stargazers_count"] = item["stargazers_count"] + (index * 37) % 400
        item["watchers_count"] = item["stargazers_count"]
        second_items.append(item)
    second_items[2] = _rename(second_items[2], NEW_NAME)
    if churn:
        for item in second_items[-2:]:  # archived: they leave the list
            item["archived"] = True
        second_items += _newcomers(4)
    second = directory / "second-week.json"
    second.write_text(json.dumps(second_items), encoding="utf-8")
    importer.import_files(db, [second], min_stars=config.crawl.min_stars, observed_at=SECOND_AS_OF)
    classifier.classify_listed(db, uncertain_below=config.classify.uncertain_below)
    scorer.score(db, as_of=SECOND_AS_OF)


def free_port() -> int:
    return serve.free_port("127.0.0.1", 0)


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log_path: Path

    def peak_rss_kb(self) -> int:
        """VmHWM of the server process: the most resident memory it has ever had."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise RuntimeError("no VmHWM in /proc status")


def wait_until_up(url: str, process: subprocess.Popen, log_path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/-/versions.json", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server did not answer within {seconds} s: {log_path.read_text()[-2000:]}")


@contextmanager
def running(command: list[str], port: int, log_path: Path, env: dict[str, str] | None = None) -> Iterator[Server]:
    """Run a server command on 127.0.0.1:port until the block ends."""
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, process, log_path)
        yield Server(url=url, process=process, log_path=log_path)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def agentrank_command(db_path: Path, *args: str) -> list[str]:
    """The command line a user runs: ``agentrank --db PATH ARGS…`` (this checkout's code)."""
    return [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(db_path), *args]


def agentrank_serve(db_path: Path, port: int, *extra: str) -> list[str]:
    """The command line a user runs: ``agentrank --db PATH serve --port N``."""
    return agentrank_command(db_path, "serve", "--port", str(port), *extra)


@dataclass
class Download:
    """A server sending ``big.csv`` to a client that has read only its first bytes."""

    process: subprocess.Popen
    reader: socket.socket
    received: bytes
    log_path: Path


@contextmanager
def a_download_under_way(db_path: Path, log_path: Path, *extra: str) -> Iterator[Download]:
    """``agentrank serve`` (with ``extra``) on ``db_path``, whose table ``big`` is far larger than the
    socket buffers, and a client of 1 kB receive window that has asked for it as streamed CSV and read
    the status line: the server is mid-answer, blocked on the client. Killed afterwards if still up."""
    port = free_port()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(agentrank_serve(db_path, port, *extra), stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process, log_path)
        reader = socket.socket()
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        reader.connect(("127.0.0.1", port))
        reader.sendall(b"GET /agentrank/big.csv?_stream=on&_size=max HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reader.settimeout(60)
        received = reader.recv(12)
        assert received.startswith(b"HTTP/1.1 200")  # the download has begun
        with reader:
            yield Download(process, reader, received, log_path)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
