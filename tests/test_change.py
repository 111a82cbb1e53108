"""`explain --since`: a score change split into the repo's own change and the population's shift."""

import json

import pytest

from tests.conftest import make_item, write_json


def _week(n: int, *, star_boost: int = 0) -> list[dict]:
    items = [
        make_item(
            seed=i % 7 + 1,
            id=i + 1,
            full_name=f"m{i}/agent{i}",
            stargazers_count=300 + 40 * i,
            forks_count=5 + i,
            created_at="2025-06-01T00:00:00Z",
            pushed_at="2026-11-20T00:00:00Z",
        )
        for i in range(n)
    ]
    items[3]["stargazers_count"] += star_boost
    return items


def test_change_is_split_into_own_and_population_and_adds_up(tmp_path, run_cli):
    run_cli("import", str(write_json(tmp_path / "w1.json", _week(30))))
    run_cli("score", "--as-of", "2026-11-23T06:00:00Z", "--force")  # replaying past weeks
    # A week later the repo gained stars and the directory grew by 20 repos, mostly bigger ones.
    grown = _week(50, star_boost=700)
    run_cli("import", str(write_json(tmp_path / "w2.json", grown)))
    run_cli("score", "--as-of", "2026-11-30T06:00:00Z", "--force")

    change = json.loads(run_cli("explain", "m3/agent3", "--since", "previous", "--json").output)
    assert change["own_points"] > 0  # it gained 700 stars
    assert change["population_points"] < 0  # others joined above it
    assert change["own_points"] + change["population_points"] == pytest.approx(change["score_delta"], abs=1e-9)
    assert sum(c["points_delta"] for c in change["components"]) == pytest.approx(change["score_delta"], abs=1e-9)
    for c in change["components"]:
        assert c["own"] + c["population"] == pytest.approx(c["delta"], abs=1e-9)
    assert change["own_changes"]["stars"] == {"before": 420, "after": 1120}
    assert change["listed_before"] == 30 and change["listed_after"] == 50
    # Activity fell from 100 (3 days since the push) to 85 (10 days): the repo's own doing.
    activity = next(c for c in change["components"] if c["component"] == "activity")
    assert (activity["before"], activity["after"], activity["population"]) == (100.0, 85.0, 0.0)

    text = run_cli("explain", "m3/agent3", "--since", "previous").output
    assert "its own change" in text and "the other listed repos' changes" in text


def test_since_errors_are_one_line(tmp_path, run_cli):
    run_cli("import", str(write_json(tmp_path / "w1.json", _week(5))))
    run_cli("score")
    assert "no earlier successful score run" in run_cli("explain", "m1/agent1", "--since", "previous", expect=2).stderr
    assert "no successful score run with that id" in run_cli("explain", "m1/agent1", "--since", "99", expect=2).stderr


def test_the_list_of_runs_in_an_error_says_when_it_is_the_latest_only(tmp_path, run_cli):
    # Ten runs: the error listed the last eight ids beside dates that covered all ten, so the first
    # two seemed not to exist.
    run_cli("import", str(write_json(tmp_path / "w1.json", _week(5))))
    for day in range(10, 20):
        run_cli("score", "--as-of", f"2026-11-{day}T06:00:00Z", "--force")
    error = run_cli("explain", "m1/agent1", "--since", "999", expect=2).stderr
    assert (
        "10 score runs, as of 2026-11-10 to 2026-11-19; the latest 8: 4, 5, 6, 7, 8, 9, 10, 11 (as of 2026-11-12 on)"
        in error
    ), error


def test_since_a_date_means_the_score_as_of_that_date(tmp_path, run_cli):
    """History from saved results is scored today as of past weeks: `--since 2026-11-10` names the
    score as of 2026-11-09, not a run started on or before the 10th (there is none)."""
    for n, day in ((1, "2026-11-02"), (2, "2026-11-09"), (3, "2026-11-16")):
        run_cli("import", "--observed-at", f"{day}T06:00:00Z", str(write_json(tmp_path / f"w{n}.json", _week(10 + n))))
        run_cli("score")
    change = json.loads(run_cli("explain", "m3/agent3", "--since", "2026-11-10", "--json").output)
    assert change["as_of_before"] == "2026-11-09T06:00:00Z"
    refused = run_cli("explain", "m3/agent3", "--since", "2026-11-01", expect=2).stderr
    assert "no score run as of it or earlier" in refused and "as of 2026-11-02 to 2026-11-16" in refused


def test_a_change_from_time_alone_is_named_as_such(tmp_path, run_cli):
    week = _week(12)
    run_cli("import", str(write_json(tmp_path / "w1.json", week)))
    run_cli("score", "--as-of", "2026-11-23T06:00:00Z", "--force")
    run_cli("import", str(write_json(tmp_path / "w2.json", week)))  # nothing changed on GitHub
    run_cli("score", "--as-of", "2026-11-30T06:00:00Z", "--force")
    change = json.loads(run_cli("explain", "m3/agent3", "--since", "previous", "--json").output)
    assert change["own_is_time_only"] is True and change["own_points"] < 0  # the push aged past 7 days
    text = run_cli("explain", "m3/agent3", "--since", "previous").output
    assert "time since the last push alone (no new stars, forks, push or licence)" in text
    assert "its own change" not in text
    # No "-0.0" and no "+0.0" anywhere: a change that rounds to nothing reads 0.0.
    assert "-0.0" not in text and "+0.0 " not in text and "+0.00 " not in text


def test_explain_names_fields_as_people_do(tmp_path, run_cli):
    week = _week(12)
    week[0]["stargazers_count"] = 94483
    run_cli("import", str(write_json(tmp_path / "w1.json", week)))
    run_cli("score", "--as-of", "2026-11-23T06:00:00Z", "--force")
    text = run_cli("explain", "m0/agent0").output
    assert "stars 94,483" in text and "OSI-approved " in text
    assert "osi_approved=" not in text and "stars=" not in text
    # The repo with the most stars is not told to "pass" anyone for popularity.
    assert "more stars to pass the next listed repo" not in text


def test_every_repo_is_told_whom_to_pass_where_it_is_not_first(tmp_path, run_cli):
    run_cli("import", str(write_json(tmp_path / "w1.json", _week(12))))
    run_cli("score", "--as-of", "2026-11-23T06:00:00Z", "--force")
    run_cli("export", "--out", str(tmp_path / "e.json"))
    agents = json.loads((tmp_path / "e.json").read_text())["agents"]
    for agent in agents[:2]:
        breakdown = json.loads(run_cli("explain", agent["full_name"], "--json").output)
        for component in breakdown["components"]:
            if component.get("percentile", 100) == 100:
                continue
            # The #1 too: it is #1 overall, not on each measure.
            assert any("to pass" in a or "to have the most" in a for a in component["advice"]), component
            if agent["rank"] == 1:
                assert component["advice"][0].startswith("ranked #1 overall, yet not first on"), component


def test_numbers_read_as_people_write_them():
    from datasette_plugins.formatting import ago, plural, share, signed
    from scoring.explain import signed as explain_signed

    assert plural(1, "repository") == "1 repository" and plural(2316, "repository") == "2,316 repositories"
    assert share(2312, 2316) == "99.8 %" and share(2316, 2316) == "100 %" and share(1, 2316) == "0.1 %"
    assert explain_signed(-0.004) == "0.00" and explain_signed(-3.75) == "−3.75" and explain_signed(0.01) == "+0.01"
    assert signed(None) == "—" and signed(1204) == "+1,204" and signed(-0.2) == "0"
    from datetime import UTC, datetime

    now = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
    assert ago("2026-11-27T06:00:00Z", now) == "3 days ago" and ago("2026-11-29T20:00:00Z", now) == "today"
    assert ago("2026-11-02T06:00:00Z", now) == "4 weeks ago" and ago("2024-11-30T06:00:00Z", now) == "2 years ago"


def test_since_the_date_of_the_run_explained_names_that_days_earlier_run(tmp_path, run_cli):
    # Two runs on the 16th (06:00 and 18:00): "--since 2026-11-16" for the evening run is the
    # morning's, not the run being explained (which was refused).
    days = ("2026-11-09T06:00:00Z", "2026-11-16T06:00:00Z", "2026-11-16T18:00:00Z")
    for n, at in enumerate(days, 1):
        run_cli("import", "--observed-at", at, str(write_json(tmp_path / f"w{n}.json", _week(10 + n))))
        run_cli("score")
    change = json.loads(run_cli("explain", "m3/agent3", "--since", "2026-11-16", "--json").output)
    assert (change["as_of_before"], change["as_of_after"]) == (days[1], days[2])


def test_a_what_if_as_of_a_later_date_is_not_the_previous_run(tmp_path, run_cli, db_path):
    # Week 1 scored; a what-if as of Dec 1 (forced); then the saves of Nov 20 are imported and scored.
    # The Nov 20 run comes after week 1, not after the what-if: history does not run backwards.
    run_cli("import", "--observed-at", "2026-11-13T06:00:00Z", str(write_json(tmp_path / "w1.json", _week(12))))
    run_cli("score")
    run_cli("score", "--as-of", "2026-12-01T00:00:00Z", "--force")
    run_cli("import", "--observed-at", "2026-11-20T06:00:00Z", str(write_json(tmp_path / "w2.json", _week(14))))
    run_cli("score")
    change = json.loads(run_cli("explain", "m3/agent3", "--since", "previous", "--json").output)
    assert (change["as_of_before"], change["as_of_after"]) == ("2026-11-13T06:00:00Z", "2026-11-20T06:00:00Z")
    import sqlite3

    conn = sqlite3.connect(db_path)
    as_of = dict(conn.execute("select id, as_of from runs where kind = 'score'").fetchall())
    (previous,) = conn.execute(
        "select previous_run from validation where run_id = (select score_run_id from published)"
    ).fetchone()
    assert as_of[previous] == "2026-11-13T06:00:00Z"
    conn.close()


def test_a_score_run_whose_refresh_failed_was_never_published_and_is_nobodys_previous(tmp_path, run_cli, db_path):
    import sqlite3

    run_cli("import", "--observed-at", "2026-11-09T06:00:00Z", str(write_json(tmp_path / "w1.json", _week(12))))
    run_cli("score")
    run_cli("import", "--observed-at", "2026-11-16T06:00:00Z", str(write_json(tmp_path / "w2.json", _week(13))))
    run_cli("score")
    conn = sqlite3.connect(db_path)
    first, second = (r[0] for r in conn.execute("select id from runs where kind = 'score' order by id"))
    # What a refresh that failed after its score stage leaves: its score run ok, the ranking not moved.
    with conn:
        conn.execute(
            "insert into runs (kind, status, started_at, finished_at) values "
            "('refresh', 'failed', '2026-11-16T06:00:00Z', '2026-11-16T06:05:00Z')"
        )
        refresh = conn.execute("select max(id) from runs").fetchone()[0]
        conn.execute("update runs set parent_id = ? where id = ?", [refresh, second])
        conn.execute("update published set score_run_id = ? where id = 1", [first])
    conn.close()
    run_cli("import", "--observed-at", "2026-11-23T06:00:00Z", str(write_json(tmp_path / "w3.json", _week(14))))
    run_cli("score", "--force")  # past the unfinished-refresh guard, as its message says
    conn = sqlite3.connect(db_path)
    (previous,) = conn.execute(
        "select previous_run from validation where run_id = (select score_run_id from published)"
    ).fetchone()
    conn.close()
    assert previous == first
    change = json.loads(run_cli("explain", "m3/agent3", "--since", "previous", "--json").output)
    assert change["as_of_before"] == "2026-11-09T06:00:00Z"
