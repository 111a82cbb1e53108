"""What the scheduler reads from the database: when the last refresh succeeded (for the catch-up
check). The job itself, :func:`agentrank.pipeline.scheduled_refresh`, is handed to
:func:`schedules.weekly.run_forever` by the command line, so this package never imports the
orchestration that imports it."""

from __future__ import annotations

from contextlib import closing
from datetime import datetime
from pathlib import Path

import sqlite_utils

from crawler.items import parse_timestamp
from db.connection import read_only_connection
from db.runs import latest_run

# What a job may return besides True (it did its work) and False (it failed): it did not run,
# because another command held what it needs (the database). The scheduler tries both again; a skip
# is no fault, so the line saying when is informational, where a failure's is a warning.
SKIPPED = "skipped"


def last_successful_refresh(db_path: str | Path) -> datetime | None:
    """When the latest successful refresh started, from the database (None if never).

    Read only: asked between runs, it must never create the file. A database deleted just before
    this look (``connect`` creates a missing one) came back empty, and the next run refreshed into
    that new file as if nothing had happened."""
    if not Path(db_path).is_file():
        return None
    with closing(read_only_connection(db_path)) as conn:
        db = sqlite_utils.Database(conn)
        run = latest_run(db, ("refresh",)) if db["runs"].exists() else None
    return parse_timestamp(run["started_at"]) if run else None
