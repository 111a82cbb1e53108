"""What the scheduler reads from the database: when the last refresh succeeded (for the catch-up
check). The job itself, :func:`agentrank.pipeline.scheduled_refresh`, is handed to
:func:`schedules.weekly.run_forever` by the command line, so this package never imports the
orchestration that imports it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from crawler.items import parse_timestamp
from db.connection import connect
from db.runs import latest_run


def last_successful_refresh(db_path: str | Path) -> datetime | None:
    """When the latest successful refresh started, from the database (None if never)."""
    if not Path(db_path).exists():
        return None
    db = connect(db_path)
    try:
        run = latest_run(db, ("refresh",)) if db["runs"].exists() else None
    finally:
        db.close()
    return parse_timestamp(run["started_at"]) if run else None
