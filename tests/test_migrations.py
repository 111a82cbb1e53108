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
