"""Moving a run recorded at a wrong time (a clock that was ahead) to the time it really happened.

A run dated in the future blocks every later import (history is appended, never rewritten) and
shows a future point in every repo's history. ``redate_run`` shifts every time the run and the runs
under it recorded (their rows, the snapshots they observed, when they saw each repo and name, the
scores' and the publication's times, classifications and corrections) by one offset, in one
transaction. Figures computed *from* the wrong time (a score's ages) are not recomputed here: score
again afterwards.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlite_utils

from crawler.items import format_timestamp, parse_timestamp
from db.connection import write_transaction


class RedateRefused(ValueError):
    """The run cannot be moved there; the message says why."""


@dataclass
class RedateResult:
    run_id: int
    runs: list[int]
    old_start: str
    new_start: str
    rows: dict[str, int] = field(default_factory=dict)


# (table, time column, the condition that ties a row to the runs being moved). Every condition also
# requires the value to lie inside the runs' own span of time, so nothing another run wrote moves.
_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("runs", "started_at", "id in ({ids})"),
    ("runs", "finished_at", "id in ({ids})"),
    ("runs", "as_of", "id in ({ids})"),
    ("snapshots", "observed_at", "run_id in ({ids})"),
    ("repos", "first_seen_at", "first_seen_run in ({ids})"),
    ("repos", "last_seen_at", "last_seen_run in ({ids})"),
    ("repo_names", "first_seen_at", "1"),
    ("repo_names", "last_seen_at", "1"),
    ("scores", "as_of", "run_id in ({ids})"),
    ("agents", "as_of", "score_run_id in ({ids})"),
    ("published", "published_at", "refresh_run_id in ({ids}) or score_run_id in ({ids})"),
    ("repo_categories", "classified_at", "run_id in ({ids})"),
    ("corrections", "updated_at", "run_id in ({ids})"),
    ("category_corrections", "updated_at", "1"),
)


def run_tree(conn: sqlite3.Connection, run_id: int) -> list[int]:
    """``run_id`` and every run under it (its stages), by ``parent_id``."""
    rows = conn.execute(
        "with recursive tree(id) as (select ? union select runs.id from runs join tree on runs.parent_id = tree.id) "
        "select id from tree order by id",
        [run_id],
    ).fetchall()
    return [row[0] for row in rows]


def redate_run(db: sqlite_utils.Database, run_id: int, to: datetime, *, now: datetime) -> RedateResult:
    """Move run ``run_id`` (a top-level run: a refresh, a crawl, an import) and the runs under it so
    that it starts at ``to``. Refused unless it is the latest run, and ``to`` lies after every earlier
    run and no later than ``now``."""
    conn = db.conn
    row = conn.execute("select started_at, parent_id from runs where id = ?", [run_id]).fetchone()
    if row is None:
        raise RedateRefused(f"there is no run {run_id}")
    started, parent = row
    if parent is not None:
        raise RedateRefused(f"run {run_id} is a stage of run {parent}: redate run {parent}, which moves its stages too")
    ids = run_tree(conn, run_id)
    marks = ", ".join("?" for _ in ids)
    later = conn.execute(f"select min(id) from runs where id > ? and id not in ({marks})", [run_id, *ids]).fetchone()[0]
    if later is not None:
        raise RedateRefused(f"run {later} came after run {run_id}: redate the latest run first")
    to = to.replace(microsecond=0)
    if to > now:
        raise RedateRefused(f"--to {format_timestamp(to)} is in the future")
    before = conn.execute(
        f"select max(max(started_at, coalesce(finished_at, started_at))) from runs where id < ? and id not in ({marks})",
        [run_id, *ids],
    ).fetchone()[0]
    if before is not None and format_timestamp(to) < before:
        raise RedateRefused(f"--to {format_timestamp(to)} is before the end of the run before it ({before})")
    span = conn.execute(
        f"select min(started_at), max(max(started_at, coalesce(finished_at, started_at))) from runs where id in ({marks})",
        ids,
    ).fetchone()
    low, high = span
    offset = to - parse_timestamp(started)

    def shifted(value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return format_timestamp(parse_timestamp(value) + offset)
        except (ValueError, OverflowError):
            return value

    conn.create_function("agentrank_shifted", 1, shifted, deterministic=True)
    result = RedateResult(run_id, ids, started, format_timestamp(to))
    with write_transaction(db):
        for table, column, where in _COLUMNS:
            condition = where.format(ids=marks)
            params = ids * where.count("{ids}")  # the ids once per "in" list; the span bounds the value
            sql = (
                f"update {table} set {column} = agentrank_shifted({column}) "
                f"where ({condition}) and {column} between ? and ?"
            )
            changed = conn.execute(sql, [*params, low, high]).rowcount
            if changed:
                result.rows[f"{table}.{column}"] = changed
    return result


def skew_hint(observed_at: str, now: datetime, slack: timedelta) -> str:
    """A hint for a refusal caused by a stored time in the future."""
    try:
        future = parse_timestamp(observed_at) > now + slack
    except ValueError:
        return ""
    if not future:
        return ""
    return (
        "; that time is in the future, so a run was recorded with a clock that was ahead: "
        "move it to when it really happened with `agentrank redate-run RUN --to TIME` (docs/refresh.md)"
    )
