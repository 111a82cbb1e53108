"""The job the scheduler runs: one ``agentrank refresh``, logged as one line at start and end."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from pathlib import Path

from agentrank.config import load_config
from agentrank.locks import LockHeld, run_lock
from db.connection import open_db
from db.runs import latest_run

log = logging.getLogger("agentrank.schedule")


def last_successful_refresh(db_path: str | Path) -> datetime | None:
    """When the latest successful refresh started, from the database (None if never)."""
    if not Path(db_path).exists():
        return None
    db = open_db(db_path)
    try:
        run = latest_run(db, ("refresh",))
    finally:
        db.close()
    return datetime.fromisoformat(run["started_at"].replace("Z", "+00:00")) if run else None


def scheduled_refresh(db_path: str, config_path: str | None) -> None:
    """Run one refresh under the run lock; configuration is read afresh for every run."""
    from agentrank import pipeline
    from agentrank.refresh import refresh
    from crawler.secrets import github_token

    started = time.monotonic()
    log.info("refresh starting (database %s)", db_path)
    try:
        config = load_config(config_path)
        token = github_token()
        with run_lock(db_path, "scheduled refresh"):
            db = open_db(db_path)
            try:
                pipeline.prepare(db)
                result = refresh(db, config, token=token, progress=False)
            finally:
                db.close()
    except LockHeld as e:
        log.warning("refresh skipped: %s", e)
        return
    except Exception as e:  # the scheduler keeps running; the next week tries again
        log.error("refresh failed after %.0f s: %s", time.monotonic() - started, e)
        return
    log.info(
        "refresh finished: run %s published score run %s, %s agents, in %.0f s",
        result.run_id,
        result.score_run_id,
        result.count,
        time.monotonic() - started,
    )
