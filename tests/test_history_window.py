"""The 7- and 28-day star changes and the home page's risers count from a save about a week (or four)
old, never an older one: a history audit found a repo left out of one weekly save shown with its
two-week gain as "+80 ★ this week", a 13-day gap called "this week", and the "Counted from" date
under Rising naming a run the figures were not counted from."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from tests.conftest import make_item, write_json


def _at(day: int) -> str:
    return f"2026-11-{2 + day:02d}T06:00:00Z"


def _save(tmp_path, run_cli, day: int, stars: dict[int, int]) -> None:
    items = [make_item(seed=i, id=i, full_name=f"owner{i}/repo{i}", stargazers_count=s) for i, s in stars.items()]
    run_cli("import", "--observed-at", _at(day), str(write_json(tmp_path / f"day{day}.json", items)))
    run_cli("score")


def _deltas(db_path) -> dict[str, tuple]:
    with closing(sqlite3.connect(db_path)) as conn:
        rows = conn.execute(
            "select full_name, stars_delta_7d, stars_delta_28d from scores "
            "where run_id = (select max(id) from runs where kind = 'score')"
        ).fetchall()
    return {name: (week, month) for name, week, month in rows}


def test_a_repo_left_out_of_last_weeks_save_has_no_weekly_change(tmp_path, run_cli, db_path):
    _save(tmp_path, run_cli, 0, {1: 1000, 2: 1000})
    _save(tmp_path, run_cli, 7, {1: 1100, 2: 1050})
    _save(tmp_path, run_cli, 14, {1: 1200})  # repo 2 left out: an import keeps it listed, unseen
    _save(tmp_path, run_cli, 21, {1: 1300, 2: 1250})
    deltas = _deltas(db_path)
    assert deltas["owner1/repo1"][0] == 100
    assert deltas["owner2/repo2"][0] is None  # not 200 "this week": its baseline would be 14 days old


def test_a_repo_missing_from_the_latest_save_has_no_change_and_is_no_riser(tmp_path, run_cli, db_path):
    from datasette_plugins.pages import home_context
    from db import directory

    _save(tmp_path, run_cli, 0, {1: 1000, 2: 1000, 3: 1000})
    _save(tmp_path, run_cli, 11, {1: 1110, 2: 1500, 3: 1010})
    _save(tmp_path, run_cli, 14, {1: 1150, 3: 1020})  # repo 2 not seen in this save
    deltas = _deltas(db_path)
    assert deltas["owner2/repo2"] == (None, None)
    assert deltas["owner1/repo1"][0] is None  # day 11 is 3 days back, day 0 fourteen: no week-old save
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as conn:
        # Rising counts from the one run within the week, and says so; the unseen repo is not on it.
        assert directory.rising_start(conn, 7) == _at(11)
        week = home_context(conn, 7)
        assert [(r["full_name"], r["gained"]) for r in week["risers"]] == [("owner1/repo1", 40), ("owner3/repo3", 10)]


def test_a_two_week_gap_is_not_this_week(tmp_path, run_cli, db_path):
    from db import directory

    _save(tmp_path, run_cli, 0, {1: 1000})
    _save(tmp_path, run_cli, 13, {1: 1156})
    assert _deltas(db_path)["owner1/repo1"] == (None, None)
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as conn:
        assert directory.rising_start(conn, 7) is None  # no "Counted from" over a gain of 13 days
        assert directory.risers(conn, days=7) == []


@pytest.mark.parametrize(("gap", "expected"), [(6, 60), (7, 70), (9, 90), (10, None)])
def test_the_weekly_baseline_is_six_to_ten_days_old(tmp_path, run_cli, db_path, gap, expected):
    _save(tmp_path, run_cli, 0, {1: 1000})
    _save(tmp_path, run_cli, gap, {1: 1000 + 10 * gap})
    assert _deltas(db_path)["owner1/repo1"][0] == expected


def test_counted_from_names_the_run_the_weekly_figures_count_from(tmp_path, run_cli, db_path):
    from db import directory

    _save(tmp_path, run_cli, 0, {1: 1000, 2: 1000})
    _save(tmp_path, run_cli, 2, {1: 1020, 2: 1002})
    _save(tmp_path, run_cli, 8, {1: 1080, 2: 1008})
    _save(tmp_path, run_cli, 9, {1: 1090, 2: 1019})
    # As of day 9 the newest save 6 to 10 days back is day 2's: the figures and the date agree.
    assert _deltas(db_path)["owner1/repo1"][0] == 70
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as conn:
        assert directory.rising_start(conn, 7) == _at(2)
        assert [(r["full_name"], r["gained"]) for r in directory.risers(conn, days=7)] == [
            ("owner1/repo1", 70),
            ("owner2/repo2", 17),
        ]
