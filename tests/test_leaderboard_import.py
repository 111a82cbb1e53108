"""``agentrank import-attempts``: idempotent re-imports, one clear line per bad record, the shipped schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from agentrank.locks import run_lock
from leaderboard.attempt import SCHEMA_FILE, attempt_json_schema, render_schema, shipped_schema
from tests.benchmark_attempts import ATTEMPTS, attempt
from tests.conftest import db_content, write_json

TABLES = ("benchmark_attempts", "benchmark_entries", "benchmark_agents", "benchmark_tasks")


def contents(db) -> dict[str, list[tuple]]:
    return {table: sorted(json.dumps(row) for row in db[table].rows) for table in TABLES}


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def good(**overrides) -> dict:
    record = attempt("acme/coder", "1.0", "t1", 1, "2026-10-01T10:00:00Z", "verified", 3, 4, 60, 0.5)
    record.update(overrides)
    return record


@pytest.mark.parametrize("shape", ["json", "jsonl"])
def test_reimporting_the_same_file_changes_nothing(db, run_cli, tmp_path, shape):
    writer = write_json if shape == "json" else write_jsonl
    path = writer(tmp_path / f"attempts.{shape}", ATTEMPTS)
    first = run_cli("import-attempts", "--verified", str(path))
    assert f"{len(ATTEMPTS)} attempts saved ({len(ATTEMPTS)} new, 0 updated, 0 unchanged), 0 rejected" in first.stdout
    before = contents(db)
    assert len(before["benchmark_attempts"]) == len(ATTEMPTS)
    second = run_cli("import-attempts", "--verified", str(path))
    assert f"({0} new, 0 updated, {len(ATTEMPTS)} unchanged), 0 rejected" in second.stdout
    assert contents(db) == before
    runs = list(db.query("select kind, status, items, saved, new, updated, rejected from runs order by id"))
    assert runs == [
        {"kind": "import-attempts", "status": "ok", "items": 20, "saved": 20, "new": 20, "updated": 0, "rejected": 0},
        {"kind": "import-attempts", "status": "ok", "items": 20, "saved": 20, "new": 0, "updated": 0, "rejected": 0},
    ]


def test_a_corrected_attempt_is_updated_in_place(db, run_cli, tmp_path):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", ATTEMPTS)))
    # A reviewer later finds reward hacking in Closed Agent X's first attempt (was 10/10, solved).
    corrected = [dict(r) for r in ATTEMPTS]
    corrected[8]["flags"] = ["reward-hacking"]
    result = run_cli("import-attempts", "--verified", str(write_json(tmp_path / "b.json", corrected)))
    assert "(0 new, 1 updated, 19 unchanged)" in result.stdout
    row = next(db["benchmark_attempts"].rows_where("agent = 'Closed Agent X' and task_id = 't1'"))
    assert (row["score"], row["first_run_id"], row["changed_run_id"]) == (0, 1, 2)
    entry = next(db["benchmark_entries"].rows_where("agent = 'Closed Agent X'"))
    assert entry["mean_score"] == pytest.approx((0 + 0 + 100) / 3)
    assert entry["rank"] == 2  # now below acme/coder 1.1 (41.67); 1.0 covers 2 of 3 tasks, unranked
    assert db["benchmark_attempts"].count == len(ATTEMPTS)


def test_a_repo_name_differing_in_case_is_the_same_attempt(db, run_cli, tmp_path):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", [good()])))
    result = run_cli("import-attempts", "--verified", str(write_json(tmp_path / "b.json", [good(agent="Acme/Coder")])))
    assert "(0 new, 1 updated, 0 unchanged)" in result.stdout
    assert [r["agent"] for r in db["benchmark_attempts"].rows] == ["Acme/Coder"]


def test_every_added_field_may_be_null_and_a_null_suite_is_the_default_one(db, run_cli, tmp_path):
    # design.md: the fields added to the attempt record are all optional, null meaning "not given".
    import jsonschema

    from leaderboard.attempt import shipped_schema

    added = ("suite", "run", "quality", "unrelated_changes", "regression_passed", "regression_total", "repo_commit",
             "limit_seconds", "cost_lower_bound")  # fmt: skip
    record = good(**dict.fromkeys(added))
    jsonschema.validate(record, shipped_schema())
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", [record])))
    again = run_cli("import-attempts", "--verified", str(write_json(tmp_path / "b.json", [good()])))
    assert "(0 new, 0 updated, 1 unchanged)" in again.stdout  # the same attempt: suite "agentrank"
    assert [r["suite"] for r in db["benchmark_attempts"].rows] == ["agentrank"]


BAD = [
    (
        good(tests_passed="3"),
        'record 2 (agent "acme/coder", task_id "t1", attempt 1): tests_passed: '
        'Input should be a valid integer (got "3")',
    ),
    (good(attempt=2, cots_usd=1.0), 'record 3 (agent "acme/coder", task_id "t1", attempt 2): cots_usd: unknown field'),
    (
        {k: v for k, v in good(attempt=3).items() if k != "model"},
        'record 4 (agent "acme/coder", task_id "t1", attempt 3): model: required',
    ),
    (
        good(attempt=4, tests_passed=12, tests_total=10),
        'record 5 (agent "acme/coder", task_id "t1", attempt 4): tests_passed: 12 is more than tests_total 10',
    ),
    (good(attempt=5, cost_source=None), "attempt 5): cost_source: cost_usd and cost_source go together"),
    (
        good(attempt=True),
        'record 7 (agent "acme/coder", task_id "t1", attempt true): attempt: Input should be a '
        "valid integer (got true)",
    ),
    (
        good(attempt=7, flags=["cheated"]),
        "attempt 7): flags[0]: Input should be 'modified-tests', 'added-dependency', 'reward-hacking', 'infra-error', "
        "'agent-error' or 'timed-out' (got \"cheated\")",
    ),
    (["not", "an", "attempt"], "record 9: expected an attempt object, got a list"),
    (
        good(),
        'record 10 (agent "acme/coder", task_id "t1", attempt 1): tier, agent, agent_version, model, '
        "settings, suite, run, task_id, attempt: the same attempt as record 1",
    ),
    (good(attempt=10, log_url=None), "attempt 10): log_url: a verified attempt has a published log"),
    (good(attempt=11, tier="community"), "attempt 11): cost_source: a community attempt's cost is 'self-reported'"),
    (good(attempt=12, wall_seconds="60"), 'attempt 12): wall_seconds: Input should be a valid number (got "60")'),
    (good(attempt=13, tests_total=4.0), "attempt 13): tests_total: Input should be a valid integer"),
    (good(attempt=14, date="2026-10-01T10:00:00"), "attempt 14): date: Input should have timezone info"),
    (good(attempt=15, agent="not/a/repo"), "attempt 15): agent: an agent with '/' must be a GitHub repository"),
    (good(attempt=16, tests_passed=None), "attempt 16): tests_passed: required when the other hidden-test count"),
    (
        good(attempt=17, tests_passed=None, tests_total=None),
        "tests_passed: required (null only for an attempt flagged infra-error or agent-error)",
    ),
    (good(attempt=18, cost_usd=-1.0), "attempt 18): cost_usd: Input should be greater than or equal to 0"),
    (
        good(attempt=19, agent="<b>evil<b>\n'; drop table runs; --", settings={"k": {"nested": 1}}),
        'record 20 (agent "<b>evil<b>\\n\'; drop table runs; --", task_id "t1", attempt 19): settings.k: a setting '
        "must be a string, a number or a boolean",
    ),
    (good(attempt=20, flags=["timed-out", "timed-out"]), "attempt 20): flags: a flag is listed twice"),
    # Input counts cached reads and cache writes, output counts reasoning: a part above its total
    # would give a negative list-price cost.
    (
        good(attempt=21, tokens={"input": 100, "cached": 80, "cache_write": 50, "output": 10}),
        "attempt 21): tokens: cached + cache_write (130) is more than input (100), which includes both",
    ),
    (
        good(attempt=22, tokens={"input": 100, "output": 10, "reasoning": 50}),
        "attempt 22): tokens: reasoning (50) is more than output (10), which includes it",
    ),
]


def test_each_bad_record_gets_one_line_naming_the_record_and_the_field(db, run_cli, tmp_path):
    path = write_json(tmp_path / "mixed.json", [good(), *[record for record, _ in BAD], good(attempt=99)])
    result = run_cli("import-attempts", "--verified", str(path), expect=3)
    lines = result.stderr.splitlines()
    assert len(lines) == len(BAD), lines
    for line, (_, expected) in zip(lines, BAD, strict=False):
        assert line.startswith(f"{path}: record "), line
        assert expected in line, (expected, line)
    assert (
        f"{len(BAD) + 2} records from {path}: 2 attempts saved (2 new, 0 updated, 0 unchanged), "
        f"{len(BAD)} rejected" in result.stdout
    )
    assert sorted(r["attempt"] for r in db["benchmark_attempts"].rows) == [1, 99]  # the valid ones are kept
    run = db["runs"].get(1)
    assert (run["kind"], run["status"], run["rejected"], run["saved"]) == ("import-attempts", "ok", len(BAD), 2)
    assert json.loads(run["details"])["errors"] == lines


@pytest.mark.parametrize("count", [1, 3])
def test_a_file_without_one_valid_record_is_refused_and_changes_nothing(db_path, run_cli, tmp_path, count):
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "good.json", [good()])))
    before = db_content(db_path)
    path = write_json(tmp_path / "bad.json", [good(attempt=n, cost_usd=-0.5) for n in range(2, 2 + count)])
    result = run_cli("import-attempts", "--verified", str(path), expect=1)
    assert len(result.stderr.splitlines()) == 1
    first = "" if count == 1 else f", all {count} records were rejected; the first"
    assert result.stderr.startswith(f'Error: {path}: nothing imported{first}: record 1 (agent "acme/coder"')
    assert "cost_usd" in result.stderr
    assert db_content(db_path) == before  # no run, nothing stored


def test_a_bad_line_in_json_lines_is_one_bad_record(db, run_cli, tmp_path):
    path = tmp_path / "attempts.jsonl"
    path.write_text(json.dumps(good()) + "\n\n{broken\n" + json.dumps(good(attempt=2, tests_passed=5)) + "\n")
    result = run_cli("import-attempts", "--verified", str(path), expect=3)
    assert result.stderr.splitlines() == [
        f"{path}: line 3: not valid JSON (Expecting property name enclosed in double quotes, column 2)",
        f'{path}: line 4 (agent "acme/coder", task_id "t1", attempt 2): tests_passed: 5 is more than tests_total 4',
    ]
    assert db["benchmark_attempts"].count == 1


def test_hostile_text_is_stored_as_given(db, run_cli, tmp_path):
    name = "<img src=x onerror=alert('x')> \"; drop table benchmark_attempts; --"
    task = "t\u0000\u202e" + "x" * 150
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "h.json", [good(agent=name, task_id=task)])))
    row = next(db["benchmark_attempts"].rows)
    assert (row["agent"], row["agent_kind"], row["task_id"]) == (name, "closed", task)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b'[{"agent": ', "not JSON or JSON Lines (line 1, column 12"),
        (b"42", "expected an attempt object, a JSON list of attempts or JSON Lines, got a number"),
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
    ],
)
def test_a_file_that_is_not_attempts_is_refused_whole(db, run_cli, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = run_cli("import-attempts", "--verified", str(path), expect=1)
    assert result.stderr.startswith(f"Error: {path}: {message}")
    assert len(result.stderr.strip().splitlines()) == 1
    assert db["runs"].count == 0 and db["benchmark_attempts"].count == 0


def test_a_missing_file_is_a_usage_error(run_cli, tmp_path):
    result = run_cli("import-attempts", "--verified", str(tmp_path / "nope.json"), expect=2)
    assert "does not exist" in result.stderr


def test_a_running_import_holds_the_lock(db_path, run_cli, tmp_path):
    path = write_json(tmp_path / "a.json", [good()])
    with run_lock(db_path, "test"):
        result = run_cli("import-attempts", "--verified", str(path), expect=1)
    assert "another agentrank run is already using" in result.stderr


def test_the_shipped_schema_is_the_models_schema():
    assert shipped_schema() == attempt_json_schema()
    committed = Path(__file__).parent.parent / "leaderboard" / SCHEMA_FILE
    assert committed.read_text(encoding="utf-8") == render_schema(), "run: python -m leaderboard.attempt"


def test_the_shipped_schema_accepts_the_hand_made_attempts_and_states_the_cross_field_rules():
    validator = jsonschema.Draft202012Validator(shipped_schema())
    for record in ATTEMPTS:
        validator.validate(record)
    bad_records = [
        good(log_url=None),
        good(tests_passed=None, tests_total=None),
        good(cost_source=None),
        good(tier="community"),
        good(flags=["timed-out", "timed-out"]),
        good(extra=1),
        good(attempt="1"),
    ]
    for bad in bad_records:
        assert not validator.is_valid(bad), bad
    infra = good(tests_passed=None, tests_total=None, flags=["infra-error"])
    assert validator.is_valid(infra)
