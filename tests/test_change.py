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
    assert "its own change" in text and "population's shift" in text


def test_since_errors_are_one_line(tmp_path, run_cli):
    run_cli("import", str(write_json(tmp_path / "w1.json", _week(5))))
    run_cli("score")
    assert "no earlier successful score run" in run_cli("explain", "m1/agent1", "--since", "previous", expect=2).stderr
    assert "no successful score run with that id" in run_cli("explain", "m1/agent1", "--since", "99", expect=2).stderr
