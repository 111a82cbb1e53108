"""What a ninth audit against design.md and seeds 001–004 found (each test failed before its fix),
worked out by hand: money added as binary floats printed 0.6000000000000001 where the attempts
said 0.1 six times. (The Wilson interval's exact ends and a FitScore weights table that leaves a
criterion out are in ``test_benchmark_methods.py`` and ``test_benchmark_fitscore.py``.)
"""

from __future__ import annotations

from leaderboard.methods import compute_methods
from tests.benchmark_attempts import attempt
from tests.test_benchmark_methods_fixes import index_def, rows_of

V = "verified"
D1 = "2026-11-01T10:00:00Z"


def test_costs_are_added_and_divided_without_floating_point_noise():
    # Six tasks at $0.10, all passed: $0.60 in all, $0.10 a pass and an attempt, as a person adds them.
    records = [attempt("thrifty", "1", f"t{n}", 1, D1, V, 2, 2, 10, 0.1, suite="s", run="r1") for n in range(6)]
    methods = compute_methods(rows_of(records), indexes=[index_def()])
    [run] = methods.rs9_runs
    assert (run["total_cost_usd"], run["cost_per_pass"]) == (0.6, 0.1)
    [entry] = methods.index_entries
    assert entry["mean_cost_usd"] == 0.1


def test_a_list_price_cost_has_no_floating_point_noise():
    from leaderboard.prices import Price

    # 3 million input tokens at $1.10 a million: $3.30 (binary floats made it 3.3000000000000003).
    price = Price.model_validate({"model": "m-large", "from": "2026-10-01", "input": 1.1, "output": 4.4}).row()
    records = [attempt("x/x", "1", "t1", 1, D1, V, 1, 1, 10, None, suite="s", tokens={"input": 3_000_000, "output": 0})]
    [run] = compute_methods(rows_of(records), prices=[price]).rs9_runs
    assert run["total_cost_usd"] == 3.3
