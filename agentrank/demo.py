"""``agentrank demo``: the weekly pipeline on the bundled synthetic population, end to end.

The population is served by the local GitHub emulator (``crawler/emulator/``) on 127.0.0.1 and
crawled exactly as GitHub would be, with the emulator's rate limit out of the way so the demo
stays fast; everything after the crawl is the weekly job's own pipeline (``refresh_database``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentrank.config import Config
from agentrank.exporter import SCHEMA_VERSION
from agentrank.pipeline import PipelineResult, refresh_database
from crawler.emulator import GitHubEmulator, SyntheticRepo, generate_population, to_search_item

DEMO_SIZE = 8000
DEMO_SEED = 2026


@dataclass
class DemoResult:
    db_path: Path
    export_path: Path
    items_path: Path
    document: dict[str, Any]
    refresh: PipelineResult
    schema_version: int = SCHEMA_VERSION


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


def build_demo(out_dir: Path, config: Config, size: int = DEMO_SIZE, seed: int = DEMO_SEED) -> DemoResult:
    """Build a fresh demo database and export in ``out_dir`` through the weekly pipeline."""
    out_dir.mkdir(parents=True, exist_ok=True)
    db_path = out_dir / "agentrank-demo.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    repos = generate_population(size, seed=seed, reference=_reference())
    items_path = out_dir / "demo-search-items.json"
    items_path.write_text(json.dumps(_matching_items(repos, config)), encoding="utf-8")
    demo_config = config.model_copy(deep=True)
    demo_config.github.min_interval_s = 0  # the emulator's rate limit is off: no need to space calls
    export_path = out_dir / "agentrank-export.json"
    unlimited = 10**9
    with GitHubEmulator(
        repos, search_limit=unlimited, unauthenticated_search_limit=unlimited, core_limit=unlimited
    ) as emulator:
        result = refresh_database(
            db_path,
            demo_config,
            what="demo",
            export_path=export_path,
            api_url=emulator.url,
            token=None,
            progress=False,
            fresh_crawl=True,
        )
    document = json.loads(export_path.read_text(encoding="utf-8"))
    return DemoResult(db_path, export_path, items_path, document, result)
