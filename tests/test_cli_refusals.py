"""Bad input on the command line: one clear line, a non-zero exit, and nothing changed or left behind."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import make_item, write_json
from tests.first_hour import agentrank


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["schedule", "--next", "0"], "Invalid value for '--next': 0 is not in the range 1<=x<=1000."),
        (["--bogus"], "No such option '--bogus'"),
        (["import"], "Missing argument 'FILES...'."),
        (["import", "no-such-file.json"], "File 'no-such-file.json' does not exist."),
        (["explain"], "Missing argument 'OWNER/REPO'."),
        (["frobnicate"], "No such command 'frobnicate'."),
        # a required option (click 8.3+ took an explicit default=None as given: a traceback)
        (["snapshot"], "Missing option '--out'."),
        (["redate-run", "1"], "Missing option '--to'."),
    ],
)
def test_a_usage_error_is_one_line_with_where_to_look(run_cli, db_path, args, message):
    result = run_cli(*args, expect=2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: ") and message in lines[0] and "--help" in lines[0]
    assert not db_path.exists()


@pytest.mark.parametrize(
    ("command", "name", "text"),
    [
        ("import", "bad.json", '[{"id": 1,'),
        ("import", "page.json", '{"total_count": 1, "items": "x"}'),
        ("import-attempts", "bad.json", '{"agent":'),
        ("import-tasks", "bad.json", "[1, 2"),
        ("import-prices", "bad.toml", "price = "),
        ("import-assessments", "bad.toml", "[[assessment]]\nagent = 3\n"),
    ],
)
def test_a_refused_file_leaves_no_database_or_lock_behind(run_cli, db_path, tmp_path, command, name, text):
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = run_cli(command, str(tmp_path / name), expect=1)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [name], "no database, journal or lock file"


def test_reading_commands_leave_the_database_file_as_it_was(working_folder):
    db_path, tmp_path = working_folder / "agentrank.db", working_folder
    before = db_path.read_bytes()
    # Each in a process of its own, as a user runs them (the file's header counts every write).
    for args, status in [
        (("explain", "side/car-1"), 0),
        (("explain", "side/car-1", "--json"), 0),
        (("snapshot", "--out", str(tmp_path / "copy.db")), 0),
        (("explain", "nobody/nothing"), 1),
        (("score", "--as-of", "not-a-date"), 2),
    ]:
        assert agentrank(tmp_path, *args).returncode == status, args
        assert db_path.read_bytes() == before, args


@pytest.mark.parametrize("db", ["", "  ", "data/"])
def test_a_database_path_that_names_no_file_is_one_line(tmp_path, monkeypatch, db):
    # `--db "$DB"` with DB unset was a traceback, on every command, --help included.
    from click.testing import CliRunner

    from agentrank.cli import cli

    monkeypatch.chdir(tmp_path)
    for args in (["score"], ["export", "--help"]):
        result = CliRunner().invoke(cli, ["--db", db, *args])
        assert result.exit_code == 2, (result.output, result.exception)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "give the database's file name" in lines[0], lines
    assert list(tmp_path.iterdir()) == []


def test_a_commands_help_shows_whatever_the_config_file(run_cli, db_path, tmp_path):
    missing = tmp_path / "nowhere.toml"
    result = run_cli("score", "--help", env={"AGENTRANK_CONFIG": str(missing)})
    assert "score [OPTIONS]" in result.output
    # The command itself still refuses the missing file.
    result = run_cli("score", expect=1, env={"AGENTRANK_CONFIG": str(missing)})
    assert "config file not found" in result.output


def test_refresh_with_an_empty_out_is_refused_like_export(run_cli, db_path, tmp_path):
    # `refresh --out ''` fell back to the default export path without a word; `export --out ''` refused.
    saved = write_json(tmp_path / "items.json", [make_item(id=9901, full_name="x/y")])
    result = run_cli("refresh", "--from-file", str(saved), "--out", "", expect=1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--out '': give the file to write" in lines[0]
    assert not db_path.exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://x:ghp_SECRETtoken0123456789@agentrank.example.org",
        "https://ghp_SECRETtoken0123456789@agentrank.example.org",
        "https://agentrank.example.org/?t=ghp_SECRETtoken0123456789",
        "https://agentrank.example.org/#ghp_SECRETtoken0123456789",
    ],
)
def test_a_public_url_carrying_a_credential_is_refused_before_anything_is_written(working_folder, url):
    """The public URL is written into every export, snapshot and page: one with a user name, password
    or query (where people paste a token) was published as given."""
    tmp_path = working_folder
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (("export", "--out", "site.json"), ("snapshot", "--out", "snap.db")):
        result = agentrank(tmp_path, *args, "--public-url", url)
        assert result.returncode != 0
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "public_url" in lines[0], lines
        assert "SECRET" not in result.stderr + result.stdout
        assert sorted(p.name for p in tmp_path.iterdir()) == before
    (tmp_path / "agentrank.toml").write_text(f'[serve]\npublic_url = "{url}"\n', encoding="utf-8")
    result = agentrank(tmp_path, "--config", "agentrank.toml", "export", "--out", "site.json")
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1
    assert "SECRET" not in result.stderr + result.stdout
    assert not (tmp_path / "site.json").exists()


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path):
    """Every command, `explain` included, used to switch another program's SQLite file to WAL and write
    AgentRank's schema beside its tables (and `import` filled it)."""
    from tests.conftest import another_programs_sqlite

    notes = another_programs_sqlite(tmp_path / "notes.db")
    before = notes.read_bytes()
    write_json(tmp_path / "items.json", [make_item(seed=1, id=1, full_name="some/repo", name="repo")])
    for args in (("explain", "some/repo"), ("import", "items.json"), ("score",), ("export", "--out", "site.json")):
        result = agentrank(tmp_path, "--db", "notes.db", *args)
        assert result.returncode == 1, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "not an AgentRank database" in lines[0] and "notes" in lines[0], lines
        assert notes.read_bytes() == before, args
        assert not (tmp_path / "notes.db-wal").exists() and not (tmp_path / "site.json").exists()


def test_an_export_behind_a_long_write_says_what_is_holding_it(published_db, tmp_path, monkeypatch):
    """A large import held the write lock past the busy timeout: export said only "database error:
    database is locked". It now says another command is writing and to try again."""
    import shutil
    import sqlite3 as sqlite

    from click.testing import CliRunner

    import db.connection
    from agentrank.cli import cli

    # A busy timeout of 1 s instead of 10: the same refusal, 9 s sooner (the message names it).
    monkeypatch.setattr(db.connection, "BUSY_TIMEOUT_MS", 1_000)

    db = tmp_path / "busy.db"
    shutil.copy(published_db.path, db)
    holder = sqlite.connect(db, isolation_level=None)
    holder.execute("begin immediate")
    holder.execute("insert into runs (kind, started_at, status) values ('import', '2026-11-30T00:00:00Z', 'running')")
    try:
        result = CliRunner().invoke(cli, ["--db", str(db), "export", "--out", str(tmp_path / "site.json")])
    finally:
        holder.execute("rollback")
        holder.close()
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "another command has been writing to it" in lines[0], result.output
    assert "for more than 1 s" in lines[0], lines[0]


@pytest.fixture(scope="module")
def working_template(tmp_path_factory):
    """A folder holding agentrank.db made by `import` and `score` (each in a process of its own, so
    nothing is left beside it) and a second database, g2.db, made the same way."""
    folder = tmp_path_factory.mktemp("working")
    items = [make_item(seed=n, id=n, full_name=f"side/car-{n}", name=f"car-{n}") for n in range(1, 6)]
    write_json(folder / "items.json", items)
    for db in ("agentrank.db", "g2.db"):
        for args in (("import", "items.json"), ("score",)):
            assert agentrank(folder, "--db", db, *args).returncode == 0, args
    return folder


@pytest.fixture
def working_folder(working_template, tmp_path):
    """A copy of the working folder of its own, for a test to change."""
    return shutil.copytree(working_template, tmp_path / "work")


@pytest.mark.parametrize(
    "args",
    [
        ("demo", "--no-serve"),  # agentrank.db came from `import`: the demo never replaces it
        ("--db", "g2.db", "snapshot", "--out", "agentrank.db"),  # a working database, not a snapshot
        ("--db", "linked.db", "explain", "side/car-1"),  # a hard link: two write-ahead logs
        ("--config", "corrections.toml", "refresh", "--from-file", "items.json"),  # its corrections file is missing
    ],
)
def test_a_refusal_leaves_the_folder_as_it_was(working_folder, args):
    # Checking the file through a read-only connection left agentrank.db-wal and -shm behind.
    if "linked.db" in args:
        (working_folder / "linked.db").hardlink_to(working_folder / "agentrank.db")
    (working_folder / "corrections.toml").write_text('[corrections]\npath = "missing.toml"\n', encoding="utf-8")
    before = sorted(p.name for p in working_folder.iterdir())
    result = agentrank(working_folder, *args)
    assert result.returncode == 1, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert sorted(p.name for p in working_folder.iterdir()) == before


@pytest.mark.parametrize(
    "args", [("import", "empty.json"), ("import", "not-json.json"), ("import-attempts", "empty.json")]
)
def test_a_refused_write_to_a_database_without_a_lock_file_leaves_none(working_folder, args):
    # The database was there, its lock file was not (a copied or restored database): a refused
    # import left a new DB.lock beside it.
    (working_folder / "agentrank.db.lock").unlink(missing_ok=True)
    (working_folder / "empty.json").write_text("", encoding="utf-8")
    (working_folder / "not-json.json").write_text("{", encoding="utf-8")
    before = sorted(p.name for p in working_folder.iterdir())
    result = agentrank(working_folder, *args)
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert sorted(p.name for p in working_folder.iterdir()) == before


def _unusable_database(path, kind):
    """A file every command that writes refuses: a text file, a newer AgentRank's database, a damaged one."""
    import sqlite3

    from db.store import open_store

    if kind == "text":
        path.write_text("not a database\n", encoding="utf-8")
        return
    open_store(path).close()
    conn = sqlite3.connect(path)
    if kind == "newer":
        conn.execute(
            "insert into _sqlite_migrations (migration_set, name, applied_at) values ('agentrank', 'm900_future', '2027')"
        )
        conn.commit()
    conn.close()
    if kind == "damaged":  # the middle pages overwritten, as a failing disk or a bad copy would
        size = path.stat().st_size
        with path.open("r+b") as f:
            f.seek(size // 2 // 4096 * 4096)
            f.write(b"\xff" * 8192)


WHY = {"text": "file is not a database", "newer": "made by a newer AgentRank", "damaged": "damaged"}


@pytest.mark.parametrize("kind", sorted(WHY))
def test_a_refused_database_gets_no_lock_file_beside_it(tmp_path, monkeypatch, kind):
    # Each command said why in one line, but left DB.lock behind (score and classify did not).
    from click.testing import CliRunner

    from agentrank.cli import cli

    monkeypatch.chdir(tmp_path)
    unset = dict.fromkeys(("AGENTRANK_DB", "AGENTRANK_CONFIG", "GITHUB_API_URL"))
    db = tmp_path / "x.db"
    _unusable_database(db, kind)
    write_json(tmp_path / "items.json", [make_item(seed=1, id=1)])
    write_json(tmp_path / "tasks.json", [])
    from tests.benchmark_attempts import attempt

    record = attempt("a/b", "1", "t1", 1, "2026-11-01T00:00:00Z", "community", 1, 2, 5.0, 0.1)
    write_json(tmp_path / "attempts.json", [record])
    (tmp_path / "prices.toml").write_text(
        '[[price]]\nmodel = "m"\nfrom = "2026-01-01"\ninput = 1\noutput = 1\n', encoding="utf-8"
    )
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (
        ("import", "items.json"),
        ("import-attempts", "attempts.json"),
        ("import-prices", "prices.toml"),
        ("import-tasks", "tasks.json"),
        ("refresh", "--from-file", "items.json"),
        ("crawl", "--api-url", "http://127.0.0.1:9"),
        ("score",),
        ("classify",),
    ):
        result = CliRunner().invoke(cli, ["--db", "x.db", *args], env=unset)
        assert result.exit_code == 1, (args, result.output, result.exception)
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
        assert WHY[kind] in result.stderr, (args, result.stderr)
        assert sorted(p.name for p in tmp_path.iterdir()) == before, args


def _read_only_for_this_user(monkeypatch, path):
    """The file reads as not writable (as chmod 444 does for any user but root, who runs these tests here)."""
    import os

    real_access = os.access

    def access(target, mode, *args, **kwargs):
        if mode & os.W_OK and os.path.abspath(target) == str(path):
            return False
        return real_access(target, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("export", "--out", "site.json"), "export records its run in the database"),
        (("import", "items.json"), "this command writes into it"),
        (("score",), "this command writes into it"),
    ],
)
def test_a_read_only_database_is_one_line_and_nothing_beside_it(working_folder, monkeypatch, args, why):
    # export and import said "database error: attempt to write a readonly database", and import left a
    # read-only -shm file that broke later commands even after the file was made writable again.
    from click.testing import CliRunner

    from agentrank.cli import cli

    db = working_folder / "agentrank.db"
    _read_only_for_this_user(monkeypatch, db)
    monkeypatch.chdir(working_folder)
    before = sorted(p.name for p in working_folder.iterdir())
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"{db.name} is read-only: {why}" in lines[0], lines
    assert sorted(p.name for p in working_folder.iterdir()) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a chmod 444 file")
def test_a_chmod_444_database_is_refused_without_sidecars(working_folder):
    db = working_folder / "agentrank.db"
    db.chmod(0o444)
    before = sorted(p.name for p in working_folder.iterdir())
    for args in (("export",), ("import", "items.json")):
        result = agentrank(working_folder, *args)
        assert result.returncode == 1 and "is read-only" in result.stderr, result.stderr
        assert sorted(p.name for p in working_folder.iterdir()) == before
