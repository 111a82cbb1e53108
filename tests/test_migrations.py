import ast
import re
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from db.migrations import migrations
from db.store import open_store
from tests.conftest import import_and_score, make_item


def test_migrations_create_the_schema_once(tmp_path):
    path = tmp_path / "agentrank.db"
    open_store(path).close()
    first = sqlite3.connect(path).execute("select name from _sqlite_migrations order by rowid").fetchall()
    open_store(path).close()
    again = sqlite3.connect(path).execute("select name from _sqlite_migrations order by rowid").fetchall()
    assert first == again and len(first) == len(migrations.pending(sqlite_utils.Database(memory=True)))
    conn = sqlite3.connect(path)
    assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("select name from sqlite_master where type in ('table', 'view')")}
    assert {"repos", "runs", "snapshots", "scores", "categories", "published", "agents", "corrections"} <= tables


def test_an_older_database_is_upgraded_in_place_keeping_its_data(tmp_path):
    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    migrations.apply(old, stop_before="m101_crawl_checkpoints")
    old["repos"].insert(
        {
            "id": 7,
            "full_name": "a/b",
            "stars": 300,
            "forks": 1,
            "created_at": "2025-01-01T00:00:00Z",
            "archived": 0,
            "fork": 0,
            "listed": 1,
            "matched": 1,
            "topics": "[]",
        }
    )
    old.close()
    db = open_store(path)
    assert {"crawl_parts", "category_corrections", "repos_fts", "benchmark_attempts"} <= set(db.table_names())
    assert db["repos"].get(7)["full_name"] == "a/b"
    # The full-text index covers rows that existed before it.
    assert [r["rowid"] for r in db.query("select rowid from repos_fts where repos_fts match 'b'")] == [7]


def test_m020_names_the_agents_columns_as_the_export(published_db, tmp_path):
    import shutil

    path = tmp_path / "old.db"
    shutil.copy(published_db.path, path)
    # Back to the names before m020, as a database published by the previous release has them.
    conn = sqlite3.connect(path)
    view = conn.execute("select sql from sqlite_master where name = 'published_ranking'").fetchone()[0]
    old_view = view.replace("s.license_spdx,", "s.license_spdx as license,").replace(
        "s.pushed_at,", "s.pushed_at as last_push,"
    )
    old_view = old_view.replace(" (select c.name from categories c where c.id = s.category) as category_name,", "")
    conn.execute("drop view published_ranking")
    conn.execute(old_view)
    conn.execute("alter table agents rename column license_spdx to license")
    conn.execute("alter table agents rename column pushed_at to last_push")
    conn.execute("alter table agents drop column category_name")
    conn.execute("delete from _sqlite_migrations where name = 'm021_agents_columns_named_as_the_export'")
    conn.commit()
    before = conn.execute("select rank, license, last_push from agents order by rank").fetchall()
    conn.close()

    db = open_store(path)
    columns = [c.name for c in db["agents"].columns]
    assert {"license_spdx", "pushed_at", "category_name"} <= set(columns)
    assert not {"license", "last_push"} & set(columns)
    assert [tuple(r) for r in db.execute("select rank, license_spdx, pushed_at from agents order by rank")] == before
    names = dict(db.execute("select id, name from categories").fetchall())
    for category, name in db.execute("select category, category_name from agents").fetchall():
        assert name == names.get(category)
    # The view (what the next publish copies) has the same columns.
    view_columns = {c[1] for c in db.execute("pragma table_info(published_ranking)").fetchall()}
    assert set(columns) == view_columns


# Frozen migrations: the schema comes from the migrations alone, whatever today's code is.

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = (
    "agentrank",
    "crawler",
    "scoring",
    "classify",
    "db",
    "datasette_plugins",
    "schedules",
    "leaderboard",
)


def _schema(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """Every table, view, index and trigger with its SQL, white space folded (a view's text is
    kept as written, so only its layout may differ)."""
    rows = conn.execute("select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name")
    return [
        (kind, name, re.sub(r"\s+", " ", sql or "").replace("( ", "(").replace(" )", ")")) for kind, name, sql in rows
    ]


def test_no_migration_imports_the_products_code():
    tree = ast.parse((ROOT / "db" / "migrations.py").read_text(encoding="utf-8"))
    imported = [
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
    ]
    assert not [n for n in imported if n.split(".")[0] in PROJECT_PACKAGES]


def test_migrations_apply_in_the_order_they_are_written(tmp_path):
    tree = ast.parse((ROOT / "db" / "migrations.py").read_text(encoding="utf-8"))
    written = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(isinstance(d, ast.Call) for d in node.decorator_list)
    ]
    path = tmp_path / "fresh.db"
    open_store(path).close()
    recorded = [r[0] for r in sqlite3.connect(path).execute("select name from _sqlite_migrations order by rowid")]
    assert recorded == written
    assert len(set(written)) == len(written)


def test_a_database_built_by_the_migrations_is_the_one_the_code_expects(tmp_path):
    """Publishing rebuilds the agents table from today's code (db/agents.py): the schema it leaves is
    the one the migrations alone built, so neither has drifted from the other."""
    path = tmp_path / "built.db"
    db = open_store(path)
    built = _schema(db.conn)
    import_and_score(db, [make_item(seed=1, id=1), make_item(seed=2, id=2)])
    assert _schema(db.conn) == built
    db.close()


@pytest.mark.parametrize(
    "stop_before",
    [
        "m014_trust_fields",
        "m017_agents_table",
        "m018_score_shown_halves_up",
        "m019_score_range_shown_outwards",
        "m021_agents_columns_named_as_the_export",
    ],
)
def test_an_older_database_upgrades_to_the_same_schema_as_a_new_one(tmp_path, stop_before):
    fresh = tmp_path / "fresh.db"
    open_store(fresh).close()
    old_path = tmp_path / "old.db"
    old = sqlite_utils.Database(old_path)
    migrations.apply(old, stop_before=stop_before)
    old.close()
    open_store(old_path).close()
    assert _schema(sqlite3.connect(old_path)) == _schema(sqlite3.connect(fresh))


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path):
    path = tmp_path / "newer.db"
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "insert into _sqlite_migrations (migration_set, name, applied_at) values ('agentrank', 'm900_future', '2027')"
    )
    conn.commit()
    conn.close()
    before = path.read_bytes()
    from click.testing import CliRunner

    from agentrank.cli import cli

    for args in (["score"], ["explain", "acme/agent"]):
        result = CliRunner().invoke(cli, ["--db", str(path), *args])
        assert result.exit_code != 0
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "made by a newer AgentRank" in lines[0] and "m900_future" in lines[0], lines
    assert path.read_bytes() == before
