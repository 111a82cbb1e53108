"""Done-when 3: a crawl killed at any point (SIGKILL included) resumes and ends with the same data;
§7.B 3 (a reset hours away stops the run cleanly); §7.D 3 (two crawls at once)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from crawler import emulator as faults
from db.store import open_store
from tests.crawl_helpers import emulated, population, write_config

CLI = [sys.executable, "-c", "from agentrank.cli import cli; cli()"]
ROOT = Path(__file__).resolve().parent.parent
# Everything a crawl stores, minus the columns that say *when* it ran.
COMPARED = {
    "repos": "select * from repos order by id",
    "repo_names": "select repo_id, full_name from repo_names order by 1, 2",
    "snapshots": "select run_id, repo_id, full_name, stars, forks, pushed_at from snapshots order by 1, 2",
    "rejects": "select run_id, repo_id, full_name, reason from rejects order by 2, 3",
    "runs": "select id, kind, status, items, saved, new, updated, rejected, listed from runs order by id",
}
TIME_COLUMNS = {"first_seen_at", "last_seen_at"}


def stored_data(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    data = {}
    for table, sql in COMPARED.items():
        rows = conn.execute(sql).fetchall()
        data[table] = [
            tuple(v for k, v in zip(r.keys(), tuple(r), strict=False) if k not in TIME_COLUMNS) for r in rows
        ]
    conn.close()
    return data


def agentrank(db: Path, config: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("GITHUB_TOKEN", None)
    return subprocess.run(
        [*CLI, "--db", str(db), "--config", str(config), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,
    )


@pytest.fixture(scope="module")
def repos():
    return population(3000, seed=51)


@pytest.mark.parametrize("when", ["paging", "verifying"])
def test_sigkill_mid_crawl_then_restart_ends_with_the_data_of_an_uninterrupted_crawl(tmp_path, repos, when):
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    reference, killed = tmp_path / "reference.db", tmp_path / "killed.db"
    with emulated(repos) as emulator:
        done = agentrank(reference, config, "crawl", "--api-url", emulator.url)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("crawl run 1 (complete)") and done.stderr == ""  # quiet without a terminal
        full = emulator.search_requests()
        if when == "paging":
            middle = next(r for r in full[len(full) // 2 :] if r.page >= 2)
        else:  # the verification pass: its last first page fetched again (then that part's last page)
            middle = next(r for r in reversed(full) if r.page == 1)
        same = [r for r in full if r.params == middle.params]
        held = emulator.inject(faults.hold(q=middle.params["q"], page=middle.page, after=same.index(middle)))

        command = [*CLI, "--db", str(killed), "--config", str(config), "crawl", "--api-url", emulator.url]
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not any(r.fault == "hold" for r in emulator.log):
                assert time.monotonic() < deadline and process.poll() is None, "the crawl never reached the held page"
                time.sleep(0.05)
            # §7.D 3: a second crawl while the first runs exits at once, with a clear message.
            second = agentrank(killed, config, "crawl", "--api-url", emulator.url)
            assert second.returncode == 1
            assert "another agentrank run is already using" in second.stderr and "crawl not started" in second.stderr
            os.kill(process.pid, signal.SIGKILL)
            process.wait(30)
        finally:
            if process.poll() is None:
                process.kill()
            held.event.set()
        assert process.returncode == -signal.SIGKILL

        db = open_store(killed)
        assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
        assert db["runs"].get(1)["status"] == "running"
        saved_before = db.execute("select count(*) from repos").fetchone()[0]
        assert saved_before > 0
        checkpoint = db.execute("select count(*) from crawl_parts where state = 'done'").fetchone()[0]
        assert checkpoint >= 1
        sightings = db.execute("select count(distinct repo_id) from crawl_sightings").fetchone()[0]
        assert sightings == saved_before  # each committed page came with its checkpoint
        db.close()

        before = len(emulator.search_requests())
        resumed = agentrank(killed, config, "crawl", "--api-url", emulator.url)
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout.startswith("crawl run 1 (complete, resumed)")
        after = emulator.search_requests()[before:]
    assert after[0].params["q"] == middle.params["q"] and after[0].page == middle.page  # it picked up there
    assert len(after) < len(full)
    assert stored_data(killed) == stored_data(reference)


def test_reset_hours_away_stops_cleanly_and_the_next_run_resumes_at_that_page(tmp_path, repos, run_cli):
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(repos) as emulator:
        q = "topic:ai-agents stars:>=200 archived:false"
        emulator.inject(faults.primary_limit(reset_in=3 * 3600, page=2, q=q))
        stopped = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=1)
        fault = next(r for r in emulator.log if r.fault == "primary")
        until = datetime.fromtimestamp(int(fault.t + 3 * 3600 + 0.999) + 1, UTC)
        assert stopped.stderr.strip() == f"Error: rate-limited until {until:%H:%M} UTC; resume later"
        assert len([r for r in emulator.log if r.fault == "primary"]) == 1  # it did not sleep and retry
        db = open_store(tmp_path / "agentrank.db")
        run = db["runs"].get(1)
        assert run["status"] == "interrupted" and run["error"].startswith("rate-limited until")
        part = next(db.query("select next_page, state from crawl_parts where q = ?", [q]))
        assert part == {"next_page": 2, "state": "paging"}
        before = len(emulator.search_requests())
        resumed = run_cli("--config", str(config), "crawl", "--api-url", emulator.url)
        assert "(complete, resumed)" in resumed.stdout
        first = emulator.search_requests()[before]
        assert first.params["q"] == q and first.page == 2
        reference = tmp_path / "reference.db"
        assert agentrank(reference, config, "crawl", "--api-url", emulator.url).returncode == 0
    assert stored_data(tmp_path / "agentrank.db") == stored_data(reference)


def test_fresh_starts_a_new_crawl_instead_of_resuming(tmp_path, repos, run_cli):
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(repos) as emulator:
        emulator.inject(faults.primary_limit(reset_in=3 * 3600, page=2, q="topic:ai-agents"))
        run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=1)
        fresh = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, "--fresh")
    assert fresh.stdout.startswith("crawl run 2 (complete)")
    db = open_store(tmp_path / "agentrank.db")
    assert [r["status"] for r in db.query("select status from runs order by id")] == ["interrupted", "ok"]


def test_api_url_comes_from_the_flag_then_the_environment_then_the_config(tmp_path, repos, run_cli):
    with emulated(repos[:200]) as emulator:
        config = write_config(tmp_path / "agentrank.toml", min_interval_s=0, api_url=emulator.url)
        assert run_cli("--config", str(config), "crawl").stdout.startswith("crawl run 1 (complete)")
        with emulated(repos[:200]) as other:
            run_cli("--config", str(config), "crawl", env={"GITHUB_API_URL": other.url})
            assert other.log
            count = len(other.log)
            with emulated(repos[:200]) as third:
                run_cli("--config", str(config), "crawl", "--api-url", third.url, env={"GITHUB_API_URL": other.url})
                assert third.log and len(other.log) == count


def test_unreachable_api_is_one_clear_line(tmp_path, run_cli):
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0, max_retries=0)
    result = run_cli("--config", str(config), "crawl", "--api-url", "ftp://example.invalid", expect=1)
    assert result.stderr.strip() == "Error: API URL must be an http(s) URL, got 'ftp://example.invalid'"
    # The weekly job refuses it the same way, before the database (or its lock) exists.
    result = run_cli("--config", str(config), "refresh", "--api-url", "ftp://user:pw@example.invalid", expect=1)
    assert result.stderr.strip() == "Error: API URL must be an http(s) URL, got 'ftp://example.invalid'"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agentrank.toml"]


@pytest.mark.parametrize("retry_after", ["3600", "99999999999"])
def test_a_5xx_asking_to_come_back_in_an_hour_stops_cleanly_and_resumes(tmp_path, repos, run_cli, retry_after):
    # A maintenance page: 503 with Retry-After. It was slept in full, silently (an hour), or, past
    # what a timestamp holds, ended in a traceback; a wait past max_wait_s stops the run, resumable.
    config = write_config(tmp_path / "agentrank.toml", min_interval_s=0)
    with emulated(repos) as emulator:
        q = "topic:ai-agents stars:>=200 archived:false"
        emulator.inject(faults.error_status(503, page=2, q=q, headers={"Retry-After": retry_after}))
        stopped = run_cli("--config", str(config), "crawl", "--api-url", emulator.url, expect=1)
        # Said as what it is: a server error asking for a wait, not a rate limit.
        assert stopped.stderr.startswith("Error: GitHub answered 503 ") and stopped.stderr.strip().endswith(
            "and asks to wait until " + stopped.stderr.split("asks to wait until ")[-1].strip()
        )
        assert stopped.stderr.strip().endswith("UTC; resume later") and "rate-limited" not in stopped.stderr
        assert len(stopped.stderr.strip().splitlines()) == 1
        db = open_store(tmp_path / "agentrank.db")
        assert db["runs"].get(1)["status"] == "interrupted"
        assert next(db.query("select next_page from crawl_parts where q = ?", [q])) == {"next_page": 2}
        resumed = run_cli("--config", str(config), "crawl", "--api-url", emulator.url)
        assert "(complete, resumed)" in resumed.stdout
