"""``import-tasks``, ``import-prices`` and ``import-assessments``: each file is read and validated
whole before anything is written (a bad file changes nothing and gets one line), stored as one
recorded run, and every method is recomputed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import ValidationError

from crawler.items import clean_text
from db.connection import write_transaction
from db.runs import iso, recorded_run, utcnow
from leaderboard.attempt import DEFAULT_SUITE, agent_key
from leaderboard.fitscore import AssessmentFile, read_assessments
from leaderboard.ingest import AttemptFileError, describe, one_line, read_records
from leaderboard.prices import Price, read_prices
from leaderboard.settings import IndexConfig
from leaderboard.store import refresh_boards
from leaderboard.tasks import TaskRecord


class LedgerFileError(ValueError):
    """A tasks, prices or assessments file that cannot be used; the message is one line."""


@dataclass
class ImportResult:
    run_id: int
    saved: int
    detail: str


def read_tasks(path: str | Path) -> list[TaskRecord]:
    try:
        records = read_records(path, what="task")
    except AttemptFileError as e:
        raise LedgerFileError(str(e)) from None
    tasks: dict[tuple[str, str], TaskRecord] = {}
    for record in records:
        if record.error or not isinstance(record.raw, dict):
            raise LedgerFileError(one_line(f"{path}: {record.where}: {record.error or 'expected a task object'}"))
        try:
            task = TaskRecord.model_validate_json(json.dumps(clean_text(record.raw), ensure_ascii=False))
        except ValidationError as e:
            raise LedgerFileError(one_line(f"{path}: {record.where}: {describe(e)}")) from None
        if task.key in tasks:
            raise LedgerFileError(one_line(f"{path}: {record.where}: suite, task_id: the same task twice"))
        tasks[task.key] = task
    return list(tasks.values())


def _save(db: sqlite_utils.Database, kind: str, path: str | Path, table: str, rows: list[dict[str, Any]]) -> int:
    """Store one file's rows and recompute every figure in one transaction: a kill leaves both or neither."""
    with recorded_run(db, kind, details={"file": str(path)}) as run:
        with write_transaction(db):
            db.table(table).upsert_all(({**r, "run_id": run.id} for r in rows), pk=db.table(table).pks)
            boards = refresh_boards(db)
        run.counts = {"items": len(rows), "saved": len(rows)}
        run.details = {"file": str(path), "entries": len(boards.entries)}
        return run.id


def import_tasks(db: sqlite_utils.Database, path: str | Path, *, leave_uncounted: bool = False) -> ImportResult:
    return save_tasks(db, path, read_tasks(path), leave_uncounted=leave_uncounted)


def uncounted_by(db: sqlite_utils.Database, tasks: list[TaskRecord]) -> list[str]:
    """Per suite the file gives its first records for: the attempted tasks that would stop counting.

    A suite that already has records already leaves its attempted tasks without one uncounted: a
    later file that corrects one record stops nothing from counting."""
    out = []
    for suite in sorted({t.suite for t in tasks}):
        if db.execute("select 1 from benchmark_task_records where suite = ? limit 1", [suite]).fetchone():
            continue
        known = {t.task_id for t in tasks if t.suite == suite}
        attempted = [
            r["task_id"]
            for r in db.query(
                "select distinct task_id from benchmark_attempts where suite = ? order by task_id", [suite]
            )
        ]
        missing = [t for t in attempted if t not in known]
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            out.append(f"suite {suite}: attempted tasks without a record would stop counting ({shown})")
    return out


def unknown_runs(db: sqlite_utils.Database, parsed: AssessmentFile) -> list[str]:
    """Assessments that name a suite the ledger has no attempts or task records in (while it has some
    for other suites), or a run the agent has no attempts in (in the assessment's tier) although it
    has attempts in the suite: a typo in either would silently leave the agent without a FitScore.
    An agent without any attempts in a known suite is a candidate without runs, which is allowed."""
    if not db["benchmark_attempts"].exists():
        return []
    out = []
    suites = {r["suite"] or DEFAULT_SUITE for r in db.query("select distinct suite from benchmark_attempts")}
    if db["benchmark_task_records"].exists():
        suites |= {r["suite"] for r in db.query("select distinct suite from benchmark_task_records")}
    for a in parsed.assessment:
        if suites and a.suite not in suites:
            # A suite the ledger has never seen, in a ledger that has some: a typo would save an
            # assessment that no attempt can ever reach, and say nothing.
            shown = ", ".join(sorted(suites)[:10]) + (" …" if len(suites) > 10 else "")
            out.append(
                f"the assessment of {a.agent} names suite {a.suite!r}, which has no attempts or task records"
                f" in this ledger (its suites: {shown}); import the suite's attempts first"
            )
            continue
        if a.named_runs is None:
            continue
        rows = [
            r
            for r in db.query(
                "select agent, tier, coalesce(run, substr(date, 1, 10)) as run from benchmark_attempts where suite = ?",
                [a.suite],
            )
            if agent_key(r["agent"]) == agent_key(a.agent)
        ]
        if not rows:
            continue
        tier = a.tier or ("verified" if any(r["tier"] == "verified" for r in rows) else "community")
        runs = sorted({r["run"] for r in rows if r["tier"] == tier})
        missing = [run for run in a.named_runs if run not in runs]
        if missing:
            out.append(
                f"the assessment of {a.agent} names run {missing[0]!r}, in which {a.agent} has no {tier} attempts"
                f" in suite {a.suite} (its runs: {', '.join(runs) or 'none'})"
            )
    return out


def save_tasks(
    db: sqlite_utils.Database, path: str | Path, tasks: list[TaskRecord], *, leave_uncounted: bool = False
) -> ImportResult:
    """Store task records. A file that would take attempted tasks of a suite out of every figure (they have
    no record) is refused unless the operator says so (``leave_uncounted``, the CLI's --leave-uncounted):
    one stray record can no longer unrank a suite's entries by accident."""
    problems = [] if leave_uncounted else uncounted_by(db, tasks)
    if problems:
        raise LedgerFileError(one_line(f"{path}: {problems[0]}; add their records, or pass --leave-uncounted"))
    run_id = _save(db, "import-tasks", path, "benchmark_task_records", [t.row() for t in tasks])
    not_counted = sum(1 for t in tasks if not t.status()[0])
    return ImportResult(run_id, len(tasks), f"{len(tasks) - not_counted} validated, {not_counted} not counted")


def checked_prices(path: str | Path) -> list[Price]:
    try:
        return read_prices(path)
    except ValueError as e:
        raise LedgerFileError(one_line(str(e))) from None


def import_prices(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    return save_prices(db, path, checked_prices(path))


def save_prices(db: sqlite_utils.Database, path: str | Path, prices: list[Price]) -> ImportResult:
    run_id = _save(db, "import-prices", path, "benchmark_prices", [p.row() for p in prices])
    models = len({p.model for p in prices})
    return ImportResult(run_id, len(prices), f"{models} models")


def checked_assessments(path: str | Path) -> AssessmentFile:
    try:
        return read_assessments(path)
    except ValueError as e:
        raise LedgerFileError(one_line(str(e))) from None


def import_assessments(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    return save_assessments(db, path, checked_assessments(path))


def save_assessments(db: sqlite_utils.Database, path: str | Path, parsed: AssessmentFile) -> ImportResult:
    weights = json.dumps(parsed.method.weights, sort_keys=True)
    rows = [
        {
            "agent": a.agent,
            "suite": a.suite,
            "tier": a.tier,
            "runs": None if a.named_runs is None else json.dumps(a.named_runs, ensure_ascii=False),
            "scores": json.dumps(a.scores, sort_keys=True),
            "notes": json.dumps(a.notes, sort_keys=True, ensure_ascii=False),
            "published": a.published,
            "judgements": json.dumps([j.model_dump() for j in a.judgement], ensure_ascii=False),
            "weights": weights,
        }
        for a in parsed.assessment
    ]
    run_id = _save(db, "import-assessments", path, "benchmark_assessments", rows)
    found = {(f["agent"], f["suite"]): f for f in db.query("select * from benchmark_fitscores")}
    marked = []
    for a in parsed.assessment:
        row = found.get((a.agent, a.suite), {})
        if row.get("matches_published") == 0:
            marked.append(a.agent)
        for judgement in json.loads(row.get("judgements") or "[]"):
            if judgement["matches_published"] is False:
                marked.append(f"{a.agent}: {judgement['call']}")
    detail = f"{len(marked)} published figure(s) do not recompute" + (f": {', '.join(marked)}" if marked else "")
    return ImportResult(run_id, len(rows), detail)


def sync_indexes(db: sqlite_utils.Database, indexes: list[IndexConfig]) -> bool:
    """Store the configured index definitions; True when they changed (the caller then refreshes)."""
    rows = [{"name": i.name, "version": i.version, "suites": json.dumps(i.suites)} for i in indexes]
    if list(db.query("select name, version, suites from benchmark_index_defs order by name")) == sorted(
        rows, key=lambda r: r["name"]
    ):
        return False
    with write_transaction(db):
        db.execute("delete from benchmark_index_defs")
        db.table("benchmark_index_defs").insert_all(rows, pk="name")
        # The version history: each (index, version) with its suites, kept when the config moves on.
        seen = iso(utcnow())
        db.conn.executemany(
            "insert or ignore into benchmark_index_versions (name, version, suites, first_seen) values (?, ?, ?, ?)",
            [(r["name"], r["version"], r["suites"], seen) for r in rows],
        )
    return True
