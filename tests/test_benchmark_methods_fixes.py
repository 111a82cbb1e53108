"""Issue 26's wrong results, one test each (every one failed on the code before the fix), worked out by hand.

1. tiers pooled in the RS9 run view, the index and FitScore; 2. FitScore pooled every run of a suite;
3. the index ranked partial coverage; 4. exact ties ordered by floating-point noise; 5. runs ordered
by name, not date; 6. the index's per-suite component was the mean score, not pass@1.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from leaderboard.attempt import Attempt
from leaderboard.figures import build_boards
from leaderboard.methods import compute_methods
from leaderboard.store import attempt_row
from tests.benchmark_attempts import attempt

V, C = "verified", "community"
D1, D2, D3 = "2026-11-01T09:00:00Z", "2026-11-08T09:00:00Z", "2026-11-15T09:00:00Z"


def rows_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [attempt_row(Attempt.model_validate_json(json.dumps(r))) for r in records]


def index_def(name: str = "Idx", suites: tuple[str, ...] = ("s",)) -> dict[str, Any]:
    return {"name": name, "version": "1", "suites": json.dumps(list(suites))}


def assessment(agent: str, suite: str, **extra: Any) -> dict[str, Any]:
    scores = {"cost": 3, "speed": 5, "setup": 5, "agent": 5, "privacy": 5}
    row = {
        "agent": agent,
        "suite": suite,
        "scores": json.dumps(scores),
        "notes": "{}",
        "published": None,
        "judgements": "[]",
        "weights": json.dumps(
            {"quality": 30, "reliability": 15, "cost": 15, "speed": 10, "setup": 10, "agent": 10, "privacy": 10}
        ),
    }
    for key, value in extra.items():
        row[key] = json.dumps(value) if key == "runs" else value
    return row


def test_1_a_community_run_never_changes_a_verified_entry(tmp_path):
    # A verified run: t1 passed, t2 3 of 4 checks. A community submission for the same agent version and
    # model in the same run says t2 passed and costs $1.20 more.
    verified = [
        attempt("acme/coder", "1", "t1", 1, D1, V, 4, 4, 60, 3.0, suite="rs9", run="r1"),
        attempt("acme/coder", "1", "t2", 1, D1, V, 3, 4, 60, 3.0, suite="rs9", run="r1"),
    ]
    community = [attempt("acme/coder", "1", "t2", 1, D1, C, 4, 4, 60, 1.2, suite="rs9", run="r1")]
    methods = compute_methods(rows_of(verified + community), indexes=[index_def(suites=("rs9",))])
    runs = {r["tier"]: r for r in methods.rs9_runs}
    assert set(runs) == {V, C}
    # Verified alone: partial credit (100 + 75) / 2 = 87.5, cost $6.00, headline 1 of 2.
    assert (runs[V]["partial_credit"], runs[V]["total_cost_usd"], runs[V]["headline"]) == (87.5, 6.0, 50.0)
    # Each tier is its own board: both entries are #1 of theirs, never ranked beside each other.
    assert (runs[C]["partial_credit"], runs[C]["total_cost_usd"]) == (100.0, 1.2)
    assert (runs[V]["rank"], runs[C]["rank"]) == (1, 1)
    index = {e["tier"]: e for e in methods.index_entries}
    # pass@1: verified t1 passed, t2 not → 50; community t2 passed → 100, but it did not attempt t1.
    assert (index[V]["per_suite"], index[V]["rank"]) == ({"rs9": 50.0}, 1)
    assert (index[C]["per_suite"], index[C]["rank"]) == ({"rs9": 100.0}, 1)


def test_1_fitscore_takes_one_tier(tmp_path):
    records = [
        attempt("Tool", "1", f"t{n}", a, D1, V, 1 if (n, a) == (1, 1) else 2, 2, 30, None, suite="p", quality=5)
        for n in (1, 2)
        for a in (1, 2, 3)
    ]
    # A community file claims every attempt at t1 passed: reliability would rise from (3 + 5) / 2 → 4 to 5.
    records += [attempt("Tool", "1", "t1", a, D1, C, 2, 2, 30, None, suite="p", quality=5) for a in (4, 5, 6)]
    methods = compute_methods(rows_of(records), assessments=[assessment("Tool", "p")])
    (result,) = methods.fitscores
    assert (result["tier"], result["criteria"]["reliability"]) == (V, 4)


def test_2_fitscore_uses_the_named_run_or_the_latest():
    round1 = [attempt("Tool", "1", "t1", a, D1, V, 1 if a == 1 else 2, 2, 30, None, suite="p", run="round-1", quality=5) for a in (1, 2, 3)]  # fmt: skip
    round2 = [attempt("Tool", "1", "t1", a, D2, V, 2, 2, 30, None, suite="p", run="round-2", quality=5) for a in (1, 2, 3)]  # fmt: skip
    rows = rows_of(round1 + round2)
    latest = compute_methods(rows, assessments=[assessment("Tool", "p")]).fitscores[0]
    assert (latest["runs"], latest["criteria"]["reliability"], latest["derived"]["tasks"][0]["attempts"]) == (
        ["round-2"],
        5,
        3,
    )
    named = compute_methods(rows, assessments=[assessment("Tool", "p", runs=["round-1"])]).fitscores[0]
    assert (named["runs"], named["criteria"]["reliability"]) == (["round-1"], 3)  # 2 of 3 passed


def test_2b_a_round_other_tools_ran_later_keeps_every_fitscore():
    # Seed 004 publishes round 2's tools beside round 3's: Early ran only round 2 (2 of 3 passed at t1),
    # Late only round 3, a week later. Each keeps its own latest run; neither loses its FitScore.
    round2 = [attempt("Early", "1", "t1", a, D1, V, 1 if a == 1 else 2, 2, 30, None, suite="p", run="round-2", quality=5) for a in (1, 2, 3)]  # fmt: skip
    round3 = [attempt("Late", "1", "t1", a, D2, V, 2, 2, 30, None, suite="p", run="round-3", quality=5) for a in (1, 2, 3)]  # fmt: skip
    results = compute_methods(rows_of(round2 + round3), assessments=[assessment("Early", "p"), assessment("Late", "p")])
    by_agent = {r["agent"]: r for r in results.fitscores}
    assert (by_agent["Early"]["runs"], by_agent["Early"]["criteria"]["reliability"]) == (["round-2"], 3)
    assert (by_agent["Late"]["runs"], by_agent["Late"]["criteria"]["reliability"]) == (["round-3"], 5)
    assert by_agent["Early"]["fitscore"] is not None and by_agent["Late"]["fitscore"] is not None


def test_3_the_index_lists_partial_coverage_without_a_rank():
    records = [
        attempt("full/agent", "1", "t1", 1, D1, V, 4, 4, 10, 1.0, suite="s"),
        attempt("full/agent", "1", "t2", 1, D1, V, 1, 4, 10, 1.0, suite="s"),
        attempt("part/agent", "1", "t1", 1, D1, V, 4, 4, 10, 1.0, suite="s"),
    ]
    entries = {e["agent"]: e for e in compute_methods(rows_of(records), indexes=[index_def()]).index_entries}
    assert (entries["full/agent"]["value"], entries["full/agent"]["rank"]) == (50.0, 1)
    assert (entries["part/agent"]["value"], entries["part/agent"]["rank"]) == (100.0, None)
    assert entries["part/agent"]["coverage"] == "s: 1 of 2 tasks"


def tie_records(agent: str, tasks: dict[str, list[tuple[int, int]]], **extra: Any) -> list[dict[str, Any]]:
    return [
        attempt(agent, "1", task, n, D1, V, passed, total, 10, 1.0, **extra)
        for task, results in tasks.items()
        for n, (passed, total) in enumerate(results, 1)
    ]


# Both mean exactly 1075/12: floating point makes the first 89.58333333333334 and the second 89.58333333333333.
NOISY_HIGH = {"t1": [(11, 12), (10, 12)], "t2": [(11, 12)]}  # solves nothing
NOISY_LOW = {"t1": [(5, 6)], "t2": [(8, 8), (8, 8), (7, 8)]}  # solves 2 of t2's 3 attempts


def test_4_an_exact_tie_goes_to_the_documented_tie_break_on_the_leaderboard():
    rows = rows_of(tie_records("zz/noisy", NOISY_HIGH) + tie_records("aa/solver", NOISY_LOW))
    board = {e["agent"]: e for e in build_boards(rows).entries}
    assert board["zz/noisy"]["mean_score"] > board["aa/solver"]["mean_score"]  # the floating-point noise
    # Equal in exact arithmetic: the solve rate (33.3 against 0) decides.
    assert (board["aa/solver"]["rank"], board["zz/noisy"]["rank"]) == (1, 2)


def test_4_an_exact_tie_in_rs9_partial_credit_goes_to_the_name():
    # Neither passes a task (headline 0 for both); partial credit ties exactly at 1075/12.
    rows = rows_of(
        tie_records("zz/noisy", NOISY_HIGH, suite="rs9", run="r")
        + tie_records("aa/other", NOISY_LOW, suite="rs9", run="r")
    )
    runs = {r["agent"]: r for r in compute_methods(rows).rs9_runs}
    assert runs["zz/noisy"]["partial_credit"] > runs["aa/other"]["partial_credit"]
    assert (runs["aa/other"]["rank"], runs["zz/noisy"]["rank"]) == (1, 2)


def test_5_runs_are_ordered_by_date_not_name():
    # run-9 on Nov 1 with version 1, run-10 on Nov 8 with version 2, run-11 on Nov 15 with version 2.
    records = [
        attempt("acme/coder", version, "t1", 1, date, V, 1, 1, 10, 1.0, suite="rs9", run=run)
        for version, date, run in (("1", D1, "run-9"), ("2", D2, "run-10"), ("2", D3, "run-11"))
    ]
    runs = {r["run"]: r for r in compute_methods(rows_of(records)).rs9_runs}
    assert {run: r["version_changed"] for run, r in runs.items()} == {"run-9": False, "run-10": True, "run-11": False}
    assert runs["run-10"]["previous_version"] == "1"
    assert [runs[r]["run_date"] for r in ("run-9", "run-10", "run-11")] == [D1, D2, D3]


def test_6_the_index_component_is_pass_at_1():
    records = [
        # t1: 2 of 3 attempts pass every hidden test (the other 5 of 10) → 2/3.
        attempt("acme/coder", "1", "t1", 1, D1, V, 10, 10, 10, 1.0, suite="s"),
        attempt("acme/coder", "1", "t1", 2, D1, V, 5, 10, 10, 1.0, suite="s"),
        attempt("acme/coder", "1", "t1", 3, D1, V, 10, 10, 10, 1.0, suite="s"),
        # t2: every test passed, but by reward hacking: not a pass; t3: 9 of 10 is not a pass.
        attempt("acme/coder", "1", "t2", 1, D1, V, 10, 10, 10, 1.0, suite="s", flags=("reward-hacking",)),
        attempt("acme/coder", "1", "t3", 1, D1, V, 9, 10, 10, 1.0, suite="s"),
    ]
    (entry,) = compute_methods(rows_of(records), indexes=[index_def()]).index_entries
    assert entry["per_suite"]["s"] == pytest.approx(100 * (2 / 3 + 0 + 0) / 3, abs=1e-9)
    assert entry["value"] == pytest.approx(200 / 9, abs=1e-9)


def test_5b_runs_on_the_same_date_are_counted_as_a_reader_counts_them():
    # run-2 and run-10 share a date: run-2 comes first, so run-10's version 1 is the change (from 2).
    records = [
        attempt("x/x", "2", "t1", 1, D1, V, 1, 1, 10, 1.0, suite="s", run="run-2"),
        attempt("x/x", "1", "t1", 1, D1, V, 1, 1, 10, 1.0, suite="s", run="run-10"),
    ]
    runs = {r["run"]: r for r in compute_methods(rows_of(records)).rs9_runs}
    assert (runs["run-2"]["version_changed"], runs["run-10"]["version_changed"]) == (False, True)
    # FitScore's default is then run-10, the later of the two.
    (fit,) = compute_methods(rows_of(records), assessments=[assessment("x/x", "s")]).fitscores
    assert fit["runs"] == ["run-10"]


def test_7_the_index_gives_seed_003s_list_price_cost_beside_the_attempts_own():
    from leaderboard.prices import Price

    price = Price.model_validate({"model": "m-large", "from": "2026-10-01", "input": 2.0, "output": 10.0}).row()
    tokens = {"tokens": {"input": 100_000, "output": 10_000}}  # at list price: 0.2 + 0.1 = $0.30
    records = [
        # the agent's own bill said $1.00 for the same tokens (a plan, a router): kept as given
        attempt("x/x", "1", "t1", 1, D1, V, 1, 1, 10, 1.0, suite="s", **tokens),
        # no cost given: priced at the list price
        attempt("x/x", "1", "t2", 1, D1, V, 1, 1, 10, None, suite="s", **tokens),
        # no tokens: no list price, left out of that mean (never 0)
        attempt("x/x", "1", "t3", 1, D1, V, 1, 1, 10, 0.5, suite="s"),
    ]
    (entry,) = compute_methods(rows_of(records), prices=[price], indexes=[index_def()]).index_entries
    assert entry["mean_cost_usd"] == pytest.approx((1.0 + 0.3 + 0.5) / 3)
    assert entry["mean_list_cost_usd"] == pytest.approx(0.3)
