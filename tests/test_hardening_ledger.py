"""Issue 13: the benchmark ledger cannot be wedged by one implausible number or date."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_json
from tests.test_leaderboard_import import good


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"cost_usd": 1.7e308, "cost_source": "provider-invoice"}, "cost_usd"),
        ({"wall_seconds": 1.7e308}, "wall_seconds"),
        ({"tokens": {"input": 2**62}}, "tokens.input"),
        ({"human_interventions": 2**62}, "human_interventions"),
        ({"date": "9999-12-31T23:59:59-01:00"}, "date"),
        ({"date": "1970-01-01T00:00:00Z"}, "date"),
        ({"settings": {f"k{i}": i for i in range(60)}}, "settings"),
    ],
)
def test_implausible_values_reject_that_record_with_one_line(db, run_cli, tmp_path, overrides, field):
    path = write_json(tmp_path / "a.json", [good(), good(attempt=2, **overrides)])
    result = run_cli("import-attempts", "--verified", str(path), expect=3)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "record 2" in lines[0] and f"{field}:" in lines[0], lines
    assert db["benchmark_attempts"].count == 1


def test_a_bad_stored_row_does_not_wedge_later_imports(db, run_cli, tmp_path):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", [good(), good(attempt=2)])))
    # Rows stored before the bounds existed: the figures must treat them as unknown, not overflow.
    db.execute("update benchmark_attempts set cost_usd = 1.7e308, wall_seconds = 1.7e308")
    db.conn.commit()
    result = run_cli("import-attempts", "--verified", str(write_json(tmp_path / "b.json", [good(attempt=3)])))
    assert "1 attempts saved" in result.output
    entry = next(db["benchmark_entries"].rows)
    assert entry["total_cost_usd"] is None and entry["mean_wall_seconds"] == 60


def test_an_empty_list_says_so(db, run_cli, tmp_path):
    result = run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", [])), expect=1)
    assert "holds no attempts" in result.stderr and db["runs"].count == 0


def test_deeply_nested_attempts_are_one_line(db, run_cli, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    result = run_cli("import-attempts", "--verified", str(path), expect=1)
    assert "nested too deeply" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    record = good(attempt=2)
    nested: list = []
    for _ in range(40):
        nested = [nested]
    record["settings"] = {"x": nested}
    path.write_text(json.dumps([good(), record]))
    result = run_cli("import-attempts", "--verified", str(path), expect=3)
    assert "nested deeper than" in result.stderr


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ([], "holds no tasks (an empty list)"),
        ("a task", "expected a task object, a JSON list of tasks or JSON Lines, got a string"),
    ],
)
def test_a_tasks_file_is_told_about_tasks_not_attempts(db, run_cli, tmp_path, content, said):
    result = run_cli("import-tasks", str(write_json(tmp_path / "t.json", content)), expect=1)
    assert said in result.stderr and "attempt" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and db["runs"].count == 0


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("1790812800", "got 1790812800"),  # was stored as a Unix time: 2026-10-01
        ("20261001", "got 20261001"),
        ("2026-10-01T10:00:00Z", "got 2026-10-01T10:00:00+00:00"),  # a date-time is not cut to its day
        ('"2026-10-01T00:00:00Z"', "got '2026-10-01T00:00:00Z'"),
    ],
)
def test_a_price_date_is_a_date_as_written(db, run_cli, tmp_path, written, shown):
    path = tmp_path / "p.toml"
    path.write_text(f'[[price]]\nmodel = "m"\nfrom = {written}\ninput = 1.0\noutput = 2.0\n')
    result = run_cli("import-prices", str(path), expect=1)
    assert "price.0.from: a date is written 2026-10-01" in result.stderr and shown in result.stderr
    assert db["runs"].count == 0
    assert "benchmark_prices" not in db.table_names() or db["benchmark_prices"].count == 0
