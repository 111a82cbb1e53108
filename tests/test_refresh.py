"""`agentrank refresh` against the GitHub emulator: one run, published only when every stage succeeds."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from agentrank.exporter import export_schema
from crawler.emulator.population import SyntheticRepo, to_search_item
from scoring.explain import signed
from tests.crawl_helpers import emulated, population

TOPICS = ["ai-agent", "ai-agents", "coding-agent", "autonomous-agents", "llm-agent", "agentic-ai", "multi-agent"]


@pytest.fixture
def repos() -> list[SyntheticRepo]:
    return population(300, seed=11)


@pytest.fixture
def setup(tmp_path):
    """A config file pointing the export and the corrections file into tmp_path."""

    def make(emulator, corrections: str | None = None) -> dict:
        corrections_path = tmp_path / "corrections.toml"
        text = (
            f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\n[export]\npath = "{tmp_path / "site.json"}"\n'
        )
        if corrections is not None:  # otherwise the default path, which does not exist: no corrections
            corrections_path.write_text(corrections, encoding="utf-8")
            text += f'[corrections]\npath = "{corrections_path}"\n'
        config = tmp_path / "agentrank.toml"
        config.write_text(text, encoding="utf-8")
        return {"config": config, "export": tmp_path / "site.json", "corrections": corrections_path}

    return make


def _published(db_path: Path) -> tuple:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("select score_run_id, refresh_run_id from published").fetchone()
    finally:
        conn.close()


def _query(db_path: Path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_refresh_runs_every_stage_and_publishes(repos, setup, run_cli, db_path):
    with emulated(repos) as emulator:
        paths = setup(emulator)
        result = run_cli("--config", str(paths["config"]), "refresh")
    assert "refresh run 1: published score run" in result.output
    document = json.loads(paths["export"].read_text())
    jsonschema.validate(document, export_schema())
    refresh = _query(db_path, "select id, status, details from runs where kind = 'refresh'")
    assert [(r[0], r[1]) for r in refresh] == [(1, "ok")]
    stages = json.loads(refresh[0][2])["stages"]
    assert [s["stage"] for s in stages] == [
        "corrections",
        "crawl",
        "apply-corrections",
        "classify",
        "score",
        "export",
        "publish",
    ]
    assert all(s["status"] == "ok" and "duration_s" in s for s in stages)
    children = _query(db_path, "select kind, status from runs where parent_id = 1 order by id")
    assert [k for k, _ in children] == ["crawl", "corrections", "classify", "score", "export"]
    assert all(status == "ok" for _, status in children)
    score_run = _published(db_path)[0]
    assert document["count"] == _query(db_path, "select count(*) from scores where run_id = ?", [score_run])[0][0] > 50


def test_a_second_refresh_exits_at_once_while_one_runs(repos, setup, run_cli, db_path):
    from crawler import emulator as faults

    with emulated(repos) as emulator:
        paths = setup(emulator)
        held = emulator.inject(faults.hold(page=1))
        first = subprocess.Popen(
            [sys.executable, "-m", "agentrank.cli", "--db", str(db_path), "--config", str(paths["config"]), "refresh"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not any(r.fault == "hold" for r in emulator.log):
                assert time.monotonic() < deadline and first.poll() is None, first.communicate()
                time.sleep(0.05)
            second = run_cli("--config", str(paths["config"]), "refresh", expect=1)
            assert "already using" in second.stderr and "refresh not started" in second.stderr
            assert len(second.stderr.strip().splitlines()) == 1
        finally:
            held.event.set()
        _out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert [r[0] for r in _query(db_path, "select status from runs where kind = 'refresh'")] == ["ok"]


KILL_IN_SCORE = """
import pathlib, sys, time
import agentrank.scorer as scorer
real = scorer.compute_scores
def stuck(inputs):
    pathlib.Path(sys.argv[1]).write_text("scoring")
    time.sleep(300)
    return real(inputs)
scorer.compute_scores = stuck
from agentrank.cli import cli
cli(sys.argv[2:])
"""


def test_a_refresh_killed_in_the_score_stage_changes_nothing_published(repos, setup, run_cli, db_path, tmp_path):
    with emulated(repos) as emulator:
        paths = setup(emulator)
        run_cli("--config", str(paths["config"]), "refresh")
        before_published = _published(db_path)
        before_export = hashlib.sha256(paths["export"].read_bytes()).hexdigest()
        before_agents = _query(db_path, "select * from agents")
        # The world moves on, then a refresh dies while scoring.
        emulator.set_stars(repos[0].id, repos[0].stars + 5000)
        marker = tmp_path / "marker"
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                KILL_IN_SCORE,
                str(marker),
                "--db",
                str(db_path),
                "--config",
                str(paths["config"]),
                "refresh",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert time.monotonic() < deadline and process.poll() is None, process.communicate()
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

        assert _published(db_path) == before_published
        assert hashlib.sha256(paths["export"].read_bytes()).hexdigest() == before_export
        assert _query(db_path, "select * from agents") == before_agents
        assert not [p for p in paths["export"].parent.iterdir() if p.name.endswith(".next")]
        assert _query(db_path, "pragma integrity_check") == [("ok",)]
        # A plain score would publish what the dead refresh's first stages stored: refused, unchanged.
        refused = run_cli("--config", str(paths["config"]), "score", expect=2)
        assert "did not finish (interrupted)" in refused.stderr and "agentrank refresh" in refused.stderr
        assert _published(db_path) == before_published
        # A refresh that GitHub does not answer stores nothing (a failed row of its own): it must not
        # hide the dead one from the next plain score.
        unreachable = tmp_path / "unreachable.toml"
        unreachable.write_text('[github]\napi_url = "http://127.0.0.1:9"\nmax_retries = 0\n', encoding="utf-8")
        run_cli("--config", str(unreachable), "refresh", "--out", str(paths["export"]), expect=1)
        refused = run_cli("--config", str(paths["config"]), "score", expect=2)
        assert "did not finish (interrupted)" in refused.stderr
        assert _published(db_path) == before_published

        # The next refresh records the dead one as interrupted and publishes.
        run_cli("--config", str(paths["config"]), "refresh")
    statuses = _query(db_path, "select id, status from runs where kind = 'refresh' order by id")
    assert [s for _, s in statuses] == ["ok", "interrupted", "failed", "ok"]
    assert _published(db_path)[1] == statuses[-1][0]


CORRECTIONS = """
# Maintainers' corrections; every change is reviewed in git.

[[exclude]]
repo = "{excluded}"
reason = "a prompt collection, not an agent"
date = 2026-11-20

[[include]]
repo = "{included}"
reason = "an agent without topics"

[[category]]
repo = "{recategorised}"
category = "voice"
reason = "maker's request"

[[claim]]
repo = "{claimed}"
login = "octo-maker"
"""


def test_every_correction_kind_works_through_a_refresh(repos, setup, run_cli, db_path):
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    excluded, recategorised, claimed = eligible[0], eligible[1], eligible[2]
    # A real agent that no configured search finds: no topics, no keyword.
    hidden = replace(
        eligible[3], id=999_000_001, full_name="quiet/hidden-agent", topics=[], description="A helper that books trains"
    )
    with emulated([*repos, hidden]) as emulator:
        text = CORRECTIONS.format(
            excluded=excluded.full_name,
            included=hidden.full_name,
            recategorised=recategorised.full_name,
            claimed=claimed.full_name,
        )
        paths = setup(emulator, text)
        run_cli("--config", str(paths["config"]), "refresh")
        agents = {a["full_name"]: a for a in json.loads(paths["export"].read_text())["agents"]}
        # A crawl on its own, and a score after it, keep the exclusion the refresh applied.
        run_cli("--config", str(paths["config"]), "crawl", "--fresh")
        run_cli("--config", str(paths["config"]), "score")
        after = _query(db_path, "select listed, unlisted_reason from repos where id = ?", [excluded.id])[0]
        assert after == (0, "excluded by correction: a prompt collection, not an agent")
        published = _query(db_path, "select count(*) from agents where full_name = ?", [excluded.full_name])[0]
        assert published == (0,)
        # Asked why it moved, explain says why it is not there.
        why = run_cli("explain", excluded.full_name, "--since", "previous", expect=2)
        assert "a maintainer's correction excludes it: a prompt collection, not an agent" in why.stderr

    assert excluded.full_name not in agents
    reason = _query(db_path, "select listed, unlisted_reason from repos where id = ?", [excluded.id])[0]
    assert reason == (0, "excluded by correction: a prompt collection, not an agent")
    assert hidden.full_name in agents
    assert agents[recategorised.full_name]["category"] == "voice"
    assert agents[recategorised.full_name]["category_source"] == "correction"
    table = {
        row[0]: row[1:]
        for row in _query(db_path, "select kind, repo, repo_id, value, reason, date, line, status from corrections")
    }
    assert table["exclude"] == (
        excluded.full_name,
        excluded.id,
        None,
        "a prompt collection, not an agent",
        "2026-11-20",
        4,
        "applied",
    )
    assert table["include"][:2] == (hidden.full_name, hidden.id) and table["include"][-1] == "applied"
    assert table["category"][2] == "voice" and table["claim"][2] == "octo-maker"

    # The maker's page shows the claim; the excluded repo's page says why it is not ranked.
    from datasette_plugins.agent_page import agent_context

    conn = sqlite3.connect(db_path)
    page = agent_context(conn, claimed.full_name, "https://example.org/agentrank")
    assert [c["login"] for c in page["claims"]] == ["octo-maker"]
    out = agent_context(conn, excluded.full_name, "https://example.org/agentrank")
    assert out["breakdown"]["score"] is None
    assert "excluded by correction" in out["breakdown"]["repo"]["unlisted_reason"]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ('[[category]]\nrepo = "a/b"\ncategory = "robots"\n', 3, "unknown category 'robots'"),
        ('[[exclude]]\nrepo = "a/b"\nreason = "x"\n\n[[exclude]]\nrepo = "A/b"\nreason = "y"\n', 5, "duplicate"),
        ('[[exclude]]\nrepo = "a/b"\nreason = "x"\ncolour = "red"\n', 4, "unknown key"),
        ('[[frobnicate]]\nrepo = "a/b"\n', 1, "unknown entry kind"),
        ('[[exclude]]\nrepo = "nobody/nothing-here"\nreason = "x"\n', 1, "unknown repo nobody/nothing-here"),
        ('[[claim]]\nrepo = "a/b"\nlogin = "not a login!"\n', 3, "not a GitHub login"),
        # An exclusion's reason is shown on the maker's page: bounded like every other reason, and said.
        ('[[exclude]]\nrepo = "a/b"\nreason = "' + "x" * 5_000 + '"\n', 3, "at most 1000 characters"),
        ('[[exclude]]\nrepo = "a/b"\nreason = "   "\n', 3, "needs a reason in words"),
    ],
)
def test_a_bad_corrections_file_names_the_line_and_changes_nothing(repos, setup, run_cli, db_path, body, line, message):
    with emulated(repos) as emulator:
        paths = setup(emulator, "")
        run_cli("--config", str(paths["config"]), "refresh")
        before = (
            _published(db_path),
            _query(db_path, "select * from repos order by id"),
            _query(db_path, "select * from corrections"),
            paths["export"].read_bytes(),
        )
        paths["corrections"].write_text(body, encoding="utf-8")
        result = run_cli("--config", str(paths["config"]), "refresh", expect=1)
    assert f"{paths['corrections']}:{line}:" in result.stderr and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    after = (
        _published(db_path),
        _query(db_path, "select * from repos order by id"),
        _query(db_path, "select * from corrections"),
        paths["export"].read_bytes(),
    )
    assert after == before


def test_explain_since_separates_own_growth_from_the_population_shift(repos, setup, run_cli, db_path):
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    mid = sorted(eligible, key=lambda r: r.stars)[len(eligible) // 2]
    with emulated(repos) as emulator:
        paths = setup(emulator)
        run_cli("--config", str(paths["config"]), "refresh")
        # A week later: the repo gained stars, and 40 bigger agents joined the directory.
        emulator.set_stars(mid.id, mid.stars + 400)
        for i, newcomer in enumerate(population(40, seed=99)):
            emulator.add(
                replace(
                    newcomer,
                    id=990_000_000 + i,
                    full_name=f"new{i}/agent",
                    topics=["ai-agent"],
                    stars=mid.stars * 3,
                    fork=False,
                    archived=False,
                )
            )
        run_cli("--config", str(paths["config"]), "refresh")
    change = json.loads(run_cli("explain", mid.full_name, "--since", "previous", "--json").output)
    assert change["own_changes"]["stars"] == {"before": mid.stars, "after": mid.stars + 400}
    assert change["own_points"] > 0 and change["population_points"] < 0
    assert change["listed_after"] == change["listed_before"] + 40
    assert change["own_points"] + change["population_points"] == pytest.approx(change["score_delta"], abs=1e-9)
    assert sum(c["own_points"] + c["population_points"] for c in change["components"]) == pytest.approx(
        change["score_delta"], abs=1e-9
    )


def test_the_export_carries_weekly_growth(repos, setup, run_cli, db_path):
    with emulated(repos) as emulator:
        paths = setup(emulator)
        run_cli("--config", str(paths["config"]), "refresh")
        first = {a["full_name"]: a for a in json.loads(paths["export"].read_text())["agents"]}
        assert all(a["stars_delta_7d"] is None for a in first.values())  # no week-old snapshot yet
        # Backdate the first crawl's snapshots by a week, as if it had run a week ago (a fixed date
        # drifts out of the 6-to-10-day window a weekly change counts from as the calendar moves on).
        conn = sqlite3.connect(db_path)
        conn.execute("update snapshots set observed_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-7 days')")
        conn.commit()
        conn.close()
        target = next(r for r in repos if r.full_name in first)
        emulator.set_stars(target.id, target.stars + 123)
        run_cli("--config", str(paths["config"]), "refresh")
    second = {a["full_name"]: a for a in json.loads(paths["export"].read_text())["agents"]}
    assert second[target.full_name]["stars_delta_7d"] == 123
    assert second[target.full_name]["stars_delta_28d"] is None


def test_the_makers_page_explains_the_change_too(repos, setup, run_cli, db_path):
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    target = eligible[5]
    with emulated(repos) as emulator:
        paths = setup(emulator)
        run_cli("--config", str(paths["config"]), "refresh")
        assert "What changed" not in _maker_page(db_path, target.full_name)  # one run: nothing to compare
        emulator.set_stars(target.id, target.stars + 900)
        run_cli("--config", str(paths["config"]), "refresh")
    change = json.loads(run_cli("explain", target.full_name, "--since", "previous", "--json").output)
    page = _maker_page(db_path, target.full_name)
    assert "What changed since the previous run" in page
    # As the page writes changes: a sign, except for one that rounds to zero.
    assert signed(change["own_points"]) in page and signed(change["population_points"]) in page
    data = _maker_page(db_path, target.full_name, as_json=True)
    assert data["change"]["score_delta"] == pytest.approx(change["score_delta"])


def _maker_page(db_path: Path, full_name: str, as_json: bool = False):
    import asyncio

    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette

    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))

    async def get():
        response = await datasette.client.get(f"/-/agent/{full_name}" + (".json" if as_json else ""))
        assert response.status_code == 200, response.text[:300]
        return response.json() if as_json else response.text

    return asyncio.run(get())


def test_a_refresh_never_writes_its_export_over_the_database(repos, setup, run_cli, db_path):
    with emulated(repos) as emulator:
        paths = setup(emulator, "")
        run_cli("--config", str(paths["config"]), "refresh")
        before = _published(db_path), _query(db_path, "select count(*) from repos")
        result = run_cli("--config", str(paths["config"]), "refresh", "--out", str(db_path), expect=1)
    assert "is the database itself" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert (_published(db_path), _query(db_path, "select count(*) from repos")) == before  # still a database


def test_the_makers_page_and_explain_say_why_and_at_whose_request_a_correction_applies(repos, setup, run_cli, db_path):
    """The page said only "(set by a maintainer's correction)": the file's reason, `by` and date (the
    docs: "shown with the correction") reached the corrections table and nowhere a maker looks."""
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    excluded, recategorised = eligible[0], eligible[1]
    hostile = "maker's request <script>alert(1)</script>"
    corrections = (
        f'[[exclude]]\nrepo = "{excluded.full_name}"\nreason = "a prompt collection"\ndate = 2026-11-20\n'
        'by = "<b>octo-maker</b>"\n\n'
        f'[[category]]\nrepo = "{recategorised.full_name.upper()}"\ncategory = "voice"\nreason = "{hostile}"\n'
        'by = "octo-maker"\ndate = 2026-11-21\n'
    )
    with emulated(repos) as emulator:
        paths = setup(emulator, corrections)
        run_cli("--config", str(paths["config"]), "refresh")
        page = _maker_page(db_path, recategorised.full_name)
        assert (
            "(set by a maintainer's correction: <bdi>maker&#39;s request &lt;script&gt;alert(1)&lt;/script&gt;"
            "</bdi>; asked by <bdi>octo-maker</bdi>; 2026-11-21)"
        ) in page
        assert "<script>alert(1)" not in page
        shown = _maker_page(db_path, recategorised.full_name, as_json=True)["breakdown"]["category"]
        assert shown["correction"] == {"reason": hostile, "by": "octo-maker", "date": "2026-11-21"}
        out = run_cli("explain", recategorised.full_name).stdout
        assert f"from the correction\n  {hostile} (asked by octo-maker, 2026-11-21)" in out
        page = _maker_page(db_path, excluded.full_name)
        assert "(the correction: asked by <bdi>&lt;b&gt;octo-maker&lt;/b&gt;</bdi>, 2026-11-20)" in page
        out = run_cli("explain", excluded.full_name).stdout
        # In the words of the maker's page, not the stored "excluded by correction: …".
        assert ": a maintainer's correction excludes it: a prompt collection\n" in out
        assert "a prompt collection\n  the correction (asked by <b>octo-maker</b>, 2026-11-20)" in out
        # The entries taken out of the file: the model's category again, and no word of a correction.
        paths = setup(emulator, "")
        run_cli("--config", str(paths["config"]), "refresh")
        page = _maker_page(db_path, recategorised.full_name)
    assert "correction-note" not in page and "octo-maker" not in page


def test_corrections_of_a_repo_no_crawl_has_found_wait_for_it(repos, setup, run_cli, db_path):
    """A repo GitHub has but the crawl does not find (no topic, no keyword): its category, exclude and
    claim corrections made the refresh fail (no such repo; a foreign key at publish). They wait."""
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    quiet = replace(eligible[0], id=999_000_002, full_name="quiet/voice-helper", topics=[], description="Reads mail")
    other = replace(eligible[1], id=999_000_003, full_name="quiet/other-helper", topics=[], description="Books trains")
    third = replace(eligible[2], id=999_000_004, full_name="quiet/third-helper", topics=[], description="Sorts files")
    corrections = (
        f'[[category]]\nrepo = "{quiet.full_name}"\ncategory = "voice"\n\n'
        f'[[exclude]]\nrepo = "{other.full_name}"\nreason = "not an agent"\n\n'
        f'[[claim]]\nrepo = "{third.full_name}"\nlogin = "octo-maker"\n'
    )
    with emulated([*repos, quiet, other, third]) as emulator:
        paths = setup(emulator, corrections)
        run_cli("--config", str(paths["config"]), "refresh")
    rows = _query(db_path, "select kind, repo, repo_id, status from corrections order by line")
    assert [(kind, repo_id, status.split(":")[0]) for kind, _, repo_id, status in rows] == [
        ("category", None, "pending"),
        ("exclude", None, "pending"),
        ("claim", None, "pending"),
    ]
    assert _query(db_path, "select full_name, repo_id, category from category_corrections") == [
        (quiet.full_name, None, "voice")
    ]
    # When the repo arrives (a crawl finds it: now it has a topic), its correction applies.
    found = replace(quiet, topics=list(TOPICS[:1]))
    with emulated([*repos, found, other, third]) as emulator:
        paths = setup(emulator, corrections)
        run_cli("--config", str(paths["config"]), "refresh")
    agents = {a["full_name"]: a for a in json.loads(paths["export"].read_text())["agents"]}
    assert (agents[quiet.full_name]["category"], agents[quiet.full_name]["category_source"]) == ("voice", "correction")
    assert _query(db_path, "select status from corrections where kind = 'category'") == [("applied",)]


def test_an_exclude_and_a_claim_waiting_for_a_repo_apply_when_an_import_brings_it(
    repos, setup, run_cli, db_path, tmp_path
):
    """Between refreshes, saved results loaded with `import` bring the repo: the waiting exclusion keeps it
    off the listing (it was listed and exported) and the claim shows on its page (it did not)."""
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    other = replace(eligible[1], id=999_000_013, full_name="Quiet/Other-Helper", topics=[], description="Books trains")
    third = replace(eligible[2], id=999_000_014, full_name="quiet/third-helper", topics=[], description="Sorts files")
    corrections = (
        '[[exclude]]\nrepo = "quiet/other-helper"\nreason = "not an agent"\n\n'
        f'[[claim]]\nrepo = "{third.full_name}"\nlogin = "octo-maker"\n'
    )
    with emulated([*repos, other, third]) as emulator:
        paths = setup(emulator, corrections)
        run_cli("--config", str(paths["config"]), "refresh")
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps([to_search_item(replace(r, topics=list(TOPICS[:1]))) for r in (other, third)]))
    run_cli("import", str(saved))
    assert _query(db_path, "select listed, unlisted_reason from repos where id = ?", [other.id]) == [
        (0, "excluded by correction: not an agent")
    ]
    assert _query(db_path, "select listed from repos where id = ?", [third.id]) == [(1,)]
    run_cli("score")
    assert "octo-maker" in _maker_page(db_path, third.full_name)


def test_an_include_dropped_from_the_file_takes_the_repo_out_again(repos, setup, run_cli, db_path):
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    hidden = replace(eligible[3], id=999_000_005, full_name="quiet/included-agent", topics=[], description="A helper")
    with emulated([*repos, hidden]) as emulator:
        paths = setup(emulator, f'[[include]]\nrepo = "{hidden.full_name}"\nreason = "an agent without topics"\n')
        run_cli("--config", str(paths["config"]), "refresh")
        assert _query(db_path, "select listed from repos where id = ?", [hidden.id]) == [(1,)]
        # The maintainers take the include out of the file: the next refresh unlists the repo.
        paths = setup(emulator, "# no corrections\n")
        run_cli("--config", str(paths["config"]), "refresh")
    assert _query(db_path, "select listed, unlisted_reason from repos where id = ?", [hidden.id]) == [
        (0, "matched no configured topic or keyword")
    ]
    agents = {a["full_name"] for a in json.loads(paths["export"].read_text())["agents"]}
    assert hidden.full_name not in agents


def test_an_export_that_cannot_be_put_in_place_publishes_nothing(tmp_path, db_path):
    """The new export replaces the old one inside the publishing transaction: a rename the system
    refuses (here the file became a folder; in the field a busy bind mount or an immutable file)
    rolls the publish back. It used to come after the commit: the database published a ranking
    the export did not have, and the run said it failed."""
    from agentrank.config import Config
    from agentrank.pipeline import RefreshFailed, refresh_database
    from tests.conftest import make_item, write_json

    config = Config()
    export = tmp_path / "site" / "agentrank.json"
    week1 = write_json(tmp_path / "w1.json", [make_item(seed=i, id=i, stargazers_count=300 + i) for i in range(1, 30)])
    first = refresh_database(db_path, config, export_path=export, import_paths=[week1])
    before = (_published(db_path), export.read_bytes())

    def block_the_export(stage: str) -> None:
        if stage == "export":
            export.unlink()
            (export / "in-the-way").mkdir(parents=True)

    week2 = write_json(tmp_path / "w2.json", [make_item(seed=i, id=i, stargazers_count=900 + i) for i in range(1, 30)])
    with pytest.raises(RefreshFailed, match="publish"):
        refresh_database(db_path, config, export_path=export, import_paths=[week2], after_stage=block_the_export)
    assert _published(db_path) == before[0] and _published(db_path)[0] == first.score_run_id
    run = _query(db_path, "select status, error from runs where kind = 'refresh' order by id desc limit 1")[0]
    assert run[0] == "failed" and "publish stage failed: cannot write" in run[1]


def test_a_publish_whose_commit_fails_leaves_the_previous_export_in_place(tmp_path, db_path):
    """The export was renamed into place inside the publishing transaction, before its COMMIT: a
    COMMIT that failed then (a full disk, an I/O error, a constraint SQLite checks at commit) rolled
    the database back but left the new export in place, ahead of the ranking the database
    publishes. The previous file is put back, and nothing is left beside it."""
    from tests.conftest import make_item, write_json
    from tests.publish_helpers import agentrank_command

    export = tmp_path / "site" / "agentrank.json"

    def refresh(items: Path) -> subprocess.CompletedProcess[str]:
        command = agentrank_command(db_path, "refresh", "--from-file", str(items), "--out", str(export))
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    week1 = write_json(tmp_path / "w1.json", [make_item(seed=i, id=i, stargazers_count=300 + i) for i in range(1, 30)])
    assert refresh(week1).returncode == 0
    before = (_published(db_path), export.read_bytes())
    # A fault SQLite raises at COMMIT and not before: a deferred foreign key that publishing breaks.
    with sqlite3.connect(db_path) as conn:
        conn.executescript(
            """
            create table commit_guard_parent (id integer primary key);
            create table commit_guard (parent integer references commit_guard_parent (id) deferrable initially deferred);
            create trigger commit_guard_update after update on published begin insert into commit_guard values (1); end;
            create trigger commit_guard_insert after insert on published begin insert into commit_guard values (1); end;
            """
        )
    conn.close()
    week2 = write_json(tmp_path / "w2.json", [make_item(seed=i, id=i, stargazers_count=900 + i) for i in range(1, 30)])
    failed = refresh(week2)
    assert failed.returncode == 1, failed.stderr
    assert (
        failed.stderr.strip()
        .splitlines()[-1]
        .startswith("Error: refresh failed in the publish stage: FOREIGN KEY constraint failed")
    ), failed.stderr
    assert (_published(db_path), export.read_bytes()) == before
    assert os.listdir(export.parent) == ["agentrank.json"]  # no new file, no kept copy of the old one
    run = _query(db_path, "select status from runs where kind = 'refresh' order by id desc limit 1")[0]
    assert run == ("failed",)
    with sqlite3.connect(db_path) as conn:
        conn.executescript("drop trigger commit_guard_update; drop trigger commit_guard_insert;")
    conn.close()
    assert refresh(week2).returncode == 0  # nothing was left holding the database
    assert _published(db_path) != before[0] and export.read_bytes() != before[1]


def test_an_export_folder_it_may_not_write_in_is_refused_before_the_crawl(tmp_path, db_path):
    """The folder's permissions were found only at the export stage, after the week's crawl, classify
    and score had run and been recorded. Root passes every permission check, so as root the refresh
    runs without the capability that lets it write anywhere (as a service account would)."""
    import shutil

    from tests.publish_helpers import agentrank_command

    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    with emulated(population(30, seed=3)) as emulator:
        config = tmp_path / "agentrank.toml"
        config.write_text(
            f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\n[export]\npath = "{out / "site.json"}"\n'
        )
        command = agentrank_command(db_path, "--config", str(config), "refresh")
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv: every folder is writable")
            command = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-all", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        searched = emulator.search_requests()
    out.chmod(0o755)
    assert result.returncode == 1, result.stderr
    assert f"{out} is not writable" in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0, result.stderr  # one line
    assert not searched  # nothing crawled, so nothing recorded
    assert not (db_path.exists() and _query(db_path, "select kind from runs where status = 'ok'"))


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_ends_a_refresh_like_ctrl_c_and_records_it_interrupted(tmp_path, signame):
    """`systemctl stop` (SIGTERM) during a refresh, or the terminal or ssh session it ran in closing
    (SIGHUP): the process died without a word and left its run 'running' until another command took
    the lock. Now: one line, a non-zero exit, the refresh and its crawl recorded as interrupted at
    once, nothing published."""
    import signal

    signum = getattr(signal, signame)

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population, started_crawling

    db_path = tmp_path / "agentrank.db"
    with emulated(population(60, seed=6)) as emulator:
        emulator.inject(faults.slow(30, times=None))  # every search answer takes 30 s
        config = tmp_path / "agentrank.toml"
        config.write_text(f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\ntimeout_s = 60\n')
        process = started_crawling(db_path, config, emulator, "refresh")
        process.send_signal(signum)
        _, err = process.communicate(timeout=30)
    assert process.returncode not in (0, -signum), (process.returncode, err)
    assert "Traceback" not in err and err.strip(), err
    # After the stages' progress, one line that says what is left (click alone printed "Aborted!").
    assert err.strip().splitlines()[-1] == (
        "Error: interrupted: what the command had not finished was rolled back, and its run is recorded as interrupted"
    ), err
    assert "Aborted" not in err
    statuses = sqlite3.connect(db_path).execute("select kind, status from runs order by id").fetchall()
    assert ("refresh", "interrupted") in statuses and ("refresh", "running") not in statuses, statuses
    assert sqlite3.connect(db_path).execute("select count(*) from scores").fetchone() == (0,)


def test_a_refresh_started_under_nohup_goes_on_through_sighup(tmp_path):
    """SIGHUP ends a refresh as SIGTERM does, but not one started with SIGHUP ignored (`nohup`): the
    operator asked for it to outlive the terminal."""
    import signal
    import time

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population, started

    db_path = tmp_path / "agentrank.db"
    with emulated(population(40, seed=6)) as emulator:
        emulator.inject(faults.slow(2, times=1))  # the first search answer takes 2 s
        config = tmp_path / "agentrank.toml"
        config.write_text(f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\ntimeout_s = 60\n')
        process = started(db_path, config, "refresh", preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        while not emulator.search_requests():
            assert process.poll() is None
            time.sleep(0.05)
        process.send_signal(signal.SIGHUP)
        _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert _query(db_path, "select status from runs where kind = 'refresh'") == [("ok",)]


def test_ctrl_c_during_a_crawl_says_the_next_crawl_resumes_it(tmp_path):
    import signal

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population, started_crawling

    db_path = tmp_path / "agentrank.db"
    with emulated(population(60, seed=6)) as emulator:
        emulator.inject(faults.slow(30, times=None))
        config = tmp_path / "agentrank.toml"
        config.write_text(f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\ntimeout_s = 60\n')
        process = started_crawling(db_path, config, emulator, "crawl")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 1, (process.returncode, err)
    assert err.strip().splitlines() == [
        "Error: interrupted: the pages fetched so far are saved; run `agentrank crawl` again to resume"
    ], err
    statuses = sqlite3.connect(db_path).execute("select kind, status from runs order by id").fetchall()
    assert statuses == [("crawl", "interrupted")], statuses


def test_an_included_repo_fetched_by_name_has_its_dropped_topics_said(repos, setup, run_cli, db_path, caplog):
    """A repo an include fetches by name (no crawl finds it) had a topic GitHub would not allow
    dropped without a word, where a crawl or an import says it once."""
    eligible = [r for r in repos if set(r.topics) & set(TOPICS) and r.stars >= 200 and not r.fork and not r.archived]
    long_topic = "agent-" + "x" * 60
    hidden = replace(
        eligible[3], id=999_000_006, full_name="quiet/long-topic", topics=["helper", long_topic], description="A helper"
    )
    with emulated([*repos, hidden]) as emulator:
        paths = setup(emulator, f'[[include]]\nrepo = "{hidden.full_name}"\nreason = "an agent its topics hide"\n')
        run_cli("--config", str(paths["config"]), "refresh")
    said = [f"{r.levelname} {r.getMessage()}" for r in caplog.records if "dropped" in r.getMessage()]
    assert said == [
        "WARNING corrections: 1 topic dropped (1 longer than GitHub's 50 characters) from 1 repo, "
        "which is kept: quiet/long-topic"
    ], said
    assert _query(db_path, "select listed, topics from repos where id = ?", [hidden.id]) == [(1, '["helper"]')]
    [(details,)] = _query(db_path, "select details from runs where kind = 'refresh'")
    [stage] = [s for s in json.loads(details)["stages"] if s["stage"] == "corrections"]
    assert stage["dropped_topics"]["first_repos"] == ["quiet/long-topic"]


def test_a_first_refresh_that_never_reached_github_leaves_no_database_behind(tmp_path, repos, setup):
    """A refresh on a new database whose crawl could not reach the API left the file (holding only
    the failed run) and its lock file, where a failed first `crawl` leaves nothing. A database its
    crawl stored repos in is kept when a later stage fails."""
    from tests.first_hour import agentrank

    folder = tmp_path / "fresh"
    folder.mkdir()
    failed = agentrank(folder, "--db", "x.db", "refresh", "--api-url", "http://127.0.0.1:9")
    assert failed.returncode == 1 and failed.stderr.count("\n") == 1, failed.stderr
    assert sorted(p.name for p in folder.iterdir()) == []
    from crawler.emulator.server import error_status

    with emulated(repos) as emulator:
        paths = setup(emulator)
        emulator.inject(error_status(401, "Bad credentials", after=2, times=None))  # after two pages
        late = agentrank(folder, "--db", "y.db", "--config", str(paths["config"]), "refresh")
    assert late.returncode == 1 and "crawl stage" in late.stderr, late.stderr
    conn = sqlite3.connect(folder / "y.db")
    assert conn.execute("select count(*) from repos").fetchone()[0] > 0  # the crawl's repos are kept
    conn.close()
