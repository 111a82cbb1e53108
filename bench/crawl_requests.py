"""Search requests a full crawl spends, against the lower bound, on emulator populations.

The lower bound is Σ over the crawl's final query parts of ⌈items/100⌉: the pages any crawler must
read to get those parts' results at 100 per page. What a crawl spends above it goes to probing
queries that then had to be split past the 1,000 cap and to the verification pass (each part's
first page fetched again). Wall time is with the emulator's rate limit off and no spacing, so it
measures the crawler and the emulator, not GitHub's 30 requests a minute (at 2 s a search call a
real crawl takes about requests × 2 s).

    .venv/bin/python bench/crawl_requests.py            # 10,000 and 100,000 repos
    .venv/bin/python bench/crawl_requests.py --sizes 10000
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentrank.config import Config
from agentrank.crawl import crawl
from crawler.emulator import GitHubEmulator
from crawler.emulator.population import generate_population
from crawler.search import CAP, PER_PAGE
from db.store import open_store

SIZES = (10_000, 100_000)
UNLIMITED = 10**9


def _should_list(repos: list, config: Config) -> set[int]:
    """What a complete crawl must list: the listing rule applied to the population itself."""
    topics, keywords = set(config.crawl.topics), [k.lower() for k in config.crawl.keywords]

    def matched(repo) -> bool:
        text = " ".join([repo.name, repo.description or "", *repo.topics]).lower()
        return bool(topics & set(repo.topics)) or any(k in text for k in keywords)

    return {r.id for r in repos if matched(r) and r.stars >= config.crawl.min_stars and not (r.fork or r.archived)}


def measure(size: int, seed: int = 2026) -> dict[str, Any]:
    started = time.perf_counter()
    repos = generate_population(size, seed=seed)
    generated = time.perf_counter() - started
    config = Config()
    config.github.min_interval_s = 0
    with (
        tempfile.TemporaryDirectory() as tmp,
        GitHubEmulator(repos, search_limit=UNLIMITED, unauthenticated_search_limit=UNLIMITED) as emulator,
    ):
        db = open_store(Path(tmp) / "bench.db")
        started = time.perf_counter()
        result = crawl(db, config, api_url=emulator.url, progress=False)
        wall = time.perf_counter() - started
        leaves = list(db.query("select total_count from crawl_parts where state != 'split'"))
        listed = {row[0] for row in db.execute("select id from repos where listed = 1")}
        splits = db.execute("select count(*) from crawl_parts where state = 'split'").fetchone()[0]
        db.close()
    lower = sum(math.ceil(min(p["total_count"], CAP) / PER_PAGE) for p in leaves)
    return {
        "repos": size,
        "listed": result.listed,
        "missed": len(_should_list(repos, config) - listed),
        "final parts": len(leaves),
        "split parts": splits,
        "search requests": result.search_requests,
        "lower bound": lower,
        "ratio": round(result.search_requests / lower, 3) if lower else None,
        "crawl wall s": round(wall, 1),
        "requests/s": round(result.search_requests / wall, 1) if wall else None,
        "population s": round(generated, 1),
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    columns = list(rows[0])
    widths = {
        c: max(len(c), *(len(f"{r[c]:,}" if isinstance(r[c], int) else str(r[c])) for r in rows)) for c in columns
    }
    print("  ".join(c.rjust(widths[c]) for c in columns))
    for row in rows:
        print("  ".join((f"{row[c]:,}" if isinstance(row[c], int) else str(row[c])).rjust(widths[c]) for c in columns))


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    args = parser.parse_args(argv if argv is not None else [])
    rows = [measure(size) for size in args.sizes]
    print("crawl: search requests vs the lower bound (Σ ⌈items/100⌉ over final parts), rate limit off")
    print_table(rows)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
