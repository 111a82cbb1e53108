"""The weekly schedule, driven through apscheduler's real job processing with a fake clock."""

import sqlite3
import sys
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from apscheduler.events import EVENT_JOB_SUBMITTED
from apscheduler.executors.debug import DebugExecutor
from apscheduler.schedulers.base import BaseScheduler

from schedules.weekly import configure, next_fire_times, weekly_trigger

WEDNESDAY = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
MONDAY_6 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


class ManualScheduler(BaseScheduler):
    """apscheduler's own job processing, stepped by the test instead of a timer thread.

    ``submitted`` counts runs handed to the executor; it is updated inside ``tick``, so "no run
    happened" can be asserted without racing the executor thread.
    """

    def __init__(self):
        super().__init__()
        self.run_times: list[datetime] = []

    @property
    def submitted(self) -> int:
        return len(self.run_times)

    def _dispatch_event(self, event):
        if event.code == EVENT_JOB_SUBMITTED:
            self.run_times.extend(event.scheduled_run_times)
        super()._dispatch_event(event)

    def wakeup(self):
        pass

    def shutdown(self, wait=True):
        if self.running:
            super().shutdown(wait)

    def tick(self, when: datetime) -> None:
        with time_machine.travel(when, tick=False):
            self._process_jobs()


class Job:
    def __init__(self, block: bool = False):
        self.calls: list[datetime] = []
        self.release = threading.Event()
        self.started = threading.Event()
        self.done = threading.Semaphore(0)
        if not block:
            self.release.set()

    def __call__(self):
        self.calls.append(datetime.now(UTC))
        self.started.set()
        self.release.wait(10)
        self.done.release()

    def settle(self, runs: int = 1):
        # The job runs on the executor thread; wait for the runs the tick submitted.
        for _ in range(runs):
            assert self.done.acquire(timeout=10)


@pytest.fixture
def scheduler():
    s = ManualScheduler()
    yield s
    s.shutdown(wait=False)


def _start(scheduler, job, *, at: datetime, last_success: datetime | None, threads: bool = False, retry_after_s=0):
    # In-thread execution keeps the job (and apscheduler's misfire check) inside the fake time.
    with time_machine.travel(at, tick=False):
        configure(
            scheduler,
            job,
            last_success=last_success,
            retry_after_s=retry_after_s,
            executor=None if threads else DebugExecutor(),
        )
        scheduler.start()


def test_the_next_fire_times_are_mondays_at_six_utc():
    times = next_fire_times(weekly_trigger(), 3, now=WEDNESDAY)
    assert times == [MONDAY_6, MONDAY_6 + timedelta(days=7), MONDAY_6 + timedelta(days=14)]
    assert all(t.weekday() == 0 and (t.hour, t.minute) == (6, 0) and t.tzinfo is not None for t in times)


def test_fires_on_monday_at_six(scheduler):
    job = Job()
    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY - timedelta(days=1))
    for when in (WEDNESDAY + timedelta(hours=1), MONDAY_6 - timedelta(minutes=1)):
        scheduler.tick(when)
    assert scheduler.submitted == 0
    scheduler.tick(MONDAY_6)
    job.settle()
    assert job.calls == [MONDAY_6]
    scheduler.tick(MONDAY_6 + timedelta(hours=2))
    assert scheduler.submitted == 1
    scheduler.tick(MONDAY_6 + timedelta(days=7))
    job.settle()
    assert scheduler.run_times == job.calls == [MONDAY_6, MONDAY_6 + timedelta(days=7)]


def test_a_refresh_missed_during_downtime_runs_once_at_start(scheduler):
    # The machine was down over last Monday: the last success is nine days old.
    job = Job()
    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY - timedelta(days=9))
    scheduler.tick(WEDNESDAY)
    job.settle()
    assert job.calls == [WEDNESDAY]
    for hours in (1, 24, 48):
        scheduler.tick(WEDNESDAY + timedelta(hours=hours))
    assert scheduler.submitted == 1
    scheduler.tick(MONDAY_6)
    job.settle()
    assert scheduler.run_times == job.calls == [WEDNESDAY, MONDAY_6]  # then back on the weekly rhythm


def test_a_late_wake_up_still_runs_and_missed_weeks_coalesce(scheduler):
    job = Job()
    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY)
    # The process was suspended across three Mondays and wakes on a Tuesday.
    scheduler.tick(MONDAY_6 + timedelta(days=15))
    job.settle()
    assert len(job.calls) == 1
    scheduler.tick(MONDAY_6 + timedelta(days=15, hours=1))
    assert scheduler.submitted == 1 and len(job.calls) == 1


def test_runs_never_overlap(scheduler, caplog):
    job = Job(block=True)
    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY, threads=True)
    scheduler.tick(MONDAY_6)
    assert job.started.wait(10)
    # Still running a week later: the next fire is skipped, not started beside it.
    scheduler.tick(MONDAY_6 + timedelta(days=7))
    assert scheduler.submitted == 1 and len(job.calls) == 1
    assert "maximum number of running instances" in caplog.text
    job.release.set()
    job.settle()
    scheduler.tick(MONDAY_6 + timedelta(days=14))
    job.settle()
    assert len(job.calls) == 2


def test_the_configuration_is_not_apschedulers_defaults(scheduler):
    configure(scheduler, Job(), last_success=datetime.now(UTC))
    scheduler.start()
    job = scheduler.get_job("weekly-refresh")
    assert job.misfire_grace_time >= 24 * 3600  # the default of 1 s would skip a late run
    assert job.coalesce is True and job.max_instances == 1
    assert str(job.trigger).startswith("cron[day_of_week='mon', hour='6', minute='0'")


def test_schedule_next_prints_mondays_and_follows_the_config(run_cli, tmp_path):
    lines = run_cli("schedule", "--next", "3").output.strip().splitlines()
    assert len(lines) == 3
    dates = [datetime.fromisoformat(line.split()[0]) for line in lines]
    assert all(line.endswith(" Monday") for line in lines)
    assert all(d.weekday() == 0 and (d.hour, d.minute) == (6, 0) and d.utcoffset().total_seconds() == 0 for d in dates)
    assert [(b - a).days for a, b in zip(dates, dates[1:], strict=False)] == [7, 7]
    config = tmp_path / "agentrank.toml"
    config.write_text('[schedule]\nday_of_week = "wed"\nhour = 3\nminute = 30\n')
    first = run_cli("--config", str(config), "schedule", "--next", "1").output.strip()
    assert first.endswith(" Wednesday") and "T03:30:00+00:00" in first
    config.write_text('[schedule]\nday_of_week = "1"\n')
    assert "schedule.day_of_week" in run_cli("--config", str(config), "schedule", "--next", "1", expect=1).stderr


def test_the_scheduled_job_logs_its_run_and_skips_when_another_holds_the_lock(tmp_path, caplog):
    import logging

    from agentrank.locks import run_lock
    from agentrank.pipeline import scheduled_refresh
    from schedules.jobs import SKIPPED, last_successful_refresh
    from tests.crawl_helpers import emulated, population

    db_path = tmp_path / "agentrank.db"
    with emulated(population(150, seed=4)) as emulator:
        config = tmp_path / "agentrank.toml"
        config.write_text(
            f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\n[export]\npath = "{tmp_path / "site.json"}"\n'
        )
        assert last_successful_refresh(db_path) is None
        with caplog.at_level(logging.INFO, logger="agentrank.schedule"):
            assert scheduled_refresh(str(db_path), str(config)) is True
            with run_lock(db_path, "a manual refresh"):
                assert scheduled_refresh(str(db_path), str(config)) == SKIPPED  # the scheduler retries it
    messages = [r.getMessage() for r in caplog.records if r.name == "agentrank.schedule"]
    assert messages[0].startswith("refresh starting") and messages[1].startswith("refresh finished: run 1")
    assert messages[3].startswith("refresh skipped: another agentrank run is already using")
    assert last_successful_refresh(db_path) is not None
    assert (tmp_path / "site.json").exists()
    # The heartbeat: a failure when the last success is more than eight days old says so, loudly.
    conn = sqlite3.connect(db_path)
    conn.execute("update runs set started_at = '2026-01-01T06:00:00Z' where kind = 'refresh'")
    conn.commit()
    conn.close()
    caplog.clear()
    config.write_text('[github]\napi_url = "http://127.0.0.1:9"\nmax_retries = 0\n')  # nothing answers there
    with caplog.at_level(logging.INFO, logger="agentrank.schedule"):
        assert scheduled_refresh(str(db_path), str(config)) is False
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any(m.startswith("no successful refresh for ") and "out of date" in m for m in errors), errors


def test_a_scheduled_refresh_writes_the_export_beside_the_database_as_refresh_does(tmp_path, monkeypatch):
    """Without [export] path, `refresh` writes data/x-export.json beside `--db data/x.db`, but each
    run of `schedule` wrote agentrank-export.json into whatever folder the service started in."""
    from agentrank.pipeline import scheduled_refresh
    from tests.crawl_helpers import emulated, population

    db_path = tmp_path / "data" / "x.db"
    db_path.parent.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with emulated(population(40, seed=4)) as emulator:
        config = _emulator_config(tmp_path, emulator)
        assert scheduled_refresh(str(db_path), str(config)) is True
    assert (tmp_path / "data" / "x-export.json").is_file()
    assert list(elsewhere.iterdir()) == []


def test_a_slot_passed_while_down_runs_even_when_the_last_success_is_under_a_week_old(scheduler):
    # Fires on Tuesdays; the last success was on Sunday; the process starts on Wednesday: Tuesday's
    # slot passed while it was down, so it runs now (it used to wait for next Tuesday: 9 days).
    job = Job()
    sunday = WEDNESDAY - timedelta(days=3)
    with time_machine.travel(WEDNESDAY, tick=False):
        configure(scheduler, job, last_success=sunday, day_of_week="tue", executor=DebugExecutor())
        scheduler.start()
    scheduler.tick(WEDNESDAY)
    job.settle()
    assert job.calls == [WEDNESDAY]
    # A success after the slot that passed: nothing to catch up.
    later = ManualScheduler()
    try:
        with time_machine.travel(WEDNESDAY, tick=False):
            configure(
                later, Job(), last_success=WEDNESDAY - timedelta(hours=2), day_of_week="tue", executor=DebugExecutor()
            )
            later.start()
        later.tick(WEDNESDAY)
        assert later.submitted == 0
    finally:
        later.shutdown(wait=False)


def _emulator_config(tmp_path, emulator, more: str = ""):
    """agentrank.toml pointing at the emulator, without pauses between requests."""
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[github]\napi_url = "{emulator.url}"\nmin_interval_s = 0\ntimeout_s = 60\n' + more)
    return config


def _schedule_while_crawling(db_path, config, emulator):
    """`agentrank schedule` in a child process, returned once its start-up refresh is crawling."""
    from tests.crawl_helpers import started_crawling

    return started_crawling(db_path, config, emulator, "schedule")


def _stderr_or_where_it_hangs(process, timeout: float) -> str:
    """The process's standard error once it ends; if it has not ended in ``timeout`` seconds, a
    failure that shows where each of its threads is (SIGUSR1), so a rare hang can be read."""
    import signal
    import subprocess

    try:
        return process.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(1)
        process.kill()
        pytest.fail(f"still running after {timeout} s; its stderr and threads:\n{process.communicate()[1]}")


def _refresh_succeeded(db_path) -> bool:
    conn = sqlite3.connect(db_path)
    try:
        return bool(conn.execute("select 1 from runs where kind = 'refresh' and status = 'ok'").fetchall())
    finally:
        conn.close()


def _wait_until_refreshed(db_path, process, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not _refresh_succeeded(db_path):
        assert time.monotonic() < deadline and process.poll() is None, "the refresh did not finish"
        time.sleep(0.2)


def test_usr1_shows_where_each_thread_is_and_the_refresh_goes_on(tmp_path):
    """An operator whose refresh seems stuck can see where it is without stopping it."""
    import signal

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population

    db_path = tmp_path / "agentrank.db"
    with emulated(population(40, seed=6)) as emulator:
        emulator.inject(faults.slow(3, times=1))  # the first search answer takes 3 s
        config = _emulator_config(tmp_path, emulator)
        process = _schedule_while_crawling(db_path, config, emulator)
        process.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
        assert process.poll() is None, "SIGUSR1 stopped the scheduler"
        _wait_until_refreshed(db_path, process)
        process.send_signal(signal.SIGTERM)
        err = _stderr_or_where_it_hangs(process, timeout=30)
    assert "(most recent call first)" in err and "schedules/weekly.py" in err, err
    assert "refresh 1: publish stage started" in err, err


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_stops_the_scheduler_at_once_and_says_so(tmp_path, run_cli, signame):
    """A service manager's SIGTERM during a refresh: the process ended without a word (or, on
    Ctrl-C, lingered minutes on GitHub with the lock). It stops at once, says the refresh was cut
    off, and the next command marks that run interrupted. SIGHUP (the terminal or ssh session the
    scheduler ran in closed) still ended it without a word."""
    import signal

    signum = getattr(signal, signame)

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population

    db_path = tmp_path / "agentrank.db"
    with emulated(population(150, seed=4)) as emulator:
        emulator.inject(faults.slow(30, times=None))  # every search answer takes 30 s: the refresh is busy
        config = _emulator_config(tmp_path, emulator)
        process = _schedule_while_crawling(db_path, config, emulator)
        process.send_signal(signum)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 128 + signum
    assert "stopped at once: the running refresh was cut off" in err and "Traceback" not in err
    run_cli("--config", str(config), "score", expect=1)  # any command that takes the lock tidies up
    statuses = sqlite3.connect(db_path).execute("select kind, status from runs order by id").fetchall()
    assert ("refresh", "interrupted") in statuses


def test_ctrl_c_during_a_refresh_lets_it_finish_and_publish(tmp_path, run_cli):
    """Ctrl-C while the weekly refresh runs: the refresh finishes and publishes, as the log says.
    The main thread used to return at once, so the interpreter began shutting down and the score
    stage's thread pool refused work: the refresh failed and the process still exited 0."""
    import signal

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population

    db_path = tmp_path / "agentrank.db"
    site = tmp_path / "site.json"
    with emulated(population(40, seed=5)) as emulator:
        emulator.inject(faults.slow(2, times=1))  # the first search answer takes 2 s: Ctrl-C lands mid-crawl
        config = _emulator_config(tmp_path, emulator, f'[export]\npath = "{site}"\n')
        process = _schedule_while_crawling(db_path, config, emulator)
        process.send_signal(signal.SIGINT)
        err = _stderr_or_where_it_hangs(process, timeout=120)
    assert "the running refresh finishes first" in err and "Traceback" not in err, err
    assert process.returncode == 0, err
    statuses = sqlite3.connect(db_path).execute("select kind, status from runs order by id").fetchall()
    assert ("refresh", "ok") in statuses and ("refresh", "failed") not in statuses, (statuses, err)
    assert site.exists()


def _signal_a_thread_other_than_main(pid: int, signum: int) -> None:
    """Send ``signum`` to one of the process's threads that is not its main thread, as the kernel
    sometimes does with a signal sent to the process (it picks any thread that does not block it)."""
    import ctypes
    import os

    others = sorted(int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid)
    assert others, "the process has no thread besides its main one"
    libc = ctypes.CDLL(None, use_errno=True)
    SYS_TGKILL = {"x86_64": 234, "aarch64": 131}[os.uname().machine]
    if libc.syscall(SYS_TGKILL, pid, others[-1], signum) != 0:
        raise OSError(ctypes.get_errno(), "tgkill failed")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread-directed signals via /proc and tgkill")
@pytest.mark.parametrize("busy", [True, False], ids=["during a refresh", "idle"])
def test_a_stop_signal_the_kernel_hands_to_a_worker_thread_still_stops_the_scheduler(tmp_path, busy):
    """Ctrl-C or systemd's SIGTERM reach a process, and Linux hands them to any of its threads. When
    a worker thread got one, the main thread slept on until the next weekly slot (days), so
    Ctrl-C did nothing and systemd had to kill the service; it happened about once in 50 test runs."""
    import signal

    from crawler.emulator import server as faults
    from tests.crawl_helpers import emulated, population

    db_path = tmp_path / "agentrank.db"
    with emulated(population(40, seed=7)) as emulator:
        emulator.inject(faults.slow(2, times=1))  # the first search answer takes 2 s
        config = _emulator_config(tmp_path, emulator)
        process = _schedule_while_crawling(db_path, config, emulator)
        if busy:
            _signal_a_thread_other_than_main(process.pid, signal.SIGINT)
        else:
            _wait_until_refreshed(db_path, process)
            time.sleep(0.5)  # the worker thread is back in its pool, waiting for work
            _signal_a_thread_other_than_main(process.pid, signal.SIGTERM)
        err = _stderr_or_where_it_hangs(process, timeout=30)
    assert process.returncode == 0, err
    if busy:
        assert "the running refresh finishes first" in err, err
        assert _refresh_succeeded(db_path), err
    else:
        assert "scheduler stopped" in err, err


def _read_stderr_until(process, *phrases: str) -> str:
    """The process's standard error, line by line, up to the first line holding one of ``phrases``."""
    seen = []
    for line in process.stderr:
        seen.append(line)
        if any(phrase in line for phrase in phrases):
            return "".join(seen)
    pytest.fail(f"the process ended first:\n{''.join(seen)}")


def test_a_database_deleted_under_a_running_scheduler_is_said_not_replaced_by_an_empty_one(tmp_path):
    """The database file removed (or moved) while `schedule` ran: its next run created a new, empty
    database, crawled into it and published a ranking without its history, all without a word."""
    import signal

    from db.store import open_store
    from tests.crawl_helpers import emulated, population, started

    db_path = tmp_path / "agentrank.db"
    open_store(db_path).close()  # no refresh yet: the scheduler runs one at start-up
    corrections = tmp_path / "corrections.toml"  # named but missing: that first run fails, before the lock
    with emulated(population(40, seed=4)) as emulator:
        config = _emulator_config(
            tmp_path, emulator, f'[corrections]\npath = "{corrections}"\n[schedule]\nretry_after_s = 3\n'
        )
        process = started(db_path, config, "schedule")
        err = ""
        try:
            _read_stderr_until(process, "refresh failed")
            db_path.unlink()
            corrections.write_text("")  # the retry seconds later would now succeed
            err = _read_stderr_until(process, "has gone", "refresh finished")
        finally:
            process.send_signal(signal.SIGTERM)
            err += _stderr_or_where_it_hangs(process, timeout=30)
    assert "the database " in err and "has gone" in err and "refresh finished" not in err, err
    assert not db_path.exists()


def test_an_edited_schedule_time_is_said_to_need_a_restart(tmp_path):
    """Each run reads the configuration afresh, but the weekly time is set at start-up: an operator
    who moved [schedule] hour while the scheduler ran was silently ignored until a restart."""
    import signal

    from db.store import open_store
    from tests.crawl_helpers import started

    db_path = tmp_path / "agentrank.db"
    open_store(db_path).close()
    missing = tmp_path / "corrections.toml"  # every run fails at once: a retry every few seconds
    config = tmp_path / "agentrank.toml"
    body = (
        f'[github]\napi_url = "http://127.0.0.1:9"\n[corrections]\npath = "{missing}"\n[schedule]\nretry_after_s = 2\n'
    )
    config.write_text(body)
    process = started(db_path, config, "schedule")
    err = ""
    try:
        _read_stderr_until(process, "refresh failed")
        config.write_text(body + "hour = 7\n")
        err = _read_stderr_until(process, "changed since the scheduler started", "refresh failed")
    finally:
        process.send_signal(signal.SIGTERM)
        err += _stderr_or_where_it_hangs(process, timeout=30)
    assert "(mon 07:00 UTC now): restart `agentrank schedule` for them to apply" in err, err


def test_schedule_refuses_at_start_a_database_every_run_would_refuse(tmp_path):
    """It started and logged a failure every week instead: a missing folder, a newer schema."""
    from click.testing import CliRunner

    from agentrank.cli import cli
    from db.store import open_store

    def schedule(db: str):
        return CliRunner().invoke(cli, ["--db", db, "schedule"], catch_exceptions=False)

    missing = schedule(str(tmp_path / "nope" / "a.db"))
    assert missing.exit_code == 1 and "directory" in missing.output and "does not exist" in missing.output
    assert not (tmp_path / "nope").exists()
    newer = tmp_path / "newer.db"
    open_store(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute(
        "insert into _sqlite_migrations (migration_set, name, applied_at) values ('agentrank', 'm999_later', '2027-01-01')"
    )
    conn.commit()
    conn.close()
    result = schedule(str(newer))
    assert result.exit_code == 1 and "made by a newer AgentRank" in result.output, result.output
    assert result.output.count("\n") == 1 and "weekly refresh of" not in result.output


def test_a_failed_or_skipped_run_is_tried_again_until_one_succeeds(scheduler, caplog):
    """A run that failed (GitHub down, rate-limited) or was skipped (the lock held) waited a whole week.
    A skip's retry is said as information: a skip is no fault (it was a WARNING, after an INFO skip)."""
    import logging

    from schedules.jobs import SKIPPED

    outcomes = iter([False, SKIPPED, True])
    calls: list[datetime] = []

    def job():
        calls.append(datetime.now(UTC))
        return next(outcomes)

    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY - timedelta(days=1), retry_after_s=6 * 3600)
    with caplog.at_level(logging.INFO, logger="agentrank.schedule"):
        for hours in (0, 3, 6, 12, 18, 24):
            scheduler.tick(MONDAY_6 + timedelta(hours=hours))
    assert calls == [MONDAY_6, MONDAY_6 + timedelta(hours=6), MONDAY_6 + timedelta(hours=12)]
    said = [(r.levelname, r.getMessage()) for r in caplog.records if "tried again" in r.getMessage()]
    assert said == [
        ("WARNING", f"the refresh will be tried again at {(MONDAY_6 + timedelta(hours=6)).isoformat()}"),
        ("INFO", f"the refresh will be tried again at {(MONDAY_6 + timedelta(hours=12)).isoformat()}"),
    ], said


def test_no_retry_when_the_weekly_slot_comes_first_or_retries_are_off(scheduler):
    calls: list[datetime] = []

    def job():
        calls.append(datetime.now(UTC))
        return False

    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY - timedelta(days=1), retry_after_s=7 * 24 * 3600)
    for days in (0, 3, 7):
        scheduler.tick(MONDAY_6 + timedelta(days=days))
    assert calls == [MONDAY_6, MONDAY_6 + timedelta(days=7)]  # the slot, not a retry on top of it
    other = ManualScheduler()
    _start(other, job, at=WEDNESDAY, last_success=WEDNESDAY - timedelta(days=1), retry_after_s=0)
    other.tick(MONDAY_6)
    other.tick(MONDAY_6 + timedelta(days=1))
    other.shutdown(wait=False)
    assert calls[2:] == [MONDAY_6]


def test_two_failing_runs_leave_one_pending_retry_not_two_chains(scheduler):
    # A weekly slot that passed during a long retry runs after it; when both failed, each added its
    # own retry and the chains doubled the crawls every few hours.
    calls: list[datetime] = []

    def job():
        calls.append(datetime.now(UTC))
        return False

    _start(scheduler, job, at=WEDNESDAY, last_success=WEDNESDAY - timedelta(days=1), retry_after_s=6 * 3600)
    scheduler.tick(MONDAY_6)  # fails: a retry at 12:00
    weekly = scheduler.get_job("weekly-refresh")
    with time_machine.travel(MONDAY_6 + timedelta(hours=1), tick=False):
        weekly.func()  # another run that fails (as a slot queued behind a retry would)
    retries = [j for j in scheduler.get_jobs() if j.id.startswith("weekly-refresh-retry")]
    assert len(retries) == 1 and retries[0].next_run_time == MONDAY_6 + timedelta(hours=7), retries


def test_a_run_finding_a_success_since_the_slot_is_not_run_again(scheduler):
    """A run skipped because another refresh held the lock (a manual one, a second `schedule` on the
    same database) was retried hours later as a whole second crawl and publish of the same week; and
    a retry and the weekly slot both due when the machine woke from sleep ran back to back."""
    calls: list[datetime] = []
    database = {"last_success": WEDNESDAY - timedelta(days=1)}

    outcome = {"ok": False}  # the first run: the lock was held, skipped

    def job():
        calls.append(datetime.now(UTC))
        if outcome["ok"]:
            database["last_success"] = datetime.now(UTC)
        return outcome["ok"]

    with time_machine.travel(WEDNESDAY, tick=False):
        configure(
            scheduler,
            job,
            last_success=database["last_success"],
            retry_after_s=6 * 3600,
            executor=DebugExecutor(),
            read_last_success=lambda: database["last_success"],
        )
        scheduler.start()
    scheduler.tick(MONDAY_6)  # skipped: a retry at 12:00
    database["last_success"] = MONDAY_6 + timedelta(minutes=30)  # the refresh that held the lock succeeded
    scheduler.tick(MONDAY_6 + timedelta(hours=6))
    assert calls == [MONDAY_6]
    assert not [j for j in scheduler.get_jobs() if j.id.startswith("weekly-refresh-retry")]
    # The next slot runs (a success last week does not stand in for it) and fails, as does every
    # retry for six and a half days; then the machine sleeps over the last retry (18:00 on Sunday)
    # and the next slot: both are due when it wakes, and they were two refreshes back to back.
    outcome["ok"] = False
    second = MONDAY_6 + timedelta(days=7)
    for k in range(27):
        scheduler.tick(second + timedelta(hours=6 * k))
    assert len(calls) == 28 and calls[-1] == second + timedelta(days=6, hours=12)
    assert [j.next_run_time for j in scheduler.get_jobs() if j.id.startswith("weekly-refresh-retry")] == [
        second + timedelta(days=6, hours=18)
    ]
    outcome["ok"] = True
    woke = second + timedelta(days=7, hours=1)
    scheduler.tick(woke)
    assert calls[28:] == [woke], calls[28:]


def test_a_second_scheduler_on_the_same_database_is_refused_at_start(tmp_path):
    """Two `agentrank schedule` on one database both ran (each finding the week refreshed by the
    other, but both logging and retrying for ever). The second is refused at start, in one line that
    names the first, and leaves nothing behind; a scheduler killed outright (SIGKILL) holds nothing."""
    import signal
    import subprocess

    from db.store import open_store
    from tests.crawl_helpers import started
    from tests.publish_helpers import agentrank_command

    db_path = tmp_path / "data" / "agentrank.db"
    db_path.parent.mkdir()
    open_store(db_path).close()
    missing = tmp_path / "corrections.toml"  # every run fails at once; the next try is hours away
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[github]\napi_url = "http://127.0.0.1:9"\n[corrections]\npath = "{missing}"\n')
    first = started(db_path, config, "schedule")
    third = None
    try:
        _read_stderr_until(first, "refresh failed")  # started, ran once, now idle
        before = sorted(p.name for p in db_path.parent.iterdir())
        second = subprocess.run(
            agentrank_command(db_path, "--config", str(config), "schedule"), capture_output=True, text=True, timeout=60
        )
        assert second.returncode == 1, second.stderr
        assert second.stderr.strip().splitlines() == [
            f"Error: another `agentrank schedule` (pid {first.pid}) is already running on {db_path} "
            f"(lock {db_path}.schedule.lock is held): one scheduler per database, so this one is not started"
        ], second.stderr
        assert "weekly refresh of" not in second.stdout
        assert sorted(p.name for p in db_path.parent.iterdir()) == before
        first.kill()  # no clean-up at all: the OS lets its lock go
        first.wait()
        third = started(db_path, config, "schedule")
        assert "refresh failed" in _read_stderr_until(third, "refresh failed", "already running")
    finally:
        for process in (first, third):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                _stderr_or_where_it_hangs(process, timeout=30)


def test_a_run_skipped_on_a_new_database_another_command_holds_is_said_not_an_error(tmp_path):
    """The scheduler's first run on a database no refresh has published yet, while another command
    holds it (the first crawl, an import): it logged ERROR "no refresh has succeeded on this database
    yet", an alert for what is only a skip. It is one informational line saying why."""
    import signal

    from agentrank.locks import run_lock
    from db.store import open_store
    from tests.crawl_helpers import started

    db_path = tmp_path / "agentrank.db"
    open_store(db_path).close()
    config = tmp_path / "agentrank.toml"
    config.write_text('[github]\napi_url = "http://127.0.0.1:9"\n')
    with run_lock(db_path, "a first crawl"):  # what `agentrank crawl` holds while it runs
        process = started(db_path, config, "schedule")
        try:
            # the run is over once it says when the next try is (the retry, or the weekly slot first)
            err = _read_stderr_until(process, "tried again at", "comes before a retry would")
        finally:
            process.send_signal(signal.SIGTERM)
            err += _stderr_or_where_it_hangs(process, timeout=30)
    assert process.returncode == 0, err
    skipped = [line for line in err.splitlines() if "refresh skipped" in line]
    assert skipped == [
        f"INFO refresh skipped: another agentrank run is already using {db_path} (lock {db_path}.lock is held); "
        "scheduled refresh not started, try again when it has finished"
    ], err
    assert "ERROR" not in err and "WARNING" not in err and "no refresh has succeeded" not in err, err
