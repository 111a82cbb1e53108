import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from db.store import open_store
from tests.conftest import make_item, write_json


def _rows(db_path: Path, sql: str, params=()):
    db = open_store(db_path)
    try:
        return [dict(r) for r in db.query(sql, params)]
    finally:
        db.close()


def test_import_lists_exactly_the_repos_that_meet_the_rules(tmp_path, run_cli, db_path):
    items = [
        make_item(seed=1, id=1, full_name="a/listed", stargazers_count=200),
        make_item(seed=2, id=2, full_name="a/fork", fork=True),
        make_item(seed=3, id=3, full_name="a/archived", archived=True),
        make_item(seed=4, id=4, full_name="a/small", stargazers_count=199),
        make_item(seed=5, id=5, full_name="a/big", stargazers_count=90_000),
    ]
    result = run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert "5 repos saved" in result.output and "; 2 of them listed" in result.output
    rows = {r["full_name"]: r for r in _rows(db_path, "select * from repos")}
    assert {n for n, r in rows.items() if r["listed"]} == {"a/listed", "a/big"}
    assert rows["a/fork"]["unlisted_reason"] == "fork"
    assert rows["a/archived"]["unlisted_reason"] == "archived"
    assert rows["a/small"]["unlisted_reason"] == "below min_stars (199 < 200)"


def test_min_stars_comes_from_the_config(tmp_path, run_cli, db_path):
    config = tmp_path / "agentrank.toml"
    config.write_text("[crawl]\nmin_stars = 1000\n")
    items = [make_item(seed=1, id=1, stargazers_count=999), make_item(seed=2, id=2, stargazers_count=1000)]
    run_cli("--config", str(config), "import", str(write_json(tmp_path / "items.json", items)))
    assert [r["id"] for r in _rows(db_path, "select id from repos where listed = 1")] == [2]


def test_every_saved_shape_is_accepted(tmp_path, run_cli, db_path):
    page = {
        "total_count": 2,
        "incomplete_results": False,
        "items": [make_item(seed=1, id=11), make_item(seed=2, id=12)],
    }
    pages = [
        {"total_count": 1, "incomplete_results": False, "items": [make_item(seed=3, id=13)]},
        {"total_count": 1, "incomplete_results": False, "items": [make_item(seed=4, id=14)]},
    ]
    write_json(tmp_path / "page.json", page)
    write_json(tmp_path / "pages.json", pages)
    (tmp_path / "items.jsonl").write_text("\n".join(json.dumps(make_item(seed=s, id=s + 10)) for s in (5, 6)) + "\n")
    (tmp_path / "items.json.gz").write_bytes(gzip.compress(json.dumps([make_item(seed=7, id=17)]).encode()))
    write_json(tmp_path / "one.json", make_item(seed=8, id=18))
    files = ["page.json", "pages.json", "items.jsonl", "items.json.gz", "one.json"]
    result = run_cli("import", *(str(tmp_path / f) for f in files))
    assert "8 repos saved" in result.output
    assert sorted(r["id"] for r in _rows(db_path, "select id from repos")) == [11, 12, 13, 14, 15, 16, 17, 18]
    runs = _rows(db_path, "select * from runs")
    assert len(runs) == 1 and runs[0]["kind"] == "import" and runs[0]["status"] == "ok" and runs[0]["saved"] == 8


def test_a_malformed_file_is_refused_whole_and_nothing_is_lost(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "good.json", [make_item(seed=1, id=1)])))
    before = _rows(db_path, "select * from repos")
    (tmp_path / "broken.json").write_text('[{"id": 2, "full_name": "a/b",')
    good_too = write_json(tmp_path / "good2.json", [make_item(seed=3, id=3)])
    result = run_cli("import", str(good_too), str(tmp_path / "broken.json"), expect=1)
    assert "broken.json: not valid JSON" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert _rows(db_path, "select * from repos") == before  # the good file in the same call wrote nothing
    for bad, message in [
        ({"foo": 1}, "expected a list of search items"),
        (42, "expected a list"),
        ("", "empty"),
        # what the file holds, in JSON's words (it said "got NoneType", "got Decimal")
        ("null", "with 'items', got null"),
        ("4.5", "with 'items', got a number"),
    ]:
        path = tmp_path / "bad.json"
        path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
        assert message in run_cli("import", str(path), expect=1).stderr
    assert run_cli("import", str(tmp_path / "nope.json"), expect=2).exit_code == 2
    # Binary junk is named as such, without the parser's bytes or a repr of them.
    for junk, message in ((b"\xdd\xf6U&\x85 junk", "not valid JSON"), (b'[{"a": "\xff\xfe"}]', "not UTF-8 text")):
        path = tmp_path / "junk.json"
        path.write_bytes(junk)
        refused = run_cli("import", str(path), expect=1).stderr.strip()
        assert refused.startswith(f"Error: {path}: {message} (") and "b'" not in refused and "\\x" not in refused


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ({"total_count": 1, "incomplete_results": False, "items": "x"}, "'items' must be a list, got a string"),
        ({"total_count": 1, "items": {"id": 1}}, "'items' must be a list, got an object"),
        ({"items": None}, "'items' must be a list, got null"),
        ({"total_count": "x", "items": []}, "'total_count' must be an integer, got a string"),
        ({"total_count": True, "items": []}, "'total_count' must be an integer, got true/false"),
        ({"incomplete_results": "no", "items": []}, "'incomplete_results' must be true or false, got a string"),
        ([{"total_count": 1, "items": "x"}], "[page 0]: 'items' must be a list, got a string"),
    ],
)
def test_a_page_of_the_wrong_shape_is_refused_and_records_no_run(tmp_path, run_cli, db_path, page, message):
    run_cli("import", str(write_json(tmp_path / "good.json", [make_item(seed=1, id=1)])))
    runs = _rows(db_path, "select * from runs")
    result = run_cli("import", str(write_json(tmp_path / "page.json", page)), expect=1)
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert _rows(db_path, "select * from runs") == runs  # no empty import run becomes "the latest import"


def test_bad_rows_are_rejected_with_reasons_and_the_rest_kept(tmp_path, run_cli, db_path):
    no_id = make_item(seed=1)
    del no_id["id"]
    items = [
        make_item(seed=2, id=2, full_name="a/good"),
        no_id,
        make_item(seed=3, id=3, stargazers_count="1k"),
        "not an object",
        make_item(seed=4, id=4, full_name="a/also-good"),
    ]
    result = run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert "2 repos saved" in result.output and "3 rejected" in result.output
    assert {r["full_name"] for r in _rows(db_path, "select full_name from repos")} == {"a/good", "a/also-good"}
    rejects = _rows(db_path, "select * from rejects order by id")
    assert [r["reason"].split(":")[0] for r in rejects] == ["id", "stargazers_count", "item"]
    assert rejects[1]["repo_id"] == 3 and rejects[1]["item_ref"].endswith("items.json#2")
    run = _rows(db_path, "select * from runs")[0]
    assert run["rejected"] == 3 and run["saved"] == 2 and run["status"] == "ok"


def test_a_file_whose_every_item_is_rejected_is_refused_and_records_no_run(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "good.json", [make_item(seed=1, id=1)])))
    runs = _rows(db_path, "select * from runs")
    bad = write_json(tmp_path / "bad.json", [{"id": "x"}, "not an object"])
    result = run_cli("import", str(bad), expect=1)
    assert len(result.stderr.strip().splitlines()) == 1
    assert (
        "no valid search item in" in result.stderr
        and "2 rejected" in result.stderr
        and "bad.json#0: id" in result.stderr
    )
    # No "ok" import run: the score's default as-of and the fetched-data check stay where they were.
    assert _rows(db_path, "select * from runs") == runs


def test_hostile_description_is_stored_faithfully(tmp_path, run_cli, db_path):
    description = "<script>alert(1)</script>" + "x" * 900
    run_cli("import", str(write_json(tmp_path / "items.json", [make_item(seed=1, id=1, description=description)])))
    assert _rows(db_path, "select description from repos")[0]["description"] == description


def test_a_saved_item_cannot_point_the_repos_link_at_another_site(tmp_path, run_cli, db_path):
    items = [
        make_item(seed=1, id=1, full_name="good/repo", html_url="https://github.com/Good/Repo"),
        make_item(seed=2, id=2, full_name="bad/repo", html_url="https://evil.example/phish"),
        make_item(seed=3, id=3, full_name="odd/repo", html_url="https://github.com/someone/else"),
    ]
    run_cli("import", str(write_json(tmp_path / "items.json", items)))
    links = {r["full_name"]: r["html_url"] for r in _rows(db_path, "select full_name, html_url from repos")}
    assert links == {
        "good/repo": "https://github.com/Good/Repo",  # GitHub's own spelling of the name is kept
        "bad/repo": "https://github.com/bad/repo",
        "odd/repo": "https://github.com/odd/repo",
    }


def test_a_private_repo_a_token_can_see_is_neither_stored_nor_named(tmp_path, run_cli, db_path):
    # Search shows a token's own private repos among the public ones; they were listed and published.
    items = [make_item(seed=1, id=1, full_name="open/repo"), make_item(seed=2, id=2, full_name="me/secret-plans")]
    items[0]["private"], items[1]["private"] = False, True
    result = run_cli("import", str(write_json(tmp_path / "items.json", items)))
    assert "1 rejected" in result.output
    assert [r["full_name"] for r in _rows(db_path, "select full_name from repos")] == ["open/repo"]
    [reject] = _rows(db_path, "select repo_id, full_name, reason from rejects")
    assert (reject["repo_id"], reject["full_name"]) == (2, None) and "private" in reject["reason"]
    with sqlite3.connect(db_path) as conn:
        assert "secret-plans" not in "\n".join(conn.iterdump())


def test_reimport_is_idempotent_and_renames_keep_history(tmp_path, run_cli, db_path):
    first = write_json(tmp_path / "week1.json", [make_item(seed=1, id=42, full_name="old/name", stargazers_count=300)])
    run_cli("import", str(first))
    result = run_cli("import", str(first))
    assert "0 new, 0 updated" in result.output
    assert len(_rows(db_path, "select * from repos")) == 1
    second = write_json(tmp_path / "week2.json", [make_item(seed=1, id=42, full_name="new/name", stargazers_count=350)])
    run_cli("import", str(second))
    repo = _rows(db_path, "select * from repos")[0]
    assert repo["full_name"] == "new/name" and repo["stars"] == 350 and repo["first_seen_run"] == 1
    assert {r["full_name"] for r in _rows(db_path, "select full_name from repo_names")} == {"old/name", "new/name"}
    history = _rows(db_path, "select run_id, stars from snapshots where repo_id = 42 order by run_id")
    assert history == [{"run_id": 1, "stars": 300}, {"run_id": 2, "stars": 300}, {"run_id": 3, "stars": 350}]


def test_a_second_writer_is_refused_at_once(tmp_path, run_cli, db_path):
    from agentrank.locks import run_lock

    path = write_json(tmp_path / "items.json", [make_item(seed=1, id=1)])
    with run_lock(db_path, "test"):
        result = run_cli("import", str(path), expect=1)
    assert "already using" in result.stderr
    run_cli("import", str(path))


def test_a_database_path_that_cannot_be_used_is_a_one_line_error(tmp_path):
    from click.testing import CliRunner

    from agentrank.cli import cli

    items = str(write_json(tmp_path / "items.json", [make_item(seed=1, id=1)]))
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not sqlite" * 100)
    for db_path, message in [(garbage, "cannot use"), (tmp_path / "no" / "such" / "dir.db", "does not exist")]:
        result = CliRunner().invoke(cli, ["--db", str(db_path), "import", items])
        assert result.exit_code == 1 and message in result.stderr, result.output
        assert "Traceback" not in result.output
    assert garbage.read_bytes() == b"this is not sqlite" * 100


def test_a_saved_item_without_some_keys_keeps_what_is_stored(tmp_path, run_cli, db_path):
    """A save trimmed of keys (older saves without topics, files cut down with jq) says nothing about
    them: the push date, licence, description and topics stored before stand (they were wiped, and the
    repo's activity and openness with them)."""
    full = make_item(
        id=5001,
        full_name="acme/keeper",
        description="Plans trips",
        topics=["ai-agent"],
        pushed_at="2026-11-20T00:00:00Z",
    )
    run_cli("import", "--observed-at", "2026-11-23T06:00:00Z", str(write_json(tmp_path / "full.json", [full])))
    trimmed = {k: v for k, v in full.items() if k not in ("description", "topics", "license", "pushed_at", "language")}
    # A repo seen for the first time without those keys is stored as if they were null (its topics
    # column takes no null: it was refused as a damaged database).
    new = {k: v for k, v in make_item(id=5002, full_name="acme/newcomer").items() if k not in ("license", "topics")}
    run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "trim.json", [trimmed, new])))
    sql = "select description, topics, license_spdx, pushed_at, language from repos where id = ?"
    assert [tuple(r.values()) for r in _rows(db_path, sql, [5001])] == [
        (full["description"], '["ai-agent"]', full["license"]["spdx_id"], "2026-11-20T00:00:00Z", full["language"])
    ]
    pushes = _rows(db_path, "select pushed_at from snapshots where repo_id = 5001 order by run_id")
    assert [r["pushed_at"] for r in pushes] == ["2026-11-20T00:00:00Z"] * 2
    # A repo seen for the first time without a licence key has none.
    assert _rows(db_path, "select license_spdx, topics from repos where id = 5002") == [
        {"license_spdx": None, "topics": "[]"}
    ]


def test_a_save_without_the_flags_or_the_owner_keeps_an_archived_repo_or_a_fork_out(tmp_path, run_cli, db_path):
    """The archived and fork flags and the owner say nothing when a trimmed save leaves them out: an
    archived repo or a fork stays unlisted (it was listed and scored again), and the owner's avatar
    stays (it was wiped from the export)."""
    archived = make_item(id=5101, full_name="acme/shelved", archived=True)
    fork = make_item(id=5102, full_name="acme/copy", fork=True)
    plain = make_item(id=5103, full_name="acme/plain")
    run_cli("import", "--observed-at", "2026-11-23T06:00:00Z", str(write_json(tmp_path / "a.json", [archived, fork, plain])))  # fmt: skip
    before = _rows(db_path, "select id, owner_avatar_url, owner_id from repos order by id")
    trimmed = [
        {k: v for k, v in archived.items() if k != "archived"},
        {k: v for k, v in fork.items() if k != "fork"},
        {k: v for k, v in plain.items() if k != "owner"},
    ]
    result = run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "b.json", trimmed)))
    assert "; 1 of them listed" in result.stdout, result.stdout
    rows = _rows(db_path, "select id, archived, fork, listed from repos order by id")
    assert [(r["id"], r["archived"], r["fork"], r["listed"]) for r in rows] == [
        (5101, 1, 0, 0),
        (5102, 0, 1, 0),
        (5103, 0, 0, 1),
    ]
    assert _rows(db_path, "select id, owner_avatar_url, owner_id from repos order by id") == before
    assert before[2]["owner_avatar_url"] is not None


def test_an_observed_at_before_the_data_the_files_hold_is_said(tmp_path, run_cli, db_path):
    item = make_item(
        id=5003, full_name="acme/late", created_at="2025-01-01T00:00:00Z", pushed_at="2025-03-10T00:00:00Z"
    )
    saved = write_json(tmp_path / "items.json", [item])
    result = run_cli("import", "--observed-at", "2023-06-01T00:00:00Z", str(saved))
    # Imported (the design lets such a history be built), with one line on stderr saying what looks wrong.
    notes = result.stderr.strip().splitlines()
    assert len(notes) == 1 and "is before the data the files hold (acme/late was pushed at 2025-03-10" in notes[0]
    assert _rows(db_path, "select count(*) as n from repos") == [{"n": 1}]
    # A date without a time, on the day of the last push, says nothing (the day's slack).
    result = run_cli("import", "--observed-at", "2025-03-10", str(saved))
    assert result.stderr == ""


def test_saved_results_can_come_through_a_pipe(tmp_path, db_path):
    # `cat save.json | agentrank import -` (or /dev/stdin, a process substitution) failed: "broken gzip
    # file: File or stream is not seekable".
    from click.testing import CliRunner

    from agentrank.cli import cli

    items = json.dumps([make_item(id=5101, full_name="pipe/one"), make_item(id=5102, full_name="pipe/two", seed=2)])
    result = CliRunner().invoke(cli, ["--db", str(db_path), "import", "-"], input=items)
    assert result.exit_code == 0, result.output
    assert "2 repos saved" in result.output
    assert _rows(db_path, "select count(*) as n from repos") == [{"n": 2}]


@pytest.mark.parametrize(
    ("text", "message"), [('[{"id": 1,', "Error: stdin: not valid JSON"), ("", "Error: stdin: the file is empty")]
)
def test_a_refused_pipe_is_named_stdin_not_a_temporary_file(tmp_path, db_path, text, message):
    # The refusal named the temporary copy of the pipe (/tmp/tmpXXXX.json), which the user never saw.
    from click.testing import CliRunner

    from agentrank.cli import cli

    result = CliRunner().invoke(cli, ["--db", str(db_path), "import", "-"], input=text)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message) and "tmp" not in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_import_summary_counts_what_is_listed_after_two_items_share_a_name(tmp_path, run_cli):
    # "a/x" and "a/X" are one name on GitHub: the older id is unlisted, but the summary said 3 listed.
    from tests.conftest import make_item, write_json

    items = [make_item(seed=n, id=100 + n, full_name=name) for n, name in enumerate(("a/x", "a/X", "b/y"), 1)]
    output = run_cli("import", str(write_json(tmp_path / "i.json", items))).output
    assert "3 repos saved" in output and "; 2 of them listed" in output, output


def test_a_topic_longer_than_github_allows_is_dropped_and_said_once_the_repo_kept(tmp_path):
    """A 120-character topic (GitHub allows 50) was dropped without a word: the import's summary
    and its run said nothing, so a file edited or produced wrongly went unnoticed. The repo is kept
    with its other topics, and the command says once what was dropped, and from which repos; a
    refresh from the same file says it in its log."""
    from tests.first_hour import agentrank

    long_topic = "agent-" + "x" * 114
    items = [
        make_item(seed=1, id=1, full_name="acme/long-topic", topics=["ai-agent", long_topic]),
        make_item(seed=2, id=2, full_name="acme/plain", topics=["ai-agent"]),
    ]
    write_json(tmp_path / "items.json", items)
    result = agentrank(tmp_path, "import", "items.json")
    assert result.returncode == 0, result.stderr
    said = result.stdout.splitlines()
    assert said[0].startswith("import run 1: 2 items from 1 file: 2 repos saved") and "0 rejected" in said[0]
    assert said[1:] == [
        "1 topic dropped (1 longer than GitHub's 50 characters) from 1 repo, which is kept: acme/long-topic"
    ], result.stdout
    db_path = tmp_path / "agentrank.db"
    assert _rows(db_path, "select full_name, topics from repos order by id") == [
        {"full_name": "acme/long-topic", "topics": '["ai-agent"]'},
        {"full_name": "acme/plain", "topics": '["ai-agent"]'},
    ]
    details = json.loads(_rows(db_path, "select details from runs where kind = 'import'")[0]["details"])
    assert details["dropped_topics"] == {
        "reasons": {"longer than GitHub's 50 characters": 1},
        "repos": 1,
        "first_repos": ["acme/long-topic"],
    }
    assert _rows(db_path, "select count(*) as n from rejects") == [{"n": 0}]

    refreshed = agentrank(tmp_path, "--db", "other.db", "refresh", "--from-file", "items.json")
    assert refreshed.returncode == 0, refreshed.stderr
    warned = [line for line in refreshed.stderr.splitlines() if "topic dropped" in line]
    assert warned == [
        "WARNING import run 2: 1 topic dropped (1 longer than GitHub's 50 characters) from 1 repo, "
        "which is kept: acme/long-topic"
    ], refreshed.stderr


def test_the_import_summary_tells_the_repos_it_listed_from_the_whole_listing(tmp_path, run_cli):
    """An import never delists: repos an earlier import saved and this file lacks stay listed. The
    summary said "38 listed" while the listing, and the score after it, held 40."""
    from tests.conftest import make_item, write_json

    first = [make_item(seed=n, id=n) for n in (1, 2, 3)]
    said = run_cli("import", "--observed-at", "2026-11-01T00:00:00Z", str(write_json(tmp_path / "a.json", first)))
    assert said.output.splitlines()[0].endswith("3 repos saved (3 new, 0 updated), 0 rejected; 3 of them listed")
    later = run_cli("import", "--observed-at", "2026-11-08T00:00:00Z", str(write_json(tmp_path / "b.json", first[:1])))
    line = later.output.splitlines()[0]
    assert line.startswith("import run 2: 1 item from 1 file: 1 repo saved") and line.endswith(
        "; 1 of them listed, 3 listed in all"
    ), line
