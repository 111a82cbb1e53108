"""Shared fixtures: real SQLite files, real items shaped like GitHub's, the CLI as a user runs it."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from click.testing import CliRunner

from agentrank.cli import cli
from crawler.emulator.population import SyntheticRepo, generate_population, to_search_item
from db.store import open_store

T = TypeVar("T")
REFERENCE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
# Where the tests' files go when nothing else is asked: a memory file system, when the machine has
# one. The tests write about 1.5 GB of SQLite files, journals and logs, and SQLite syncs each commit
# to disk; on tmpfs a sync costs nothing, which is most of a run's waiting on a quiet machine.
MEMORY_FS = Path("/dev/shm")


def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp or hasattr(config, "workerinput"):  # chosen by the user, or by xdist's controller
        return
    if MEMORY_FS.is_dir() and os.access(MEMORY_FS, os.W_OK):
        config.option.basetemp = tempfile.mkdtemp(prefix="agentrank-tests-", dir=MEMORY_FS)
        config.add_cleanup(lambda: shutil.rmtree(config.option.basetemp, ignore_errors=True))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "agentrank.db"


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty database with every migration applied, made once per test process. A test's ``db``
    starts as a copy of it: running the migrations afresh for each of about a thousand tests cost
    a minute of CPU. (Tests of the migrations themselves, and every command given a new path,
    still create theirs from nothing.)"""
    path = tmp_path_factory.mktemp("migrated") / "agentrank.db"
    open_store(path).close()
    leftovers = sorted(p.name for p in path.parent.iterdir() if p != path)
    assert not leftovers, f"closing the template left {leftovers} beside it: a copy would miss them"
    return path


@pytest.fixture
def db(db_path: Path, migrated_template: Path):
    shutil.copyfile(migrated_template, db_path)
    database = open_store(db_path)
    yield database
    database.close()


@pytest.fixture(scope="session")
def population() -> list[SyntheticRepo]:
    return generate_population(600, seed=7, reference=REFERENCE)


def make_item(**overrides: Any) -> dict[str, Any]:
    """A valid search item shaped like GitHub's, with fields overridden."""
    repo = generate_population(1, seed=overrides.pop("seed", 1), reference=REFERENCE)[0]
    repo.stars, repo.archived, repo.fork = 500, False, False
    item = to_search_item(repo)
    item.update(overrides)
    return item


def import_and_score(db: Any, items: list[dict[str, Any]], as_of: str = "2026-11-30T06:00:00Z") -> int:
    """Save ``items`` as one import observed at ``as_of`` and score them then; the score run's id."""
    from agentrank import importer, scorer
    from db.runs import start_run

    importer.save_items(
        db,
        ((str(i), item) for i, item in enumerate(items)),
        run_id=start_run(db, "import"),
        min_stars=200,
        source="import",
        seen_at=as_of,
    )
    return scorer.score(db, as_of=as_of).run_id


@pytest.fixture(scope="session")
def model():
    """The category model trained on the bundled examples: trained once, by the first test process
    that asks, and read from the model cache by the others (as the commands do)."""
    from classify.examples import load_training_examples
    from classify.model import trained

    return trained(load_training_examples())


@pytest.fixture
def item_factory():
    return make_item


@pytest.fixture
def run_cli(db_path: Path):
    """Invoke the CLI on the test database; returns the click Result."""

    def invoke(*args: str, expect: int | None = 0, env: dict[str, str] | None = None):
        runner = CliRunner()
        result = runner.invoke(cli, ["--db", str(db_path), *args], env=env, catch_exceptions=False)
        if expect is not None:
            assert result.exit_code == expect, (result.output, result.stderr if hasattr(result, "stderr") else "")
        return result

    return invoke


def db_content(path: Path) -> list[str]:
    """What the database file holds, as SQL (read-only, so reading it changes nothing). Tests that
    a refused command changed nothing compare this rather than the file's bytes: SQLite may move an
    earlier in-process command's WAL pages into the file whenever its last connection is closed."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return list(conn.iterdump())


def another_programs_sqlite(path: Path, table: str = "notes", value: str = "keep me") -> Path:
    """A SQLite file some other program made: one table, one row, none of AgentRank's schema."""
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute(f"create table {table} (body text)")
    conn.execute(f"insert into {table} values (?)", [value])
    conn.commit()
    conn.close()
    return path


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder / "built")`` once per test run: the first test worker that asks builds it under
    a lock in the run's shared folder, and every worker gets a copy of its own (a test that reads a
    database may leave a -wal file beside it for a moment; another worker's listing must not see it).
    ``build`` returns a dataclass whose ``path`` lies in the folder it was given."""
    own = tmp_path_factory.mktemp(name)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        (own / "built").mkdir()
        return build(own / "built")
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent / f"built-once-{name}"
    record = shared / "result.pickle"
    with FileLock(f"{shared}.lock"):
        if not record.exists():
            shutil.rmtree(shared / "built", ignore_errors=True)  # what a failed build left: that worker's error stands
            (shared / "built").mkdir(parents=True)
            record.write_bytes(pickle.dumps(build(shared / "built")))
    result = pickle.loads(record.read_bytes())
    shutil.copytree(shared / "built", own / "built")
    return dataclasses.replace(result, path=own / "built" / result.path.relative_to(shared / "built"))


# Publishing (Datasette): one database and one real `agentrank serve` per session, shared by the
# in-process, hardening and browser tests.
@pytest.fixture(scope="session")
def published_db(tmp_path_factory):
    from tests.publish_helpers import build_published_db

    return built_once(tmp_path_factory, "published", lambda folder: build_published_db(folder / "agentrank.db"))


@pytest.fixture(scope="session")
def live_server(published_db, tmp_path_factory):
    from tests.publish_helpers import agentrank_serve, free_port, running

    port = free_port()
    log = tmp_path_factory.mktemp("server") / "serve.log"
    with running(agentrank_serve(published_db.path, port), port, log) as server:
        yield server


@pytest.fixture(scope="session")
def directory_db(tmp_path_factory):
    """Two weekly runs where the second adds four repos (one hostile) and archives two."""
    from tests.publish_helpers import build_published_db

    return built_once(
        tmp_path_factory, "directory", lambda folder: build_published_db(folder / "agentrank.db", churn=True)
    )


@pytest.fixture(scope="session")
def directory_server(directory_db, tmp_path_factory):
    from tests.publish_helpers import agentrank_serve, free_port, running

    port = free_port()
    log = tmp_path_factory.mktemp("directory-server") / "serve.log"
    with running(
        agentrank_serve(directory_db.path, port, "--setting", "public_url", "https://agentrank.example"), port, log
    ) as server:
        yield server


@pytest.fixture(scope="session")
def demo_server(tmp_path_factory):
    """`agentrank demo` itself, as a newcomer runs it (a smaller population, a free port)."""
    import sys

    from tests.publish_helpers import free_port, running

    port = free_port()
    directory = tmp_path_factory.mktemp("demo")
    command = [
        sys.executable,
        "-c",
        "from agentrank.cli import cli; cli()",
        "--db",
        str(directory / "agentrank.db"),
        "demo",
        "--out",
        str(directory / "agentrank-export.json"),
        "--size",
        "600",
        "--weeks",
        "3",
        "--port",
        str(port),
    ]
    with running(command, port, directory / "demo.log") as server:
        yield server


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory):
    """A folder where `agentrank demo --no-serve` ran (a small population, four weeks): read-only;
    tests that change it take a copy (``demo_folder.copy(tmp_path / "x")``)."""
    from tests.first_hour import build_demo_folder

    return built_once(tmp_path_factory, "first-hour", lambda folder: build_demo_folder(folder / "project"))
