"""Wrong results a fourth audit against design.md and seeds 001–004 found, one test each (each failed
before its fix), worked out by hand.

1. a community record filed under a verified run's name moved the verified run in time (RS9 order,
   ``version_changed``, FitScore's default run); 2. the over-time chart split one agent in two when its
   GitHub name was cased differently from run to run; 3. FitScores of two suites (two packs of tasks)
   were ranked in one list; 4. an assessment naming a suite the ledger never saw was saved silently;
   5. a task validated after a run unranked that run's entries; 6. an agent time longer than the
   wall time it is part of was accepted; 7. a FitScore pooled two settings variants without a word.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

from agentrank.cli import cli
from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from datasette_plugins.benchmark_pages import over_time
from leaderboard.methods import compute_methods
from leaderboard.tasks import TaskRecord
from tests.benchmark_attempts import attempt
from tests.test_benchmark_methods_fixes import assessment, rows_of

V, C = "verified", "community"
D0, D1, D2 = "2026-10-01T00:00:00Z", "2026-11-01T10:00:00Z", "2026-11-08T10:00:00Z"


def _served_ledger(tmp_path, records: list[dict[str, Any]], agents_and_suites: list[tuple[str, str]]) -> Any:
    """The records imported as verified attempts and one assessment per (agent, suite), served."""
    (tmp_path / "a.json").write_text(json.dumps(records))
    (tmp_path / "f.toml").write_text(
        "".join(
            f'[[assessment]]\nagent = "{agent}"\nsuite = "{suite}"\n'
            "scores = { cost = 3, speed = 5, setup = 5, agent = 5, privacy = 5 }\n"
            for agent, suite in agents_and_suites
        )
    )
    db = tmp_path / "b.db"
    for step in (
        ["import-attempts", "--verified", str(tmp_path / "a.json")],
        ["import-assessments", str(tmp_path / "f.toml")],
    ):
        result = CliRunner().invoke(cli, ["--db", str(db), *step], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return build_datasette(db, ServeConfig(heap_limit_mb=0))


def test_a_community_record_never_moves_a_verified_run_in_time():
    # Verified: r1 (1 Nov, version 1, passed, quality 5), then r2 (8 Nov, version 2, failed, quality 1).
    verified = [
        attempt("v/agent", "1", "t", 1, D1, V, 1, 1, 10, 1.0, suite="p", run="r1", quality=5),
        attempt("v/agent", "2", "t", 1, D2, V, 0, 1, 10, 1.0, suite="p", run="r2", quality=1),
    ]
    # One community record filed under the name "r2", dated a month before either verified run.
    community = [attempt("someone/else", "9", "t", 1, D0, C, 0, 1, 10, 1.0, suite="p", run="r2")]
    methods = compute_methods(rows_of(verified + community), assessments=[assessment("v/agent", "p")])
    mine = {r["run"]: r for r in methods.rs9_runs if r["tier"] == V}
    # The verified runs keep their own dates and order: r2 follows r1 and is the version change.
    assert (mine["r1"]["run_date"][:10], mine["r2"]["run_date"][:10]) == ("2026-11-01", "2026-11-08")
    assert (mine["r1"]["version_changed"], mine["r2"]["version_changed"]) == (False, True)
    # The FitScore's default run is the agent's latest verified run, r2: quality 1, reliability 1, the
    # rest as assessed (cost 3, speed/setup/agent/privacy 5) → (1·30 + 1·15 + 3·15 + 5·40) / 5 = 58.
    [fit] = methods.fitscores
    assert (fit["runs"], fit["fitscore"]) == (["r2"], 58)
    # The community run r2 is dated by its own record.
    [theirs] = [r for r in methods.rs9_runs if r["tier"] == C]
    assert theirs["run_date"][:10] == "2026-10-01"


def test_the_over_time_chart_keeps_one_agent_whose_name_changed_case():
    records = [
        attempt("Acme/CODER", "1", "t", 1, D1, V, 1, 1, 10, 1.0, suite="s", run="r1"),
        attempt("acme/coder", "2", "t", 1, D2, V, 0, 1, 10, 1.0, suite="s", run="r2"),
    ]
    entries = compute_methods(rows_of(records)).rs9_runs
    for entry in entries:
        entry["settings"] = json.loads(entry["settings"]) if isinstance(entry["settings"], str) else entry["settings"]
    charts: list[dict[str, Any]] = over_time(entries)
    # One series across both runs, named as in its latest run, with the version change on its second point.
    assert [(c["agent"], [p["run"] for p in c["points"]], c["changes"]) for c in charts] == [
        ("acme/coder", ["r1", "r2"], 1)
    ]


@pytest.mark.asyncio
async def test_fitscores_of_two_suites_are_two_rankings(tmp_path):
    # "low" passes everything in pack A (quality 5); "high" fails everything in pack B (quality 1).
    records = [attempt("low", "1", "t", 1, D1, V, 1, 1, 10, 1.0, suite="packA", run="r1", quality=5)]
    records += [attempt("high", "1", "t", 1, D1, V, 0, 1, 10, 1.0, suite="packB", run="r1", quality=1)]
    methods = compute_methods(rows_of(records), assessments=[assessment("low", "packA"), assessment("high", "packB")])
    # Each is first of its own pack: 94 = (5·30 + 5·15 + 3·15 + 5·40) / 5, and 58 as above.
    assert {(f["suite"], f["agent"], f["rank"], f["fitscore"]) for f in methods.fitscores} == {
        ("packA", "low", 1, 94),
        ("packB", "high", 1, 58),
    }
    datasette = _served_ledger(tmp_path, records, [("low", "packA"), ("high", "packB")])
    page = (await datasette.client.get("/-/benchmark/fitscore")).text
    # The page shows each suite under its own heading, each with its own #1.
    assert re.findall(r"<h2[^>]*>Suite (\w+)</h2>", page) == ["packA", "packB"]
    assert page.count(">#1") == 2 and ">#2" not in page


def test_an_assessment_naming_a_suite_the_ledger_has_never_seen_is_refused(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([attempt("acme", "1", "t", 1, D1, V, 1, 1, 10, 1.0, suite="packA")]))
    (tmp_path / "f.toml").write_text(
        '[[assessment]]\nagent = "acme"\nsuite = "packA-typo"\n'
        "scores = { cost = 3, speed = 5, setup = 5, agent = 5, privacy = 5 }\n"
    )
    db = tmp_path / "b.db"
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["--db", str(db), "import-attempts", "--verified", str(tmp_path / "a.json")]).exit_code == 0
    )
    before = db.read_bytes()
    result = runner.invoke(cli, ["--db", str(db), "import-assessments", str(tmp_path / "f.toml")])
    # One line naming the suite and the ledger's suites; nothing stored.
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "'packA-typo'" in lines[0] and "its suites: packA" in lines[0], result.output
    assert db.read_bytes() == before


def _record(task_id: str, validated_at: str) -> dict[str, Any]:
    return TaskRecord.model_validate_json(
        json.dumps(
            {
                "suite": "s",
                "task_id": task_id,
                "title": task_id,
                "hidden_tests": 2,
                "baseline_passed": 0,
                "reference_passed": 2,
                "validated_at": validated_at,
            }
        )
    ).row()


def test_a_task_validated_after_a_run_does_not_unrank_that_run():
    # Run r1 (3 Nov): one/a passes t1, two/b fails it. t1 was validated on 30 Oct.
    records = [attempt("one/a", "1", "t1", 1, "2026-11-03T09:00:00Z", V, 2, 2, 10, 1.0, suite="s", run="r1")]
    records += [attempt("two/b", "1", "t1", 1, "2026-11-03T09:00:00Z", V, 0, 2, 10, 1.0, suite="s", run="r1")]
    # Run r2 (25 Nov): one/a tries t1 only.
    records += [attempt("one/a", "1", "t1", 1, "2026-11-25T09:00:00Z", V, 2, 2, 10, 1.0, suite="s", run="r2")]
    t1 = _record("t1", "2026-10-30T12:00:00Z")
    before = compute_methods(rows_of(records), task_records=[t1]).rs9_runs
    # t2 is added to the suite on 20 Nov, after r1 and before r2.
    after = compute_methods(rows_of(records), task_records=[t1, _record("t2", "2026-11-20T12:00:00Z")]).rs9_runs

    def board(entries: list[dict[str, Any]]) -> set[tuple[str, str, int | None, str | None]]:
        return {(e["run"], e["agent"], e["rank"], e["coverage"]) for e in entries}

    assert board(before) == {("r1", "one/a", 1, None), ("r1", "two/b", 2, None), ("r2", "one/a", 1, None)}
    # r1's page stays as it was (a dated snapshot); r2 had t2 to do and one/a skipped it.
    assert board(after) == {("r1", "one/a", 1, None), ("r1", "two/b", 2, None), ("r2", "one/a", None, "1 of 2 tasks")}


def test_an_agent_time_longer_than_the_wall_time_is_refused(tmp_path):
    record = attempt("acme", "1", "t", 1, D1, V, 1, 1, 10, 1.0, agent_seconds=50)
    (tmp_path / "a.json").write_text(json.dumps([record]))
    db = tmp_path / "b.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "import-attempts", "--verified", str(tmp_path / "a.json")])
    assert result.exit_code != 0
    assert "agent_seconds: 50 is more than wall_seconds 10" in result.output, result.output
    # Equal is fine: an agent that spent the whole attempt working.
    (tmp_path / "b.json").write_text(json.dumps([{**record, "agent_seconds": 10}]))
    result = CliRunner().invoke(cli, ["--db", str(db), "import-attempts", "--verified", str(tmp_path / "b.json")])
    assert result.exit_code == 0, result.output


@pytest.mark.asyncio
async def test_a_fitscore_that_pools_settings_variants_says_so(tmp_path):
    # The same agent version and model at two reasoning efforts is two entries everywhere else; an
    # assessment names an agent, so its FitScore pools them (quality 5 and 1 average to 3): marked.
    records = [
        attempt("var", "1", "t", 1, D1, V, 1, 1, 10, 1.0, suite="p", run="r1", quality=5, settings={"effort": "low"}),
        attempt("var", "1", "t", 2, D1, V, 0, 1, 10, 1.0, suite="p", run="r1", quality=1, settings={"effort": "high"}),
    ]
    [fit] = compute_methods(rows_of(records), assessments=[assessment("var", "p")]).fitscores
    assert fit["settings_variants"] == [{"effort": "high"}, {"effort": "low"}]
    datasette = _served_ledger(tmp_path, records, [("var", "p")])
    page = (await datasette.client.get("/-/benchmark/fitscore")).text
    assert "pools 2 settings variants (effort=high; effort=low), which other methods keep apart" in page
    exported = (await datasette.client.get("/-/benchmark/fitscore.json")).json()
    assert exported[0]["settings_variants"] == [{"effort": "high"}, {"effort": "low"}]
