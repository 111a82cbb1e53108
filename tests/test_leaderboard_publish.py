"""Publishing the ledger: the site export (schema v2), the maker's page data and template, Datasette's queries."""

from __future__ import annotations

import copy
import json
import re

import jsonschema
import pytest
from datasette.app import Datasette

from agentrank.exporter import build_export, validate_export
from datasette_plugins.metadata import build_metadata
from leaderboard.datasette import DATASETTE_METADATA, benchmark_summary, with_benchmark
from scoring.explain import when
from tests.benchmark_attempts import ATTEMPTS, attempt
from tests.conftest import make_item, write_json

REPOS = {9001: "acme/coder", 9002: "quiet/agent", 9003: "zeta/bot"}


def repo_items():
    return [
        make_item(
            id=repo_id, full_name=name, name=name.split("/")[1], html_url=f"https://github.com/{name}", seed=repo_id
        )
        for repo_id, name in REPOS.items()
    ]


@pytest.fixture
def scored(db, run_cli, tmp_path):
    run_cli("import", str(write_json(tmp_path / "items.json", repo_items())))
    run_cli("score")
    return db


@pytest.fixture
def published(scored, run_cli, tmp_path):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "attempts.json", ATTEMPTS)))
    return scored


def export_of(run_cli, tmp_path) -> dict:
    path = tmp_path / "export.json"
    run_cli("export", "--out", str(path))
    return json.loads(path.read_text(encoding="utf-8"))


def by_name(document: dict) -> dict[str, dict]:
    return {agent["full_name"]: agent for agent in document["agents"]}


def test_the_export_shows_benchmark_figures_for_an_agent_with_runs_and_null_without(published, run_cli, tmp_path):
    document = export_of(run_cli, tmp_path)
    validate_export(document)
    assert document["schema_version"] >= 2  # version 3 keeps every version-2 field
    agents = by_name(document)
    assert agents["quiet/agent"]["benchmark"] is None  # no runs
    acme = agents["acme/coder"]["benchmark"]
    assert (acme["agent"], acme["runs"], list(acme["tiers"])) == ("acme/coder", True, ["verified", "community"])
    verified = acme["tiers"]["verified"]
    # Over both versions: per-task means t1 (100+50+0+100)/4, t2 (75+0)/2, t3 25, averaged over the 3 tasks.
    assert verified["totals"]["mean_score"] == pytest.approx((62.5 + 37.5 + 25) / 3)
    assert verified["totals"]["total_cost_usd"] is None  # one cost unknown
    entries = [
        (e["agent_version"], e["rank"], e["version_changed"], e["previous_version"]) for e in verified["entries"]
    ]
    # acme/coder 1.0 attempted 2 of the board's 3 tasks: listed, not ranked.
    assert entries == [("1.0", None, False, None), ("1.1", 2, True, "1.0")]
    assert verified["entries"][0]["coverage"] == "2 of 3 tasks"
    per_task = verified["entries"][0]["per_task"]
    spread = {t["task_id"]: (t["min_score"], t["median_score"], t["max_score"]) for t in per_task}
    assert spread == {"t1": (0, 50, 100), "t2": (75, 75, 75)}
    assert list(agents["zeta/bot"]["benchmark"]["tiers"]) == ["community"]


def test_the_export_has_both_leaderboards_in_rank_order(published, run_cli, tmp_path):
    boards = export_of(run_cli, tmp_path)["leaderboards"]
    assert [(e["rank"], e["agent"], e["agent_version"]) for e in boards["verified"]] == [
        (1, "Closed Agent X", "2026.10"),
        (2, "acme/coder", "1.1"),
        (None, "acme/coder", "1.0"),
    ]
    community = [(e["rank"], e["agent"]) for e in boards["community"]]
    assert community == [
        (1, "beta/cheap"),
        (2, "acme/coder"),
        (3, "zeta/bot"),
        (4, "other/agent"),
        (None, "gamma/flaky"),
    ]
    flaky = boards["community"][-1]
    assert (flaky["mean_score"], flaky["attempts"], flaky["infra_errors"]) == (None, 0, 1)


def test_version_1_fields_are_unchanged_by_the_ledger(scored, run_cli, tmp_path):
    before = export_of(run_cli, tmp_path)
    assert before["leaderboards"] == {"verified": [], "community": []}
    assert all(agent["benchmark"] is None for agent in before["agents"])
    validate_export(before)
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "attempts.json", ATTEMPTS)))
    after = export_of(run_cli, tmp_path)

    def version_1(document):
        document = copy.deepcopy(document)
        for key in ("generated_at", "leaderboards", "schema_version", "methods"):
            document.pop(key)
        for agent in document["agents"]:
            agent.pop("benchmark")
        return document

    assert version_1(after) == version_1(before)


def test_the_export_schema_holds_the_benchmark_to_its_shape(published):
    document = build_export(published)
    validate_export(document)
    broken = copy.deepcopy(document)
    del broken["leaderboards"]
    with pytest.raises(jsonschema.ValidationError):
        validate_export(broken)
    broken = copy.deepcopy(document)
    totals = by_name(broken)["acme/coder"]["benchmark"]["tiers"]["verified"]["totals"]
    totals["mean_score"] = 101  # not a percentage
    with pytest.raises(jsonschema.ValidationError):
        validate_export(broken)
    totals["mean_score"] = "—"  # the page's dash belongs on the page, not in the data
    with pytest.raises(jsonschema.ValidationError):
        validate_export(broken)


def test_benchmark_summary_for_the_makers_page(published):
    conn = published.conn
    summary = benchmark_summary(conn, "acme/coder")
    assert summary == by_name(build_export(published))["acme/coder"]["benchmark"]  # one implementation
    assert benchmark_summary(conn, "ACME/Coder") == summary  # GitHub names ignore case
    assert benchmark_summary(conn, "quiet/agent") == {"agent": "quiet/agent", "runs": False, "tiers": {}}
    assert benchmark_summary(conn, "nobody/anything")["runs"] is False
    closed = benchmark_summary(conn, "Closed Agent X")
    assert closed["runs"] is True
    assert closed["tiers"]["verified"]["entries"][0]["cost_per_solved_task"] == pytest.approx((2.00 + 0.40 + 1.60) / 2)


def test_a_renamed_repo_keeps_its_runs(db, run_cli, tmp_path):
    old = make_item(id=9100, full_name="acme/old-coder", seed=5)
    run_cli("import", str(write_json(tmp_path / "old.json", [old])))
    record = attempt("acme/old-coder", "1", "t1", 1, "2026-10-01T10:00:00Z", "verified", 1, 1, 10, 0.1)
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", [record])))
    run_cli("import", str(write_json(tmp_path / "new.json", [{**old, "full_name": "acme/coder"}])))
    run_cli("score")
    summary = benchmark_summary(db.conn, "acme/coder")
    assert (summary["agent"], summary["runs"]) == ("acme/old-coder", True)
    assert by_name(build_export(db))["acme/coder"]["benchmark"] == summary


async def datasette_for(db_path) -> Datasette:
    ds = Datasette([str(db_path)], metadata=build_metadata(db_path.stem))
    await ds.invoke_startup()
    return ds


def test_with_benchmark_adds_to_metadata_without_changing_it():
    base = {"title": "AgentRank", "databases": {"agentrank": {"tables": {"repos": {"description": "d"}}}}}
    merged = with_benchmark(base, "agentrank")
    assert base == {"title": "AgentRank", "databases": {"agentrank": {"tables": {"repos": {"description": "d"}}}}}
    tables = merged["databases"]["agentrank"]["tables"]
    assert tables["repos"] == {"description": "d"} and "benchmark_entries" in tables
    assert (
        set(merged["databases"]["agentrank"]["queries"])
        == set(DATASETTE_METADATA["queries"])
        == {"verified_leaderboard", "community_leaderboard", "agent_attempts", "task_results"}
        | {"aifolder_scorecard", "aifolder_task_spread", "attempts_not_counted"}
    )


@pytest.mark.asyncio
async def test_datasette_canned_queries(published, db_path):
    ds = await datasette_for(db_path)
    db = db_path.stem

    async def rows(path: str) -> list[dict]:
        response = await ds.client.get(f"/{db}/{path}")
        assert response.status_code == 200, response.text
        return response.json()

    verified = await rows("verified_leaderboard.json?_shape=array")
    assert [(r["rank"], r["agent"], r["version"], r["version_change"]) for r in verified] == [
        (1, "Closed Agent X", "2026.10", ""),
        (2, "acme/coder", "1.1", "changed from 1.0"),
        ("— (2 of 3 tasks)", "acme/coder", "1.0", ""),
    ]
    assert [r["mean_score"] for r in verified] == ["66.7", "41.7", "62.5"]
    assert verified[1]["total_cost_usd"] == "—"
    assert verified[1]["cost_per_solved_task"] == "— (cost unknown for 1 of 3 attempts)"
    community = {r["agent"]: r for r in await rows("community_leaderboard.json?_shape=array")}
    assert community["other/agent"]["cost_per_solved_task"] == "— (nothing solved)"
    flaky = community["gamma/flaky"]
    assert (flaky["rank"], flaky["mean_score"], flaky["mean_wall_seconds"]) == ("— (0 of 2 tasks)", "—", "—")  # not 0.0
    assert community["acme/coder"]["median_wall_seconds"] == "400"

    attempts = await rows("agent_attempts.json?_shape=array&agent=ACME/coder")
    verified_attempts = [r for r in attempts if r["tier"] == "verified"]
    assert len(verified_attempts) == 8
    assert [r["version_change"] for r in verified_attempts].count("changed from 1.0") == 1
    first_of_1_1 = next(r for r in verified_attempts if r["version"] == "1.1")
    assert first_of_1_1["version_change"] == "changed from 1.0"
    infra = next(r for r in verified_attempts if "infra-error" in r["flags"])
    assert (infra["score"], infra["solved"], infra["hidden_tests"]) == ("— (not counted)", "—", "—")
    assert next(r for r in verified_attempts if r["hidden_tests"] == "3 / 4")["wall_seconds"] == "—"

    t1 = await rows("task_results.json?_shape=array&task=t1")
    spread = {(r["tier"], r["agent"], r["version"]): (r["min_score"], r["median_score"], r["max_score"]) for r in t1}
    assert spread[("verified", "acme/coder", "1.0")] == ("0.0", "50.0", "100.0")
    assert spread[("community", "gamma/flaky", "1")] == ("—", "—", "—")

    table = await ds.client.get(f"/{db}/benchmark_entries.json?_shape=array&tier=verified")
    assert [r["rank"] for r in table.json()] == [None, 1, 2]  # sorted by rank: the unranked partial entry first
    for name in DATASETTE_METADATA["tables"]:  # each table page renders with its facets and descriptions
        page = await ds.client.get(f"/{db}/{name}")
        assert page.status_code == 200, (name, page.text[:500])
    facets = (await ds.client.get(f"/{db}/benchmark_attempts.json")).json()["facet_results"]
    assert "flags" in facets and "tier" in facets


@pytest.mark.asyncio
async def test_the_makers_page_section_shows_figures_or_no_runs(published, db_path):
    ds = await datasette_for(db_path)
    db = db_path.stem
    summary = benchmark_summary(published.conn, "acme/coder")
    with_runs = await ds.render_template("_benchmark.html", {"benchmark": summary, "database": db})
    assert "Verified runs" in with_runs and "Community runs" in with_runs
    assert "41.7 %" in with_runs  # the verified mean score over both versions
    assert "(changed from 1.0)" in with_runs
    assert "(cost unknown for 1 of 3 attempts)" in with_runs
    assert 'data-label="cost (total / per solve)">— / ' in with_runs  # an unknown total cost
    assert "No runs" not in with_runs
    assert f'href="/{db}/agent_attempts?agent=acme/coder"' in with_runs
    none = benchmark_summary(published.conn, "quiet/agent")
    without = await ds.render_template("_benchmark.html", {"benchmark": none})
    assert "No runs" in without and "<table" not in without


@pytest.mark.asyncio
async def test_the_makers_page_section_dates_its_entries_as_the_rest_of_the_page(published, db_path):
    """The section under "Task benchmark" dated an entry "2026-10-01 – 2026-10-15" while the rest of the
    maker's page says "1 Oct 2026". Its dates read that way too, each in a <time> holding the instant."""
    ds = await datasette_for(db_path)
    summary = benchmark_summary(published.conn, "acme/coder")
    section = await ds.render_template("_benchmark.html", {"benchmark": summary, "database": db_path.stem})
    spans = re.findall(r'<span class="benchmark-dates">(.*?)</span>', section)
    entries = [e for board in summary["tiers"].values() for e in board["entries"]]
    assert spans and len(spans) == len(entries)
    for span, entry in zip(spans, entries, strict=True):
        first, last = entry["first_date"], entry["last_date"]
        shown = f'suite {entry["suite"]} · <time datetime="{first}">{when(first)}</time>'
        if last[:10] != first[:10]:
            shown += f' – <time datetime="{last}">{when(last)}</time>'
        assert span == shown, span
    assert '<time datetime="2026-10-01T10:00:00Z">1 Oct 2026</time>' in section
    assert not re.search(r">[^<]*\d{4}-\d\d-\d\d", section)


@pytest.mark.asyncio
async def test_the_makers_page_section_escapes_hostile_names(db, db_path, run_cli, tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    record = attempt(
        hostile, "<script>v</script>", "t1", 1, "2026-10-01T10:00:00Z", "community", 1, 2, None, None, model="m&<b>"
    )
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "h.json", [record])))
    ds = await datasette_for(db_path)
    html = await ds.render_template("_benchmark.html", {"benchmark": benchmark_summary(db.conn, hostile)})
    assert "<img" not in html and "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;v&lt;/script&gt;" in html and "m&amp;&lt;b&gt;" in html
