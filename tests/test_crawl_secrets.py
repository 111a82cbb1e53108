"""Done-when 4 (§7.G): the token never appears in output, logs, exceptions, the database or the export."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from crawler import emulator as faults
from crawler.client import GitHubClient, GitHubError
from crawler.clock import FakeClock
from crawler.repository import fetch_repo
from crawler.secrets import install_redaction, redact
from tests.crawl_helpers import TOKEN, crawl_config, emulated, population, write_config

LEAKS = (TOKEN, "ghp_", "github_pat_", TOKEN[4:])


def assert_clean(text: str, where: str) -> None:
    for needle in LEAKS:
        assert needle not in text, f"{needle!r} found in {where}"


@pytest.fixture
def debug_log(tmp_path):
    """Every logger at DEBUG into a file, as an operator chasing a problem would run it."""
    path = tmp_path / "debug.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield path
    root.removeHandler(handler)
    root.setLevel(old_level)
    handler.close()


def test_the_token_is_sent_but_never_written_anywhere(tmp_path, run_cli, db_path, debug_log, monkeypatch):
    import tenacity

    import crawler.client

    # Retries after a transient failure wait 2–3 s each; the token's path through them is the same
    # with a short wait (what this test is about), and the run takes 9 s less.
    monkeypatch.setattr(crawler.client, "TRANSIENT_BACKOFF", tenacity.wait_fixed(0.05))
    repos = population(1500, seed=61)
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0, max_wait_s=3600, max_retries=1)
    env = {"GITHUB_TOKEN": TOKEN}
    outputs = []
    with emulated(repos, tokens={TOKEN}) as emulator:
        # A crawl through faults: secondary limit, 5xx, a broken body, HTML, a reset too far away.
        emulator.inject(faults.secondary_limit(retry_after=1, page=2))
        emulator.inject(faults.error_status(502, page=3))
        emulator.inject(faults.cut_body(page=1, q="topic:llm-agent"))
        emulator.inject(faults.html_page(page=1, q="topic:multi-agent"))
        emulator.inject(faults.primary_limit(reset_in=7200, q="topic:coding-agent"))
        outputs.append(run_cli("--config", str(config), "-v", "crawl", "--api-url", emulator.url, env=env, expect=1))
        outputs.append(run_cli("--config", str(config), "-v", "crawl", "--api-url", emulator.url, env=env))
        # Refusals that end the run with an error message.
        for fault in (
            faults.error_status(403, "Resource not accessible by personal access token"),
            faults.error_status(422),
            faults.error_status(502, times=None),
        ):
            emulator.inject(fault)
            outputs.append(
                run_cli("--config", str(config), "crawl", "--api-url", emulator.url, "--fresh", env=env, expect=1)
            )
            emulator.faults.clear()
        assert {r.auth for r in emulator.log} == {"Bearer"}  # the token was really sent
    with emulated(repos, tokens={"ghp_" + "z" * 36}) as strict:
        outputs.append(run_cli("--config", str(config), "crawl", "--api-url", strict.url, "--fresh", env=env, expect=1))
        assert "401 Bad credentials" in outputs[-1].stderr
    outputs.append(run_cli("score"))
    export = tmp_path / "export.json"
    outputs.append(run_cli("export", "--out", str(export)))

    for number, result in enumerate(outputs):
        assert_clean(result.stdout + result.stderr, f"output of command {number}")
    assert "HTTP Request: GET" in debug_log.read_text(encoding="utf-8")  # the debug log did record requests
    assert_clean(debug_log.read_text(encoding="utf-8"), "the debug log")
    conn = sqlite3.connect(db_path)
    assert_clean("\n".join(conn.iterdump()), "the database")
    conn.close()
    for suffix in ("-wal", "-shm"):
        wal = db_path.with_name(db_path.name + suffix)
        if wal.exists():
            assert TOKEN.encode() not in wal.read_bytes()
    assert TOKEN.encode() not in db_path.read_bytes()
    assert_clean(export.read_text(encoding="utf-8"), "the export")


def test_a_server_that_echoes_the_token_gets_it_nowhere(tmp_path, run_cli, db_path):
    """Items whose fields quote the token (a valid one, a rejected one) and stored errors that quote it."""
    from db.runs import finish_run, start_run
    from db.store import open_store
    from tests.conftest import make_item

    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(population(30, seed=5), tokens={TOKEN}) as emulator:
        good = make_item(id=990_001, full_name="echo/good", description=f"leaked {TOKEN} here", topics=["ai-agent"])
        bad = make_item(id=990_002, full_name="echo/bad", created_at=f"token {TOKEN}", topics=["ai-agent"])
        emulator.add_raw(good, stars=900, topics=["ai-agent"], description=good["description"])
        emulator.add_raw(bad, stars=900, topics=["ai-agent"])
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, env={"GITHUB_TOKEN": TOKEN})
    assert_clean(result.stdout + result.stderr, "the crawl's output")
    db = open_store(db_path)
    assert db.execute("select description from repos where id = 990001").fetchone()[0] == "leaked [redacted] here"
    assert db.execute("select count(*) from rejects").fetchone()[0] >= 1
    # An error worded anywhere (e.g. quoting a redirect's URL) is stored without the token.
    run_id = start_run(db, "crawl", details={"url": f"https://x-access-token:{TOKEN}@evil.example/"})
    finish_run(db, run_id, "failed", error=f"redirected to https://x-access-token:{TOKEN}@evil.example/")
    assert_clean("\n".join(db.conn.iterdump()), "the database")
    db.close()


def test_a_token_echoed_with_json_escapes_is_redacted_too(tmp_path, run_cli, db_path):
    """``\\u0067hp_…`` only becomes the token once the JSON is decoded: it was stored as is."""
    import json

    from tests.conftest import make_item

    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    escaped = "\\u" + format(ord(TOKEN[0]), "04x") + TOKEN[1:]
    item = make_item(id=990_003, full_name="echo/escaped", topics=["ai-agent"], stargazers_count=900)
    item["description"] = "DESC"
    page = json.dumps({"total_count": 1, "incomplete_results": False, "items": [item]}).replace(
        "DESC", f"leaked {escaped}"
    )
    with emulated(population(30, seed=5), tokens={TOKEN}) as emulator:
        emulator.inject(faults.raw_answer(page, q="topic:ai-agent", times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, env={"GITHUB_TOKEN": TOKEN})
    assert_clean(result.stdout + result.stderr, "the crawl's output")
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("select description from repos where id = 990003").fetchone() == ("leaked [redacted]",)
        assert_clean("\n".join(conn.iterdump()), "the database")


def test_a_token_echoed_percent_encoded_is_redacted_too(tmp_path, run_cli, db_path):
    """A token that is not GitHub-shaped (a proxy's, with / + =) quoted back URL-encoded."""
    from urllib.parse import quote

    from tests.conftest import make_item

    token = "proxy/tok+en=" + "z" * 24
    encoded = quote(token, safe="")
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(population(30, seed=5), tokens={token}) as emulator:
        item = make_item(id=990_004, full_name="echo/encoded", description=f"see ?t={encoded}", topics=["ai-agent"])
        emulator.add_raw(item, stars=900, topics=["ai-agent"], description=item["description"])
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, env={"GITHUB_TOKEN": token})
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("select description from repos where id = 990004").fetchone() == ("see ?t=[redacted]",)
        dump = "\n".join(conn.iterdump())
    for text in (result.stdout + result.stderr, dump):
        assert token not in text and encoded not in text


def test_exceptions_do_not_carry_the_token():
    repos = population(50, seed=62)
    with emulated(repos, clock=FakeClock(), tokens={"ghp_" + "y" * 36}) as emulator:
        with GitHubClient(crawl_config().github, api_url=emulator.url, token=TOKEN, clock=emulator.clock) as client:
            with pytest.raises(GitHubError) as caught:
                fetch_repo(client, repos[0].full_name)
            assert_clean(str(caught.value) + repr(caught.value) + repr(client._http.headers), "the exception")
            assert "[secure]" in repr(client._http.headers)


def test_log_records_are_redacted_whatever_logs_them(caplog):
    install_redaction(TOKEN)
    logging.getLogger("some.library").warning("sending Authorization: Bearer %s", TOKEN)
    logging.getLogger("other").error("a fine-grained github_pat_%s leaked", "A" * 40)
    try:
        raise RuntimeError(f"failed with {TOKEN}")
    except RuntimeError:
        logging.getLogger("x").exception("boom")
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    assert_clean(text, "the captured log")
    assert "[redacted]" in text
    assert redact(f"token={TOKEN}") == "token=[redacted]"


@pytest.mark.parametrize(
    ("args", "env"),
    [
        # refresh checked the URL before the token was known to be a secret
        (["refresh", "--api-url", "https://api.github.com/{t}?x=1"], {}),
        (["--config", "/tmp/{t}/agentrank.toml", "score"], {}),
        (["score"], {"GITHUB_API_URL": "ftp://{t}"}),
    ],
)
def test_an_error_quoting_a_value_that_holds_the_token_never_shows_it(tmp_path, db_path, args, env):
    from click.testing import CliRunner

    from agentrank.cli import cli

    token = "plainSecretValue42"  # not shaped like ghp_…: only knowing it is the token redacts it
    result = CliRunner().invoke(
        cli,
        ["--db", str(db_path), *(a.format(t=token) for a in args)],
        env={"GITHUB_TOKEN": token, **{k: v.format(t=token) for k, v in env.items()}},
    )
    assert result.exit_code != 0 and "Error:" in result.output
    assert token not in result.output, result.output


def test_a_refresh_refused_by_github_at_its_first_call_is_recorded_without_the_token(tmp_path, run_cli, db_path):
    """A refresh whose first call GitHub refused (401) or could not answer left no runs row at all, so
    the week's failure showed nowhere in the runs table; it is recorded now, and the token is not.
    (On a database the refresh itself created, which then holds nothing else, nothing is left:
    tests/test_refresh.py::test_a_first_refresh_that_never_reached_github_leaves_no_database_behind.)"""
    from db.store import open_store

    open_store(db_path).close()  # the week's database, there before the refresh
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0, max_retries=1)
    out = tmp_path / "site.json"
    with emulated(population(20, seed=3), tokens={"ghp_" + "z" * 36}) as strict:
        result = run_cli(
            "--config", str(config), "refresh", "--api-url", strict.url, "--out", str(out), env={"GITHUB_TOKEN": TOKEN}, expect=1
        )  # fmt: skip
    assert "401" in result.stderr and "failed in the crawl stage" in result.stderr
    assert_clean(result.stdout + result.stderr, "the refresh's output")
    conn = sqlite3.connect(db_path)
    rows = conn.execute("select kind, status, error, details from runs").fetchall()
    assert_clean("\n".join(conn.iterdump()), "the database")
    conn.close()
    assert [(k, s) for k, s, _, _ in rows] == [("refresh", "failed")], rows
    assert rows[0][2].startswith("crawl stage failed:") and '"failed_stage": "crawl"' in rows[0][3]
    assert not out.exists()
