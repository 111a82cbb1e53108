"""Issue 13: whatever the import accepts, the chain and the site handle.

Hostile items are generated from a seed (long and over-long text in every field, four-byte
characters, markup, odd and out-of-range dates, huge numbers); whatever ``import`` keeps must
classify, score, export and snapshot, and every page of the site must answer, on the snapshot
and on the working database, with the server's default limits and with the smallest allowed.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from agentrank.serve import build_datasette
from datasette_plugins.settings import ServeConfig
from tests.conftest import make_item, write_json

CHARS = ["a", "é", "\U0001f916", "\u202e", "<script>", '"', "'", "\x00", " ", "\ud83e", "-"]
LENGTHS = [0, 1, 49, 50, 51, 99, 100, 101, 350, 999, 1_000, 1_001, 2_000, 2_001, 10_000, 1_200_000]
DATES = [
    "2008-02-08T00:00:00Z",
    "2026-11-29T23:59:59+14:00",
    "2000-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59-01:00",
    "2026-02-30T00:00:00Z",
    "1999-12-31T23:59:59Z",
    None,
]
NUMBERS = [0, 1, 200, 10**6, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 10**40, -1, 1.5]


def _text(rng: random.Random, longest: int = LENGTHS[-1]) -> str:
    length = rng.choice([n for n in LENGTHS if n <= longest])
    if length > 20_000:
        return "agent " * (length // 6)
    return "".join(rng.choice(CHARS) for _ in range(length))


def hostile_items(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    items = []
    for i in range(n):
        item = make_item(seed=i + 1, id=i + 1, stargazers_count=rng.choice([200, 5_000, 90_000]))
        field = rng.choice(["description", "homepage", "language", "name", "topics", "license", "owner", "numbers"])
        if field == "topics":
            item["topics"] = [_text(rng, 2_001) for _ in range(rng.choice([0, 20, 21, 100]))]
        elif field == "license":
            item["license"] = {"key": _text(rng), "name": _text(rng), "spdx_id": _text(rng)}
        elif field == "owner":
            item["owner"] = {**item["owner"], "avatar_url": "https://x/" + _text(rng), "type": _text(rng)}
        elif field == "numbers":
            for key in ("stargazers_count", "forks_count", "open_issues_count", "size"):
                item[key] = rng.choice(NUMBERS)
        else:
            item[field] = _text(rng)
        item["created_at"] = rng.choice(DATES[:2] + DATES)
        item["pushed_at"] = rng.choice(DATES)
        items.append(item)
    return items


PAGES = [
    "/agentrank",
    "/agentrank/agents",
    "/agentrank/agents?_search=agent",
    "/agentrank/agents?_facet=category&_facet=language",
    "/agentrank/agents.json?_shape=objects&_size=max",
    "/agentrank/agents.csv?_size=max",
    "/agentrank/repos",
    "/agentrank/repos?_search=agent&_facet=language&_facet=license_spdx",
    "/agentrank/repos.csv?_size=max",
    "/agentrank/repos.json?_size=max&_sort=description",
    "/agentrank/top_agents",
    "/agentrank/scores",
    "/agentrank.json?sql=select+count(*)+from+agents",
    "/agentrank.json?sql=select+*+from+repos+order+by+length(description)+desc",
]


async def _statuses(db_path: Path, settings: ServeConfig, extra: list[str]) -> dict[str, int]:
    datasette = build_datasette(db_path, settings)
    found = {}
    for page in PAGES + extra:
        path = page.replace("/agentrank", "/" + db_path.stem, 1)
        response = await datasette.client.get(path)
        found[page] = response.status_code
        if response.status_code == 200 and path.endswith(".json") and "sql=" in path:
            assert "error" not in response.json() or not response.json()["error"], (path, response.text[:300])
    return found


@pytest.mark.parametrize("seed", [1, 2])
def test_whatever_the_import_accepts_the_chain_and_the_site_handle(tmp_path, run_cli, db_path, seed):
    items = hostile_items(seed, 60)
    run_cli("import", str(write_json(tmp_path / "items.json", items)))
    run_cli("classify")
    run_cli("score")
    run_cli("export", "--out", str(tmp_path / "site.json"))
    snapshot = tmp_path / "snapshot.db"
    run_cli("snapshot", "--out", str(snapshot))
    import sqlite3

    conn = sqlite3.connect(snapshot)
    longest = conn.execute("select full_name from repos order by length(description) desc limit 1").fetchone()[0]
    names = [r[0] for r in conn.execute("select full_name from agents order by rank limit 3")]
    conn.close()
    extra = [f"/-/agent/{name}" for name in [longest, *names]] + [f"/-/agent/{name}.json" for name in names]
    for settings in (ServeConfig(), ServeConfig(max_value_bytes=100_000, max_result_bytes=1_000_000)):
        for path in (snapshot, db_path):
            statuses = asyncio.run(_statuses(path, settings, extra))
            bad = {page: status for page, status in statuses.items() if status != 200}
            assert not bad, (path.name, settings.max_value_bytes, bad)
