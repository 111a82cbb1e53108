"""Issue 13: the server bounds heavy requests server-wide, answers bad requests with 4xx (never
500), and publishes no local file path, even when it serves the working database."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from agentrank.serve import build_datasette
from datasette_plugins.admission import gate, handle_exception, is_heavy
from datasette_plugins.settings import ServeConfig
from tests.conftest import make_item, write_json


async def _call(app, path: str, query: str = "") -> tuple[int, dict[str, str], bytes]:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "path": path, "query_string": query.encode(), "method": "GET", "headers": []}
    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_heavy_requests_queue_briefly_then_get_503_while_normal_pages_pass():
    release = asyncio.Event()

    async def slow_app(scope, receive, send):
        if "sql=" in scope["query_string"].decode():
            await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = gate(slow_app, slots=1, wait_s=0.05)

    async def scenario():
        heavy = [asyncio.create_task(_call(app, "/db.json", "sql=select+1")) for _ in range(5)]
        await asyncio.sleep(0.2)  # every heavy request but the first has waited past wait_s
        normal = await _call(app, "/db/agents")
        release.set()
        return normal, await asyncio.gather(*heavy)

    normal, heavy = asyncio.run(scenario())
    assert normal[0] == 200
    statuses = sorted(status for status, _, _ in heavy)
    assert statuses == [200, 503, 503, 503, 503]
    busy = next(h for h in heavy if h[0] == 503)
    assert busy[1]["retry-after"] == "5" and b"busy" in busy[2]


def test_raw_sql_in_any_parameter_and_canned_queries_wait_their_turn_at_the_gate():
    # Issue 29 item 10: _where, _search and canned queries went around the gate.
    release = asyncio.Event()

    async def slow_app(scope, receive, send):
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = gate(slow_app, slots=1, wait_s=0.05, canned=lambda: frozenset({("db", "recompute")}))
    requests = [
        ("/db.json", "sql=select+1"),
        ("/db/agents.json", "_where=1"),
        ("/db/agents.json", "%5Fwhere=1"),
        ("/db/agents", "_search=agent"),
        ("/db/recompute", ""),
        ("/db.json", "%73ql=select+1"),
    ]

    async def scenario():
        tasks = [asyncio.create_task(_call(app, path, query)) for path, query in requests]
        await asyncio.sleep(0.2)
        release.set()
        return await asyncio.gather(*tasks)

    statuses = [status for status, _, _ in asyncio.run(scenario())]
    assert sorted(statuses) == [200, 503, 503, 503, 503, 503], statuses


@pytest.mark.parametrize(
    ("path", "query", "heavy"),
    [
        ("/db.json", "sql=select+1", True),
        ("/db/repos.json", "_size=max", True),
        ("/db/repos.json", "_size=1000", True),
        ("/db/repos.csv", "", True),
        ("/db/repos", "_size=50", False),
        ("/db/agents", "", False),
        ("/-/agent/a/b", "", False),
        # Every raw-SQL parameter, in every spelling Datasette decodes to it.
        ("/db.json", "%73ql=select+1", True),
        ("/db", "x=1&s%71%6C=select+1", True),
        ("/db/agents.json", "_where=1", True),
        ("/db/agents.json", "%5Fwhere=1", True),
        ("/db/agents", "%5f%77here=rank+in+(select+1)", True),
        ("/db/agents.json", "_search=agent", True),
        ("/db/agents.json", "%5Fsearch=a*&_searchmode=raw", True),
        ("/db/agents.json", "_search_description=agent", True),
        ("/db/agents.json", "_through=x", True),
        ("/db/agents.json", "_fts_table=repos_fts", True),
        ("/db/agents", "_sort=rank&category=coding", False),
        # The canned queries: fixed SQL, but heavy.
        ("/db/recompute", "", True),
        ("/db/my_agents.json", "owner=x", True),
        ("/db/%72ecompute_summary.csv", "", True),
        ("/other/recompute", "", False),
    ],
)
def test_what_counts_as_heavy(path, query, heavy):
    canned = frozenset({("db", "recompute"), ("db", "recompute_summary"), ("db", "my_agents")})
    assert is_heavy({"path": path, "query_string": query.encode()}, canned) is heavy


def test_the_gate_reads_the_canned_queries_from_the_metadata(working_db):
    from datasette_plugins.admission import canned_queries

    datasette = build_datasette(working_db, ServeConfig())
    found = canned_queries(datasette)
    assert (working_db.stem, "recompute") in found and (working_db.stem, "top_agents") in found


def test_memory_errors_are_503_with_retry_after():
    class Request:
        path = "/db.json"

    response = handle_exception(None, Request(), MemoryError())
    assert response.status == 503 and response.headers["Retry-After"] == "5"
    assert handle_exception(None, Request(), sqlite3.OperationalError("out of memory")).status == 503
    assert handle_exception(None, Request(), ValueError("anything else")) is None  # Datasette's own handler


@pytest.fixture(scope="module")
def working_db(tmp_path_factory) -> Path:
    from click.testing import CliRunner

    from agentrank.cli import cli

    tmp = tmp_path_factory.mktemp("working")
    db_path = tmp / "agentrank.db"
    items = [make_item(seed=i, id=i, stargazers_count=300 + i) for i in range(1, 30)] + [{"id": "bad"}]
    runner = CliRunner()
    for args in (["import", str(write_json(tmp / "items.json", items))], ["classify"], ["score"]):
        result = runner.invoke(cli, ["--db", str(db_path), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["--db", str(db_path), "snapshot", "--out", str(tmp / "snap.db")])
    assert result.exit_code == 0, result.output
    return db_path


def _get(db_path: Path, path: str, settings: ServeConfig | None = None):
    datasette = build_datasette(db_path, settings or ServeConfig())

    async def fetch():
        return await datasette.client.get(path.replace("/DB", "/" + db_path.stem, 1))

    return asyncio.run(fetch())


@pytest.mark.parametrize(
    "path",
    [
        "/DB/repos?_sort=nonexistent",
        "/DB/agents?_sort=nonexistent",
        "/DB/agents.json?_sort_desc=nonexistent",
        "/DB/repos.json?_where=description+%3D+%27" + "x" * 5000 + "%27",
        "/DB.csv?sql=select+no_such_column",
        "/DB.csv?sql=select+hex(zeroblob(200000))+from+repos",
    ],
)
def test_bad_requests_are_4xx_not_500(working_db, path):
    response = _get(working_db, path, ServeConfig(max_sql_bytes=4000))
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:200])


def test_a_next_past_64_bits_on_a_table_is_an_empty_page(working_db):
    response = _get(working_db, "/DB/repos.json?_next=" + "9" * 40)
    assert response.status_code == 200 and response.json()["rows"] == []
    # The ranking is a table sorted by rank: an impossible _next is not a server error either.
    assert _get(working_db, "/DB/agents.json?_next=" + "9" * 40).status_code == 200


def test_no_local_path_is_published_from_the_working_database(working_db):
    databases = _get(working_db, "/-/databases.json")
    assert databases.status_code == 200 and databases.json()[0]["is_mutable"] is True
    assert "path" not in databases.json()[0] and str(working_db.parent) not in databases.text
    assert _get(working_db, "/-/databases").status_code == 404
    for sql in (
        "select * from pragma_database_list",
        "select details, error from runs",
        "select item_ref from rejects",
    ):
        response = _get(working_db, "/DB.json?_shape=array&sql=" + sql.replace(" ", "+"))
        assert response.status_code == 200 and response.json(), sql
        assert str(working_db.parent) not in response.text, (sql, response.text[:300])
    page = _get(working_db, "/DB/runs")
    assert page.status_code == 200 and str(working_db.parent) not in page.text


def test_a_snapshot_keeps_its_run_details_without_paths(working_db):
    snapshot = working_db.parent / "snap.db"
    response = _get(snapshot, "/DB.json?_shape=array&sql=select+kind,+details+from+runs")
    details = {row["kind"]: row["details"] for row in response.json()}
    assert json.loads(details["import"])["reject_reasons"] == {"id": 1}
    assert str(working_db.parent) not in response.text


def test_the_makers_page_queries_have_a_time_limit_and_a_byte_budget(working_db):
    from datasette_plugins.agent_page import agent_context
    from db.reading import ReadTooLarge, ReadTooSlow, read_bounded

    conn = sqlite3.connect(working_db)
    name = conn.execute("select full_name from agents order by rank limit 1").fetchone()[0]

    def page(conn):
        return agent_context(conn, name, "https://example.org", "https://example.org")

    found = read_bounded(conn, page, time_limit_ms=10_000, max_bytes=10_000_000)
    assert found["breakdown"]["repo"]["full_name"] == name
    with pytest.raises(ReadTooSlow):
        read_bounded(conn, page, time_limit_ms=0, max_bytes=10_000_000)  # past its deadline at the first check
    with pytest.raises(ReadTooLarge):
        read_bounded(conn, page, time_limit_ms=10_000, max_bytes=10)
    # The connection is left as it was found: no handler, its own row factory.
    assert conn.execute("select 1").fetchone() == (1,)
    conn.close()


def test_the_plugins_pages_read_only_through_the_bounded_helper():
    """Every query a page of the plugin runs goes through datasette_plugins.reading.read_page (time
    limit and byte budget); the SQL itself lives in db/ and leaderboard/."""
    root = Path(__file__).resolve().parent.parent / "datasette_plugins"
    allowed = {"reading.py", "limits.py"}  # the helper itself; the limits set on every connection
    offenders = [
        f"{path.name}:{number}"
        for path in sorted(root.glob("*.py"))
        if path.name not in allowed
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ".execute(" in line or "execute_fn(" in line or ".query(" in line
    ]
    assert not offenders, offenders


def test_the_read_only_site_answers_405_to_a_post(working_db):
    """Datasette's table and canned-query views answered a POST with 500 and a traceback."""
    datasette = build_datasette(working_db, ServeConfig())

    async def post(path: str):
        return await datasette.client.post(path.replace("/DB", "/" + working_db.stem, 1), data={"x": "1"})

    for path in ("/DB/agents", "/DB/top_agents", "/DB/agents.json", "/", "/-/agent/a/b"):
        response = asyncio.run(post(path))
        assert response.status_code == 405, (path, response.status_code)
        assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    assert asyncio.run(post("/DB/agents.json")).json()["status"] == 405
    assert _get(working_db, "/DB/agents.json").status_code == 200


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_a_server_stopped_on_purpose_exits_0_and_leaves_the_folder_as_it_was(tmp_path, signum):
    # A service manager stops the server with SIGTERM: it shut down, then died of the signal again,
    # leaving FILE.serving behind (the demo then warned about a server that was gone). Ctrl-C (SIGINT)
    # printed "Aborted!" and exited 1 ("make: *** Error 1" under `make demo`). Both left the -wal and
    # -shm files its readers made beside the database.
    import signal
    import subprocess

    import httpx

    from agentrank.serving import marker_path
    from tests.first_hour import agentrank
    from tests.publish_helpers import agentrank_serve, free_port, wait_until_up

    write_json(tmp_path / "items.json", [make_item(seed=i, id=i) for i in range(1, 6)])
    for args in (("import", "items.json"), ("score",)):
        assert agentrank(tmp_path, *args).returncode == 0, args
    before = sorted(p.name for p in tmp_path.iterdir())
    db = tmp_path / "agentrank.db"
    port = free_port()
    log_path = tmp_path.parent / f"{tmp_path.name}-serve.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            agentrank_serve(db, port),
            stdout=log,
            stderr=subprocess.STDOUT,
            # a shell's background job ignores SIGINT, and Python would then keep ignoring it
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process, log_path)
        assert httpx.get(f"http://127.0.0.1:{port}/agentrank/agents.json", timeout=10).status_code == 200
        assert marker_path(db).exists()
        process.send_signal(getattr(signal, signum))
        assert process.wait(timeout=30) == 0, log_path.read_text()
    finally:
        process.kill()
        process.wait()
    output = log_path.read_text()
    assert "Datasette stopped" in output and "Aborted" not in output, output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _small_served_folder(tmp_path: Path, rows: int = 0) -> Path:
    """A database made by `import` and `score`, with a table of ``rows`` rows far larger than the
    socket buffers when ``rows`` is set (a download that takes a while to send): 2 kB a row, since
    Datasette's CSV costs by the row, not by the byte."""
    from tests.first_hour import agentrank

    tmp_path.mkdir()
    write_json(tmp_path / "items.json", [make_item(seed=i, id=i) for i in range(1, 6)])
    for args in (("import", "items.json"), ("score",)):
        assert agentrank(tmp_path, *args).returncode == 0, args
    db = tmp_path / "agentrank.db"
    if rows:
        with sqlite3.connect(db) as conn:
            conn.execute(
                "create table big as with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)"
                " select i, hex(randomblob(1000)) as v from n",
                [rows],
            )
        conn.close()
    return db


def _dechunked(body: bytes) -> bytes:
    """An HTTP/1.1 chunked body's data; AssertionError when it was cut off before its last chunk.
    Read by offset: slicing 10 MB afresh for each of thousands of chunks took seconds."""
    parts, at = [], 0
    while True:
        end = body.find(b"\r\n", at)
        assert end >= 0, "the answer was cut off"
        size = int(body[at:end].split(b";")[0], 16)
        if size == 0:
            return b"".join(parts)
        start = end + 2
        assert len(body) >= start + size + 2, "the answer was cut off"
        parts.append(body[start : start + size])
        at = start + size + 2


def test_sighup_stops_the_server_as_sigterm_does_and_says_why(tmp_path):
    """The terminal or ssh session `agentrank serve` ran in closed (SIGHUP): the process was torn
    down where it stood, a download being sent cut off mid-way, and the log said only "Datasette
    stopped". Like SIGTERM it now stops gracefully, the answers being sent finish (within
    stop_timeout_s), and its last line says what stopped it; exit 0."""
    import signal
    import socket

    from tests.publish_helpers import a_download_under_way

    rows = 5_000  # 10 MB, more than the loopback socket buffers hold (4 MB at most here)
    db = _small_served_folder(tmp_path / "folder", rows)
    log_path = tmp_path / "serve.log"
    with a_download_under_way(db, log_path, "--setting", "stop_timeout_s", "120") as download:
        download.process.send_signal(signal.SIGHUP)
        # Then read it all (the server closes when it is sent), through a window wide again.
        download.reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        chunks = [download.received]
        while chunk := download.reader.recv(1 << 20):
            chunks.append(chunk)
        received = b"".join(chunks)
        assert download.process.wait(timeout=120) == 0, log_path.read_text()
    csv = _dechunked(received.partition(b"\r\n\r\n")[2])  # the whole answer, not one cut off
    assert csv.splitlines()[-1].startswith(b"%d," % rows) and csv.count(b"\n") == rows + 1, csv[-200:]
    said = log_path.read_text()
    assert said.strip().splitlines()[-1] == "Datasette stopped: SIGHUP (the terminal or session it ran in closed)", said
    assert "Traceback" not in said


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal made the controlling terminal")
def test_closing_the_terminal_the_server_runs_in_stops_it_cleanly(tmp_path):
    """`agentrank serve` in a terminal that is closed: the kernel sends SIGHUP and the terminal is gone,
    so its last line cannot be written; it exited 1 for that (a failure, in a service's eyes). It
    stops as on SIGTERM, exit 0, and leaves the folder as it was."""
    import fcntl
    import pty
    import subprocess
    import termios

    from tests.publish_helpers import agentrank_serve, free_port, wait_until_up

    db = _small_served_folder(tmp_path / "folder")
    before = sorted(p.name for p in db.parent.iterdir())
    port = free_port()
    master, terminal = pty.openpty()

    def in_that_terminal() -> None:  # a session of its own whose controlling terminal is the pty
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        agentrank_serve(db, port), stdin=terminal, stdout=terminal, stderr=terminal, preexec_fn=in_that_terminal
    )
    os.close(terminal)
    log_path = tmp_path / "serve.log"
    log_path.write_text("(its output goes to the terminal)")
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process, log_path)
        assert b"Datasette: http://" in os.read(master, 4096)
        os.close(master)  # the terminal closes: SIGHUP to the session
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert sorted(p.name for p in db.parent.iterdir()) == before  # no FILE.serving, -wal or -shm left


def test_a_server_started_under_nohup_keeps_serving_through_sighup(tmp_path):
    """`nohup agentrank serve &` asks for a server that outlives its terminal: SIGHUP is ignored."""
    import signal
    import subprocess

    import httpx

    from tests.publish_helpers import agentrank_serve, free_port, wait_until_up

    db = _small_served_folder(tmp_path / "folder")
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            agentrank_serve(db, port),
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # as nohup starts it
        )
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process, log_path)
        process.send_signal(signal.SIGHUP)  # an ignored signal is discarded when it is sent
        assert httpx.get(f"http://127.0.0.1:{port}/agentrank/agents.json", timeout=30).status_code == 200
        assert process.poll() is None, log_path.read_text()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, log_path.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    said = log_path.read_text()
    assert said.strip().splitlines()[-1] == "Datasette stopped: SIGTERM", said
