import sqlite3

import sqlite_utils

from db.migrations import migrations
from db.store import open_store


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
    conn.execute("delete from _sqlite_migrations where name = 'm020_agents_columns_named_as_the_export'")
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
