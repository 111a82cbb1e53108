"""Issue 26's "missing or partial" items, the data side: what the export's ``methods`` and the
``leaderboard.views`` readers give the pages, seed by seed."""

from __future__ import annotations

import json
import sqlite3

import pytest

from agentrank.exporter import validate_export
from datasette_plugins.benchmark_pages import over_time
from leaderboard import views
from tests.benchmark_attempts import attempt
from tests.conftest import make_item, write_json
from tests.test_benchmark_methods import task

V, C = "verified", "community"
N1, N8, N15 = "2026-11-01T09:00:00Z", "2026-11-08T09:00:00Z", "2026-11-15T09:00:00Z"
PRICES = '[[price]]\nmodel = "m-large"\nfrom = 2026-10-01\ninput = 3.0\noutput = 15.0\n'
PRICES += '[[price]]\nmodel = "m-large"\nfrom = 2026-11-05\ninput = 2.0\noutput = 10.0\n'
TOKENS = {"input": 1_000_000, "cached": 200_000, "cache_write": 100_000, "output": 100_000, "reasoning": 40_000}


def records() -> list[dict]:
    rs9 = {"suite": "rs9"}
    return [
        # A router bills $0.40 for tokens whose list price is 0.7 × 3 + 0.2 × 3 + 0.1 × 3 + 0.1 × 15 = $4.50 (Nov 1).
        attempt(
            "acme/coder",
            "1",
            "a",
            1,
            N1,
            V,
            4,
            4,
            100,
            0.4,
            cost_source="provider-invoice",
            tokens=TOKENS,
            run="run-9",
            **rs9,
        ),
        attempt("acme/coder", "1", "b", 1, N1, V, 2, 4, 120, 0.4, cost_source="provider-invoice", run="run-9", **rs9),
        attempt(
            "acme/coder",
            "1",
            "c",
            1,
            N1,
            V,
            None,
            None,
            None,
            None,
            run="run-9",
            flags=["infra-error"],
            error_detail="provider returned 503",
            **rs9,
        ),
        attempt(
            "acme/coder",
            "1",
            "d",
            1,
            N1,
            V,
            None,
            None,
            5,
            0.05,
            cost_source="provider-invoice",
            run="run-9",
            flags=["agent-error"],
            error_detail="CLI crashed on start",
            **rs9,
        ),
        attempt("acme/coder", "2", "a", 1, N8, V, 4, 4, 90, 0.5, run="run-10", **rs9),
        attempt("acme/coder", "2", "b", 1, N8, V, 4, 4, 90, 0.5, run="run-10", **rs9),
        attempt("acme/coder", "2", "c", 1, N8, V, 4, 4, 90, 0.5, run="run-10", **rs9),
        attempt("acme/coder", "2", "d", 1, N8, V, 4, 4, 90, 0.5, run="run-10", **rs9),
        attempt("acme/coder", "2", "a", 1, N15, V, 4, 4, 80, 0.5, run="run-11", **rs9),
        # Scorecard suite: commits, links, three attempts for a spread, a list-price cost (rate of Nov 5).
        *[
            attempt(
                "acme/coder",
                "1",
                "pag-1",
                n,
                N8,
                V,
                p,
                10,
                w,
                None,
                suite="sc",
                repo_commit="abc123",
                tokens={"input": 1000, "output": 100},
            )
            for n, (p, w) in enumerate([(10, 300), (6, 200), (8, 400)], 1)
        ],
        # An unranked (partial) entry with a known cost, on the leaderboard of suite sc.
        attempt("part/agent", "1", "pag-1", 1, N8, C, 10, 10, 50, 2.0, suite="sc2"),
        attempt("full/agent", "1", "pag-1", 1, N8, C, 10, 10, 50, 2.0, suite="sc2"),
        attempt("full/agent", "1", "pag-2", 1, N8, C, 10, 10, 50, 2.0, suite="sc2"),
        # Index suites with every token type and agent time.
        attempt("acme/coder", "1", "x1", 1, N1, V, 1, 1, 100, 1.0, suite="deep", tokens=TOKENS, agent_seconds=60),
        attempt(
            "acme/coder", "1", "x2", 1, N1, V, 1, 1, 300, 1.0, suite="term", tokens={"input": 500_000, "output": 50_000}
        ),
        # FitScore: wall times against a 900 s limit: t1 median 250 (< 300: 5), t2 median 400 (< 450: 4).
        *[
            attempt("Tool", "1", "t1", n, N8, V, 4, 4, w, None, suite="pack", run="r2", quality=5, limit_seconds=900)
            for n, w in enumerate([250, 200, 260], 1)
        ],
        *[
            attempt("Tool", "1", "t2", n, N8, V, 4, 4, w, None, suite="pack", run="r2", quality=5, limit_seconds=900)
            for n, w in enumerate([400, 380, 500], 1)
        ],
    ]


ASSESS = """
[[assessment]]
agent = "Tool"
suite = "pack"
scores = { cost = 3, setup = 5, agent = 5, privacy = 5 }
notes = { cost = "covered by a $20 monthly plan" }
[[assessment]]
agent = "Untested"
suite = "pack"
scores = { cost = 3, setup = 5, agent = 5, privacy = 5 }
"""


@pytest.fixture
def ledger(db_path, run_cli, tmp_path):
    config = tmp_path / "agentrank.toml"
    config.write_text('[[benchmark.index]]\nname = "Idx"\nversion = "1"\nsuites = ["deep"]\n')
    run_cli("import", str(write_json(tmp_path / "items.json", [make_item(id=1, full_name="acme/coder", name="coder")])))
    run_cli("score")
    run_cli("--config", str(config), "import-tasks", str(write_json(tmp_path / "t.json", [task("pag-1", 2, 10, hidden=10, suite="sc"), task("pag-2", 0, 10, hidden=10, suite="sc")])))  # fmt: skip
    run_cli("--config", str(config), "import-prices", str((tmp_path / "p.toml").write_text(PRICES) and tmp_path / "p.toml"))  # fmt: skip
    run_cli("--config", str(config), "import-attempts", "--verified", str(write_json(tmp_path / "a.json", records())))
    (tmp_path / "f.toml").write_text(ASSESS)
    # The index moves to version 2 with a second suite: its history keeps version 1.
    config.write_text('[[benchmark.index]]\nname = "Idx"\nversion = "2"\nsuites = ["deep", "term"]\n')
    run_cli("--config", str(config), "import-assessments", str(tmp_path / "f.toml"))
    out = tmp_path / "export.json"
    run_cli("--config", str(config), "export", "--out", str(out))
    document = json.loads(out.read_text())
    validate_export(document)
    conn = sqlite3.connect(db_path)
    yield document["methods"], conn, document
    conn.close()


def test_seed_000_costs_carry_their_source_and_unranked_entries_their_cost(ledger):
    methods, conn, document = ledger
    run = next(r for r in methods["rs9_runs"] if r["run"] == "run-10")
    assert (run["total_cost_usd"], run["cost_source"]) == (2.0, "provider-dashboard")
    board = {e["agent"]: e for e in document["leaderboards"]["community"] if e["suite"] == "sc2"}
    assert (board["part/agent"]["rank"], board["part/agent"]["coverage"]) == (None, "1 of 2 tasks")
    assert (board["part/agent"]["cost_per_attempt"], board["part/agent"]["cost_source"]) == (2.0, "self-reported")
    # The task page's attempt rows carry their tier.
    page = views.task_page(conn, "sc", "pag-1")
    assert page is not None and {a["tier"] for a in page["attempts"]} == {V}


def test_seed_001_router_billed_and_list_price_side_by_side_and_errors_told_apart(ledger):
    methods, _, _ = ledger
    run9 = next(r for r in methods["rs9_runs"] if r["run"] == "run-9")
    # Billed $0.85 by the router; the same tokens at list price: $4.50 for a, b has no tokens: unknown.
    assert (run9["total_cost_usd"], run9["cost_source"]) == (pytest.approx(0.85), "provider-invoice")
    assert run9["total_list_cost_usd"] is None
    # Per task (the run page's results): the router's charge and the list-price figure side by side.
    results = {t["task_id"]: t for t in views.rs9_runs(ledger[1], "rs9", "run-9", results=True)[0]["results"]}
    assert results["a"]["list_cost_usd"] == pytest.approx(4.5) and results["a"]["cost_usd"] == 0.4
    # The infra error is left out (3 tasks counted of 4 attempted), the agent error is a fail, both with reasons.
    assert (run9["attempted"], run9["tasks"], run9["passed"], run9["infra_errors"], run9["agent_errors"]) == (
        4,
        3,
        1,
        1,
        1,
    )
    assert run9["error_reasons"] == [
        {"kind": "agent-error", "reason": "CLI crashed on start", "attempts": 1},
        {"kind": "infra-error", "reason": "provider returned 503", "attempts": 1},
    ]


def test_seed_001_runs_and_the_over_time_chart_follow_dates(ledger):
    _, conn, _ = ledger
    entries = views.rs9_runs(conn, "rs9")
    assert [e["run"] for e in entries] == ["run-9", "run-10", "run-11"]
    assert [e["version_changed"] for e in entries] == [False, True, False]
    (chart,) = over_time(entries)
    assert [p["run"] for p in chart["points"]] == ["run-9", "run-10", "run-11"]
    assert chart["tier"] == V
    assert [r["run"] for r in views.run_list(conn) if r["suite"] == "rs9"] == ["run-11", "run-10", "run-9"]


def test_seed_002_the_scorecard_has_every_field_and_a_protocol_without_runs(ledger):
    methods, _, _ = ledger
    (card,) = [s for s in methods["scorecards"] if s["suite"] == "sc"]
    assert card["ranked"] is False
    tasks = {t["task_id"]: t for t in card["tasks"]}
    assert (tasks["pag-2"]["measured"], tasks["pag-2"]["entries"]) == (False, [])  # recorded before any run
    (entry,) = tasks["pag-1"]["entries"]
    assert entry["repo_commits"] == ["abc123"]
    assert entry["score"] == {"median": 80.0, "min": 60.0, "max": 100.0}
    assert entry["wall_seconds"] == {"median": 300.0, "min": 200.0, "max": 400.0}
    first = entry["attempts"][0]
    assert first["log_url"].startswith("https://") and first["diff_url"].endswith(".diff")
    # Priced at the list price in force from Nov 5: 1,000 × $2 + 100 × $10 per million.
    assert (first["cost_usd"], first["cost_source"], first["cost_rate_date"]) == (
        pytest.approx(0.003),
        "api-list-price",
        "2026-11-05",
    )
    assert first["human_interventions"] is None and first["regression_passed"] is None  # not measured: null


def test_seed_003_efficiency_per_token_type_agent_time_and_version_history(ledger):
    methods, _, _ = ledger
    (index,) = methods["indexes"]
    assert [(v["version"], v["suites"]) for v in index["versions"]] == [("1", ["deep"]), ("2", ["deep", "term"])]
    (entry,) = index["entries"]
    assert entry["tier"] == V and entry["per_suite"] == {"deep": 100.0, "term": 100.0}
    assert (entry["mean_tokens_input"], entry["mean_tokens_output"]) == (750_000, 75_000)
    # Only one attempt reported cached, cache-write and reasoning tokens, and agent time: unknowns left out.
    assert (entry["mean_tokens_cached"], entry["mean_tokens_cache_write"], entry["mean_tokens_reasoning"]) == (
        200_000,
        100_000,
        40_000,
    )
    assert (entry["mean_wall_seconds"], entry["mean_agent_seconds"]) == (200, 60)


def test_seed_004_speed_is_derived_and_the_page_has_versions_notes_and_runs(ledger):
    methods, _, _ = ledger
    found = {f["agent"]: f for f in methods["fitscores"]}
    tool = found["Tool"]
    assert tool["criteria"]["speed"] == 5  # (5 + 4) / 2 = 4.5, rounded half up
    assert [(t["task_id"], t["median_wall_seconds"], t["speed"]) for t in tool["derived"]["tasks"]] == [
        ("t1", 250.0, 5),
        ("t2", 400.0, 4),
    ]
    assert tool["median_wall_seconds"] == 320.0  # over all six attempts
    assert tool["versions"] == [{"agent_version": "1", "model": "m-large"}]
    assert (tool["runs"], tool["runs_named"], tool["tier"], tool["rank"]) == (["r2"], False, V, 1)
    assert tool["notes"] == {"cost": "covered by a $20 monthly plan"}
    assert (found["Untested"]["has_runs"], found["Untested"]["fitscore"], found["Untested"]["rank"]) == (
        False,
        None,
        None,
    )


@pytest.mark.asyncio
async def test_seed_000_the_pareto_column_of_an_unranked_entry_shows_its_known_cost(ledger, db_path):
    from datasette.app import Datasette

    from datasette_plugins.metadata import build_metadata

    ds = Datasette([str(db_path)], metadata=build_metadata(db_path.stem))
    await ds.invoke_startup()
    rows = (await ds.client.get(f"/{db_path.stem}/community_leaderboard.json?_shape=array")).json()
    partial = next(r for r in rows if r["agent"] == "part/agent")
    assert partial["cost_score_pareto"] == "not ranked; 2.00 per attempt"
    assert partial["total_cost_usd"] == "2.00 (self-reported)"


def test_the_over_time_chart_places_runs_by_date_and_plots_the_share_passed():
    from datasette_plugins.benchmark_pages import run_places

    def pct(place: str) -> float:
        return float(place.rstrip("%"))

    dates = {
        "a": "2026-11-04T08:00:00Z",
        "b": "2026-11-05T08:00:00Z",
        "c": "2026-11-18T08:00:00Z",
        "d": "2026-12-02T08:00:00Z",
    }
    places = {run: pct(x) for run, x in run_places(list(dates), dates).items()}
    # Two weeks look about twice as long as one; a day's gap is widened to 0.8 of the even spacing
    # (a third of the width: 0.8 / 3), never reordered.
    assert places["a"] < places["b"] < places["c"] < places["d"]
    width = places["d"] - places["a"]
    assert (places["d"] - places["c"]) / (places["c"] - places["b"]) == pytest.approx(14 / 13, rel=0.01)
    assert (places["b"] - places["a"]) / width == pytest.approx(0.8 / 3, rel=0.01)
    # Unknown dates, or runs on one day: evenly spaced.
    even = [pct(x) for x in run_places(["x", "y", "z"], {}).values()]
    assert even[1] - even[0] == pytest.approx(even[2] - even[1])
