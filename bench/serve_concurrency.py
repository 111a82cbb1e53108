"""Many heavy requests at once against `agentrank serve`: server memory, temporary storage, and a
normal page's latency while the attack runs (issue 13). Loopback only; every phase is bounded in
requests and seconds.

    python bench/serve_concurrency.py [--size 4000] [--concurrency 60]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from agentrank.config import Config
from agentrank.demo import build_demo
from agentrank.serve import free_port

PHASE_TIMEOUT_S = 90  # no phase runs longer than this, whatever the server does


def attacks(db: str) -> list[tuple[str, str, dict[str, str]]]:
    return [
        (
            "19.8 MB results (hex zeroblob x 1000 rows)",
            f"/{db}.json",
            {"sql": "select hex(zeroblob(9900)) from repos limit 1000"},
        ),
        ("table pages with _size=max", f"/{db}/repos.json", {"_size": "max"}),
        (
            "endless recursive CTEs",
            f"/{db}.json",
            {"sql": "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c"},
        ),
        (
            "materialized CTE cross join (temp storage)",
            f"/{db}.json",
            {
                "sql": "with x as materialized (select a.description, b.topics from repos a, repos b) "
                "select count(*) from x"
            },
        ),
    ]


def rss_mb(pid: int, field: str = "VmRSS:") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def temp_bytes(pid: int, db_path: Path) -> int:
    """Bytes in files the server holds open other than the database (SQLite's temp files are unlinked)."""
    total = 0
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
            if not target.startswith("/") or target.startswith(str(db_path)) or "/dev/" in target:
                continue
            info = os.stat(fd)
        except OSError:
            continue
        if (info.st_mode & 0o170000) == 0o100000:
            total += info.st_size
    return total


class Sampler(threading.Thread):
    """Samples the server's RSS and temp storage, and a normal page's latency, until stopped."""

    def __init__(self, pid: int, db_path: Path, normal_url: str):
        super().__init__(daemon=True)
        self.pid, self.db_path, self.normal_url = pid, db_path, normal_url
        self.stop = threading.Event()
        self.rss = 0.0
        self.temp = 0
        self.latencies: list[float] = []
        self.failures = 0

    def run(self) -> None:
        with httpx.Client(timeout=30) as client:
            for _ in range(2000):  # bounded: at most 2000 samples
                if self.stop.is_set():
                    return
                self.rss = max(self.rss, rss_mb(self.pid))
                self.temp = max(self.temp, temp_bytes(self.pid, self.db_path))
                start = time.perf_counter()
                try:
                    ok = client.get(self.normal_url).status_code == 200
                except httpx.HTTPError:
                    ok = False
                self.latencies.append(time.perf_counter() - start)
                self.failures += not ok
                time.sleep(0.1)


async def fire(url: str, params: dict[str, str], n: int) -> Counter[str]:
    async with httpx.AsyncClient(timeout=PHASE_TIMEOUT_S, limits=httpx.Limits(max_connections=n)) as client:

        async def one() -> str:
            try:
                return str((await client.get(url, params=params)).status_code)
            except httpx.HTTPError as e:
                return type(e).__name__

        return Counter(await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), PHASE_TIMEOUT_S + 5))


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4000, help="synthetic population")
    parser.add_argument("--concurrency", type=int, default=60, help="heavy requests sent at once per attack")
    args = parser.parse_args(argv)
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="agentrank-concurrency-") as tmp:
        demo = build_demo(Path(tmp) / "agentrank.db", Path(tmp) / "agentrank-export.json", Config(), size=args.size)
        db = demo.db_path.stem
        port = free_port("127.0.0.1", 0)
        base = f"http://127.0.0.1:{port}"
        env = {**os.environ, "SQLITE_TMPDIR": tmp}
        command = [sys.executable, "-c", "from agentrank.cli import cli; cli()", "--db", str(demo.db_path)]
        server = subprocess.Popen(
            [*command, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{base}/-/versions.json", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            normal = f"{base}/{db}/agents"
            print(
                f"serve_concurrency: {demo.document['count']:,} agents, server pid {server.pid}, idle RSS "
                f"{rss_mb(server.pid):.0f} MB; {args.concurrency} concurrent requests per attack"
            )
            print(f"{'attack':<44} {'answers':<26} {'peak RSS':>9} {'temp':>8} {'normal page max':>16}")
            worst_latency, worst_rss, worst_temp = 0.0, 0.0, 0
            for name, path, params in attacks(db):
                sampler = Sampler(server.pid, demo.db_path, normal)
                sampler.start()
                answers = asyncio.run(fire(base + path, params, args.concurrency))
                sampler.stop.set()
                sampler.join(timeout=35)
                latency = max(sampler.latencies, default=float("nan"))
                worst_latency = max(worst_latency, latency)
                worst_rss, worst_temp = max(worst_rss, sampler.rss), max(worst_temp, sampler.temp)
                shown = ", ".join(f"{k}x{v}" for k, v in sorted(answers.items()))
                print(
                    f"{name:<44} {shown:<26} {sampler.rss:7.0f}MB {sampler.temp / 1e6:6.1f}MB "
                    f"{latency:14.2f}s{'' if not sampler.failures else f' ({sampler.failures} failed)'}"
                )
                rows.append((f"{name}: answers", shown))
            after = rss_mb(server.pid)
            print(
                f"worst: server RSS {worst_rss:.0f} MB (limit 600), temp storage {worst_temp / 1e6:.1f} MB, "
                f"normal page {worst_latency:.2f} s (limit 2 s); RSS afterwards {after:.0f} MB"
            )
            rows += [
                ("server peak RSS under attack", f"{worst_rss:.0f} MB"),
                ("temp storage peak", f"{worst_temp / 1e6:.1f} MB"),
                ("normal page worst latency during attack", f"{worst_latency:.2f} s"),
                ("server RSS afterwards", f"{after:.0f} MB"),
            ]
            return rows
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
