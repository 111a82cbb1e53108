"""The public pages at 2,300, 10,000 and 100,000 listed repos: first render and under load.

Builds each database quickly (synthetic listed repos, every one classified, scored and published
through ``agentrank.scorer``; no crawl), starts `agentrank serve` on it and measures the agents
page, a category page and a maker's page: the first render (a query string no one asked before,
so the page cache cannot answer; the median of 5) and requests/s and p99 at 16 connections.

    python bench/serve_scale.py [--sizes 2300,10000,100000] [--seconds 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from score_import import _synthetic_repos  # noqa: E402
from serve_load import WARM_UP_S, load_with_httpx, load_with_wrk, serving  # noqa: E402

from agentrank import scorer  # noqa: E402
from agentrank.serve import free_port  # noqa: E402
from db.store import open_store  # noqa: E402


def build(path: Path, n: int) -> tuple[str, str]:
    """A published database of ``n`` listed repos; returns (a middle-ranked repo, a category)."""
    db = open_store(path)
    _synthetic_repos(db, n, classified_every=1)
    scorer.score(db, as_of="2026-11-30T06:00:00Z")
    middle = db.execute("select full_name from agents where rank = ?", [max(1, n // 2)]).fetchone()[0]
    category = db.execute("select category from agents group by category order by count(*) desc").fetchone()[0]
    db.close()
    return middle, category


def first_render(url: str, tries: int = 5) -> float:
    """Median milliseconds of ``tries`` requests for pages the cache has not seen."""
    times = []
    for i in range(tries):
        sep = "&" if "?" in url else "?"
        started = time.perf_counter()
        response = httpx.get(f"{url}{sep}_first={time.time_ns()}{i}", timeout=60)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2300,10000,100000", help="listed repos, comma-separated")
    parser.add_argument("--seconds", type=int, default=5, help="load per page")
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args(argv)
    load = load_with_wrk if shutil.which("wrk") else load_with_httpx
    rows: list[tuple[str, str]] = []
    base: dict[str, dict[str, float]] = {}
    print(f"{'listed':>8} {'page':<14} {'first ms':>9} {'req/s':>8} {'p99 ms':>8}  vs smallest (first render)")
    for n in (int(size) for size in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="agentrank-serve-scale-") as tmp:
            path = Path(tmp) / "agentrank.db"
            started = time.perf_counter()
            middle, category = build(path, n)
            print(f"{n:,} listed repos scored and published in {time.perf_counter() - started:.1f} s", flush=True)
            port = free_port("127.0.0.1", 0)
            url = f"http://127.0.0.1:{port}"
            command = [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(path)]
            with serving([*command, "serve", "--port", str(port)], url):
                pages = {
                    "agents page": f"{url}/agentrank/agents",
                    "category page": f"{url}/agentrank/agents?category={quote(category)}",
                    "maker's page": f"{url}/-/agent/{middle}",
                }
                for page, target in pages.items():
                    first = first_render(target)
                    httpx.get(target, timeout=60)  # the page itself, once, before the load
                    load(target, WARM_UP_S, args.connections)  # warm-up, not counted
                    r = load(target, args.seconds, args.connections)
                    figures = {"first": first, "rps": r["rps"], "p99": r["p99"]}
                    base.setdefault(page, figures)
                    ratio = first / base[page]["first"]
                    print(f"{n:>8,} {page:<14} {first:9.1f} {r['rps']:8.1f} {r['p99']:8.1f}  {ratio:.2f}x", flush=True)
                    rows.append(
                        (
                            f"{page}, {n:,} listed",
                            f"first render {first:.0f} ms ({ratio:.2f}x), {r['rps']:.0f} req/s, p99 {r['p99']:.0f} ms",
                        )
                    )
    return rows


if __name__ == "__main__":
    main()
