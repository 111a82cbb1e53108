"""The ``runs`` table: every command that writes leaves a row, of one of :data:`RUN_KINDS`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from crawler.items import format_timestamp as iso  # the one stored time format: 2026-11-30T06:00:00Z
from crawler.secrets import redact
from db.connection import read_only_connection, write_transaction

RUN_COUNT_COLUMNS = ("items", "saved", "new", "updated", "rejected", "listed")


@dataclass(frozen=True)
class RunKind:
    name: str
    what: str  # for people: the runs table's description in Datasette
    # A crawl killed mid-way is resumed by the next crawl; a run of any other kind that a killed
    # process left 'running' is marked 'interrupted' by the next command that takes the run lock.
    resumable: bool = False


# Every kind of run, written once: start_run refuses any other, so a new command that records runs
# is added here and is then marked interrupted after a kill like the rest.
RUN_KINDS: tuple[RunKind, ...] = (
    RunKind("refresh", "the weekly job: crawl or import, corrections, classify, score, export, publish"),
    RunKind("crawl", "a GitHub search crawl", resumable=True),
    RunKind("import", "saved GitHub search results loaded as if crawled"),
    RunKind("corrections", "the maintainers' corrections file applied"),
    RunKind("classify", "categories assigned"),
    RunKind("score", "the AgentRank Score computed (and published when it is the latest)"),
    RunKind("export", "the site JSON written"),
    RunKind("import-attempts", "task-benchmark attempts loaded"),
    RunKind("import-tasks", "task-benchmark tasks and their validation loaded"),
    RunKind("import-prices", "model list prices loaded"),
    RunKind("import-assessments", "FitScore assessments loaded"),
)
KIND_NAMES = tuple(kind.name for kind in RUN_KINDS)
# Runs a killed process leaves 'running' that nothing resumes (a crawl resumes its own).
UNRESUMABLE_KINDS = tuple(kind.name for kind in RUN_KINDS if not kind.resumable)


def utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def start_run(
    db: sqlite_utils.Database,
    kind: str,
    *,
    parent_id: int | None = None,
    started_at: datetime | None = None,
    as_of: str | None = None,
    details: dict[str, Any] | None = None,
) -> int:
    if kind not in KIND_NAMES:
        raise ValueError(f"unknown run kind {kind!r}: add it to db.runs.RUN_KINDS")
    with write_transaction(db):
        table = db.table("runs").insert(
            {
                "kind": kind,
                "parent_id": parent_id,
                "started_at": iso(started_at or utcnow()),
                "status": "running",
                "as_of": as_of,
                "details": redact(json.dumps(details or {}, sort_keys=True)),
            },
            pk="id",
        )
        assert table.last_pk is not None  # insert() always sets it
        return int(table.last_pk)


def update_run(db: sqlite_utils.Database, run_id: int, **values: Any) -> None:
    if "details" in values and not isinstance(values["details"], str):
        values["details"] = json.dumps(values["details"], sort_keys=True, ensure_ascii=False)
    # A stored error or detail may quote what a server sent back (a redirect URL, a message): the
    # token never goes into the database, whichever code path worded it.
    for name in ("details", "error"):
        if isinstance(values.get(name), str):
            values[name] = redact(values[name])
    with write_transaction(db):
        db.table("runs").update(run_id, values)


def finish_run(
    db: sqlite_utils.Database,
    run_id: int,
    status: str,
    *,
    error: str | None = None,
    counts: dict[str, int] | None = None,
    details: dict[str, Any] | None = None,
    finished_at: datetime | None = None,
) -> None:
    values: dict[str, Any] = {"status": status, "finished_at": iso(finished_at or utcnow()), "error": error}
    counts = dict(counts or {})
    for column in RUN_COUNT_COLUMNS:
        if column in counts:
            values[column] = counts.pop(column)
    merged = json.loads(get_run(db, run_id).get("details") or "{}")
    merged.update(counts)
    merged.update(details or {})
    values["details"] = merged
    update_run(db, run_id, **values)


def get_run(db: sqlite_utils.Database, run_id: int) -> dict[str, Any]:
    return dict(db.table("runs").get(run_id))


def latest_run(db: sqlite_utils.Database, kinds: tuple[str, ...], status: str | None = "ok") -> dict[str, Any] | None:
    where = "kind in ({})".format(", ".join("?" for _ in kinds))
    params: list[Any] = list(kinds)
    if status is not None:
        where += " and status = ?"
        params.append(status)
    rows = list(db.table("runs").rows_where(where, params, order_by="id desc", limit=1))
    return rows[0] if rows else None


def mark_interrupted(db: sqlite_utils.Database, kinds: tuple[str, ...] | None = None) -> int:
    """Runs still 'running' when no process holds the lock were killed; say so.

    Call only while holding the run lock.
    """
    sql = "update runs set status = 'interrupted', finished_at = coalesce(finished_at, ?) where status = 'running'"
    params: list[Any] = [iso(utcnow())]
    if kinds:
        sql += " and kind in ({})".format(", ".join("?" for _ in kinds))
        params.extend(kinds)
    with write_transaction(db):
        return db.execute(sql, params).rowcount


@dataclass
class RunRecord:
    """What a stage fills in while its ``runs`` row is open; written when the block ends."""

    id: int
    counts: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"
    error: str | None = None


@contextmanager
def recorded_run(
    db: sqlite_utils.Database,
    kind: str,
    *,
    parent_id: int | None = None,
    started_at: datetime | None = None,
    as_of: str | None = None,
    details: dict[str, Any] | None = None,
) -> Iterator[RunRecord]:
    """Open a ``runs`` row for the block and close it: the one place runs start, finish and fail.

    The block sets ``record.counts`` / ``record.details`` (and ``status`` when it ends other than
    ``ok``, or ``error`` to word a failure). An exception marks the run ``failed`` (``interrupted`` for KeyboardInterrupt and
    other BaseExceptions) with the error, and propagates.
    """
    record = RunRecord(start_run(db, kind, parent_id=parent_id, started_at=started_at, as_of=as_of, details=details))
    began = utcnow()

    def finished() -> datetime | None:
        # A run dated in the past (the demo's earlier weeks) ends as long after its start as it took.
        return None if started_at is None else started_at + (utcnow() - began)

    try:
        yield record
    except BaseException as e:
        status = "failed" if isinstance(e, Exception) else "interrupted"
        error = record.error or f"{type(e).__name__}: {e}"
        finish_run(db, record.id, status, error=error, details=record.details, finished_at=finished())
        raise
    finish_run(
        db,
        record.id,
        record.status,
        error=record.error,
        counts=record.counts,
        details=record.details,
        finished_at=finished(),
    )


def file_has_runs(path: str | Path) -> bool:
    """Has the database file at ``path`` recorded any run? Read-only; False for a file that is not
    an AgentRank database."""
    try:
        with closing(read_only_connection(path)) as conn:
            return bool(conn.execute("select count(*) from runs").fetchone()[0])
    except sqlite3.Error:
        return False
