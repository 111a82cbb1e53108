"""The weekly refresh on apscheduler 3.x.

Three apscheduler defaults would quietly lose runs, so each is set on purpose:

- ``misfire_grace_time`` defaults to 1 second: a run whose time passed while the process was
  suspended or busy would be skipped. We allow days (``schedule.misfire_grace_s``).
- ``coalesce``: several missed fire times collapse into one run, never a burst.
- ``max_instances=1`` keeps one run at a time within this process; the run lock (a file next to
  the database) keeps out a manual ``agentrank refresh`` started at the same moment.

With the in-memory job store a fire time that passed while the process was *down* is forgotten
at start-up, so ``start`` checks the database itself: no successful refresh since the weekly
slot that last passed means run now, once.

Weekdays are names (``mon``), never crontab numbers: apscheduler counts Monday as 0, so a
crontab "1" would fire on Tuesday.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_MAX_INSTANCES,
    EVENT_JOB_MISSED,
    JobEvent,
)
from apscheduler.executors.base import BaseExecutor
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.job import Job
from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger

from schedules.jobs import SKIPPED
from schedules.stops import stop_signals

log = logging.getLogger("agentrank.schedule")

JOB_ID = "weekly-refresh"
RETRY_ID = "weekly-refresh-retry"
WEEK = timedelta(days=7)


def weekly_trigger(day_of_week: str = "mon", hour: int = 6, minute: int = 0) -> CronTrigger:
    return CronTrigger(day_of_week=day_of_week, hour=hour, minute=minute, timezone=UTC)


def next_fire_times(trigger: CronTrigger, count: int, now: datetime | None = None) -> list[datetime]:
    """The next ``count`` times the trigger fires after ``now``."""
    times: list[datetime] = []
    previous = None
    current = now or datetime.now(UTC)
    for _ in range(count):
        fire = trigger.get_next_fire_time(previous, current)
        if fire is None:
            break
        times.append(fire)
        previous, current = fire, fire + timedelta(microseconds=1)
    return times


def previous_fire_time(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The latest time at or before ``now`` the weekly trigger fired (or would have)."""
    upcoming = trigger.get_next_fire_time(None, now)
    if upcoming is None:
        return None
    return upcoming if upcoming <= now else upcoming - WEEK


def is_overdue(last_success: datetime | None, now: datetime, trigger: CronTrigger) -> bool:
    """True when no refresh has succeeded since the weekly slot that last passed. Not "within 7
    days": a refresh on Sunday does not stand in for Tuesday's slot that passed while the process
    was down."""
    if last_success is None:
        return True
    slot = previous_fire_time(trigger, now)
    return slot is not None and last_success < slot


def _still_due(read_last_success: Callable[[], datetime | None], trigger: CronTrigger) -> bool:
    """Does a run have anything to do: has no refresh succeeded since the weekly slot that last
    passed? When the database cannot say, it runs (and says what is wrong)."""
    try:
        last_success = read_last_success()
    except Exception:
        return True
    if is_overdue(last_success, datetime.now(UTC), trigger):
        return True
    log.info(
        "refresh not run: one already succeeded since the weekly slot (it started %s)",
        last_success.isoformat() if last_success else "?",
    )
    return False


def _on_event(event: JobEvent) -> None:
    if event.code == EVENT_JOB_MISSED:
        log.warning("weekly refresh missed its run time %s (beyond the misfire grace)", event.scheduled_run_time)
    elif event.code == EVENT_JOB_MAX_INSTANCES:
        log.warning("weekly refresh skipped: the previous refresh is still running")
    elif event.code == EVENT_JOB_ERROR:
        log.error("weekly refresh failed: %s", getattr(event, "exception", None))


def configure(
    scheduler: BaseScheduler,
    job: Callable[[], Any],
    *,
    last_success: datetime | None = None,
    day_of_week: str = "mon",
    hour: int = 6,
    minute: int = 0,
    misfire_grace_s: int = 6 * 24 * 3600,
    retry_after_s: int = 0,
    executor: BaseExecutor | None = None,
    stopping: threading.Event | None = None,
    read_last_success: Callable[[], datetime | None] | None = None,
) -> Job:
    """Set the scheduler up for the weekly refresh and add the job.

    When no refresh has succeeded since the weekly slot that last passed (or ever), the job's
    first run is now; after it the trigger takes over. A run whose job returns False (it failed)
    or ``SKIPPED`` (another command held the database) is tried again ``retry_after_s`` later, and again after each
    failure, unless the weekly slot comes first (0: wait for the next slot). At most one retry is
    pending, whichever run failed last (a weekly slot that passes during a long retry runs after it
    and, if it fails too, replaces that retry's); once ``stopping`` is set, a queued run does not
    start. ``read_last_success`` (when the latest refresh succeeded, read from the database) is
    asked before each run: one that finds a success since the weekly slot that last passed (a manual
    refresh, a retry and a slot both due after the machine slept) has nothing
    to do and is not run.
    """
    scheduler.configure(
        timezone=UTC,
        executors={"default": executor or ThreadPoolExecutor(max_workers=1)},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": misfire_grace_s},
    )
    scheduler.add_listener(_on_event, EVENT_JOB_MISSED | EVENT_JOB_MAX_INSTANCES | EVENT_JOB_ERROR)
    options: dict[str, Any] = {}
    now = datetime.now(UTC)
    trigger = weekly_trigger(day_of_week, hour, minute)

    def drop_pending_retries(running: str | None) -> None:
        for pending in scheduler.get_jobs():
            # (not the retry that is running: apscheduler removes a finished one-off job itself)
            if pending.id.startswith(RETRY_ID) and pending.id != running:
                with contextlib.suppress(JobLookupError):  # it may just have been taken to run
                    scheduler.remove_job(pending.id)

    def run_and_retry(retry_id: str | None = None) -> Any:
        if stopping is not None and stopping.is_set():
            log.info("scheduler stopped: a queued refresh is not started")
            return None
        if read_last_success is not None and not _still_due(read_last_success, trigger):
            drop_pending_retries(retry_id)
            return True
        outcome = job()
        drop_pending_retries(retry_id)  # one chain of retries, whichever run failed last
        if (outcome is False or outcome == SKIPPED) and retry_after_s:
            now = datetime.now(UTC)
            at = now + timedelta(seconds=retry_after_s)
            # the slot after this one (a run at the slot's own instant would find that slot itself)
            upcoming = trigger.get_next_fire_time(None, now + timedelta(seconds=1))
            if upcoming is not None and upcoming <= at:
                log.info("the next weekly refresh, %s, comes before a retry would", upcoming.isoformat())
            else:
                log.log(
                    logging.INFO if outcome == SKIPPED else logging.WARNING,
                    "the refresh will be tried again at %s",
                    at.isoformat(),
                )
                # A fresh id per retry: apscheduler removes a finished one-off job by its id after it
                # runs, which would take a retry added under the same id from inside it.
                new_id = f"{RETRY_ID}-{at:%Y%m%dT%H%M%S%f}"
                scheduler.add_job(run_and_retry, "date", run_date=at, id=new_id, kwargs={"retry_id": new_id})
        return outcome

    if is_overdue(last_success, now, trigger):
        log.info(
            "no successful refresh since %s: running one now", last_success.isoformat() if last_success else "ever"
        )
        options["next_run_time"] = now
    return scheduler.add_job(
        run_and_retry,
        trigger,
        id=JOB_ID,
        name="weekly refresh",
        replace_existing=True,
        **options,
    )


def run_forever(
    job: Callable[[], Any],
    last_success: datetime | None,
    read_last_success: Callable[[], datetime | None] | None = None,
    **schedule: Any,
) -> None:
    """The ``agentrank schedule`` loop: blocks until interrupted (Ctrl-C, or SIGTERM from systemd).

    Ctrl-C while a refresh runs lets that refresh finish (it publishes all or nothing) and says so;
    a second Ctrl-C, or SIGTERM (a service manager waits only so long), stops at once and says so:
    the refresh is cut off before it publishes, and the next command marks its run interrupted.
    """
    busy = threading.Event()
    finished = threading.Event()

    def tracked() -> Any:
        finished.clear()
        busy.set()
        try:
            return job()
        finally:
            busy.clear()
            finished.set()

    def terminate(signum: int, frame: Any) -> None:
        if busy.is_set():
            cut_off(signum, frame)
        raise KeyboardInterrupt  # idle: stop as Ctrl-C does

    def cut_off(signum: int, frame: Any) -> None:
        log.warning("stopped at once: the running refresh was cut off (the next command marks it interrupted)")
        logging.shutdown()
        os._exit(128 + signum)

    # A refresh that seems stuck: `kill -USR1 PID` writes where every thread is to standard error
    # (the journal under systemd), without stopping anything.
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True, chain=False)
    scheduler = BackgroundScheduler()
    stopping = threading.Event()
    weekly = configure(
        scheduler,
        tracked,
        last_success=last_success,
        stopping=stopping,
        read_last_success=read_last_success,
        **schedule,
    )
    log.info("weekly refresh scheduled (%s)", weekly.trigger)
    stops = stop_signals()  # SIGHUP (the terminal closed) as SIGTERM, unless ignored (nohup)
    previous = {signum: signal.signal(signum, terminate) for signum in stops}
    try:
        scheduler.start()
        # Python runs signal handlers in the main thread only, but Linux hands a signal sent to the
        # process to any of its threads. When a worker thread took Ctrl-C or systemd's SIGTERM, a main
        # thread asleep until the next weekly slot (as apscheduler's BlockingScheduler sleeps) did not
        # see it for days. So the scheduler runs in its own thread and the main thread wakes twice a
        # second, which is when a signal caught by another thread takes effect.
        while scheduler.running:
            time.sleep(0.5)
    except (KeyboardInterrupt, SystemExit):
        stopping.set()  # a run queued behind the running one (a slot, a retry) does not start
        if busy.is_set():
            log.info("scheduler stopped; the running refresh finishes first (stop again to cut it off)")
            for signum in (signal.SIGINT, *stops):
                signal.signal(signum, cut_off)
        else:
            log.info("scheduler stopped")
        if scheduler.running:
            scheduler.shutdown(wait=False)
        # The main thread waits for the refresh here: once it returns, the interpreter starts shutting
        # down and every thread pool refuses new work, which failed the refresh in its score stage.
        # A short timeout keeps the main thread answering a second Ctrl-C or SIGTERM.
        while busy.is_set() and not finished.wait(0.2):
            pass
    finally:
        if not busy.is_set():
            for signum, handler in previous.items():
                signal.signal(signum, handler)
