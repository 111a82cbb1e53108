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
AWKWARD = {"agent": "probe/..", "suite": "eval/v2", "run": "r.json", "task": ".."}


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
                    # Token counts by type (reasoning not reported) and the agent's own time.
                    tokens={"input": 1_000 * (n + 1), "cached": 500, "cache_write": 100, "output": 2_000},
                    agent_seconds=80,
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
        "tasks.json": json.dumps(_tasks()),
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
                # Billed through a router: the invoice's figure, below the list price of the same tokens.
                attempt(
                    "acme/coder",
                    "2",
                    "r1",
                    1,
                    "2026-11-02T09:00:00Z",
                    "verified",
                    5,
                    5,
                    60,
                    0.1,
                    suite="routed",
                    run="2026-11-02",
                    cost_source="provider-invoice",
                    tokens={"input": 100_000, "output": 10_000},
                ),
                # An entry with part of the routed run (2 of its 3 tasks; r3 is in the run's task set
                # through zeta/agent's counted attempt, not acme/coder's infra error): listed, not
                # ranked, its cost known.
                attempt(
                    "partial/agent",
                    "1",
                    "r1",
                    1,
                    "2026-11-02T09:00:00Z",
                    "verified",
                    5,
                    5,
                    50,
                    0.2,
                    suite="routed",
                    run="2026-11-02",
                ),
                attempt(
                    "acme/coder",
                    "2",
                    "r2",
                    1,
                    "2026-11-02T09:05:00Z",
                    "verified",
                    4,
                    4,
                    40,
                    0.1,
                    suite="routed",
                    run="2026-11-02",
                    cost_source="provider-invoice",
                    tokens={"input": 100_000, "output": 10_000},
                ),
                # Errors with their reasons: the provider broke (left out), the agent itself failed (a fail).
                attempt(
                    "acme/coder",
                    "2",
                    "r3",
                    1,
                    "2026-11-02T09:10:00Z",
                    "verified",
                    None,
                    None,
                    None,
                    None,
                    suite="routed",
                    run="2026-11-02",
                    flags=("infra-error",),
                    error_detail="provider returned 502",
                ),
                attempt(
                    "zeta/agent",
                    "1",
                    "r3",
                    1,
                    "2026-11-02T09:20:00Z",
                    "verified",
                    3,
                    3,
                    30,
                    0.05,
                    suite="routed",
                    run="2026-11-02",
                ),
                attempt(
                    "partial/agent",
                    "1",
                    "r2",
                    1,
                    "2026-11-02T09:10:00Z",
                    "verified",
                    0,
                    4,
                    5,
                    0.01,
                    suite="routed",
                    run="2026-11-02",
                    flags=("agent-error",),
                    error_detail="crashed on start",
                ),
                # Awkward names for links: a suite with "/", a run ending ".json", a task "..", a
                # community agent "probe/..".
                attempt(
                    AWKWARD["agent"],
                    "1",
                    AWKWARD["task"],
                    1,
                    "2026-11-03T09:00:00Z",
                    "community",
                    3,
                    4,
                    20,
                    0.05,
                    suite=AWKWARD["suite"],
                    run=AWKWARD["run"],
                    settings={"demo_data": True},  # as `agentrank demo` marks its attempts: never shown on a row
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


def _tasks() -> list[dict]:
    tasks = [task(t, b, 5, suite="rs9") for t, b in (("t1", 2), ("t2", 1), ("t3", 0), ("t4", 5))]
    # A hidden test named as pytest names one: a long id with no space to break at, which a phone's
    # column must still show whole.
    tasks[3]["per_test"][0]["test"] = (
        "tests/integration/test_payment_gateway.py::TestRefunds::"
        "test_a_partial_refund_is_rejected_when_the_original_charge_was_disputed[stripe-eur]"
    )
    return tasks


# Every benchmark page of the database build_methods_db makes, one of each kind.
BENCHMARK_PAGES = (
    "/-/benchmark",
    "/-/leaderboard",
    "/-/benchmark/index",
    "/-/benchmark/fitscore",
    "/-/benchmark/scorecard",
    "/-/benchmark/runs/rs9/2026-11-01",
    "/-/benchmark/over-time/rs9",
    "/-/benchmark/tasks/rs9/t4",
)
