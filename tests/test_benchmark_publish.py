"""The methods where they show: the export's methods object, the AiFolder scorecard query, the config."""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner
from datasette.app import Datasette

from agentrank.cli import cli
from agentrank.config import ConfigError, load_config
from agentrank.exporter import validate_export
from datasette_plugins.metadata import build_metadata
from tests.methods_helpers import build_methods_db


@pytest.fixture(scope="module")
def methods_db(tmp_path_factory):
    return build_methods_db(tmp_path_factory.mktemp("methods"))


def test_the_export_carries_every_method_with_the_fixed_names(methods_db, tmp_path):
    out = tmp_path / "export.json"
    result = CliRunner().invoke(cli, ["--db", str(methods_db), "export", "--out", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    validate_export(document)
    methods = document["methods"]
    run = next(
        r for r in methods["rs9_runs"] if (r["suite"], r["run"], r["agent"]) == ("rs9", "2026-11-08", "acme/coder")
    )
    fixed = ["suite", "run", "agent", "agent_version", "model", "settings", "tasks", "passed", "headline",
             "partial_credit", "total_cost_usd", "cost_lower_bound", "cost_per_pass", "version_changed"]  # fmt: skip
    assert set(fixed) <= set(run)
    assert (run["version_changed"], run["passed"], run["headline"], run["settings"]) == (True, 3, 100.0, {})
    # Its inputs next to its figures: the per-task results the headline and partial credit come from.
    results = run["results"]
    assert len(results) == run["tasks"] and sum(t["passed"] for t in results) == run["passed"]
    assert sum(t["partial_credit"] for t in results) / len(results) == pytest.approx(run["partial_credit"])
    (index,) = methods["indexes"]
    assert (index["name"], index["version"], index["suites"]) == ("Coding Agent Index", "1.5", ["deep", "term", "qna"])
    values = {e["settings"]["reasoning"]: (e["value"], e["null_reason"]) for e in index["entries"]}
    # pass@1 per suite: deep and term passed every hidden test, qna 6 of 10 is not a pass.
    assert values == {"low": (pytest.approx(200 / 3), None), "high": (None, "no counted attempt in qna")}
    assert set(index["entries"][0]) >= {
        "agent",
        "agent_version",
        "model",
        "settings",
        "value",
        "null_reason",
        "per_suite",
    }
    fits = {f["agent"]: f for f in methods["fitscores"]}
    assert {a: f["fitscore"] for a, f in fits.items()} == {
        "Claude Code": 94, "OpenCode": 93, "Codex CLI": 90, "Cline": 88, "Antigravity": 79,
    }  # fmt: skip
    antigravity = fits["Antigravity"]
    assert set(antigravity["criteria"]) == {"quality", "reliability", "cost", "speed", "setup", "agent", "privacy"}
    assert (antigravity["published"], antigravity["matches_published"]) == (79, True)
    setup = next(j for j in antigravity["judgements"] if j["scores"] == {"setup": 2})
    assert (setup["fitscore"], setup["published"], setup["matches_published"]) == (75, 77, False)
    # A document without the object, or with a wrong type in it, fails the shipped schema.
    broken = json.loads(json.dumps(document))
    broken["methods"]["rs9_runs"][0]["cost_lower_bound"] = "no"
    with pytest.raises(Exception, match="is not of type 'boolean'"):
        validate_export(broken)


@pytest.mark.asyncio
async def test_the_aifolder_scorecard_shows_nulls_as_dashes_and_no_rank(methods_db):
    ds = Datasette([str(methods_db)], metadata=build_metadata(methods_db.stem))
    await ds.invoke_startup()
    response = await ds.client.get(f"/{methods_db.stem}/aifolder_scorecard.json?_shape=array&suite=rs9")
    rows = response.json()
    assert rows and "rank" not in rows[0]
    first = rows[0]
    assert (first["repo_commit"], first["regression_tests"], first["permission_mode"]) == ("—", "—", "—")
    assert {r["counts"] for r in rows} >= {"counted", "not counted: infra error"}
    assert any(r["counts"].startswith("not counted: failed validation") for r in rows)
    page = await ds.client.get(f"/{methods_db.stem}/aifolder_scorecard?suite=rs9")
    # No SQL in front: the query box is folded away behind "show".
    assert page.status_code == 200 and "_show_sql=1" in page.text and "<textarea" not in page.text
    kept = (await ds.client.get(f"/{methods_db.stem}/attempts_not_counted.json?_shape=array")).json()
    assert [r["task_id"] for r in kept] == ["t4"]


def test_the_index_config_is_checked(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('[[benchmark.index]]\nname = "I"\nversion = "1"\nsuites = ["a"]\nweights = [1]\n')
    with pytest.raises(ConfigError, match="unknown key 'benchmark.index.0.weights'"):
        load_config(config)
    config.write_text('[[benchmark.index]]\nname = "I"\nversion = "1"\nsuites = ["a", "a"]\n')
    with pytest.raises(ConfigError, match="a suite is listed twice"):
        load_config(config)
    config.write_text('[[benchmark.index]]\nname = "I"\nversion = "1"\nsuites = ["a", "b"]\n')
    assert load_config(config).benchmark.index[0].suites == ["a", "b"]


@pytest.mark.asyncio
async def test_the_makers_page_lists_the_agent_under_every_method(methods_db):
    ds = Datasette([str(methods_db)], metadata=build_metadata(methods_db.stem))
    await ds.invoke_startup()
    page = (await ds.client.get("/-/agent/acme/coder")).text
    assert "Other methods over the same attempts" in page
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))
    assert (
        "rs9 run 2026-11-08: 3 of 3 tasks passed on every attempt (headline 100.0 %), 1.1 on m-large, "
        "#1 of the verified entries; cost $0.09 (list price) ◆ version changed" in text
    )
    # Billed through a router: the invoice's figure with its source, and the list price of the same tokens.
    assert "routed run 2026-11-02: " in text
    assert "cost $0.20 (provider invoice), $0.90 at list price" in text
    # Each line names its variant: two settings of one version and model are two entries, and a line
    # without them read as one entry with two contradictory values.
    assert (
        "Coding Agent Index v1.5: — (no counted attempt in qna), 2 on m-large (reasoning=high) "
        "Coding Agent Index v1.5: 66.7, 2 on m-large (reasoning=low), #1 of the verified entries" in text
    )
    methods = (await ds.client.get("/-/agent/acme/coder.json")).json()["methods"]
    assert [(r["run"], r["version_changed"]) for r in methods["rs9_runs"] if r["suite"] == "rs9"] == [
        ("2026-11-01", False),
        ("2026-11-08", True),
    ]


@pytest.mark.asyncio
async def test_list_prices_and_lower_bounds_show_on_the_leaderboard_queries(methods_db):
    ds = Datasette([str(methods_db)], metadata=build_metadata(methods_db.stem))
    await ds.invoke_startup()
    db = methods_db.stem
    board = (await ds.client.get(f"/{db}/verified_leaderboard.json?_shape=array")).json()
    acme = next(r for r in board if (r["suite"], r["agent"], r["version"]) == ("rs9", "acme/coder", "1.0"))
    # t1 at list price 0.2205 + t2 0.18 (its usage a lower bound); t3 was an infra error.
    assert acme["total_cost_usd"] == "0.40 (api-list-price; lower bound)"
    attempts = (await ds.client.get(f"/{db}/agent_attempts.json?_shape=array&agent=acme/coder")).json()
    t1 = next(r for r in attempts if (r["task_id"], r["version"]) == ("t1", "1.0"))
    assert (t1["cost_usd"], t1["cost_source"]) == ("0.22", "api-list-price")
    closed = (await ds.client.get(f"/{db}/agent_attempts.json?_shape=array&agent=Closed Agent X")).json()
    assert {r["cost_usd"] for r in closed} == {"— (price unknown)"}


@pytest.mark.asyncio
async def test_an_index_name_with_a_right_to_left_override_cannot_reverse_the_figures(tmp_path, monkeypatch):
    # The operator's index name is text from a config: isolated like every agent and repo name, so a
    # U+202E in it cannot turn "81.2" or the version after it around on the hub card or the index page.
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette
    from tests import methods_helpers

    name = "Evil\u202e Index"
    monkeypatch.setattr(
        methods_helpers, "INDEX_CONFIG", methods_helpers.INDEX_CONFIG.replace("Coding Agent Index", name)
    )
    db = methods_helpers.build_methods_db(tmp_path)
    datasette = build_datasette(db, ServeConfig(heap_limit_mb=0))
    for path in ("/-/benchmark", "/-/benchmark/index"):
        page = (await datasette.client.get(path)).text
        shown = [m.start() for m in re.finditer(re.escape(html.escape(name)), page)] or [
            m.start() for m in re.finditer(name, page)
        ]
        assert shown, path
        for at in shown:
            before = page[max(0, at - 60) : at]
            assert before.endswith("<bdi>") or 'id="' in before[-12:] or "data-label=" in before[-14:], (path, before)
