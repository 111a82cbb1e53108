"""``python -m crawler.emulator``: serve a synthetic population until interrupted."""

from __future__ import annotations

import argparse
import time

from crawler.emulator.population import generate_population
from crawler.emulator.server import GitHubEmulator


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A local GitHub search emulator serving a synthetic population")
    parser.add_argument("--size", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--search-limit", type=int, default=30, help="search requests per window (authenticated)")
    parser.add_argument("--window", type=float, default=60.0, help="rate-limit window in seconds")
    args = parser.parse_args(argv)
    repos = generate_population(args.size, seed=args.seed)
    emulator = GitHubEmulator(
        repos,
        search_limit=args.search_limit,
        unauthenticated_search_limit=args.search_limit,
        window_s=args.window,
        port=args.port,
    ).start()
    print(f"GitHub emulator with {len(repos)} repos on {emulator.url}  (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        emulator.stop()


if __name__ == "__main__":
    main()
