"""A database with every benchmark method filled in, for the page and browser tests."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentrank.cli import cli
from tests.benchmark_attempts import attempt
from tests.conftest import make_item
from tests.test_benchmark_fitscore import assessments_toml, seed_attempts
from tests.test_benchmark_methods import INDEX_CONFIG, PRICES, rs9_attempts, task

HOSTILE = '<img src=x onerror="window.__agentrank_xss = 3">'


def index_attempts() -> list[dict]:
    out = []
    for settings, suites in (("low", ("deep", "term", "qna")), ("high", ("deep", "term"))):
        for n, suite in enumerate(suites):
            out.append(
                attempt(
                    "acme/coder",
                    "2",
                    f"{suite}-1",
                    1,
                    "2026-11-02T09:00:00Z",
                    "verified",
                    10 if n < 2 else 6,  # deep and term pass every hidden test, qna does not
                    10,
                    100,
                    0.4,
                    suite=suite,
                    settings={"reasoning": settings},
                )
            )
    return out


def build_methods_db(directory: Path) -> Path:
    """Run the CLI as a user would: items and a score (so acme/coder is a listed repo), then the ledger."""
    db_path = directory / "methods.db"
    config = directory / "agentrank.toml"
    config.write_text(INDEX_CONFIG)
    files = {
        "items.json": json.dumps([make_item(id=9001, full_name="acme/coder", name="coder", seed=9001)]),
        # t1 to t3 discriminate; t4's untouched code already passes, so its attempts are shown apart.
        "tasks.json": json.dumps([task(t, b, 5, suite="rs9") for t, b in (("t1", 2), ("t2", 1), ("t3", 0), ("t4", 5))]),
        "prices.toml": PRICES,
        "attempts.json": json.dumps(
            [
                *rs9_attempts(),
                *seed_attempts(),
                *index_attempts(),
                attempt(
                    f"Hostile {HOSTILE}",
                    "1",
                    "t4",
                    1,
                    "2026-11-01T09:00:00Z",
                    "verified",
                    4,
                    4,
                    1,
                    None,
                    suite="rs9",
                    run="2026-11-01",
                ),
                # Real model ids and settings are long, unbroken strings: pages wrap them on a phone.
                attempt(
                    "long/names",
                    "1",
                    "t1",
                    1,
                    "2026-11-01T09:00:00Z",
                    "verified",
                    4,
                    4,
                    1,
                    None,
                    model="accounts/fireworks/models/qwen3-coder-480b-a35b-instruct",
                    settings={"prompt_sha": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"},
                    suite="rs9",
                    run="2026-11-01",
                ),
            ]
        ),
        "assessments.toml": assessments_toml(),
    }
    for name, text in files.items():
        (directory / name).write_text(text)
    runner = CliRunner()
    steps = [
        ["import", str(directory / "items.json")],
        ["score"],
        ["import-tasks", str(directory / "tasks.json")],
        ["import-prices", str(directory / "prices.toml")],
        ["import-attempts", "--verified", str(directory / "attempts.json")],
        ["import-assessments", str(directory / "assessments.toml")],
    ]
    for step in steps:
        result = runner.invoke(cli, ["--db", str(db_path), "--config", str(config), *step], catch_exceptions=False)
        assert result.exit_code == 0, (step, result.output)
    return db_path
