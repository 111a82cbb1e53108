"""First visits at 1.3k and 31k listed repos, and the server's memory under distinct long query strings.

Builds the demo database (the pipeline, from the emulated crawl) at two sizes (4,000 and 96,000
emulated repos: about 1,300 and 31,000 listed), starts `agentrank serve` on each and asks, one at
a time, for pages no one asked for before (so the page cache cannot answer): 120 maker's pages of
repos drawn at random and 30 searches of words drawn from the descriptions. Prints p50 and p95 of
those first visits at each size and their ratio. Each page is asked for three times, each time
with a query string no one asked before (``_v=0``, ``1``, ``2``: three first renders): the figures
are the first try's and, per page, the least of the three, which a shared machine's other work
disturbs far less. Then, on the smaller server, 3,000 requests
whose query strings are distinct and 12 kB long (the attack on the page cache's key budget), and
the server's resident memory before and after.

    python bench/serve_first_visits.py [--sizes 4000,96000] [--long-requests 3000]
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from serve_load import serving  # noqa: E402

from agentrank.config import Config  # noqa: E402
from agentrank.demo import build_demo  # noqa: E402
from agentrank.serve import free_port  # noqa: E402

MAKERS = 120
SEARCHES = 30
QUERY_BYTES = 12_000


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def visits(db_path: Path, seed: int = 29) -> list[str]:
    """The paths of the first visits: maker's pages and searches, in a shuffled order."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    names = [row[0] for row in conn.execute("select full_name from agents order by rank")]
    words: Counter[str] = Counter()
    for (text,) in conn.execute("select description from agents where description is not null"):
        words.update(set(re.findall(r"[a-z]{4,}", text.lower())))
    conn.close()
    rng = random.Random(seed)
    common = [word for word, _ in words.most_common(300)]
    paths = [f"/-/agent/{quote(name, safe='/')}" for name in rng.sample(names, min(MAKERS, len(names)))]
    paths += [
        f"/{db_path.stem}/agents?_search={quote(word)}" for word in rng.sample(common, min(SEARCHES, len(common)))
    ]
    rng.shuffle(paths)
    return paths


TRIES = 3


def first_visits(url: str, paths: list[str]) -> dict[str, float]:
    """Milliseconds of the first visits (one at a time): p50 and p95 of the first try and of each
    page's least of :data:`TRIES` first renders, overall and per kind."""
    first: dict[str, list[float]] = {"maker": [], "search": []}
    least: dict[str, list[float]] = {"maker": [], "search": []}
    with httpx.Client(base_url=url, timeout=60) as client:
        client.get("/")  # the per-run work (populations, histograms) is done once, before
        client.get(paths[0] + ("&" if "?" in paths[0] else "?") + "_v=warm")
        for path in paths:
            kind = "search" if "_search=" in path else "maker"
            tries = []
            for attempt in range(TRIES):
                started = time.perf_counter()
                response = client.get(f"{path}{'&' if '?' in path else '?'}_v={attempt}")
                tries.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, (path, response.status_code)
            first[kind].append(tries[0])
            least[kind].append(min(tries))

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[18]

    figures = {}
    for name, timings in (("first", first), ("least", least)):
        every = [t for ts in timings.values() for t in ts]
        figures[f"{name} p50"] = statistics.median(every)
        figures[f"{name} p95"] = p95(every)
        for kind, ts in timings.items():
            figures[f"{name} {kind} p95"] = p95(ts)
    return figures


def long_query_strings(url: str, db_name: str, count: int, pid: int) -> tuple[float, float]:
    """RSS before and after ``count`` requests with distinct 12 kB query strings on cached pages."""
    pad = "x" * QUERY_BYTES
    pages = ["/", "/-/method", f"/{db_name}/agents.json?_shape=array&_size=1"]
    before = rss_mb(pid)
    with httpx.Client(base_url=url, timeout=60) as client:
        for i in range(count):
            client.get(f"{pages[i % len(pages)]}{'&' if '?' in pages[i % len(pages)] else '?'}_v{i}={pad}")
    return before, rss_mb(pid)


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4000,96000", help="emulated repos for the demo, comma-separated")
    parser.add_argument("--long-requests", type=int, default=3000)
    args = parser.parse_args(argv)
    rows: list[tuple[str, str]] = []
    bases: dict[str, float] = {}
    for index, size in enumerate(int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="agentrank-first-visits-") as tmp:
            started = time.perf_counter()
            demo = build_demo(Path(tmp) / "agentrank.db", Path(tmp) / "export.json", Config(), size=size)
            listed = demo.document["count"]
            print(f"demo of {size:,} repos: {listed:,} listed, built in {time.perf_counter() - started:.0f} s")
            port = free_port("127.0.0.1", 0)
            url = f"http://127.0.0.1:{port}"
            command = [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(demo.db_path)]
            with serving([*command, "serve", "--port", str(port)], url) as server:
                paths = visits(demo.db_path)
                figures = first_visits(url, paths)
                bases = bases or {name: figures[f"{name} p95"] for name in ("first", "least")}
                for name, what in (("first", "first try"), ("least", f"least of {TRIES}")):
                    ratio = figures[f"{name} p95"] / bases[name]
                    print(
                        f"{listed:>7,} listed, {what}: first visits ({MAKERS} maker's pages, {SEARCHES} searches) "
                        f"p50 {figures[f'{name} p50']:.1f} ms, p95 {figures[f'{name} p95']:.1f} ms "
                        f"({ratio:.2f}x the smallest); maker's pages p95 {figures[f'{name} maker p95']:.1f} ms, "
                        f"searches p95 {figures[f'{name} search p95']:.1f} ms",
                        flush=True,
                    )
                    rows.append(
                        (
                            f"first visits, {listed:,} listed, {what}",
                            f"p50 {figures[f'{name} p50']:.0f} ms, p95 {figures[f'{name} p95']:.0f} ms ({ratio:.2f}x)",
                        )
                    )
                if index == 0 and args.long_requests:
                    before, after = long_query_strings(url, demo.db_path.stem, args.long_requests, server.pid)
                    print(
                        f"{args.long_requests:,} requests with distinct {QUERY_BYTES // 1000} kB query strings: "
                        f"server RSS {before:.0f} MB before, {after:.0f} MB after",
                        flush=True,
                    )
                    rows.append(
                        (
                            f"server RSS, {args.long_requests:,} distinct {QUERY_BYTES // 1000} kB query strings",
                            f"{before:.0f} MB before, {after:.0f} MB after",
                        )
                    )
    return rows


if __name__ == "__main__":
    main()
