"""Values the command line and the configuration take: each is honoured or refused in one line, and
a refused one changes nothing (an audit of the CLI's inputs)."""

from __future__ import annotations

import socket
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.conftest import db_content, make_item, write_json


@pytest.fixture(scope="module")
def scored_db(tmp_path_factory) -> Path:
    """Imported, classified and scored: something to serve, export and explain."""
    from agentrank.cli import cli

    folder = tmp_path_factory.mktemp("inputs")
    db_path = folder / "agentrank.db"
    items = [make_item(seed=i, id=i, full_name=f"inputs/agent-{i}", stargazers_count=300 + i) for i in range(1, 12)]
    for args in (["import", str(write_json(folder / "items.json", items))], ["classify"], ["score"]):
        result = CliRunner().invoke(cli, ["--db", str(db_path), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return db_path


@pytest.fixture
def working_copy(scored_db: Path, db_path: Path) -> Path:
    """The scored database at ``db_path`` (the one ``run_cli`` names), for a test to change."""
    with closing(sqlite3.connect(scored_db)) as source, closing(sqlite3.connect(db_path)) as copy:
        source.backup(copy)  # with what its WAL file holds
    return db_path


def one_line(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(monkeypatch) -> list[Any]:
    """The settings `serve` would run Datasette with: recorded instead of serving."""
    calls: list[Any] = []
    monkeypatch.setattr("agentrank.serve.serve", lambda db_path, config: calls.append(config))
    return calls


# -- 1: host, port and immutable given with --setting --------------------------------------------------


def test_serve_takes_host_and_port_from_setting(run_cli, working_copy, served):
    # `--setting port N` was dropped: the server listened on 8001.
    port = free_port()
    result = run_cli("serve", "--setting", "port", str(port), "--setting", "host", "127.0.0.1")
    assert [(c.host, c.port) for c in served] == [("127.0.0.1", port)]
    assert f"http://127.0.0.1:{port}/agentrank/agents" in result.output


def test_a_serve_flag_wins_over_the_setting_of_the_same_name(run_cli, working_copy, served):
    port, other = free_port(), free_port()
    run_cli("serve", "--port", str(port), "--setting", "port", str(other))
    assert [c.port for c in served] == [port]


@pytest.mark.parametrize(
    ("name", "value"),
    [("port", "abc"), ("port", "70000"), ("immutable", "maybe")],
)
def test_a_bad_host_port_or_immutable_setting_is_refused(run_cli, working_copy, served, name, value):
    result = run_cli("serve", "--setting", name, value, expect=1)
    assert f"bad value for 'serve.{name}'" in one_line(result)
    assert served == []


def test_immutable_from_setting_is_honoured(run_cli, working_copy, served):
    # It was served mode=ro, as without --immutable: the working database is refused as with the flag.
    flag = one_line(run_cli("serve", "--immutable", expect=1))
    assert one_line(run_cli("serve", "--setting", "immutable", "on", expect=1)) == flag
    run_cli("serve", "--setting", "immutable", "off")
    assert [c.immutable for c in served] == [False]


# -- 2: an empty host, port 0 ----------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["", "  "])
def test_serve_refuses_an_empty_host(run_cli, working_copy, served, host):
    # It listened on every interface.
    line = one_line(run_cli("serve", "--host", host, expect=2))
    assert f"--host {host!r}: give an address to listen on" in line
    line = one_line(run_cli("serve", "--setting", "host", host, expect=1))
    assert "bad value for 'serve.host'" in line
    assert served == []


def test_serve_refuses_port_0(run_cli, working_copy, served):
    # It printed http://127.0.0.1:0/... and listened on a port chosen at random.
    line = one_line(run_cli("serve", "--port", "0", expect=2))
    assert "Invalid value for '--port': 0 is not in the range 1<=x<=65535" in line
    line = one_line(run_cli("serve", "--setting", "port", "0", expect=1))
    assert "bad value for 'serve.port'" in line
    assert served == []


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('[serve]\nhost = ""\n', "serve.host"),
        ('[serve]\nhost = " "\n', "serve.host"),
        ("[serve]\nport = 0\n", "serve.port"),
    ],
)
def test_a_config_with_an_empty_host_or_port_0_is_refused_at_load(tmp_path, run_cli, working_copy, served, body, key):
    config = tmp_path / "agentrank.toml"
    config.write_text(body)
    line = one_line(run_cli("--config", str(config), "serve", expect=1))
    assert f"bad value for '{key}'" in line
    assert served == []


# -- 3: a bad GITHUB_API_URL ---------------------------------------------------------------------------

BAD_ENV = {"GITHUB_API_URL": "api.github.com"}  # no scheme


def test_api_url_overrides_a_bad_github_api_url(tmp_path, run_cli, db_path):
    # The flag overrides the environment (configuration.md), but the environment's was refused first.
    saved = write_json(tmp_path / "items.json", [make_item(id=9701, full_name="env/agent")])
    out = tmp_path / "site.json"
    args = ("refresh", "--api-url", "http://127.0.0.1:9", "--from-file", str(saved), "--out", str(out))
    run_cli(*args, env=BAD_ENV)
    assert out.is_file()
    config = tmp_path / "fast.toml"
    config.write_text("[github]\nmin_interval_s = 0\nmax_retries = 0\ntimeout_s = 5\n")
    result = run_cli("--config", str(config), "crawl", "--api-url", "http://127.0.0.1:9", env=BAD_ENV, expect=1)
    assert "GITHUB_API_URL 'api.github.com'" not in result.stderr and "127.0.0.1:9" in result.stderr


def test_a_bad_github_api_url_fails_only_the_commands_that_contact_github(run_cli, working_copy):
    result = run_cli("explain", "inputs/agent-3", env=BAD_ENV)
    assert "inputs/agent-3" in result.output
    run_cli("export", "--out", str(working_copy.with_name("site.json")), env=BAD_ENV)
    before = db_content(working_copy)
    for args in (("crawl",), ("refresh",), ("schedule",)):
        line = one_line(run_cli(*args, env=BAD_ENV, expect=1))
        assert "GITHUB_API_URL 'api.github.com': expected an http(s) URL" in line, args
    assert db_content(working_copy) == before


# -- 4: an empty value is refused, not taken for "not given" -------------------------------------------

# Were the empty --api-url taken for the default, the crawl would fail at once here.
UNREACHABLE = '[github]\napi_url = "http://127.0.0.1:9"\nmin_interval_s = 0\nmax_retries = 0\ntimeout_s = 5\n'


@pytest.mark.parametrize(
    ("args", "status", "says"),
    [
        (["crawl", "--api-url", ""], 1, "--api-url '': give GitHub's API base URL"),
        (["refresh", "--api-url", " "], 1, "--api-url ' ': give GitHub's API base URL"),
        (["demo", "--no-serve", "--size", "10", "--weeks", "2", "--out", ""], 1, "--out '': give the file to write"),
    ],
)
def test_an_empty_value_is_refused_and_nothing_is_created(tmp_path, run_cli, args, status, says):
    config = tmp_path / "agentrank.toml"
    config.write_text(UNREACHABLE)
    line = one_line(run_cli("--config", str(config), *args, expect=status))
    assert says in line
    assert [p.name for p in tmp_path.iterdir()] == ["agentrank.toml"]


def test_explain_since_empty_is_refused(run_cli, working_copy):
    # It explained the score itself, as without --since.
    line = one_line(run_cli("explain", "inputs/agent-3", "--since", "", expect=2))
    assert "--since '': give 'previous', a score run id or an ISO date" in line


# -- 5: an output path that names a folder -------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["export", "--out", "sub/"],
        ["export", "--out", "sub/."],
        ["snapshot", "--out", "sub/"],
        ["refresh", "--from-file", "items.json", "--out", "sub/"],
    ],
)
def test_an_out_that_names_a_folder_is_refused(tmp_path, run_cli, working_copy, monkeypatch, args):
    # `--out x/` wrote a regular file named x.
    monkeypatch.chdir(tmp_path)
    write_json(tmp_path / "items.json", [make_item(id=9801, full_name="out/agent")])
    before, files = db_content(working_copy), sorted(p.name for p in tmp_path.iterdir())
    line = one_line(run_cli(*args, expect=1))
    assert f"--out {args[-1]!r}: names a folder; give a file in it" in line
    assert db_content(working_copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == files


def test_demo_refuses_an_out_that_names_a_folder(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line(run_cli("demo", "--no-serve", "--size", "10", "--weeks", "2", "--out", "sub/", expect=1))
    assert "--out 'sub/': names a folder" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", ["sub/", "."])
def test_an_export_path_that_names_a_folder_is_refused_at_load(tmp_path, run_cli, working_copy, monkeypatch, path):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[export]\npath = "{path}"\n')
    line = one_line(run_cli("--config", str(config), "export", expect=1))
    assert f"{config}: bad value for 'export.path': names a folder" in line
    assert not (tmp_path / "sub").exists()


# -- 6: refresh --from-file reads the files before the database ----------------------------------------

BAD_SAVED = [
    ("bad.json", '[{"id": 1,'),
    ("page.json", '{"total_count": 1, "items": "x"}'),
    ("none.json", "[]"),
    ("rejected.json", '[{"id": 1}]'),
]


@pytest.mark.parametrize(("name", "text"), BAD_SAVED)
def test_refresh_from_a_bad_file_leaves_no_database_or_lock_behind(tmp_path, run_cli, db_path, name, text):
    # It left agentrank.db (with a failed run) and agentrank.db.lock, where `import` leaves nothing.
    (tmp_path / name).write_text(text, encoding="utf-8")
    line = one_line(run_cli("refresh", "--from-file", str(tmp_path / name), expect=1))
    assert str(tmp_path / name) in line and "refresh failed" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize(("name", "text"), BAD_SAVED)
def test_refresh_from_a_bad_file_records_no_run(tmp_path, run_cli, working_copy, name, text):
    (tmp_path / name).write_text(text, encoding="utf-8")
    before = db_content(working_copy)
    one_line(run_cli("refresh", "--from-file", str(tmp_path / name), "--out", str(tmp_path / "x.json"), expect=1))
    assert db_content(working_copy) == before
    assert not (tmp_path / "x.json").exists()


def test_refresh_with_a_bad_corrections_file_leaves_no_database_behind(tmp_path, run_cli):
    corrections = tmp_path / "corrections.toml"
    corrections.write_text("[exclude]\n")
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[corrections]\npath = "{corrections}"\n')
    saved = write_json(tmp_path / "items.json", [make_item(id=9901, full_name="x/y")])
    line = one_line(run_cli("--config", str(config), "refresh", "--from-file", str(saved), expect=1))
    assert str(corrections) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agentrank.toml", "corrections.toml", "items.json"]


# -- 7: a blank path in the configuration --------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "command", "says"),
    [
        # `export` said "--out '': ...", naming an option nobody gave
        ('[export]\npath = " "\n', "export", "bad value for 'export.path': is empty; give a file"),
        ('[export]\npath = ""\n', "export", "bad value for 'export.path': is empty; give a file"),
        # `refresh` said "Error: .: cannot read: [Errno 21] Is a directory"
        ('[corrections]\npath = ""\n', "refresh", "bad value for 'corrections.path': is empty; give a file"),
        ('[corrections]\npath = " "\n', "refresh", "bad value for 'corrections.path': is empty; give a file"),
        ('[corrections]\npath = "."\n', "refresh", "bad value for 'corrections.path': names a folder"),
    ],
)
def test_a_blank_path_in_the_config_is_refused_at_load(tmp_path, run_cli, working_copy, body, command, says):
    config = tmp_path / "agentrank.toml"
    config.write_text(body)
    saved = write_json(tmp_path / "items.json", [make_item(id=9901, full_name="x/y")])
    args = ["--from-file", str(saved)] if command == "refresh" else []
    before = db_content(working_copy)
    line = one_line(run_cli("--config", str(config), command, *args, expect=1))
    assert line.startswith(f"Error: {config}: {says}"), line
    assert db_content(working_copy) == before
