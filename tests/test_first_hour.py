"""Nonsense refused and no side effects from a mistake (issue 12, Done-when 2 and 3).

Each nonsense input exits non-zero with one line naming the value and what is accepted, and the
published ranking, the run log and the export file are byte-for-byte as they were. Read-only
commands in a folder without a database leave the folder empty.
"""

from __future__ import annotations

import re
import socket
import sqlite3

import pytest

from db.store import open_store
from tests.first_hour import agentrank, published_state

RISER = "{riser}"  # replaced by the repo the demo suggests


NONSENSE = [
    (("score", "--as-of", "banana"), 2, ["banana", "ISO 8601"]),
    (("score", "--as-of", ""), 2, ["''", "ISO 8601"]),
    (("score", "--as-of", "1999-12-31T00:00:00Z"), 2, ["1999-12-31T00:00:00Z", "outside"]),
    (("explain", RISER, "--since", "banana"), 2, ["banana", "previous"]),
    (("explain", RISER, "--since", "2099-01-01"), 2, ["2099-01-01", "previous", "score runs:"]),
    (("explain", RISER, "--since", "99999"), 2, ["99999", "score runs:"]),
    (("explain", RISER, "--run", "999"), 2, ["--run 999", "score runs:"]),
    (("explain", "banana"), 2, ["banana", "OWNER/REPO", "https://github.com/OWNER/REPO"]),
    (("explain", "https://example.com/a/b"), 2, ["example.com", "OWNER/REPO"]),
    (("explain", "nobody/nothing"), 1, ["nobody/nothing", "unknown repository"]),
]


@pytest.fixture(scope="module")
def project(demo_folder, tmp_path_factory):
    folder = demo_folder.copy(tmp_path_factory.mktemp("nonsense") / "project")
    result = agentrank(folder.path, "export", "--out", "site/agentrank.json")
    assert result.returncode == 0, result.stderr
    return folder


@pytest.mark.parametrize(("args", "status", "words"), NONSENSE, ids=[" ".join(a) for a, _, _ in NONSENSE])
def test_nonsense_is_refused_in_one_line_and_changes_nothing(project, args, status, words):
    export = project.path / "site" / "agentrank.json"
    before, exported = published_state(project.db), export.read_bytes()
    result = agentrank(project.path, *(a.format(riser=project.riser) for a in args))
    assert result.returncode == status, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for word in words:
        assert word in lines[0]
    assert published_state(project.db) == before
    assert export.read_bytes() == exported


@pytest.mark.parametrize(
    ("as_of", "words"),
    [
        ("2031-01-01T00:00:00Z", "is in the future"),
        ("2020-01-01T00:00:00Z", "is before the data it scores was fetched"),
    ],
)
def test_score_as_of_outside_the_data_is_refused_unless_forced(demo_folder, tmp_path, as_of, words):
    """A future instant, or one before the data was fetched, is refused: one line, exit 2, no score
    run written; --force scores it (replaying a past week, a what-if date)."""
    folder = demo_folder.copy(tmp_path / "project")

    def score_runs() -> int:
        conn = sqlite3.connect(f"file:{folder.db}?mode=ro", uri=True)
        try:
            return conn.execute("select count(*) from runs where kind = 'score'").fetchone()[0]
        finally:
            conn.close()

    before = score_runs()
    result = agentrank(folder.path, "score", "--as-of", as_of)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"Error: --as-of {as_of} {words}"), result.stderr
    assert "--force" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == "" and score_runs() == before
    forced = agentrank(folder.path, "score", "--as-of", as_of, "--force")
    assert forced.returncode == 0 and forced.stderr == "", forced.stderr
    assert f"as of {as_of}" in forced.stdout and score_runs() == before + 1


def test_the_demo_without_a_terminal_logs_a_line_per_stage(demo_folder):
    """`agentrank demo --no-serve 2>log`: a cron job or a pipe still sees where the demo is, one
    whole line per stage with its time (no carriage returns or terminal codes)."""
    log = demo_folder.demo_stderr
    assert "\r" not in log and "\x1b" not in log
    for week in range(1, 5):
        for stage in ("crawl", "classify", "score", "export", "publish"):
            assert re.search(rf"^week {week}/4: {stage} done in \d+\.\d s$", log, re.M), (week, stage, log)
        assert re.search(rf"^week {week}/4 \(.*\): the synthetic population: .* seen for the first time", log, re.M)


def test_since_accepts_previous_a_run_id_and_a_date(project):
    conn = sqlite3.connect(f"file:{project.db}?mode=ro", uri=True)
    runs = conn.execute("select id, as_of from runs where kind = 'score' and status = 'ok' order by id").fetchall()
    first_id, first_as_of = runs[0]
    for since in ("previous", str(first_id), first_as_of[:10], first_as_of):
        result = agentrank(project.path, "explain", project.riser, "--since", since)
        assert result.returncode == 0, (since, result.stderr)
    dated = agentrank(project.path, "explain", project.riser, "--since", first_as_of[:10])
    assert f"between run {first_id} " in dated.stdout


READ_ONLY = [
    ("export",),
    ("export", "--out", "site/agentrank.json"),
    ("explain", "owner/repo"),
    ("explain", "owner/repo", "--since", "previous"),
    ("serve",),
    ("snapshot", "--out", "publish/agentrank.db"),
    ("score",),
    ("classify",),
]


@pytest.mark.parametrize("args", READ_ONLY, ids=[" ".join(a) for a in READ_ONLY])
def test_without_a_database_the_folder_stays_empty(tmp_path, args):
    result = agentrank(tmp_path, *args)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "Error: no database at agentrank.db: run `make demo`, `agentrank crawl` or `agentrank import` first"
    ]
    assert list(tmp_path.iterdir()) == []


def test_classify_on_an_empty_database_does_not_succeed(tmp_path):
    open_store(tmp_path / "agentrank.db").close()
    result = agentrank(tmp_path, "classify")
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) == 1 and "no listed repos" in result.stderr


def test_serve_on_a_busy_port_prints_no_url(project):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = agentrank(project.path, "serve", "--port", str(port), timeout=60)
    assert result.returncode == 1
    assert "http://" not in result.stdout + result.stderr
    assert len(result.stderr.splitlines()) == 1 and f"127.0.0.1:{port}" in result.stderr and "--port" in result.stderr


def test_output_folders_are_created(project, tmp_path):
    deep = tmp_path / "a" / "b" / "agentrank.json"
    result = agentrank(project.path, "export", "--out", str(deep))
    assert result.returncode == 0, result.stderr
    assert deep.exists()


def test_the_export_of_another_database_goes_beside_it(demo_folder, tmp_path):
    """`--db data/other.db export` writes data/other-export.json, never over ./agentrank-export.json."""
    folder = demo_folder.copy(tmp_path / "project")
    (folder.path / "data").mkdir()
    (folder.path / "agentrank.db").rename(folder.path / "data" / "other.db")
    before = (folder.path / "agentrank-export.json").read_bytes()
    result = agentrank(folder.path, "--db", "data/other.db", "export")
    assert result.returncode == 0, result.stderr
    assert (folder.path / "data" / "other-export.json").exists()
    assert "data/other-export.json" in result.stdout
    assert (folder.path / "agentrank-export.json").read_bytes() == before


def test_a_mistyped_repo_gets_did_you_mean(demo_folder):
    owner, repo = demo_folder.riser.split("/")
    typo = f"{owner}/{repo[:-1]}"
    result = agentrank(demo_folder.path, "explain", typo)
    assert result.returncode == 1
    assert f"did you mean {demo_folder.riser}" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_rebuilding_the_demo_under_a_running_server_warns(tmp_path):
    """A server keeps serving the file it opened; rebuilding the demo under it says so."""
    import subprocess
    import sys

    from agentrank.serving import marker_path, stale_server_warning

    folder = tmp_path / "project"
    folder.mkdir()
    small = ("demo", "--no-serve", "--size", "10", "--weeks", "2")
    first = agentrank(folder, *small)
    assert first.returncode == 0, first.stderr
    assert "warning" not in first.stderr
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        marker_path(folder / "agentrank.db").write_text(f"{server.pid} http://127.0.0.1:8001/agentrank/agents\n")
        again = agentrank(folder, *small)
        assert again.returncode == 0, again.stderr
        assert again.stderr.startswith("warning: a server is serving agentrank.db at http://127.0.0.1:8001/")
    finally:
        server.kill()
        server.wait()
    # Once that server is gone, its line is ignored.
    marker_path(folder / "agentrank.db").write_text(f"{server.pid} http://127.0.0.1:8001/agentrank/agents\n")
    assert stale_server_warning(folder / "agentrank.db") is None


def test_page_and_badge_urls_follow_the_real_port():
    from agentrank.cli import follow_port
    from datasette_plugins.settings import ServeConfig

    assert follow_port(ServeConfig(port=8123)).public_url == "http://127.0.0.1:8123"
    assert follow_port(ServeConfig(host="0.0.0.0", port=8080)).public_url == "http://127.0.0.1:8080"
    chosen = ServeConfig(port=8123, public_url="https://agentrank.example")
    assert follow_port(chosen).public_url == "https://agentrank.example"
