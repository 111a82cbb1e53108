"""What a tenth audit against design.md and seed 001 found (the test failed before its fix): on the RS9
run view, one attempt lost to an infrastructure error, at a task no one else tried, put that task
into the run's task set and so took the rank from every other entry of the run ("3 of 4 tasks"),
although seed 001 counts such an attempt "neither for nor against" the agent, and the Index
already left such a task out.
"""

from __future__ import annotations

from leaderboard.methods import compute_methods
from tests.benchmark_attempts import attempt
from tests.test_benchmark_methods_fixes import rows_of

V = "verified"
D1 = "2026-11-15T10:00:00Z"


def _run(records):
    runs = compute_methods(rows_of(records)).rs9_runs
    return {r["agent"]: r for r in runs}


def test_a_task_only_lost_to_an_infra_error_unranks_no_one():
    records = [
        attempt(agent, "1", task, 1, D1, V, passed, 4, 10, 0.1, suite="s", run="r")
        for agent, passed in (("alpha/one", 4), ("beta/two", 2))
        for task in ("t1", "t2", "t3")
    ]
    # One attempt at a task no one else tried, lost to the harness: counted for no one.
    records.append(
        attempt("gamma/lost", "1", "t9", 1, D1, V, None, None, 10, None, suite="s", run="r", flags=("infra-error",))
    )
    # And one entry that tried two tasks of the run and the lost task: still one short of the run's three.
    records += [attempt("delta/short", "1", t, 1, D1, V, 4, 4, 10, 0.1, suite="s", run="r") for t in ("t1", "t2")]
    records.append(
        attempt("delta/short", "1", "t9", 2, D1, V, None, None, 10, None, suite="s", run="r", flags=("infra-error",))
    )
    run = _run(records)
    assert [(run[a]["rank"], run[a]["tasks_total"], run[a]["coverage"]) for a in ("alpha/one", "beta/two")] == [
        (1, 3, None),
        (2, 3, None),
    ]
    assert (run["delta/short"]["rank"], run["delta/short"]["coverage"]) == (None, "2 of 3 tasks")
    assert run["gamma/lost"]["rank"] is None and run["gamma/lost"]["headline"] is None
    assert all("_tasks_of_the_set_attempted" not in r for r in run.values())  # not a published figure


def test_a_task_of_the_run_lost_to_an_infra_error_still_counts_as_attempted():
    # Seed 001: "a score can be out of fewer than 20": the entry that lost t2 is ranked on t1 and t3.
    records = [
        attempt(agent, "1", task, 1, D1, V, 4, 4, 10, 0.1, suite="s", run="r")
        for agent in ("alpha/one", "beta/two")
        for task in ("t1", "t2", "t3")
    ]
    records = [r for r in records if not (r["agent"] == "beta/two" and r["task_id"] == "t2")]
    records.append(
        attempt("beta/two", "1", "t2", 1, D1, V, None, None, 10, None, suite="s", run="r", flags=("infra-error",))
    )
    run = _run(records)
    assert (run["beta/two"]["rank"], run["beta/two"]["tasks"], run["beta/two"]["coverage"]) == (2, 2, None)
    assert run["alpha/one"]["rank"] == 1


def test_the_scorecards_median_scores_a_disqualified_attempt_0_as_the_ledger_does(tmp_path, run_cli, db_path):
    """The scorecard's median and spread took each attempt's raw test count: a run that modified the
    tests and passed 10 of 10 counted as 100, and an agent error without test counts was left out,
    where every other figure of the ledger scores the first 0 (seed 000) and the second a fail. The
    attempts' own test counts stay as recorded (seed 002)."""
    import json
    import sqlite3
    from contextlib import closing

    from leaderboard import views

    records = [
        attempt("sc/x", "1", "u1", 1, D1, V, 8, 10, 10, 0.1, suite="card"),
        attempt("sc/x", "1", "u1", 2, D1, V, None, None, 10, None, suite="card", flags=("infra-error",)),
        attempt("sc/x", "1", "u1", 3, D1, V, 10, 10, 10, 0.1, suite="card", flags=("modified-tests",)),
        attempt("sc/x", "1", "u1", 4, D1, V, None, None, 10, None, suite="card", flags=("agent-error",)),
    ]
    (tmp_path / "a.json").write_text(json.dumps(records))
    run_cli("import-attempts", "--verified", str(tmp_path / "a.json"))
    with closing(sqlite3.connect(db_path)) as conn:
        [card] = views.scorecards(conn, "card")
    [entry] = card["tasks"][0]["entries"]
    assert entry["score"] == {"median": 0.0, "min": 0.0, "max": 80.0}
    assert [(a["tests_passed"], a["tests_total"]) for a in entry["attempts"]] == [
        (8, 10),
        (None, None),
        (10, 10),
        (None, None),
    ]


def test_the_frontier_is_what_the_pages_say_it_is():
    """The pages said "no other ranked entry is both cheaper per attempt and better", while an entry
    at the same cost as a better one was (rightly) off the frontier; they now say what is computed:
    none costs as little or less and scores as well or better, ahead on at least one of the two."""
    from leaderboard.fairness import mark_pareto

    def entry(cost: float, score: float) -> dict:
        return {"total_cost_usd": cost * 2, "attempts": 2, "mean_score": score}

    same_cost_better, same_cost_worse, level_a, level_b = entry(1, 90), entry(1, 80), entry(3, 95), entry(3, 95)
    entries = [same_cost_better, same_cost_worse, level_a, level_b]
    mark_pareto(entries, "mean_score")
    assert [e["pareto"] for e in entries] == [1, 0, 1, 1]
