"""The benchmark methods worked out by hand: task validation, list prices, RS9 runs, the index, fairness."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from leaderboard.fairness import Z95, wilson
from tests.benchmark_attempts import attempt

D1, D2 = "2026-11-01T09:00:00Z", "2026-11-08T09:00:00Z"


def approx(value):
    return pytest.approx(value, rel=1e-12, abs=1e-12)


def write(path: Path, records) -> str:
    path.write_text(json.dumps(records) if not isinstance(records, str) else records)
    return str(path)


def rows(db, table: str, where: str = "1", params=()) -> list[dict]:
    return list(db[table].rows_where(where, list(params)))


def task(task_id: str, baseline: int | None, reference: int | None, hidden: int = 5, suite: str = "s") -> dict:
    return {
        "suite": suite,
        "task_id": task_id,
        "title": f"Task {task_id}",
        "brief_url": f"https://tasks.example.org/{task_id}",
        "visible_tests": 2,
        "hidden_tests": hidden,
        "baseline_passed": baseline,
        "reference_passed": reference,
        "validated_at": "2026-10-30T12:00:00Z",
        "per_test": [{"test": f"test_{i}", "baseline": i < (baseline or 0), "reference": True} for i in range(hidden)],
    }


def test_a_task_whose_untouched_code_passes_does_not_count(db, run_cli, tmp_path):
    tasks = [
        task("t1", 2, 5),  # discriminates: the untouched code fails, the reference fix passes 5 of 5
        task("t2", 5, 5),  # the untouched code already passes every hidden test: proves nothing
        task("t3", 1, 4),  # the reference fix fails a hidden test
        task("t4", None, None),  # never validated
    ]
    result = run_cli("import-tasks", write(tmp_path / "tasks.json", tasks))
    assert "4 saved" in result.stdout and "1 validated, 3 not counted" in result.stdout
    attempts = [
        attempt("acme/coder", "1", t, 1, D1, "verified", p, 5, 60, 0.5, suite="s")
        for t, p in (("t1", 4), ("t2", 5), ("t3", 5), ("t4", 5), ("t9", 5))
    ]
    run_cli("import-attempts", "--verified", write(tmp_path / "a.json", attempts))
    status = {r["task_id"]: r["task_status"] for r in rows(db, "benchmark_attempts")}
    assert status["t1"] is None
    assert status["t2"] == "failed validation: the untouched code passes 5 of 5 hidden tests"
    assert status["t3"] == "failed validation: the reference fix passes only 4 of 5 hidden tests"
    assert status["t4"].startswith("not validated")
    assert status["t9"] == "no task record: t9 is not among suite s's tasks"
    # Every attempt is kept; only t1 counts: mean score 100 · 4 / 5 = 80 over 1 task, not (80 + 4 · 100) / 5.
    assert db["benchmark_attempts"].count == 5
    (entry,) = rows(db, "benchmark_entries")
    assert (entry["tasks"], entry["attempts"], entry["mean_score"], entry["tasks_total"]) == (1, 1, 80.0, 1)
    assert entry["total_cost_usd"] == approx(0.5)
    # A suite without task records counts its attempts as before.
    run_cli(
        "import-attempts",
        "--verified",
        write(tmp_path / "b.json", [attempt("acme/coder", "1", "x", 1, D1, "verified", 1, 2, 1, 1)]),
    )
    plain = rows(db, "benchmark_entries", "suite = 'agentrank'")[0]
    assert (plain["tasks"], plain["mean_score"]) == (1, 50.0)


PRICES = """
[[price]]
model = "m-large"
from = 2026-10-01
input = 3.0
cached_input = 0.3
cache_write = 3.75
output = 15.0

[[price]]
model = "m-large"
from = 2026-11-05
input = 2.0
cached_input = 0.2
cache_write = 2.5
output = 10.0

[[price]]
model = "m-future"
from = 2026-12-01
input = 1.0
cached_input = 0.1
cache_write = 1.0
output = 1.0
"""


def rs9_attempts() -> list[dict]:
    common = {"suite": "rs9", "human_interventions": 0}
    return [
        # Run 1: t1 passed, priced from tokens; t2 partly (3 of 4 checks), its usage a lower bound; t3 lost
        # to an infrastructure error.
        attempt(
            "acme/coder",
            "1.0",
            "t1",
            1,
            D1,
            "verified",
            10,
            10,
            100,
            None,
            run="2026-11-01",
            **common,
            tokens={"input": 100_000, "cached": 60_000, "cache_write": 10_000, "output": 5_000, "reasoning": 2_000},
        ),
        attempt(
            "acme/coder",
            "1.0",
            "t2",
            1,
            D1,
            "verified",
            3,
            4,
            1800,
            None,
            run="2026-11-01",
            **common,
            tokens={"input": 50_000, "cached": 0, "output": 2_000},
            cost_lower_bound=True,
            flags=("timed-out",),
        ),
        attempt(
            "acme/coder",
            "1.0",
            "t3",
            1,
            D1,
            "verified",
            None,
            None,
            None,
            None,
            run="2026-11-01",
            **common,
            flags=("infra-error",),
        ),
        # Run 2, a week later, on a new client version: every task passed, at the newer price.
        *[
            attempt(
                "acme/coder",
                "1.1",
                t,
                1,
                D2,
                "verified",
                4,
                4,
                50,
                None,
                run="2026-11-08",
                **common,
                tokens={"input": 10_000, "cached": 0, "output": 1_000},
            )
            for t in ("t1", "t2", "t3")
        ],
        # A closed agent on a model without a price, in both runs, same version: no change marked.
        *[
            attempt(
                "Closed Agent X",
                "7",
                t,
                1,
                d,
                "verified",
                4,
                4,
                50,
                None,
                model="m-unpriced",
                run=d[:10],
                **common,
                tokens={"input": 10_000, "output": 1_000},
            )
            for d in (D1, D2)
            for t in ("t1", "t2", "t3")
        ],
        # On a model whose only price starts after the run: not in force, so unknown too.
        attempt(
            "late/agent",
            "1",
            "t1",
            1,
            D1,
            "verified",
            4,
            4,
            50,
            None,
            model="m-future",
            run="2026-11-01",
            **common,
            tokens={"input": 10_000, "output": 1_000},
        ),
    ]


@pytest.fixture
def rs9(db, run_cli, tmp_path):
    run_cli("import-prices", write(tmp_path / "prices.toml", PRICES))
    run_cli("import-attempts", "--verified", write(tmp_path / "a.json", rs9_attempts()))
    return {(r["run"], r["agent"]): r for r in rows(db, "benchmark_rs9_runs")}


def test_an_rs9_run_with_an_infra_error_partial_credit_and_list_price_cost(rs9, db):
    r = rs9[("2026-11-01", "acme/coder")]
    # t3's infra error is out of the count: the score is out of 2 tasks, not 3.
    assert (r["tasks"], r["infra_errors"], r["passed"]) == (2, 1, 1)
    assert r["headline"] == approx(100 * 1 / 2)
    # Partial credit: every task weighs the same, t1 10/10, t2 3/4 (timed out, so not passed).
    assert r["partial_credit"] == approx((100 * 10 / 10 + 100 * 3 / 4) / 2)  # 87.5
    # t1 at the price of 2026-10-01: 30,000 uncached at $3, 60,000 cached at $0.30, 10,000 written at $3.75,
    # 5,000 output (reasoning included) at $15, per million tokens.
    t1 = (30_000 * 3.0 + 60_000 * 0.3 + 10_000 * 3.75 + 5_000 * 15.0) / 1e6  # 0.2205
    t2 = (50_000 * 3.0 + 2_000 * 15.0) / 1e6  # 0.18
    assert r["total_cost_usd"] == approx(t1 + t2)
    assert r["cost_per_pass"] == approx((t1 + t2) / 1)
    assert r["cost_lower_bound"] == 1  # t2 stopped before its final usage was reported
    stored = {a["task_id"]: a for a in rows(db, "benchmark_attempts", "agent = 'acme/coder' and run = '2026-11-01'")}
    assert stored["t1"]["list_cost_usd"] == approx(t1)
    assert stored["t1"]["cost_usd"] is None  # the ledger keeps what the attempt said; the price is beside it


def test_a_version_change_across_two_runs(rs9):
    first, second = rs9[("2026-11-01", "acme/coder")], rs9[("2026-11-08", "acme/coder")]
    assert first["version_changed"] == 0
    assert (second["version_changed"], second["previous_version"]) == (1, "1.0")
    # Run 2 at the price from 2026-11-05: 3 · (10,000 · $2 + 1,000 · $10) / 1e6, three passes.
    assert second["headline"] == 100.0 and second["passed"] == 3
    assert second["cost_per_pass"] == approx(3 * (10_000 * 2.0 + 1_000 * 10.0) / 1e6 / 3)
    assert rs9[("2026-11-08", "Closed Agent X")]["version_changed"] == 0


def test_a_missing_price_is_unknown_never_zero(rs9, db):
    for key in (("2026-11-01", "Closed Agent X"), ("2026-11-01", "late/agent")):
        r = rs9[key]
        assert (r["total_cost_usd"], r["cost_per_pass"]) == (None, None), key
        assert r["cost_unknown"] >= 1
    unpriced = rows(db, "benchmark_attempts", "model = 'm-unpriced'")
    assert {(a["cost_usd"], a["list_cost_usd"], a["cost_source"]) for a in unpriced} == {(None, None, None)}


def test_rs9_ranks_by_headline_then_partial_credit_among_full_runs(rs9):
    # Run 1 has 3 tasks; late/agent attempted 1 of them: listed, not ranked.
    assert rs9[("2026-11-01", "late/agent")]["rank"] is None
    assert rs9[("2026-11-01", "late/agent")]["coverage"] == "1 of 3 tasks"
    # Closed Agent X 3 of 3 passed (100) ranks above acme/coder 1 of 2 (50), whose infra error still counts
    # as attempted (a score out of fewer tasks, not a partial entry).
    assert (rs9[("2026-11-01", "Closed Agent X")]["rank"], rs9[("2026-11-01", "acme/coder")]["rank"]) == (1, 2)


INDEX_CONFIG = """
[[benchmark.index]]
name = "Coding Agent Index"
version = "1.5"
suites = ["deep", "term", "qna"]
"""


def test_an_index_with_a_missing_suite_and_two_settings_variants(db, run_cli, tmp_path):
    config = tmp_path / "agentrank.toml"
    config.write_text(INDEX_CONFIG)

    def a(settings, suite, task, passed, cost, wall, flags=()):
        return attempt(
            "acme/coder",
            "2",
            task,
            1,
            D1,
            "verified",
            passed,
            10,
            wall,
            cost,
            suite=suite,
            settings={"reasoning": settings},
            flags=flags,
        )

    attempts = [
        a("low", "deep", "d1", 10, 1.0, 100),
        a("low", "deep", "d2", 6, None, 200),
        a("low", "term", "t1", 10, 3.0, None, flags=("reward-hacking",)),
        a("low", "term", "t2", 10, 2.0, 300),
        a("low", "qna", "q1", 5, 0.5, 50),
        a("high", "deep", "d1", 10, 4.0, 400),
        a("high", "term", "t1", 5, 4.0, 400),
    ]
    run_cli("--config", str(config), "import-attempts", "--verified", write(tmp_path / "a.json", attempts))
    entries = {json.loads(r["settings"])["reasoning"]: r for r in rows(db, "benchmark_index_entries")}
    low, high = entries["low"], entries["high"]
    # Per suite pass@1 (the share of attempts passing every hidden test): low: deep (1 + 0) / 2 = 50, term
    # (0 for reward hacking + 1) / 2 = 50, qna 5 of 10 tests is not a pass: 0 → (50 + 50 + 0) / 3.
    assert json.loads(low["per_suite"]) == {"deep": 50.0, "term": 50.0, "qna": 0.0}
    assert low["value"] == approx((50 + 50 + 0) / 3)
    assert (low["rank"], low["null_reason"], low["version"]) == (1, None, "1.5")
    # Efficiency per attempt, unknowns left out: cost (1 + 3 + 2 + 0.5) / 4, time (100 + 200 + 300 + 50) / 4.
    assert low["mean_cost_usd"] == approx((1.0 + 3.0 + 2.0 + 0.5) / 4)
    assert low["mean_wall_seconds"] == approx((100 + 200 + 300 + 50) / 4)
    # high never ran qna: no value, and the reason says which suite is missing.
    assert (high["value"], high["rank"], high["null_reason"]) == (None, None, "no counted attempt in qna")
    assert json.loads(high["per_suite"]) == {"deep": 100.0, "term": 0.0, "qna": None}
    assert json.loads(high["suites"]) == ["deep", "term", "qna"]


README_EXAMPLE = attempt("acme/coder", "1.1", "fix-date-parser", 1, D1, "verified", 7, 8, 412.5, 0.83)


def test_a_partial_coverage_entry_is_listed_without_a_rank(db, run_cli, tmp_path):
    # Two agents with 10 attempts over 5 tasks (mean 80 and 60), and the README's one attempt at one task
    # (7 of 8 = 87.5): before, its 87.5 ranked above both although it was measured on an easier test.
    full = [
        attempt(agent, "1", f"t{t}", n, D1, "verified", passed, 10, 60, 0.1)
        for agent, passed in (("good/agent", 8), ("fair/agent", 6))
        for t in range(1, 5)
        for n in (1, 2)
    ]
    full += [
        attempt(agent, "1", "fix-date-parser", n, D1, "verified", passed, 10, 60, 0.1)
        for agent, passed in (("good/agent", 8), ("fair/agent", 6))
        for n in (1, 2)
    ]
    run_cli("import-attempts", "--verified", write(tmp_path / "a.json", [*full, README_EXAMPLE]))
    board = {r["agent"]: r for r in rows(db, "benchmark_entries")}
    assert board["acme/coder"]["mean_score"] == approx(100 * 7 / 8)
    assert (board["acme/coder"]["rank"], board["acme/coder"]["coverage"]) == (None, "1 of 5 tasks")
    assert (board["good/agent"]["rank"], board["fair/agent"]["rank"]) == (1, 2)
    assert board["good/agent"]["coverage"] is None and board["good/agent"]["tasks_total"] == 5


def test_wilson_intervals():
    z = Z95
    # 1 solved of 3: centre (p + z²/2n) / (1 + z²/n), half-width z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
    p, n = 1 / 3, 3
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = wilson(1, 3)
    assert (low, high) == (approx(100 * (centre - half)), approx(100 * (centre + half)))
    assert round(low, 2), round(high, 2) == (6.15, 79.23)
    # Nothing solved of 10 still leaves room: 0 to z²/(n + z²) = 27.75 %.
    assert wilson(0, 10) == (0.0, approx(100 * z * z / (10 + z * z)))
    assert wilson(10, 10)[0] == approx(100 * 10 / (10 + z * z))
    assert wilson(0, 0) is None
    # None or all solved: that end is exactly 0 or 100, never a few 1e-15 off (0 of 6 was 2.8e-15).
    assert all(wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 100.0 for n in range(1, 200))


def test_overlapping_intervals_and_the_pareto_frontier_are_marked(db, run_cli, tmp_path):
    # Three entries on one task: 9 of 10 solved at $1 each, 8 of 10 at $0.20, 2 of 10 at $0.50.
    def runs(agent, solved, cost):
        return [
            attempt(agent, "1", "t1", n, D1, "verified", 1 if n <= solved else 0, 1, 10, cost) for n in range(1, 11)
        ]

    run_cli(
        "import-attempts",
        "--verified",
        write(tmp_path / "a.json", runs("a/best", 9, 1.0) + runs("b/cheap", 8, 0.2) + runs("c/poor", 2, 0.5)),
    )
    board = {r["agent"]: r for r in rows(db, "benchmark_entries")}
    assert [board[a]["rank"] for a in ("a/best", "b/cheap", "c/poor")] == [1, 2, 3]
    # 9/10 → [59.6, 98.2], 8/10 → [49.0, 94.3]: they overlap; 8/10 and 2/10 → [5.7, 51.0] overlap too, barely.
    assert (round(board["a/best"]["solve_rate_low"], 1), round(board["a/best"]["solve_rate_high"], 1)) == (59.6, 98.2)
    assert (board["a/best"]["overlaps_next"], board["b/cheap"]["overlaps_next"]) == (1, 1)
    assert board["c/poor"]["overlaps_next"] is None
    # Pareto: a/best (best score) and b/cheap (cheapest) are on it; c/poor costs more than b/cheap and scores less.
    assert {a: board[a]["pareto"] for a in board} == {"a/best": 1, "b/cheap": 1, "c/poor": 0}


@pytest.mark.parametrize(
    ("command", "name", "text", "message"),
    [
        ("import-tasks", "t.json", '[{"suite": "s", "task_id": "t"}]', "record 1: title: required"),
        ("import-tasks", "t.json", json.dumps([task("t1", 6, 5)]), "baseline_passed: 6 is more than hidden_tests 5"),
        (
            "import-prices",
            "p.toml",
            '[[price]]\nmodel = "m"\nfrom = 2026-01-01\ninput = -1\noutput = 1\n',
            "price.0.input",
        ),
        ("import-prices", "p.toml", '[[price]]\nmodel = "m"\n', "price.0.from: required"),
        # Strict like attempts: a boolean or a quoted number is not a price.
        (
            "import-prices",
            "p.toml",
            '[[price]]\nmodel = "m"\nfrom = 2026-01-01\ninput = true\noutput = 1\n',
            "price.0.input",
        ),
        (
            "import-prices",
            "p.toml",
            '[[price]]\nmodel = "m"\nfrom = 2026-01-01\ninput = 1\noutput = "3"\n',
            "price.0.output",
        ),
        ("import-prices", "p.toml", "[[price]\n", "not valid TOML"),
    ],
)
def test_a_bad_ledger_file_is_one_line_and_changes_nothing(db, run_cli, tmp_path, command, name, text, message):
    result = run_cli(command, write(tmp_path / name, text), expect=1)
    assert message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert db["benchmark_task_records"].count == 0 and db["benchmark_prices"].count == 0


def test_an_older_ledger_upgrades_and_its_files_import_unchanged(tmp_path, run_cli, db_path):
    import hashlib

    import sqlite_utils

    from db.migrations import migrations
    from leaderboard.attempt import Attempt
    from leaderboard.store import attempt_row

    old_record = attempt("acme/coder", "1.0", "t1", 1, D1, "verified", 3, 4, 60, 0.5)
    old = Attempt.model_validate_json(json.dumps(old_record))
    # Before suites and runs, the id hashed the key alone; the database stores that id.
    key = ["verified", "acme/coder", "1.0", "m-large", "t1", 1]
    old_id = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]
    assert old.attempt_id != old_id
    database = sqlite_utils.Database(db_path)
    migrations.apply(database, stop_before="m016_benchmark_methods")
    database["runs"].insert({"id": 1, "kind": "import-attempts", "started_at": D1, "status": "ok"})
    row = {
        k: v
        for k, v in attempt_row(old).items()
        if k not in old.row().keys() - set(database["benchmark_attempts"].columns_dict)
    }
    database["benchmark_attempts"].insert({**row, "attempt_id": old_id, "first_run_id": 1, "changed_run_id": 1})
    database.close()
    # The upgrade rewrites the stored id, so the same file updates the row rather than adding one.
    result = run_cli("import-attempts", "--verified", write(tmp_path / "old.json", [old_record]))
    assert "(0 new, 0 updated, 1 unchanged)" in result.stdout
    upgraded = sqlite_utils.Database(db_path)["benchmark_attempts"].get(old.attempt_id)
    assert (upgraded["suite"], upgraded["run"]) == ("agentrank", "2026-11-01")
    # The same task in another run is another attempt.
    run_cli("import-attempts", "--verified", write(tmp_path / "later.json", [{**old_record, "run": "2026-11-08"}]))
    assert sqlite_utils.Database(db_path)["benchmark_attempts"].count == 2


def test_the_same_task_on_another_day_is_another_runs_attempt(tmp_path, run_cli, db):
    # No run named: each attempt's run is its date, so next week's attempt 1 at t1 is a new attempt
    # in a new run, never an update that erases last week's.
    first = attempt("acme/coder", "1.0", "t1", 1, "2026-10-02T09:00:00Z", "verified", 3, 4, 60, 0.5)
    second = attempt("acme/coder", "1.0", "t1", 1, "2026-10-09T09:00:00Z", "verified", 4, 4, 60, 0.5)
    run_cli("import-attempts", "--verified", write(tmp_path / "w1.json", [first]))
    result = run_cli("import-attempts", "--verified", write(tmp_path / "w2.json", [second]))
    assert "(1 new, 0 updated, 0 unchanged)" in result.stdout, result.stdout
    assert sorted(r["run"] for r in db["benchmark_attempts"].rows) == ["2026-10-02", "2026-10-09"]
    # Both in one file are two attempts too, and named dated runs behave the same.
    run_cli("import-attempts", "--verified", write(tmp_path / "both.json", [first, second]))
    named = [{**first, "run": "2026-10-02"}, {**second, "run": "2026-10-09"}]
    run_cli("import-attempts", "--verified", write(tmp_path / "named.json", named))
    assert db["benchmark_attempts"].count == 2
    runs = {(r["run"], r["passed"]) for r in db.query("select run, passed from benchmark_rs9_runs")}
    assert runs == {("2026-10-02", 0), ("2026-10-09", 1)}


def test_a_version_change_is_found_when_the_settings_changed_too():
    from leaderboard.rs9 import rs9_runs

    def one(version, run, settings, model="m-large"):
        record = attempt("acme/coder", version, "t1", 1, f"{run}T09:00:00Z", "verified", 1, 1, 1, 1.0, model=model)
        record.update(suite="s", run=run, settings=json.dumps(settings, sort_keys=True), flags="[]")
        return record

    runs = rs9_runs(
        [
            one("1", "2026-11-01", {"effort": "low"}),
            one("1", "2026-11-01", {"effort": "high"}),
            one("1", "2026-11-08", {"effort": "low"}),  # same as before: no change
            one("1", "2026-11-08", {"effort": "high"}, model="m-xl"),  # the model changed
            one("2", "2026-11-15", {"effort": "max"}),  # a new setting: compared with the agent's previous run
        ]
    )
    changes = {
        (r["run"], r["settings"]): (r["version_changed"], r["previous_version"], r["previous_model"]) for r in runs
    }
    assert changes[("2026-11-08", '{"effort": "low"}')] == (False, None, None)
    assert changes[("2026-11-08", '{"effort": "high"}')] == (True, "1", "m-large")
    assert changes[("2026-11-15", '{"effort": "max"}')][0] is True
