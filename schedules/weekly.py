"""The weekly refresh on apscheduler 3.x.

Three apscheduler defaults would quietly lose runs, so each is set on purpose:

- ``misfire_grace_time`` defaults to 1 second: a run whose time passed while the process was
  suspended or busy would be skipped. We allow days (``schedule.misfire_grace_s``).
- ``coalesce``: several missed fire times collapse into one run, never a burst.
- ``max_instances=1`` keeps one run at a time within this process; the run lock (a file next to
  the database) keeps out a manual ``agentrank refresh`` started at the same moment.

With the in-memory job store a fire time that passed while the process was *down* is forgotten
at start-up, so ``start`` checks the database itself: no successful refresh in the last 7 days
means run now, once.

Weekdays are names (``mon``), never crontab numbers: apscheduler counts Monday as 0, so a
crontab "1" would fire on Tuesday.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobEvent
from apscheduler.executors.base import BaseExecutor
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.job import Job
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger

log = logging.getLogger("agentrank.schedule")

JOB_ID = "weekly-refresh"
OVERDUE_AFTER = timedelta(days=7)


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


def is_overdue(last_success: datetime | None, now: datetime) -> bool:
    """True when no refresh has succeeded within the last week."""
    return last_success is None or now - last_success > OVERDUE_AFTER


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
    executor: BaseExecutor | None = None,
) -> Job:
    """Set the scheduler up for the weekly refresh and add the job.

    When the last successful refresh is more than a week old (or there is none), the job's first
    run is now; after it the trigger takes over.
    """
    scheduler.configure(
        timezone=UTC,
        executors={"default": executor or ThreadPoolExecutor(max_workers=1)},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": misfire_grace_s},
    )
    scheduler.add_listener(_on_event, EVENT_JOB_MISSED | EVENT_JOB_MAX_INSTANCES | EVENT_JOB_ERROR)
    options: dict[str, Any] = {}
    now = datetime.now(UTC)
    if is_overdue(last_success, now):
        log.info(
            "no successful refresh since %s: running one now", last_success.isoformat() if last_success else "ever"
        )
        options["next_run_time"] = now
    return scheduler.add_job(
        job,
        weekly_trigger(day_of_week, hour, minute),
        id=JOB_ID,
        name="weekly refresh",
        replace_existing=True,
        **options,
    )


def run_forever(job: Callable[[], Any], last_success: datetime | None, **schedule: Any) -> None:
    """The ``agentrank schedule`` loop: blocks until interrupted."""
    scheduler = BlockingScheduler()
    weekly = configure(scheduler, job, last_success=last_success, **schedule)
    log.info("weekly refresh scheduled (%s)", weekly.trigger)
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        log.info("scheduler stopped")
