"""A hand-made set of task-benchmark attempts whose figures the tests work out by hand.

It covers every flag, a null cost, null times, infra errors, three attempts of one task, two
versions of one agent, a closed agent, both tiers, and ties on each leaderboard tie-break.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote


def attempt(
    agent: str,
    version: str,
    task: str,
    number: int,
    date: str,
    tier: str,
    passed: int | None,
    total: int | None,
    wall: float | None,
    cost: float | None,
    *,
    model: str = "m-large",
    flags: tuple[str, ...] = (),
    **extra: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "agent": agent,
        "agent_version": version,
        "model": model,
        "task_id": task,
        "attempt": number,
        "date": date,
        "tier": tier,
        "tests_passed": passed,
        "tests_total": total,
        "wall_seconds": wall,
        "cost_usd": cost,
        "cost_source": None if cost is None else ("self-reported" if tier == "community" else "provider-dashboard"),
        "flags": list(flags),
        "log_url": f"https://logs.example.org/{quote(agent)}/{version}/{task}/{number}",
        "diff_url": f"https://logs.example.org/{quote(agent)}/{version}/{task}/{number}.diff",
    }
    record.update(extra)
    return record


V, C = "verified", "community"
A, B = "acme/coder", "Closed Agent X"
OCT, OCT15 = "2026-10-01T10:00:00Z", "2026-10-15T09:30:00+02:00"
NOV, NOV5 = "2026-11-01T08:00:00Z", "2026-11-05T12:00:00Z"
# Settings are part of an entry's identity: every attempt of acme/coder 1.0 ran with the same ones.
HIGH = {"reasoning_effort": "high", "max_turns": 50}

ATTEMPTS: list[dict[str, Any]] = [
    # acme/coder 1.0, verified: task t1 three times, t2 twice (the second lost to an infra error).
    attempt(
        A,
        "1.0",
        "t1",
        1,
        OCT,
        V,
        10,
        10,
        100,
        1.00,
        human_interventions=0,
        permission_mode="full-auto",
        network_access="none",
        settings=HIGH,
        tokens={"input": 120000, "cached": 80000, "output": 9000, "reasoning": 4000},
    ),
    attempt(A, "1.0", "t1", 2, OCT, V, 5, 10, 200, 2.00, human_interventions=1, settings=HIGH),
    attempt(
        A, "1.0", "t1", 3, OCT, V, 10, 10, 300, 3.00, flags=("modified-tests",), human_interventions=0, settings=HIGH
    ),
    attempt(A, "1.0", "t2", 1, OCT, V, 3, 4, None, 0.50, human_interventions=0, settings=HIGH),
    attempt(
        A, "1.0", "t2", 2, OCT, V, None, None, 10, 0.10, flags=("infra-error",), human_interventions=0, settings=HIGH
    ),
    # acme/coder 1.1, verified, a month later: the version change is marked.
    attempt(A, "1.1", "t1", 1, NOV, V, 10, 10, 60, None, human_interventions=0),
    attempt(A, "1.1", "t2", 1, NOV, V, 4, 4, 90, 0.80, flags=("added-dependency",), human_interventions=0),
    attempt(A, "1.1", "t3", 1, NOV, V, 2, 8, 1800, 1.20, flags=("timed-out",), human_interventions=0),
    # A closed agent, verified.
    attempt(B, "2026.10", "t1", 1, OCT15, V, 10, 10, 120, 2.00, model="m-small"),
    attempt(B, "2026.10", "t2", 1, OCT15, V, 4, 4, 30, 0.40, model="m-small", flags=("reward-hacking",)),
    attempt(B, "2026.10", "t3", 1, OCT15, V, 8, 8, 100, 1.60, model="m-small"),
    # Community: four entries tied on mean score 75, told apart by solve rate, cost, then time.
    attempt(A, "1.1", "t1", 1, NOV5, C, 10, 10, None, 1.50),
    attempt(A, "1.1", "t2", 1, NOV5, C, 2, 4, 400, 0.50),
    attempt("other/agent", "0.9", "t1", 1, NOV5, C, 3, 4, 100, 0.30),
    attempt("other/agent", "0.9", "t2", 1, NOV5, C, 3, 4, 100, 0.30),
    attempt("zeta/bot", "3", "t1", 1, NOV5, C, 4, 4, 500, 1.00),
    attempt("zeta/bot", "3", "t2", 1, NOV5, C, 2, 4, 500, 1.00),
    attempt("beta/cheap", "1", "t1", 1, NOV5, C, 4, 4, 900, 0.20),
    attempt("beta/cheap", "1", "t2", 1, NOV5, C, 1, 2, 900, 0.20),
    # Only an infra error: on the board, unranked, every figure unknown.
    attempt("gamma/flaky", "1", "t1", 1, NOV5, C, None, None, None, None, flags=("infra-error",)),
]
