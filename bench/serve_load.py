"""Load on the published directory: requests/s and latency, then the server's memory under hostile SQL.

Builds the demo database through the pipeline, starts `agentrank serve` on it (the production
path: mode=ro, the limits plugin, the public settings) and, next to it, plain Datasette 0.65.5
(no plugins) on the same rows copied into a plain table with the same facets, sort and settings,
and drives both from this process over loopback, with `wrk` when it is installed and an async
httpx client otherwise.

    python bench/serve_load.py [--size 8000] [--seconds 10] [--connections 16] [--client auto|wrk|httpx]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx

from agentrank.config import Config
from agentrank.demo import DEMO_SIZE, build_demo
from agentrank.serve import free_port

# The queries the limits are for (reliability.md §4.3), each with what it would cost unprotected.
HOSTILE = [
    (
        "recursive CTE, runs forever",
        "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c",
    ),
    ("4-way cross join", "select count(*) from repos a, repos b, repos c, repos d"),
    ("2 GB string", "select length(replace(hex(zeroblob(400000000)), '0', '00'))"),
    ("900 MB blob", "select length(randomblob(900000000))"),
    ("900 MB printf", "select length(printf('%.*c', 900000000, 'x'))"),
    ("22 MB rows x 1000", "select " + ", ".join(["zeroblob(249999)"] * 90) + " from repos"),
    ("write", "delete from repos"),
    ("load_extension", "select load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')"),
]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_until_up(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/-/versions.json", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit(f"the server did not start (exit code {process.poll()})")


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def load_with_wrk(url: str, seconds: int, connections: int) -> dict[str, float]:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))
    errors = sum(int(n) for n in re.findall(r"(?:Non-2xx or 3xx responses|timeout) (\d+)", out))
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50": _ms(latency["50"]) if "50" in latency else float("nan"),
        "p99": _ms(latency["99"]) if "99" in latency else float("nan"),
        "errors": errors,
    }


def load_with_httpx(url: str, seconds: int, connections: int) -> dict[str, float]:
    async def run() -> dict[str, float]:
        timings: list[float] = []
        errors = 0
        deadline = time.perf_counter() + seconds
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:

            async def worker() -> None:
                nonlocal errors
                while time.perf_counter() < deadline:
                    start = time.perf_counter()
                    response = await client.get(url)
                    timings.append((time.perf_counter() - start) * 1000)
                    errors += response.status_code >= 400

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(connections)))
            elapsed = time.perf_counter() - started
        cuts = statistics.quantiles(timings, n=100)
        return {"rps": len(timings) / elapsed, "p50": cuts[49], "p99": cuts[98], "errors": errors}

    return asyncio.run(run())


PLAIN_SERVER = """
import sys
sys._called_from_test = True  # Datasette then loads no plugins from entry points: plain 0.65.5
from datasette.cli import cli
cli(sys.argv[1:])
"""


def plain_copy(db_path: Path, out: Path) -> Path:
    """The published ranking's rows as a plain table ``agents`` (no indexes) in a file of its own."""
    import sqlite3

    conn = sqlite3.connect(out)
    conn.execute("attach database ? as src", [f"file:{db_path}?mode=ro"])
    conn.execute("create table agents as select * from src.agents order by rank")
    conn.commit()
    conn.close()
    return out


def start_server(command: list[str], url: str) -> subprocess.Popen:
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(url, server)
    except BaseException:
        server.terminate()
        raise
    return server


@contextmanager
def serving(command: list[str], url: str) -> Iterator[subprocess.Popen]:
    """The server ``command`` starts, up at ``url``, stopped when the block ends."""
    server = start_server(command, url)
    try:
        yield server
    finally:
        server.terminate()
        server.wait(timeout=10)


def plain_datasette(path: Path, port: int, settings: Config) -> list[str]:
    """``datasette serve`` without our plugin, with the same facets, sort, page size and settings."""
    import json

    options = {"sort": "rank", "size": 50, "facets": ["category", "license_spdx", "language", "activity_bucket"]}
    metadata = path.with_suffix(".metadata.json")
    metadata.write_text(json.dumps({"databases": {path.stem: {"tables": {"agents": options}}}}))
    flags = []
    for name, value in settings.serve.datasette_settings().items():
        shown = ("on" if value else "off") if isinstance(value, bool) else str(value)
        flags += ["--setting", name, shown]
    return [sys.executable, "-c", PLAIN_SERVER, "serve", str(path), "-m", str(metadata), "--port", str(port), *flags]


WARM_UP_S = 1


def measure(name: str, target: str, args: argparse.Namespace, use_wrk: bool) -> dict[str, float]:
    assert httpx.get(target, timeout=30).status_code == 200, target
    load = load_with_wrk if use_wrk else load_with_httpx
    load(target, WARM_UP_S, args.connections)  # a short warm-up, not counted: the figures are the steady state
    r = load(target, args.seconds, args.connections)
    print(f"{name:<44} {r['rps']:8.1f} {r['p50']:8.1f} {r['p99']:8.1f} {r['errors']:7d}", flush=True)
    return r


def main(argv: list[str] | None = None) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=DEMO_SIZE, help="synthetic population (the demo's default)")
    parser.add_argument("--seconds", type=int, default=10, help="load per target")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--client", choices=["auto", "wrk", "httpx"], default="auto")
    args = parser.parse_args(argv)
    use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk") is not None)

    with tempfile.TemporaryDirectory(prefix="agentrank-serve-load-") as tmp:
        started = time.perf_counter()
        config = Config()
        demo = build_demo(Path(tmp) / "agentrank.db", Path(tmp) / "agentrank-export.json", config, size=args.size)
        agents = demo.document["count"]
        middle = demo.document["agents"][agents // 2]["full_name"]
        category = demo.document["agents"][0]["category"]
        db_name = demo.db_path.stem
        print(f"serve_load: demo database with {agents:,} agents built in {time.perf_counter() - started:.1f} s")

        plain_port = free_port("127.0.0.1", 0)
        plain_url = f"http://127.0.0.1:{plain_port}"
        plain_path = plain_copy(demo.db_path, Path(tmp) / "plain.db")
        port = free_port("127.0.0.1", 0)
        url = f"http://127.0.0.1:{port}"
        command = [
            sys.executable,
            "-c",
            "from agentrank.cli import cli; cli()",
            "--db",
            str(demo.db_path),
            "serve",
            "--port",
            str(port),
        ]
        plain = start_server(plain_datasette(plain_path, plain_port, config), plain_url)
        try:
            server = start_server(command, url)
        except BaseException:
            plain.terminate()
            raise
        try:
            plugins = httpx.get(f"{plain_url}/-/plugins.json", timeout=10).json()
            assert not plugins, f"the plain Datasette loaded plugins: {plugins}"
            idle = peak_rss_mb(server.pid)
            sql = quote("select full_name, score, stars from agents where category = 'coding' order by rank limit 50")
            # Plain Datasette has no directory pages: its "home" is its index and its "category page"
            # the table filtered on the category, which is what each of ours replaces.
            compared = [
                ("home page /", "/"),
                ("agents page (HTML, 4 facets)", "/{db}/agents"),
                (f"category page ?category={category}", f"/{{db}}/agents?category={quote(category)}"),
            ]
            owner = middle.split("/")[0]
            targets = [
                *((f"agentrank serve: {name}", url + path.format(db=db_name)) for name, path in compared),
                ("agentrank serve: category page /-/category (HTML)", f"{url}/-/category/{category}"),
                ("agentrank serve: owner page (HTML)", f"{url}/-/owner/{owner}"),
                ("agentrank serve: badge (SVG)", f"{url}/-/agent/{middle}/badge.svg"),
                ("agentrank serve: feed, newly listed (Atom)", f"{url}/-/feeds/new.atom"),
                ("agentrank serve: leaderboard page (HTML)", f"{url}/-/leaderboard"),
                ("agentrank serve: method page (HTML)", f"{url}/-/method"),
                ("agentrank serve: maker's page (HTML)", f"{url}/-/agent/{middle}"),
                ("agentrank serve: maker's page (JSON)", f"{url}/-/agent/{middle}.json"),
                ("agentrank serve: SQL query (JSON, uncached)", f"{url}/{db_name}.json?_shape=array&sql={sql}"),
                *((f"plain Datasette: {name}", plain_url + path.format(db="plain")) for name, path in compared),
            ]
            client = "wrk -t2" if use_wrk else "async httpx"
            print(
                f"load: {client}, {args.connections} connections, {args.seconds} s per target, loopback; "
                f"agentrank serve pid {server.pid}, plain Datasette 0.65.5 pid {plain.pid} (same rows, same facets)"
            )
            print(f"{'target':<44} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
            rows: list[tuple[str, str]] = []
            results = {}
            for name, target in targets:
                r = results[name] = measure(name, target, args, use_wrk)
                rows.append((name, f"{r['rps']:.1f} req/s, p50 {r['p50']:.0f} ms, p99 {r['p99']:.1f} ms"))
            for name, _ in compared:
                ours, theirs = results[f"agentrank serve: {name}"], results[f"plain Datasette: {name}"]
                ratio = ours["rps"] / theirs["rps"]
                print(f"{name}: agentrank serve / plain Datasette = {ratio:.1f}x requests/s")
                rows.append((f"{name}: agentrank serve / plain Datasette", f"{ratio:.1f}x req/s"))
            loaded = peak_rss_mb(server.pid)

            print("hostile SQL (one at a time; then the server must still answer):")
            print(f"{'query':<28} {'seconds':>8} {'peak MB':>8}  answer")
            for name, query in HOSTILE:
                start = time.perf_counter()
                response = httpx.get(f"{url}/{db_name}.json", params={"sql": query, "_shape": "objects"}, timeout=120)
                took = time.perf_counter() - start
                data = response.json()
                answer = data.get("error") or f"rows: {data.get('rows')}"
                answer = re.sub(r"<[^>]+>", "", answer).split(".")[0].strip()[:60]
                print(f"{name:<28} {took:8.2f} {peak_rss_mb(server.pid):8.0f}  {answer}")
            start = time.perf_counter()
            ok = httpx.get(f"{url}/{db_name}/agents", timeout=30).status_code == 200
            print(f"agents page afterwards: {'200' if ok else 'FAILED'} in {time.perf_counter() - start:.2f} s")

            # Three at once: every SQL thread busy with the widest result the limits allow.
            wide = dict(HOSTILE)["22 MB rows x 1000"]

            async def three() -> None:
                async with httpx.AsyncClient(timeout=120) as client:
                    await asyncio.gather(*(client.get(f"{url}/{db_name}.json", params={"sql": wide}) for _ in range(3)))

            asyncio.run(three())
            hostile_peak = peak_rss_mb(server.pid)
            print(
                f"server peak RSS: idle {idle:.0f} MB, after load {loaded:.0f} MB, after hostile SQL "
                f"{hostile_peak:.0f} MB (3 wide-row queries at once included)"
            )
            rows.append(
                ("server peak RSS idle / loaded / hostile", f"{idle:.0f} / {loaded:.0f} / {hostile_peak:.0f} MB")
            )
            return rows
        finally:
            for process in (server, plain):
                process.terminate()
                process.wait(timeout=10)


if __name__ == "__main__":
    main()
