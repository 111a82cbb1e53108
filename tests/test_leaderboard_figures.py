"""The benchmark figures of a hand-made set of attempts, worked out by hand.

Every expected value below is written as the hand calculation that gives it. Reminder of the rules
(leaderboard/figures.py): score = % of hidden tests passed; a disqualifying flag scores 0 and stays
counted; an infra error does not count at all; means and medians skip unknown values; mean score
and solve rate first average each task's attempts, then average the tasks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.figures import attempt_result, build_boards, figures
from tests.benchmark_attempts import ATTEMPTS
from tests.conftest import write_json


@pytest.fixture
def loaded(db, run_cli, tmp_path: Path):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "attempts.json", ATTEMPTS)))
    return db


def entry(db, tier: str, agent: str, version: str) -> dict:
    rows = list(
        db["benchmark_entries"].rows_where("tier = ? and agent = ? and agent_version = ?", [tier, agent, version])
    )
    assert len(rows) == 1, rows
    return rows[0]


def approx(value):
    return pytest.approx(value, rel=1e-12, abs=1e-12)


def test_acme_coder_1_0_verified(loaded):
    e = entry(loaded, "verified", "acme/coder", "1.0")
    # t1: 10/10 → 100, 5/10 → 50, 10/10 but modified-tests → 0;  t2: 3/4 → 75, then an infra error.
    assert e["attempts"] == 4  # the infra error counts neither for nor against
    assert e["infra_errors"] == 1
    assert e["disqualified"] == 1
    assert e["tasks"] == 2
    assert e["solved"] == 1  # the disqualified 10/10 is not solved
    t1_mean, t2_mean = (100 + 50 + 0) / 3, 75 / 1
    assert e["mean_score"] == approx((t1_mean + t2_mean) / 2)  # 62.5
    t1_solve, t2_solve = 100 * 1 / 3, 100 * 0 / 1
    assert e["solve_rate"] == approx((t1_solve + t2_solve) / 2)  # 16.67
    # Times 100, 200, 300 and one unknown (the infra error's 10 s is not counted).
    assert e["mean_wall_seconds"] == approx((100 + 200 + 300) / 3)
    assert e["median_wall_seconds"] == 200
    assert e["wall_unknown"] == 1
    # Costs 1.00 + 2.00 + 3.00 + 0.50 (the infra error's 0.10 is not counted); one solved attempt.
    assert e["total_cost_usd"] == approx(1.00 + 2.00 + 3.00 + 0.50)
    assert e["cost_per_solved_task"] == approx((1.00 + 2.00 + 3.00 + 0.50) / 1)
    assert e["cost_per_solved_task_null_reason"] is None
    assert e["human_interventions"] == 0 + 1 + 0 + 0
    assert (e["first_date"], e["last_date"]) == ("2026-10-01T10:00:00Z", "2026-10-01T10:00:00Z")
    assert (e["version_changed"], e["previous_version"], e["latest"]) == (0, None, 0)


def test_acme_coder_1_1_verified_marks_the_version_change_and_has_no_cost(loaded):
    e = entry(loaded, "verified", "acme/coder", "1.1")
    # t1: 10/10 → 100 (cost not measured); t2: 4/4 but added-dependency → 0; t3: 2/8 timed out → 25.
    assert (e["attempts"], e["tasks"], e["solved"], e["disqualified"], e["timed_out"]) == (3, 3, 1, 1, 1)
    assert e["mean_score"] == approx((100 + 0 + 25) / 3)  # 41.67
    assert e["solve_rate"] == approx((100 + 0 + 0) / 3)  # 33.33
    assert e["mean_wall_seconds"] == approx((60 + 90 + 1800) / 3)  # 650
    assert e["median_wall_seconds"] == 90
    # One cost unknown: no total, no cost per solved task, never a guess or a 0.
    assert e["total_cost_usd"] is None
    assert e["cost_unknown"] == 1
    assert e["cost_per_solved_task"] is None
    assert e["cost_per_solved_task_null_reason"] == "cost unknown for 1 of 3 attempts"
    assert (e["version_changed"], e["previous_version"], e["latest"]) == (1, "1.0", 1)


def test_closed_agent_verified(loaded):
    e = entry(loaded, "verified", "Closed Agent X", "2026.10")
    assert e["agent_kind"] == "closed"
    assert e["model"] == "m-small"
    # 10/10 → 100, 4/4 but reward-hacking → 0, 8/8 → 100; one attempt per task.
    assert e["mean_score"] == approx((100 + 0 + 100) / 3)
    assert e["solve_rate"] == approx((100 + 0 + 100) / 3)
    assert e["mean_wall_seconds"] == approx((120 + 30 + 100) / 3)
    assert e["median_wall_seconds"] == 100
    assert e["total_cost_usd"] == approx(2.00 + 0.40 + 1.60)
    assert e["cost_per_solved_task"] == approx((2.00 + 0.40 + 1.60) / 2)
    assert e["human_interventions"] is None  # not recorded: unknown, not 0
    # 09:30 at +02:00 is stored in UTC.
    assert e["first_date"] == "2026-10-15T07:30:00Z"


def test_verified_leaderboard_ranks_by_mean_score(loaded):
    board = [
        (r["rank"], r["agent"], r["agent_version"])
        for r in loaded.query("select * from benchmark_entries where tier = 'verified' order by rank")
    ]
    # Mean scores: Closed Agent X 66.67 > acme/coder 1.0 62.5 > acme/coder 1.1 41.67, but acme/coder 1.0
    # attempted t1 and t2 only, 2 of the board's 3 tasks: its mean is over an easier test, so no rank.
    assert board == [(None, "acme/coder", "1.0"), (1, "Closed Agent X", "2026.10"), (2, "acme/coder", "1.1")]
    assert entry(loaded, "verified", "acme/coder", "1.0")["coverage"] == "2 of 3 tasks"
    assert entry(loaded, "verified", "acme/coder", "1.1")["coverage"] is None


def test_community_leaderboard_breaks_ties_by_solve_rate_then_cost_then_time(loaded):
    rows = {r["agent"]: r for r in loaded.query("select * from benchmark_entries where tier = 'community'")}
    # Every ranked entry scores (t1 + t2) / 2 = 75:
    #   acme/coder (100 + 50) / 2, other/agent (75 + 75) / 2, zeta/bot (100 + 50) / 2, beta/cheap (100 + 50) / 2.
    for agent in ("acme/coder", "other/agent", "zeta/bot", "beta/cheap"):
        assert rows[agent]["mean_score"] == approx(75.0)
    # Solve rates: other/agent solved nothing, (0 + 0) / 2 = 0; the others (100 + 0) / 2 = 50.
    assert rows["other/agent"]["solve_rate"] == 0
    assert rows["other/agent"]["cost_per_solved_task"] is None
    assert rows["other/agent"]["cost_per_solved_task_null_reason"] == "nothing solved"
    assert rows["other/agent"]["total_cost_usd"] == approx(0.30 + 0.30)
    # Cost per solved task: beta/cheap (0.20 + 0.20) / 1 = 0.40; acme/coder (1.50 + 0.50) / 1 = 2.00,
    # zeta/bot (1.00 + 1.00) / 1 = 2.00 — a tie, broken by mean time: acme/coder 400 (one time unknown) < 500.
    assert rows["beta/cheap"]["cost_per_solved_task"] == approx(0.40)
    assert rows["acme/coder"]["cost_per_solved_task"] == approx(2.00)
    assert rows["zeta/bot"]["cost_per_solved_task"] == approx(2.00)
    assert (rows["acme/coder"]["mean_wall_seconds"], rows["acme/coder"]["wall_unknown"]) == (400, 1)
    assert rows["zeta/bot"]["mean_wall_seconds"] == 500
    ranks = {agent: row["rank"] for agent, row in rows.items()}
    assert ranks == {"beta/cheap": 1, "acme/coder": 2, "zeta/bot": 3, "other/agent": 4, "gamma/flaky": None}
    # Another tier, another board: acme/coder 1.1 is not a version change in the community tier.
    assert rows["acme/coder"]["version_changed"] == 0


def test_an_entry_with_only_infra_errors_is_unranked_and_unknown(loaded):
    e = entry(loaded, "community", "gamma/flaky", "1")
    assert (e["rank"], e["attempts"], e["infra_errors"], e["tasks"]) == (None, 0, 1, 0)
    for name in (
        "mean_score",
        "solve_rate",
        "mean_wall_seconds",
        "median_wall_seconds",
        "total_cost_usd",
        "cost_per_solved_task",
        "human_interventions",
    ):
        assert e[name] is None, name
    assert e["cost_per_solved_task_null_reason"] == "no counted attempts"


def test_per_task_spread_across_attempts(loaded):
    rows = {
        (r["agent_version"], r["task_id"]): r
        for r in loaded["benchmark_tasks"].rows_where("tier = 'verified' and agent = 'acme/coder'")
    }
    t1 = rows[("1.0", "t1")]
    # Three attempts: 100, 50, 0 (disqualified).
    assert (t1["attempts"], t1["solved"], t1["disqualified"]) == (3, 1, 1)
    assert (t1["min_score"], t1["median_score"], t1["max_score"]) == (0, 50, 100)
    assert t1["mean_score"] == approx(150 / 3)
    assert t1["solve_rate"] == approx(100 / 3)
    assert t1["mean_wall_seconds"] == approx(200)
    t2 = rows[("1.0", "t2")]
    # 3/4 → 75 and an infra error that does not count; its only counted time is unknown.
    assert (t2["attempts"], t2["infra_errors"]) == (1, 1)
    assert (t2["min_score"], t2["median_score"], t2["max_score"]) == (75, 75, 75)
    assert t2["mean_wall_seconds"] is None
    assert sorted(rows) == [("1.0", "t1"), ("1.0", "t2"), ("1.1", "t1"), ("1.1", "t2"), ("1.1", "t3")]


def test_agent_totals_over_both_versions(loaded):
    a = loaded["benchmark_agents"].get(("verified", "acme/coder"))
    # Counted scores per task over 1.0 and 1.1: t1 100, 50, 0, 100; t2 75, 0; t3 25.
    assert (a["attempts"], a["infra_errors"], a["disqualified"], a["tasks"], a["solved"]) == (7, 1, 2, 3, 2)
    assert a["mean_score"] == approx(((100 + 50 + 0 + 100) / 4 + (75 + 0) / 2 + 25) / 3)  # 41.67
    assert a["solve_rate"] == approx((100 * 2 / 4 + 0 + 0) / 3)  # 16.67
    known = [100, 200, 300, 60, 90, 1800]  # t2's 3/4 attempt has no time
    assert a["mean_wall_seconds"] == approx(sum(known) / 6)  # 425
    assert a["median_wall_seconds"] == approx((100 + 200) / 2)  # sorted: 60, 90, [100, 200], 300, 1800
    assert a["total_cost_usd"] is None
    assert a["cost_per_solved_task_null_reason"] == "cost unknown for 1 of 7 attempts"
    assert (json.loads(a["versions"]), a["latest_version"]) == (["1.0", "1.1"], "1.1")


def test_scores_are_stored_on_each_attempt_with_their_flags(loaded):
    rows = {
        (r["agent_version"], r["task_id"], r["attempt"]): r
        for r in loaded["benchmark_attempts"].rows_where("agent = 'acme/coder' and tier = 'verified'")
    }
    disqualified = rows[("1.0", "t1", 3)]
    assert (disqualified["score"], disqualified["solved"], disqualified["counted"]) == (0, 0, 1)
    assert json.loads(disqualified["flags"]) == ["modified-tests"]
    assert (disqualified["tests_passed"], disqualified["tests_total"]) == (10, 10)  # kept visible as measured
    infra = rows[("1.0", "t2", 2)]
    assert (infra["score"], infra["solved"], infra["counted"]) == (None, None, 0)
    timed_out = rows[("1.1", "t3", 1)]
    assert (timed_out["score"], timed_out["solved"], timed_out["counted"]) == (25, 0, 1)
    first = rows[("1.0", "t1", 1)]
    assert (first["tokens_input"], first["tokens_cached"], first["tokens_output"], first["tokens_reasoning"]) == (
        120000,
        80000,
        9000,
        4000,
    )
    assert json.loads(first["settings"]) == {"max_turns": 50, "reasoning_effort": "high"}
    assert rows[("1.0", "t1", 2)]["tokens_input"] is None  # not reported: unknown


def test_rules_of_one_attempt():
    assert attempt_result([], 3, 4).score == 75
    assert attempt_result([], 4, 4).solved is True
    assert attempt_result(["timed-out"], 4, 4) == (100, True, True, False)
    # A disqualifying flag wins over an infra error: the attempt counts, as 0.
    assert attempt_result(["reward-hacking", "infra-error"], None, None) == (0, False, True, True)
    assert attempt_result(["infra-error"], 4, 4) == (None, None, False, False)


def test_figures_skip_unknowns_and_never_invent_zeros():
    rows = [
        {
            "task_id": "t",
            "tests_passed": 1,
            "tests_total": 2,
            "flags": [],
            "wall_seconds": None,
            "cost_usd": None,
            "human_interventions": None,
        }
    ]
    f = figures(rows)
    assert f["mean_score"] == 50
    assert f["mean_wall_seconds"] is None and f["median_wall_seconds"] is None and f["total_cost_usd"] is None
    assert f["cost_per_solved_task_null_reason"] == "nothing solved; cost unknown for 1 of 1 attempts"


def test_the_pure_module_agrees_with_the_stored_tables(loaded):
    boards = build_boards(loaded["benchmark_attempts"].rows)
    key = ("tier", "suite", "agent", "agent_version", "model", "settings")
    stored = {tuple(r[k] for k in key): r for r in loaded["benchmark_entries"].rows}
    assert len(boards.entries) == len(stored) == 8
    for e in boards.entries:
        row = stored[tuple(e[k] for k in key)]
        assert row["rank"] == e["rank"] and row["mean_score"] == e["mean_score"]
