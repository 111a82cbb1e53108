"""``agentrank demo``: the main job on the bundled synthetic population, end to end.

The population is served by the local GitHub emulator (``crawler/emulator.py``) on 127.0.0.1 and
crawled exactly as GitHub would be, with the emulator's rate limit out of the way so the demo
stays fast; then classify, score and export run as in the weekly job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank import pipeline
from agentrank.config import Config
from agentrank.crawl import CrawlResult, crawl
from crawler.emulator import GitHubEmulator
from crawler.emulator.population import SyntheticRepo, generate_population, to_search_item
from db.connection import open_db

DEMO_SIZE = 8000
DEMO_SEED = 2026


@dataclass
class DemoResult:
    db_path: Path
    export_path: Path
    items_path: Path
    document: dict[str, Any]
    crawl: CrawlResult | None = None


def _matches(item: dict[str, Any], config: Config) -> bool:
    """Would one of the configured searches return this item? (topic or keyword match)."""
    topics = set(item.get("topics") or [])
    if topics & set(config.crawl.topics):
        return True
    text = " ".join([item["name"], item.get("description") or "", *topics]).lower()
    return any(keyword.lower() in text for keyword in config.crawl.keywords)


def _reference() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


def _matching_items(repos: list[SyntheticRepo], config: Config) -> list[dict[str, Any]]:
    return [item for item in map(to_search_item, repos) if _matches(item, config)]


def crawl_demo_population(db: sqlite_utils.Database, config: Config, repos: list[SyntheticRepo]) -> CrawlResult:
    """Serve ``repos`` from the GitHub emulator on 127.0.0.1 and crawl them into ``db``."""
    demo_config = config.model_copy(deep=True)
    demo_config.github.min_interval_s = 0  # the emulator's rate limit is off: no need to space calls
    unlimited = 10**9
    with GitHubEmulator(
        repos, search_limit=unlimited, unauthenticated_search_limit=unlimited, core_limit=unlimited
    ) as emulator:
        return crawl(db, demo_config, api_url=emulator.url, token=None, progress=False, fresh=True)


def build_demo(out_dir: Path, config: Config, size: int = DEMO_SIZE, seed: int = DEMO_SEED) -> DemoResult:
    """Build a fresh demo database and export in ``out_dir`` through the normal pipeline."""
    out_dir.mkdir(parents=True, exist_ok=True)
    db_path = out_dir / "agentrank-demo.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    repos = generate_population(size, seed=seed, reference=_reference())
    items_path = out_dir / "demo-search-items.json"
    items_path.write_text(json.dumps(_matching_items(repos, config)), encoding="utf-8")
    db = open_db(db_path)
    pipeline.prepare(db)
    crawled = crawl_demo_population(db, config, repos)
    pipeline.classify_listed(db, config)
    pipeline.score(db)
    export_path = out_dir / "agentrank-export.json"
    document = pipeline.export(db, export_path)
    db.close()
    return DemoResult(db_path=db_path, export_path=export_path, items_path=items_path, document=document, crawl=crawled)
