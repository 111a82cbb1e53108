"""How fast the category model trains and classifies: repos per second at 100k synthetic repos,
reasons included (what the classify stage computes).

Wall-clock repos/s depend on what else the machine runs; CPU repos/s (the process's own CPU time)
are the figure to compare between runs on a shared machine. The goal is 20,000 repos/s.

Run: ``.venv/bin/python bench/classify_throughput.py [N]`` (default 100000).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime

from classify.examples import load_training_examples
from classify.model import train
from classify.text import RepoText
from crawler.emulator.population import generate_population

REFERENCE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def main(n: int = 100_000) -> dict[str, float]:
    started = time.perf_counter()
    model = train(load_training_examples())
    train_seconds = time.perf_counter() - started
    population = generate_population(n, seed=2026, reference=REFERENCE)
    repos = [RepoText.from_full_name(r.full_name, r.description, r.topics) for r in population]
    started, cpu_started = time.perf_counter(), time.process_time()
    predictions = model.predict(repos)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    # The population's generator knows each repo's category: a sanity figure, not a validation.
    agreement = sum(p.category == r.category for p, r in zip(predictions, population, strict=False)) / n
    figures = {
        "training_seconds": train_seconds,
        "repos": n,
        "classify_seconds": seconds,
        "repos_per_second": n / seconds,
        "repos_per_cpu_second": n / cpu_seconds,
        "synthetic_agreement": agreement,
    }
    print(
        f"classify: trained on {model.examples} examples in {train_seconds:.1f}s; "
        f"{n} repos classified in {seconds:.1f}s = {n / seconds:,.0f} repos/s "
        f"({cpu_seconds:.1f} CPU s = {n / cpu_seconds:,.0f} repos per CPU second) "
        f"(agreement with the synthetic population's own labels: {agreement:.3f})"
    )
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
