"""`agentrank snapshot`: a checked, single-file copy that plain `datasette -i` serves unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from agentrank import importer
from agentrank.cli import cli
from agentrank.config import Config
from db.store import open_store
from tests.benchmark_attempts import attempt
from tests.conftest import another_programs_sqlite, make_item
from tests.publish_helpers import build_published_db, free_port, running


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A published database that also holds operator-only state the snapshot must leave out."""
    published = build_published_db(tmp_path_factory.mktemp("source") / "live.db", n=120, seed=5)
    db = open_store(published.path)
    db["crawl_checkpoints"].insert({"query": "topic:ai-agent", "page": 7, "cursor": "secret-cursor"}, pk="query")
    bad = published.path.parent / "bad.json"
    # one rejected item (its local path must stay out of the snapshot) beside a valid one below min_stars
    items = [{"id": "not-a-number", "full_name": "x/y"}, make_item(seed=9, id=987654, stargazers_count=1)]
    bad.write_text(json.dumps(items), encoding="utf-8")
    importer.import_files(db, [bad], min_stars=Config().crawl.min_stars)
    # A failed refresh: its error and details quote the operator's local paths.
    private = "/home/operator/private-corrections.toml"
    stages = [{"stage": "corrections", "status": "failed", "error": f"{private}:1: unknown repo"}]
    db["runs"].insert(
        {
            "kind": "refresh",
            "started_at": "2026-11-30T06:00:00Z",
            "status": "failed",
            "error": f"{private}:1: unknown repo",
            "details": json.dumps({"corrections": private, "export": "/srv/private-site/x.json", "stages": stages}),
        }
    )
    # A ledger import names its file (the benchmark commands' runs).
    db["runs"].insert(
        {
            "kind": "import-attempts",
            "started_at": "2026-11-30T06:05:00Z",
            "status": "ok",
            "details": json.dumps({"file": "/srv/private-ledger/attempts.jsonl", "entries": 3}),
        }
    )
    db.close()
    return published


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def agentrank(*args: str, expect: int = 0):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == expect, result.output
    return result


def snapshot(source, out, expect=0):
    return agentrank("--db", str(source.path), "snapshot", "--out", str(out), expect=expect)


def test_snapshot_is_a_checked_copy_without_private_state(source, tmp_path):
    out = tmp_path / "agentrank.db"
    result = snapshot(source, out)
    left_out = result.output.split("integrity ok, scores recompute; left out ", 1)[1].split("\n", 1)[0]
    assert "crawl_checkpoints" in left_out.split(", ") and "crawl_parts" in left_out.split(", ")
    assert f"datasette serve -i {out} -m {tmp_path / 'agentrank.metadata.json'}" in result.output
    conn = sqlite3.connect(out)
    assert conn.execute("pragma journal_mode").fetchone()[0] == "delete"
    assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
    tables = {name for (name,) in conn.execute("select name from sqlite_master where type = 'table'")}
    assert "crawl_checkpoints" not in tables and {"repos", "scores", "repos_fts"} <= tables
    assert conn.execute("select count(*) from rejects").fetchone()[0] >= 1
    assert conn.execute("select count(*) from rejects where item_ref is not null").fetchone()[0] == 0
    assert b"secret-cursor" not in out.read_bytes()
    assert b"bad.json" not in out.read_bytes()  # the import's local file path
    assert b"private-corrections" not in out.read_bytes() and b"private-site" not in out.read_bytes()
    assert b"private-ledger" not in out.read_bytes()
    ledger = conn.execute("select details from runs where kind = 'import-attempts'").fetchone()[0]
    assert json.loads(ledger) == {"entries": 3}
    failed = conn.execute("select error, details from runs where kind = 'refresh'").fetchone()
    assert failed[0] is None and json.loads(failed[1]) == {"stages": [{"stage": "corrections", "status": "failed"}]}
    live = sqlite3.connect(source.path)
    assert (
        conn.execute("select count(*) from agents").fetchone() == live.execute("select count(*) from agents").fetchone()
    )
    assert live.execute("select count(*) from crawl_checkpoints").fetchone()[0] == 1  # the source keeps it
    assert {p.name for p in tmp_path.iterdir()} == {"agentrank.db", "agentrank.metadata.json"}
    assert out.stat().st_mode & 0o777 == 0o644
    metadata = json.loads((tmp_path / "agentrank.metadata.json").read_text(encoding="utf-8"))
    assert set(metadata["databases"]) == {"agentrank"} and "recompute" in metadata["databases"]["agentrank"]["queries"]


def test_snapshot_replaces_the_file_only_when_everything_passed(source, tmp_path):
    out = tmp_path / "pub.db"
    snapshot(source, out)  # last week's snapshot, marked so that its replacement shows
    previous = sqlite3.connect(out)
    previous.execute("create table previous_snapshot (x)")
    previous.close()
    before = out.read_bytes()
    empty = tmp_path / "empty.db"
    open_store(empty).close()
    result = agentrank("--db", str(empty), "snapshot", "--out", str(out), expect=1)
    assert "nothing is published yet" in result.output and "Traceback" not in result.output
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    snapshot(source, out)
    assert sqlite3.connect(out).execute("select count(*) from agents").fetchone()[0] > 0
    assert not sqlite3.connect(out).execute("select 1 from sqlite_master where name = 'previous_snapshot'").fetchall()


def test_snapshot_never_replaces_what_it_must_not(source, tmp_path):
    """The database and the files beside it, a device, an export, another working database, any other
    SQLite database: one line, nothing replaced (only an earlier snapshot is)."""
    export = tmp_path / "agentrank.json"
    export.write_text('{"schema_version": 1}')
    working = tmp_path / "prod.db"
    open_store(working).close()
    other = another_programs_sqlite(tmp_path / "notes.db")
    lock = source.path.with_name(source.path.name + ".lock")
    for out, words in (
        (source.path, "is the database itself"),
        (source.path.with_name(source.path.name + "-wal"), "the database's wal file"),
        (lock, "the database's run lock"),
        (Path("/dev/null"), "is not a regular file"),
        (export, "exists and is not an SQLite database"),
        (working, "is a working AgentRank database, not a snapshot"),
        (other, "is an SQLite database that is not an AgentRank snapshot"),
    ):
        before = out.read_bytes() if out.is_file() else None
        result = snapshot(source, out, expect=1)
        assert words in result.output and len(result.output.strip().splitlines()) == 1, result.output
        if before is not None:
            assert out.read_bytes() == before
    assert not (tmp_path / "agentrank.metadata.json").exists()


def test_plain_datasette_serves_the_snapshot_unchanged(source, tmp_path):
    out = tmp_path / "agentrank.db"
    snapshot(source, out)
    before = sha256(out)
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "datasette",
        "serve",
        "-i",
        str(out),
        "-m",
        str(tmp_path / "agentrank.metadata.json"),
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "--setting",
        "allow_download",
        "off",
    ]
    with running(command, port, tmp_path / "datasette.log") as server:
        agents = httpx.get(f"{server.url}/agentrank/agents.json?_shape=array&_size=5", timeout=10).json()
        assert [a["rank"] for a in agents] == [1, 2, 3, 4, 5]
        page = httpx.get(f"{server.url}/-/agent/{source.top_name}", timeout=10)
        assert page.status_code == 200 and "How the score breaks down" in page.text
        summary = httpx.get(f"{server.url}/agentrank/recompute_summary.json?_shape=array", timeout=10).json()
        assert summary[0]["max_abs_difference"] == 0 and summary[0]["rank_mismatches"] == 0
        hostile = httpx.get(f"{server.url}/agentrank.json", params={"sql": "select randomblob(900000000)"}, timeout=30)
        assert "string or blob too big" in hostile.json()["error"]  # the limits came with the plugin
        databases = httpx.get(f"{server.url}/-/databases.json", timeout=10).json()
        assert databases[0]["is_mutable"] is False
    assert sha256(out) == before


def test_agentrank_serve_immutable_leaves_the_snapshot_untouched(source, tmp_path):
    from tests.publish_helpers import agentrank_serve

    out = tmp_path / "agentrank.db"
    snapshot(source, out)
    before = sha256(out)
    port = free_port()
    with running(agentrank_serve(out, port, "--immutable"), port, tmp_path / "serve.log") as server:
        for _ in range(20):
            assert httpx.get(f"{server.url}/agentrank/agents", timeout=10).status_code == 200
        assert httpx.get(f"{server.url}/-/databases.json", timeout=10).json()[0]["is_mutable"] is False
    assert sha256(out) == before
    assert {p.name for p in tmp_path.iterdir()} == {"agentrank.db", "agentrank.metadata.json", "serve.log"}


def test_serve_immutable_refuses_the_working_database_every_refresh_writes_to(source, tmp_path):
    # Served immutable, the working database answered 500 ("database disk image is malformed") and
    # stale pages as soon as the weekly refresh wrote to it; neither side refused the pairing.
    before = sha256(source.path)
    port = free_port()
    result = agentrank("--db", str(source.path), "serve", "--immutable", "--port", str(port), expect=1)
    assert "is a working database that every refresh writes to, not a snapshot" in result.output
    assert "agentrank snapshot --out" in result.output and result.output.count("\n") == 1
    assert sha256(source.path) == before


def test_agentrank_serve_of_a_snapshot_links_to_the_address_it_was_made_for(source, tmp_path):
    # `agentrank serve --immutable` of a snapshot made with --public-url linked its feeds to
    # http://127.0.0.1:PORT, where `datasette serve -m` with the same metadata gave the public address.
    from tests.publish_helpers import agentrank_serve

    out = tmp_path / "agentrank.db"
    agentrank("--db", str(source.path), "snapshot", "--out", str(out), "--public-url", "https://ranks.example.org")
    port = free_port()
    with running(agentrank_serve(out, port, "--immutable"), port, tmp_path / "serve.log") as server:
        feed = httpx.get(f"{server.url}/-/feeds/new.atom", timeout=10).text
    assert "https://ranks.example.org/" in feed and "127.0.0.1" not in feed


def test_explaining_a_score_from_a_snapshot_leaves_it_as_it_was(source, tmp_path):
    # A web host serves the snapshot with --immutable; a maker's `explain` run there switched it to WAL
    # (its header rewritten, -wal and -shm beside it) under a server that assumes it never changes.
    out = tmp_path / "agentrank.db"
    snapshot(source, out)
    before, files = sha256(out), {p.name for p in tmp_path.iterdir()}
    result = agentrank("--db", str(out), "explain", source.top_name)
    assert source.top_name in result.output
    assert sha256(out) == before and {p.name for p in tmp_path.iterdir()} == files


@pytest.mark.parametrize(
    "command",
    [
        ["crawl", "--api-url", "http://127.0.0.1:9"],
        ["import", "ITEMS"],
        ["classify"],
        ["score"],
        ["refresh", "--from-file", "ITEMS"],
        ["export", "--out", "OUT/e.json"],
        ["snapshot", "--out", "OUT/again.db"],
        ["import-attempts", "ATTEMPTS"],
    ],
    ids=lambda c: c[0],
)
def test_no_command_writes_into_a_published_snapshot(source, tmp_path, command):
    # Pointed at a snapshot, crawl ended in a traceback and score wrote a failed run and 1,257 score rows
    # into the copy a web host serves as unchanging.
    out = tmp_path / "site" / "agentrank.db"
    out.parent.mkdir()
    snapshot(source, out)
    (tmp_path / "items.json").write_text(json.dumps([make_item(seed=3, id=99)]))
    (tmp_path / "attempts.json").write_text(
        json.dumps([attempt("a/b", "1", "t", 1, "2026-11-01T00:00:00Z", "community", 1, 1, 10, None)])
    )
    places = {"ITEMS": str(tmp_path / "items.json"), "ATTEMPTS": str(tmp_path / "attempts.json")}
    args = [places.get(a, a.replace("OUT", str(tmp_path))) for a in command]
    before, files = sha256(out), sorted(p.name for p in out.parent.iterdir())
    result = agentrank("--db", str(out), *args, expect=1)
    assert "is a published snapshot" in result.output and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: ")
    assert sha256(out) == before and sorted(p.name for p in out.parent.iterdir()) == files


@pytest.mark.asyncio
async def test_private_tables_are_hidden_on_the_live_database(source):
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette

    datasette = build_datasette(source.path, ServeConfig(heap_limit_mb=0))
    tables = {t["name"]: t["hidden"] for t in (await datasette.client.get("/live.json")).json()["tables"]}
    assert tables["crawl_checkpoints"] is True and tables["repos"] is False


def test_what_a_killed_export_or_snapshot_left_is_removed_by_the_next_run(source, tmp_path):
    """A run killed before its rename left its partial file beside the published one for good, where
    the web server could hand it out. The next export or snapshot removes it, but never the file of
    another run still writing."""
    import subprocess

    stage = (
        "import os, sys; from pathlib import Path; from db.paths import staging_file; "
        "fd, p = staging_file(Path(sys.argv[1])); os.write(fd, b'partial'); print(p, flush=True); "
        "open(str(p) + '-journal', 'w').close() if sys.argv[2] == 'journal' else None; "
        "os.kill(os.getpid(), 9) if sys.argv[3] == 'die' else sys.stdin.read()"
    )

    def staged(out: Path, journal: bool, die: bool) -> tuple[Path, subprocess.Popen]:
        process = subprocess.Popen(
            [sys.executable, "-c", stage, str(out), "journal" if journal else "-", "die" if die else "wait"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        return Path(process.stdout.readline().strip()), process

    site, pub = tmp_path / "site.json", tmp_path / "pub.db"
    # Left by a process whose id no process can have, and by an earlier process that had this one's
    # id (a container's programs are often process 1 every run): both abandoned.
    impossible = tmp_path / ".site.json.99999999999.k3j9x0ab.tmp"
    earlier_me = tmp_path / f".site.json.{os.getpid()}.q8w7e6rt.tmp"
    for leftover in (impossible, earlier_me):
        leftover.write_text("partial")
        os.utime(leftover, (1_000_000_000, 1_000_000_000))
    killed_export, p1 = staged(site, journal=False, die=True)
    killed_snapshot, p2 = staged(pub, journal=True, die=True)
    writing, live = staged(site, journal=False, die=False)
    try:
        p1.wait(10), p2.wait(10)
        assert killed_export.exists() and killed_snapshot.exists() and writing.exists()
        agentrank("--db", str(source.path), "export", "--out", str(site))
        snapshot(source, pub)
        left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
        assert left == [writing.name], left  # the killed runs' files (and the journal) are gone
    finally:
        live.kill()
        live.wait(10)
