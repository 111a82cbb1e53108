"""Issue 29, an independent audit's findings: each input here broke a command or a page on the
merged main (a traceback, a 500, or a refused command that still wrote into the database)."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from datasette_plugins.settings import ServeConfig
from tests.conftest import make_item, write_json
from tests.test_hardening_serve import _get


@pytest.fixture(scope="module")
def working_db(tmp_path_factory) -> Path:
    """Imported, classified and scored: every table and view a page reads has rows."""
    from click.testing import CliRunner

    from agentrank.cli import cli

    tmp = tmp_path_factory.mktemp("audit")
    db_path = tmp / "agentrank.db"
    items = [make_item(seed=i, id=i, stargazers_count=300 + i) for i in range(1, 20)]
    for args in (["import", str(write_json(tmp / "items.json", items))], ["classify"], ["score"]):
        result = CliRunner().invoke(cli, ["--db", str(db_path), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return db_path


def dump(db_path: Path) -> list[str]:
    with closing(sqlite3.connect(db_path)) as conn:
        return list(conn.iterdump())


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


# -- item 9: tracebacks from the command line ------------------------------------------------------


@pytest.mark.parametrize("run", ["9" * 1000, "9223372036854775808", "0"])
def test_redate_run_with_a_run_number_past_64_bits_is_one_line(working_db, run_cli, run):
    result = run_cli("--db", str(working_db), "redate-run", run, "--to", "2026-11-01T00:00:00Z", expect=2)
    assert "RUN" in one_line(result)


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "acme/coder"],
        ["export", "--out", "x.json"],
        ["snapshot", "--out", "s.db"],
        ["redate-run", "1", "--to", "2026-11-01T00:00:00Z"],
        ["score"],
    ],
)
def test_a_zero_byte_file_is_no_database_and_stays_empty(tmp_path, run_cli, args):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    result = run_cli(
        "--db", str(empty), *[str(tmp_path / a) if a.endswith((".json", ".db")) else a for a in args], expect=1
    )
    assert "no database at" in one_line(result)
    assert empty.stat().st_size == 0


# -- item 9: config values accepted at load that broke every page at use ----------------------------


@pytest.mark.parametrize("name", ["max_value_bytes", "max_sql_bytes", "max_returned_rows", "num_sql_threads"])
def test_serve_limits_past_what_sqlite_takes_are_refused_at_load(run_cli, tmp_path, name):
    config = tmp_path / "agentrank.toml"
    config.write_text(f"[serve]\n{name} = {'9' * 30}\n")
    result = run_cli("--config", str(config), "serve", "--port", "0", expect=1)
    assert f"serve.{name}" in one_line(result)
    with pytest.raises(ValueError):
        ServeConfig(**{name: 2**31})


@pytest.mark.parametrize(
    ("host", "says"),
    [("bad host!", "not an address or a host name"), ("999.1.1.1", "not an address or a host name")],
)
def test_a_host_serve_cannot_listen_on_is_named_as_the_trouble(run_cli, working_db, host, says):
    # It printed a public_url warning built from the bad host, then "is another server using it?
    # Choose another with --port N": two lines, and advice about the port when the host was wrong.
    result = run_cli("--db", str(working_db), "serve", "--host", host, "--port", "8797", expect=1)
    line = one_line(result)
    assert f"host {host!r}: {says}" in line and "--port" not in line


def test_the_largest_value_limits_still_serve_pages(working_db):
    settings = ServeConfig(max_value_bytes=2**31 - 1, max_sql_bytes=2**31 - 1, max_returned_rows=10_000_000)
    assert _get(working_db, "/DB/agents", settings).status_code == 200


# -- item 6: parameters Datasette reads without checking ---------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/DB/agents?_timelimit=x",
        "/DB/agents.json?_timelimit=%c0%80",
        "/DB/agents.csv?_timelimit=-1",
        "/DB/agents?_timelimit=1.5",
        "/DB/repos?_through=x",
        "/DB/repos.json?_through=%7B%7D",
        "/DB/repos?_through=%5B%5D",
        "/DB/repos.csv?_through=%0d%0a",
        "/DB/repos?_through=%7B%22table%22:%22x%22,%22column%22:%22y%22,%22value%22:1%7D",
    ],
)
def test_unreadable_timelimit_and_through_are_400(working_db, path):
    response = _get(working_db, path)
    assert response.status_code == 400, (response.status_code, response.text[:300])


def test_a_good_timelimit_still_serves(working_db):
    assert _get(working_db, "/DB/agents?_timelimit=500").status_code == 200


@pytest.mark.parametrize("segment", ["1", "%00", "%c0%80", "x"])
def test_a_row_of_a_table_keyed_by_several_columns_addressed_by_one_value_is_404(working_db, segment):
    response = _get(working_db, f"/DB/scores/{segment}")
    assert response.status_code == 404, (response.status_code, response.text[:300])


# -- item 2: a credential in the API URL's query or fragment ------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/?access_token=SECRET1",
        "http://127.0.0.1:9/api/v3?token=SECRET1",
        "http://127.0.0.1:9/#SECRET1",
        "http://u:SECRET1@127.0.0.1:9/?x=SECRET1",
    ],
)
def test_a_query_or_fragment_in_the_api_url_is_refused_and_never_shown(tmp_path, working_db, run_cli, url):
    before = dump(working_db)
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[github]\napi_url = "{url}"\n')
    for args, env in (
        (("crawl", "--api-url", url), None),
        (("crawl",), {"GITHUB_API_URL": url}),
        (("refresh", "--api-url", url, "--out", str(tmp_path / "x.json")), None),
        (("--config", str(config), "crawl"), None),
    ):
        result = run_cli("--db", str(working_db), *args, env=env, expect=1)
        line = one_line(result)
        assert "GITHUB_TOKEN" in line and "SECRET1" not in result.output + result.stderr, line
    assert dump(working_db) == before


# -- item 8: hostile rate-limit headers in any text -------------------------------------------------


@pytest.fixture(scope="module")
def repos():
    from tests.crawl_helpers import population

    return population(60, seed=29)


@pytest.mark.parametrize(
    "headers",
    [
        {"retry-after": "\u0663"},  # an Arabic-Indic digit: not Latin-1, sent as UTF-8
        {"retry-after": "\ud55c"},
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "\u0663\u0663"},
    ],
)
def test_a_rate_limit_header_in_any_script_is_one_line(tmp_path, run_cli, repos, headers):
    import json

    from crawler import emulator as faults
    from crawler.emulator.server import SECONDARY_MESSAGE
    from tests.crawl_helpers import emulated
    from tests.test_hardening_crawl import config_for

    config = config_for(tmp_path, max_retries=0, secondary_wait_s=0)
    with emulated(repos) as emulator:
        body = json.dumps({"message": SECONDARY_MESSAGE})
        emulator.inject(faults.raw_answer(body, status=403, headers=headers, times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=1)
    assert "rate-limited" in one_line(result)


def test_a_wait_of_a_year_is_shown_with_its_date(tmp_path, repos):
    import json

    from crawler import emulator as faults
    from crawler.emulator.server import SECONDARY_MESSAGE
    from tests.crawl_helpers import emulated
    from tests.test_hardening_crawl import config_for, crawl_in_subprocess

    config = config_for(tmp_path, max_retries=1, secondary_wait_s=0, max_wait_s=5)
    with emulated(repos) as emulator:
        body = json.dumps({"message": SECONDARY_MESSAGE})
        headers = {"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}
        emulator.inject(faults.raw_answer(body, status=403, headers=headers, times=None))
        # Its own process: the warning is logged to the real stderr.
        result = crawl_in_subprocess(tmp_path, config, emulator.url)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines and all(re.search(r"\b20\d\d-\d\d-\d\d\b", line) for line in lines), lines
