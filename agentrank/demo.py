"""``agentrank demo``: the main job on the bundled synthetic population, end to end."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentrank import pipeline
from agentrank.config import Config
from crawler.population import generate_population, to_search_item
from db.connection import open_db

DEMO_SIZE = 8000
DEMO_SEED = 2026


@dataclass
class DemoResult:
    db_path: Path
    export_path: Path
    items_path: Path
    document: dict[str, Any]


def _matches(item: dict[str, Any], config: Config) -> bool:
    """Would one of the configured searches return this item? (topic or keyword match)."""
    topics = set(item.get("topics") or [])
    if topics & set(config.crawl.topics):
        return True
    text = " ".join([item["name"], item.get("description") or "", *topics]).lower()
    return any(keyword.lower() in text for keyword in config.crawl.keywords)


def demo_items(config: Config, size: int = DEMO_SIZE, seed: int = DEMO_SEED, reference: datetime | None = None):
    """The search items the configured queries would return from the demo population."""
    reference = reference or datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    repos = generate_population(size, seed=seed, reference=reference)
    return [item for item in map(to_search_item, repos) if _matches(item, config)]


def build_demo(out_dir: Path, config: Config, size: int = DEMO_SIZE, seed: int = DEMO_SEED) -> DemoResult:
    """Build a fresh demo database and export in ``out_dir`` through the normal pipeline."""
    out_dir.mkdir(parents=True, exist_ok=True)
    db_path = out_dir / "agentrank-demo.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    items_path = out_dir / "demo-search-items.json"
    items_path.write_text(json.dumps(demo_items(config, size, seed)), encoding="utf-8")
    db = open_db(db_path)
    pipeline.prepare(db)
    pipeline.import_files(db, [items_path], config)
    pipeline.classify_listed(db, config)
    pipeline.score(db)
    export_path = out_dir / "agentrank-export.json"
    document = pipeline.export(db, export_path)
    db.close()
    return DemoResult(db_path=db_path, export_path=export_path, items_path=items_path, document=document)
