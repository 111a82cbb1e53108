"""The job the scheduler runs: one weekly refresh, logged as one line at start and end."""

from __future__ import annotations

import logging
import time
from datetime import datetime
from pathlib import Path

from agentrank.config import load_config
from agentrank.locks import LockHeld
from agentrank.pipeline import refresh_database
from crawler.secrets import github_token
from db.connection import connect
from db.runs import latest_run

log = logging.getLogger("agentrank.schedule")


def last_successful_refresh(db_path: str | Path) -> datetime | None:
    """When the latest successful refresh started, from the database (None if never)."""
    if not Path(db_path).exists():
        return None
    db = connect(db_path)
    try:
        run = latest_run(db, ("refresh",)) if db["runs"].exists() else None
    finally:
        db.close()
    return datetime.fromisoformat(run["started_at"].replace("Z", "+00:00")) if run else None


def scheduled_refresh(db_path: str, config_path: str | None) -> None:
    """Run one refresh under the run lock; configuration is read afresh for every run."""
    started = time.monotonic()
    log.info("refresh starting (database %s)", db_path)
    try:
        config = load_config(config_path)
        result = refresh_database(db_path, config, what="scheduled refresh", token=github_token(), progress=False)
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
