"""Shared set-up for the crawler tests: the emulator, configs, the truth a crawl must find."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank.config import Config
from agentrank.crawl import CrawlResult, crawl
from crawler.clock import Clock, FakeClock
from crawler.emulator import GitHubEmulator
from crawler.emulator.population import SyntheticRepo, generate_population

REFERENCE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
TOKEN = "ghp_TESTTOKEN000000000000000000000000000"
UNLIMITED = 10**9


def crawl_config(*, topics: list[str] | None = None, keywords: list[str] | None = None, **github: Any) -> Config:
    """The default config with crawl settings for tests: no spacing unless asked for."""
    config = Config()
    config.github.min_interval_s = github.pop("min_interval_s", 0.0)
    for key, value in github.items():
        setattr(config.github, key, value)
    if topics is not None:
        config.crawl.topics = topics
    if keywords is not None:
        config.crawl.keywords = keywords
    return config


def write_config(path: Path, **github: Any) -> Path:
    lines = ["[github]"] + [f"{key} = {json.dumps(value)}" for key, value in github.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def population(n: int = 400, seed: int = 3) -> list[SyntheticRepo]:
    return generate_population(n, seed=seed, reference=REFERENCE)


@contextmanager
def emulated(
    repos: Iterable[SyntheticRepo] = (), *, clock: Clock | None = None, **options: Any
) -> Iterator[GitHubEmulator]:
    """An emulator on 127.0.0.1; its rate limit is off unless a limit is passed."""
    options.setdefault("search_limit", UNLIMITED)
    options.setdefault("unauthenticated_search_limit", options["search_limit"])
    with GitHubEmulator(repos, clock=clock, **options) as emulator:
        yield emulator


def run_crawl(
    db: sqlite_utils.Database,
    emulator: GitHubEmulator,
    config: Config | None = None,
    *,
    clock: Clock | None = None,
    token: str | None = None,
    **options: Any,
) -> CrawlResult:
    options.setdefault("progress", False)
    return crawl(
        db, config or crawl_config(), api_url=emulator.url, token=token, clock=clock or emulator.clock, **options
    )


def matches(repo: SyntheticRepo, config: Config) -> bool:
    """Whether one of the configured searches matches the repo (topic, or keyword in the text)."""
    if set(repo.topics) & set(config.crawl.topics):
        return True
    text = " ".join([repo.name, repo.description or "", *repo.topics]).lower()
    return any(keyword.lower() in text for keyword in config.crawl.keywords)


def expected_listed(repos: Iterable[SyntheticRepo], config: Config) -> set[int]:
    """The listing rule applied to the population itself: the set a complete crawl must list."""
    return {
        r.id
        for r in repos
        if matches(r, config) and r.stars >= config.crawl.min_stars and not r.fork and not r.archived
    }


def listed_ids(db: sqlite_utils.Database) -> set[int]:
    return {row[0] for row in db.execute("select id from repos where listed = 1")}


def fake_clock() -> FakeClock:
    return FakeClock()


def gaps(times: list[float]) -> list[float]:
    return [round(b - a, 6) for a, b in zip(times, times[1:], strict=False)]


def started(db_path: Path, config: Path, command: str, **popen: Any) -> Any:
    """`agentrank --config CONFIG COMMAND` in a child process, its stderr a text pipe, unbuffered."""
    import os
    import subprocess

    from tests.publish_helpers import agentrank_command

    return subprocess.Popen(
        agentrank_command(db_path, "--config", str(config), command),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        **popen,
    )


def started_crawling(db_path: Path, config: Path, emulator: GitHubEmulator, command: str) -> Any:
    """`agentrank COMMAND` in a child process, returned once it has sent its first search request."""
    import time

    process = started(db_path, config, command)
    deadline = time.monotonic() + 60
    while not emulator.search_requests():
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    return process
