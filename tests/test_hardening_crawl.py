"""Issue 29 (items 2, 8, 14, 15, 17, 20 and issue 28 point 7): a hostile or broken API, a wrong
clock and credentials in the API URL each end a crawl with one line, never a traceback or a hang,
and never store what they should not. GitHub is faked only by the emulator, at the network boundary."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from crawler import emulator as faults
from crawler.clock import FakeClock
from crawler.emulator.server import SECONDARY_MESSAGE
from tests.crawl_helpers import emulated, population, write_config

TOPIC = "ai-agents"
EMPTY_PAGE = '{"total_count": 0, "incomplete_results": false, "items": []}'


@pytest.fixture(scope="module")
def repos():
    return population(600, seed=29)


def dump(db_path: Path) -> list[str]:
    if not db_path.exists():
        return []
    with closing(sqlite3.connect(db_path)) as conn:
        return list(conn.iterdump())


def config_for(tmp_path: Path, **github) -> Path:
    path = write_config(tmp_path / "agentrank.toml", min_interval_s=0, **github)
    path.write_text(path.read_text() + f'[crawl]\ntopics = ["{TOPIC}"]\nkeywords = []\n')
    return path


def one_line_failure(result) -> str:
    assert result.exit_code == 1, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def crawl_in_subprocess(tmp_path: Path, config: Path, url: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """``agentrank crawl`` as its own process with a time limit: a hang fails the test instead of
    hanging it."""
    command = [sys.executable, "-m", "agentrank.cli", "--db", str(tmp_path / "agentrank.db"), "--config", str(config)]
    try:
        return subprocess.run(
            [*command, "crawl", "--api-url", url], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"agentrank crawl was still running after {timeout:.0f} s")


# -- item 8: hostile rate-limit headers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "999999999999"}, "rate-limited until"),
        ({"retry-after": "9" * 400}, "rate-limited until"),
        ({"retry-after": "\u00b2"}, "still rate-limited"),
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "9" * 40}, "still rate-limited"),
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "999999999999"}, "rate-limited until"),
    ],
)
def test_hostile_rate_limit_headers_are_one_line(tmp_path, run_cli, repos, headers, expected):
    config = config_for(tmp_path, max_retries=0, secondary_wait_s=0)
    with emulated(repos) as emulator:
        body = json.dumps({"message": SECONDARY_MESSAGE})
        emulator.inject(faults.raw_answer(body, status=403, headers=headers, times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
    assert expected in one_line_failure(result)


def test_a_huge_reset_on_a_good_answer_stops_cleanly(tmp_path, run_cli, repos):
    """A 200 that says the bucket is empty until the year 33658: the next request is not sent."""
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "999999999999", "x-ratelimit-resource": "search"}
        body = {"total_count": 150, "incomplete_results": False, "items": []}
        link = f'<{emulator.url}/search/repositories?page=2>; rel="next"'
        emulator.inject(faults.raw_answer(json.dumps(body), headers={**headers, "Link": link}))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
    assert "rate-limited until" in one_line_failure(result)


def test_a_body_nested_200k_deep_is_one_line(tmp_path, run_cli, repos):
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        emulator.inject(faults.raw_answer("[" * 200_000 + "]" * 200_000, times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
    assert "nested too deeply" in one_line_failure(result)


def test_an_item_id_past_64_bits_is_a_reject_and_the_crawl_ends(tmp_path, run_cli, db_path, repos):
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        item = {**faults.to_search_item(repos[0]), "id": 10**40, "full_name": "hostile/huge-id"}
        emulator.add_raw(item, stars=10**6, topics=[TOPIC])
        first = run_cli("--config", str(config), "crawl", "--api-url", emulator.url)
        again = run_cli("--config", str(config), "crawl", "--api-url", emulator.url)
    # The run ends (a part GitHub counts one more repo in cannot be verified: incomplete, nothing
    # delisted), and the next crawl is a new run, not a resume of the same page.
    assert first.stdout.startswith("crawl run 1 (") and again.stdout.startswith("crawl run 2 (")
    assert "resumed" not in again.stdout
    with closing(sqlite3.connect(db_path)) as conn:
        reasons = [row[0] for row in conn.execute("select reason from rejects where run_id = 1")]
    assert len(reasons) == 1 and reasons[0].startswith("id:")


# -- items 14, 15, 20: hangs, bombs and answers GitHub never gives -----------------------------------------


def test_a_total_count_of_10_to_the_15_does_not_hang(tmp_path, repos):
    items = [faults.to_search_item(r) for r in repos[:5]]
    body = json.dumps({"total_count": 10**15, "incomplete_results": False, "items": items})
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        emulator.inject(faults.raw_answer(body, times=None))
        done = crawl_in_subprocess(tmp_path, config, emulator.url)
    assert done.returncode == 1 and "not a valid response" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_link_past_the_last_page_does_not_loop(tmp_path, repos):
    """Every page links to page 2 and claims 950 results: the crawl reads pages 1-10 and stops."""
    item = faults.to_search_item(repos[0])
    body = json.dumps({"total_count": 950, "incomplete_results": False, "items": [item]})
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        link = f'<{emulator.url}/search/repositories?q=x&page=2>; rel="next"'
        emulator.inject(faults.raw_answer(body, headers={"Link": link}, times=None))
        done = crawl_in_subprocess(tmp_path, config, emulator.url)
        pages = sorted({r.page for r in emulator.search_requests()})
    assert done.returncode == 0, done.stderr
    assert max(pages) <= 10


def test_a_next_link_to_another_search_is_not_followed(tmp_path, run_cli, repos):
    """Page 1 of every query links "next" to page 2 of another query on the same host: its results
    were listed as this query's. The next page is asked for by number, with this query."""
    item = faults.to_search_item(repos[0])
    body = json.dumps({"total_count": 150, "incomplete_results": False, "items": [item]})
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        link = (
            f'<{emulator.url}/search/repositories?q=topic%3Aevil&sort=stars&order=desc&per_page=100&page=2>; rel="next"'
        )
        emulator.inject(faults.raw_answer(body, headers={"Link": link}, page=1, times=None))
        run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
        asked = [r.params.get("q", "") for r in emulator.search_requests()]
    assert asked and not any("evil" in q for q in asked)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"total_count": -5, "incomplete_results": false, "items": []}', "not a valid response"),
        ('{"total_count": 1, "total_count": 0, "incomplete_results": false, "items": []}', "twice in one object"),
        (json.dumps({"total_count": 1000, "incomplete_results": False, "items": [{}] * 1000}), "not a valid response"),
    ],
    ids=["negative-total", "duplicate-key", "1000-items-on-a-page"],
)
def test_answers_github_never_gives_are_refused(tmp_path, run_cli, db_path, repos, body, expected):
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        emulator.inject(faults.raw_answer(body, times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
    assert expected in one_line_failure(result)
    with closing(sqlite3.connect(db_path)) as conn:
        assert conn.execute("select count(*) from rejects").fetchone()[0] == 0
        assert conn.execute("select count(*) from repos").fetchone()[0] == 0


def test_a_gzip_bomb_stops_at_the_cap(tmp_path, run_cli, repos):
    """40 MB of JSON that gzip packs into some 40 kB: the crawler stops reading at 32 MB."""
    body = EMPTY_PAGE[:-1] + " " * (40 * 2**20) + "}"
    config = config_for(tmp_path, max_retries=0)
    with emulated(repos) as emulator:
        emulator.inject(faults.raw_answer(body, gzip_body=True, times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
    assert "larger than 32 MB" in one_line_failure(result)


@pytest.mark.parametrize("headers_too", [False, True], ids=["body", "headers-and-body"])
def test_an_answer_trickled_a_byte_at_a_time_meets_the_deadline(tmp_path, run_cli, repos, headers_too):
    """Each byte comes well within the read timeout, the whole answer never within timeout_s."""
    config = config_for(tmp_path, max_retries=0, timeout_s=1)
    with emulated(repos) as emulator:
        emulator.inject(faults.raw_answer(EMPTY_PAGE, trickle_s=0.1, trickle_headers=headers_too, times=None))
        result = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=None)
    assert "no complete answer within timeout_s (1 s)" in one_line_failure(result)


# -- item 2: credentials in the API URL ----------------------------------------------------------------


def test_credentials_in_the_api_url_are_refused_and_never_shown(tmp_path, run_cli, db_path, repos):
    config = config_for(tmp_path)
    saved = tmp_path / "items.json"
    saved.write_text(json.dumps([faults.to_search_item(r) for r in repos[:20]]))
    run_cli("--config", str(config), "import", str(saved))
    with emulated(repos) as emulator:
        host = emulator.url.removeprefix("http://")
        secret_url = f"http://alice:s3cretpass@{host}"
        before = dump(db_path)
        for args, env in (
            (("crawl", "--api-url", secret_url), None),
            (("crawl",), {"GITHUB_API_URL": secret_url}),
            (("refresh", "--api-url", secret_url), None),
        ):
            result = run_cli("--config", str(config), *args, env=env, expect=None)
            line = one_line_failure(result)
            assert "GITHUB_TOKEN" in line and "s3cretpass" not in result.output + result.stderr
            assert dump(db_path) == before
        assert emulator.log == []  # nothing was sent anywhere
    file_config = tmp_path / "with-secret.toml"
    file_config.write_text(f'[github]\napi_url = "{secret_url}"\n')
    line = one_line_failure(run_cli("--config", str(file_config), "crawl", expect=None))
    assert "github.api_url" in line and "s3cretpass" not in line


# -- issue 28 point 7, item 17: what cannot recover fails at once; a wrong clock records nothing ----------------


def test_a_server_that_drops_the_connection_is_not_called_unreachable(tmp_path, run_cli):
    """It answers the connection, then closes it without a word: the line said "cannot reach host:
    check the network connection, the proxy settings", though the host had just been reached."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    port = server.getsockname()[1]
    stop = threading.Event()

    def drop() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            conn.recv(65536)
            conn.close()

    thread = threading.Thread(target=drop, daemon=True)
    thread.start()
    try:
        config = config_for(tmp_path, max_retries=0)
        result = run_cli("--config", str(config), "crawl", "--api-url", f"http://127.0.0.1:{port}", expect=None)
    finally:
        stop.set()
        thread.join()
        server.close()
    line = one_line_failure(result)
    assert "broke off" in line and "cannot reach" not in line


def test_connection_refused_is_one_line_at_once(tmp_path, run_cli, db_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = config_for(tmp_path, max_retries=5)  # at the old backoff, 2 + 4 + 8 + 16 + 32 s of retries
    result = run_cli("--config", str(config), "crawl", "--api-url", f"http://127.0.0.1:{port}", expect=None)
    line = one_line_failure(result)
    assert "connection failed" in line and f"cannot reach 127.0.0.1:{port}" in line
    assert "retrying" not in result.stderr
    assert not db_path.exists()


@pytest.mark.parametrize("days", [400, -400])
def test_a_clock_far_from_githubs_records_nothing(tmp_path, run_cli, db_path, repos, days):
    config = config_for(tmp_path)
    saved = tmp_path / "items.json"
    saved.write_text(json.dumps([faults.to_search_item(r) for r in repos[:20]]))
    run_cli("--config", str(config), "import", str(saved))
    before = dump(db_path)
    # GitHub's clock is `days` behind this machine's: this machine's clock is that far ahead.
    with emulated(repos, clock=FakeClock(time.time() - days * 86400)) as emulator:
        for command in ("crawl", "refresh"):
            result = run_cli("--config", str(config), command, "--api-url", emulator.url, expect=None)
            line = one_line_failure(result)
            assert f"{abs(days)} days {'ahead of' if days > 0 else 'behind'} GitHub's" in line
            assert dump(db_path) == before


def test_a_checkpoint_past_the_last_page_is_not_re_entered(tmp_path, run_cli, db_path, repos):
    """A crawl left (by an older version) paging at page 11 resumes, marks the part done and ends."""
    config = config_for(tmp_path)
    with emulated(repos) as emulator:
        run_cli("--config", str(config), "crawl", "--api-url", emulator.url)
        with closing(sqlite3.connect(db_path)) as conn:
            conn.execute("update crawl_parts set state = 'paging', next_page = 11, verified = 0")
            conn.execute("update runs set status = 'interrupted' where kind = 'crawl'")
            conn.commit()
        done = crawl_in_subprocess(tmp_path, config, emulator.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("crawl run 1 (") and "resumed" in done.stdout
