"""Wrong results a second audit against seeds 001 and 004 found, one test each (each failed before its fix).

1. RS9 judged coverage by counting tasks: two entries that tried different halves of a run were both
   "complete"; 2. FitScore's speed thresholds compared binary floats, so a median exactly on a
   threshold written as a decimal (0.3 s of a 0.9 s limit) scored as under it; 3. an agent name with a
   right-to-left override reversed the text after it on the benchmark pages.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

from agentrank.cli import cli
from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from leaderboard.methods import compute_methods
from tests.benchmark_attempts import attempt
from tests.test_benchmark_methods_fixes import rows_of

V, D1 = "verified", "2026-11-01T09:00:00Z"


def test_rs9_entries_that_tried_different_tasks_each_cover_part_of_the_run():
    # No task records: the run's tasks are t1–t4, whoever tried them. "easy" passed t1 and t2, "hard"
    # failed t3 and t4; neither tried the whole run, so neither is ranked above the other.
    records = [attempt("easy", "1", t, 1, D1, V, 1, 1, 10, 1.0, suite="s", run="r1") for t in ("t1", "t2")]
    records += [attempt("hard", "1", t, 1, D1, V, 0, 1, 10, 1.0, suite="s", run="r1") for t in ("t3", "t4")]
    runs = {r["agent"]: r for r in compute_methods(rows_of(records)).rs9_runs}
    assert {a: (r["rank"], r["coverage"], r["tasks_total"]) for a, r in runs.items()} == {
        "easy": (None, "2 of 4 tasks", 4),
        "hard": (None, "2 of 4 tasks", 4),
    }
    # An entry that tried all four is ranked beside them.
    records += [attempt("full", "1", t, 1, D1, V, 1, 1, 10, 1.0, suite="s", run="r1") for t in ("t1", "t2", "t3", "t4")]
    runs = {r["agent"]: r for r in compute_methods(rows_of(records)).rs9_runs}
    assert (runs["full"]["rank"], runs["easy"]["rank"]) == (1, None)


def speed_assessment(agent: str) -> dict[str, Any]:
    weights = {"quality": 30, "reliability": 15, "cost": 15, "speed": 10, "setup": 10, "agent": 10, "privacy": 10}
    return {
        "agent": agent,
        "suite": "half",
        "scores": json.dumps({"cost": 5, "setup": 5, "agent": 5, "privacy": 5}),  # speed from the attempts
        "notes": "{}",
        "published": None,
        "judgements": "[]",
        "weights": json.dumps(weights),
    }


@pytest.mark.parametrize(
    ("walls", "limit", "speed"),
    [
        ((0.09,), 0.27, 4),  # exactly a third: not under it
        ((0.3,), 0.9, 4),
        ((0.2, 0.4), 0.9, 4),  # the median of two, exactly a third
        ((0.6,), 1.8, 4),
        ((0.45,), 0.9, 3),  # exactly half
        ((1.4,), 2.1, 2),  # exactly two thirds
        ((0.29,), 0.9, 5),
        ((300,), 900, 4),
    ],
)
def test_fitscore_speed_takes_a_median_on_a_threshold_as_on_it(walls, limit, speed):
    records = [
        attempt("Tool", "1", "t1", n, D1, V, 1, 1, wall, None, suite="half", run="r", quality=5, limit_seconds=limit)
        for n, wall in enumerate(walls, 1)
    ]
    (fit,) = compute_methods(rows_of(records), assessments=[speed_assessment("Tool")]).fitscores
    assert fit["criteria"]["speed"] == speed


RTL = "\u202eevil"  # a right-to-left override: unisolated, it reverses the text after it on the line


def _isolated_everywhere(page: str, name: str) -> list[str]:
    """The markup just before each place the name is printed, where the name is not in an isolate of its
    own: a <bdi> or an element (link, cell, heading) that holds the name and nothing else."""
    escaped = html.escape(name, quote=False)
    loose = []
    for match in re.finditer(re.escape(escaped), page):
        before, after = page[: match.start()], page[match.end() :]
        opened = re.search(r"<(\w+)[^<>]*>$", before)
        if opened and (opened.group(1) == "bdi" or after.startswith(f"</{opened.group(1)}>")):
            continue
        loose.append(before[-60:])
    return loose


@pytest.mark.asyncio
async def test_a_right_to_left_agent_name_cannot_reverse_the_benchmark_text_after_it(tmp_path):
    agent = f"acme {RTL}"
    records = [
        attempt(agent, "1", "t1", 1, D1, V, 1, 2, 10, 1.0, suite="s", run="r1", quality=2),
        attempt(agent, "1", "t2", 1, D1, V, 1, 1, 10, 1.0, suite="s", run="r1", quality=5, flags=("agent-error",)),
        attempt(agent, "1", "t3", 1, D1, V, None, None, 10, None, suite="s", run="r1", flags=("infra-error",)),
    ]
    (tmp_path / "a.json").write_text(json.dumps(records))
    (tmp_path / "f.toml").write_text(
        f'[[assessment]]\nagent = "{agent}"\nsuite = "s"\n'
        "scores = { cost = 3, speed = 5, setup = 5, agent = 5, privacy = 5 }\n"
    )
    db = tmp_path / "b.db"
    runner = CliRunner()
    for step in (
        ["import-attempts", "--verified", str(tmp_path / "a.json")],
        ["import-assessments", str(tmp_path / "f.toml")],
    ):
        result = runner.invoke(cli, ["--db", str(db), *step], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    datasette = build_datasette(db, ServeConfig(heap_limit_mb=0))
    for path in ("/-/benchmark/runs/s/r1", "/-/benchmark/fitscore", "/-/benchmark/scorecard", "/-/leaderboard"):
        page = (await datasette.client.get(path)).text
        assert html.escape(agent, quote=False) in page, path
        assert _isolated_everywhere(page, agent) == [], path


@pytest.mark.asyncio
async def test_the_index_marks_a_mean_cost_that_is_a_lower_bound(tmp_path):
    # t1's attempt hit its time limit before reporting its final usage: its cost, and every mean
    # that includes it, is a lower bound (seed 001); the RS9 run said so, the index did not.
    records = [
        attempt("acme/coder", "1", "t1", 1, D1, V, 8, 8, 10, 4.0, suite="lb", cost_lower_bound=True),
        attempt("acme/coder", "1", "t2", 1, D1, V, 8, 8, 10, 5.0, suite="lb"),
    ]
    (tmp_path / "a.json").write_text(json.dumps(records))
    config = tmp_path / "agentrank.toml"
    config.write_text('[[benchmark.index]]\nname = "LB"\nversion = "1"\nsuites = ["lb"]\n')
    db = tmp_path / "b.db"
    result = CliRunner().invoke(
        cli, ["--db", str(db), "--config", str(config), "import-attempts", "--verified", str(tmp_path / "a.json")]
    )
    assert result.exit_code == 0, result.output
    (entry,) = compute_methods(
        rows_of(records), indexes=[{"name": "LB", "version": "1", "suites": '["lb"]'}]
    ).index_entries
    assert (entry["mean_cost_usd"], entry["cost_lower_bound"]) == (4.5, True)
    datasette = build_datasette(db, ServeConfig(heap_limit_mb=0))
    page = (await datasette.client.get("/-/benchmark/index")).text
    cell = re.search(r'data-label="mean cost per attempt">(.*?)</td>', page, re.S)
    assert cell and "$4.50" in cell.group(1) and "(lower bound)" in cell.group(1)
    twin = (await datasette.client.get("/-/benchmark/index.json")).json()
    assert [e["cost_lower_bound"] for i in twin for e in i["entries"]] == [True]
