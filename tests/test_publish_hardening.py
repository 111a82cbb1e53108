"""Arbitrary SQL stays open on the public server, but bounded: checked against a real `agentrank serve`.

Each hostile query must come back as an error (or a harmless NULL) with a clear message, the
server must keep answering, and its peak memory must stay far below what the same queries take
from an unprotected Datasette (0.9 to 4.6 GB, measured in reliability.md §4.3 and here).
"""

from __future__ import annotations

import sqlite3

import datasette
import httpx
import pytest

from tests.publish_helpers import agentrank_serve, free_port, running

WIDE_ROW = ", ".join(["zeroblob(249999)"] * 90)  # each value just under max_value_bytes
HOSTILE = {
    # runs for minutes without the time limit
    "endless": (
        "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c",
        "SQL query took too long",
    ),
    "cross join": ("select count(*) from repos a, repos b, repos c, repos d", "SQL query took too long"),
    # would allocate gigabytes
    "huge string": ("select length(replace(hex(zeroblob(400000000)), '0', '00'))", "string or blob too big"),
    "huge blob": ("select length(randomblob(900000000))", "string or blob too big"),
    "wide rows": (f"select {WIDE_ROW} from repos", "query result too large"),
    "many rows": ("select hex(zeroblob(120000)) from repos a, repos b", "query result too large"),
    # writes
    "delete": ("delete from repos", "Statement must be a SELECT"),
    "write in a CTE": ("with x as (select 1) delete from repos", "attempt to write a readonly database"),
    "attach": ("attach database 'file:/tmp/x.db' as x", "Statement must be a SELECT"),
    "two statements": ("select 1; drop table repos", "You can only execute one statement at a time"),
    # extensions
    "load_extension": ("select load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')", "not authorized"),
}
# The server's own memory at rest is under 100 MB; unprotected, these queries took 0.9-4.6 GB.
PEAK_RSS_LIMIT_KB = 400 * 1024


def sql(server, query: str, **params) -> httpx.Response:
    return httpx.get(f"{server.url}/agentrank.json", params={"sql": query, "_shape": "objects", **params}, timeout=60)


def error_of(response: httpx.Response) -> str:
    data = response.json()
    return data.get("error") or ""


def still_answers(server) -> None:
    assert sql(server, "select count(*) as n from agents").json()["rows"][0]["n"] > 0
    assert httpx.get(f"{server.url}/agentrank/agents", timeout=30).status_code == 200


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_query_fails_with_a_clear_message(live_server, name):
    query, message = HOSTILE[name]
    response = sql(live_server, query)
    assert response.status_code in (200, 400) and message in error_of(response), response.text[:300]
    still_answers(live_server)


def test_printf_padding_is_cut_short(live_server):
    # SQLite's own printf loops through every character before giving up; ours answers NULL at once.
    response = sql(
        live_server, "select printf('%.*c', 900000000, 'x') as s, printf('%5.2f|%-4d|%s', 3.14159, 7, 'ok') as t"
    )
    assert response.json()["rows"] == [{"s": None, "t": " 3.14|7   |ok"}]


def test_writes_change_nothing(live_server, published_db):
    before = sqlite3.connect(published_db.path).execute("select count(*) from repos").fetchone()[0]
    for query in ("delete from repos", "with x as (select 1) delete from repos", "update repos set stars = 0"):
        assert error_of(sql(live_server, query))
    assert httpx.post(f"{live_server.url}/agentrank", data={"sql": "delete from repos"}, timeout=10).status_code >= 400
    assert sqlite3.connect(published_db.path).execute("select count(*) from repos").fetchone()[0] == before


def test_server_memory_stays_bounded_under_hostile_queries(live_server):
    for query, _ in HOSTILE.values():
        sql(live_server, query)
    sql(live_server, "select printf('%.*c', 900000000, 'x')")
    still_answers(live_server)
    assert live_server.peak_rss_kb() < PEAK_RSS_LIMIT_KB


def test_public_settings(live_server):
    settings = httpx.get(f"{live_server.url}/-/settings.json", timeout=10).json()
    assert settings["allow_download"] is False and settings["default_allow_sql"] is True
    assert settings["sql_time_limit_ms"] == 1000 and settings["max_returned_rows"] == 1000
    assert httpx.get(f"{live_server.url}/agentrank.db", timeout=10).status_code == 403
    # Datasette's row cap holds for arbitrary SQL.
    many = sql(
        live_server, "with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000) select x from c"
    )
    assert len(many.json()["rows"]) == 1000 and many.json()["truncated"] is True


def test_datasette_has_the_arraycontains_fix():
    # GHSA-w3hf-fcg5-p4cc: SQL injection through ?col__arraycontains=, fixed in 0.65.3.
    assert tuple(int(p) for p in datasette.__version__.split(".")[:3]) >= (0, 65, 3)


def test_operator_overrides_reach_datasette(published_db, tmp_path):
    config = tmp_path / "agentrank.toml"
    config.write_text("[serve]\nsql_time_limit_ms = 50\nallow_csv_stream = false\n", encoding="utf-8")
    port = free_port()
    command = agentrank_serve(published_db.path, port, "--setting", "max_returned_rows", "20")
    command[command.index("--db") : command.index("--db")] = ["--config", str(config)]
    with running(command, port, tmp_path / "serve.log") as server:
        settings = httpx.get(f"{server.url}/-/settings.json", timeout=10).json()
        assert (settings["sql_time_limit_ms"], settings["max_returned_rows"], settings["allow_csv_stream"]) == (
            50,
            20,
            False,
        )
        assert len(sql(server, "select * from repos").json()["rows"]) == 20


def test_unknown_setting_is_one_clear_line(run_cli):
    result = run_cli("serve", "--setting", "max_rows", "5", expect=1)
    assert "unknown key 'serve.max_rows'" in result.output and "Traceback" not in result.output
    result = run_cli("serve", "--setting", "sql_time_limit_ms", "soon", expect=1)
    assert "bad value for 'serve.sql_time_limit_ms'" in result.output


def test_bounded_printf_formats_like_sqlite_below_the_limit():
    from agentrank.config import ServeConfig
    from datasette_plugins.limits import bound_connection

    plain = sqlite3.connect(":memory:")
    bounded = sqlite3.connect(":memory:")
    bound_connection(bounded, ServeConfig(heap_limit_mb=0, max_value_bytes=100_000))
    for query in (
        "printf('%5.2f|%-4d|%s|%%|%q', 3.14159, 7, 'ok', 'it''s')",
        "format('%*d', 6, 42)",
        "printf('%.3s', 'abcdef')",
        "printf('%.*c', 50, 'x')",
        "printf('%,d', 1234567)",
        "printf(NULL)",
        "printf('%s')",
        "printf('%.200000s', 'short')",
    ):
        assert tuple(bounded.execute(f"select {query}").fetchone()) == plain.execute(f"select {query}").fetchone(), (
            query
        )
    for query in (
        "printf('%.*c', 200000, 'x')",
        "printf('%200000d', 1)",
        "printf('%.200000f', 1.5)",
        "format('%*s', 200000, 'x')",
    ):
        assert tuple(bounded.execute(f"select {query}").fetchone()) == (None,), query
