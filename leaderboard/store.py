"""Writing attempts and the leaderboard tables computed from them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from db.connection import write_transaction
from leaderboard import methods as registry
from leaderboard.attempt import Attempt
from leaderboard.figures import Boards, build_boards, result_of
from leaderboard.methods import Methods, compute_methods


@dataclass
class AttemptCounts:
    new: int = 0
    updated: int = 0
    unchanged: int = 0

    @property
    def saved(self) -> int:
        return self.new + self.updated + self.unchanged


def attempt_row(attempt: Attempt) -> dict[str, Any]:
    """The stored row: what the attempt says plus its score under the rules of leaderboard.figures."""
    row = attempt.row()
    result = result_of(row)
    row.update(
        score=result.score,
        solved=None if result.solved is None else int(result.solved),
        counted=int(result.counted),
        disqualified=int(result.disqualified),
    )
    return row


def _existing(db: sqlite_utils.Database, ids: list[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        sql = "select * from benchmark_attempts where attempt_id in ({})".format(", ".join("?" for _ in chunk))
        found.update((row["attempt_id"], row) for row in db.query(sql, chunk))
    return found


def save_attempts(db: sqlite_utils.Database, attempts: Sequence[Attempt], *, run_id: int) -> AttemptCounts:
    """Upsert attempts by their key; an attempt stored exactly as given is left untouched."""
    counts = AttemptCounts()
    rows = [attempt_row(a) for a in attempts]
    with write_transaction(db):
        existing = _existing(db, [r["attempt_id"] for r in rows])
        changed = []
        for row in rows:
            old = existing.get(row["attempt_id"])
            if old is None:
                counts.new += 1
                changed.append({**row, "first_run_id": run_id, "changed_run_id": run_id})
            elif any(old[k] != v for k, v in row.items()):
                counts.updated += 1
                changed.append({**row, "first_run_id": old["first_run_id"], "changed_run_id": run_id})
            else:
                counts.unchanged += 1
        if changed:
            db.table("benchmark_attempts").insert_all(changed, pk="attempt_id", replace=True)  # every column is given
    return counts


def load_attempt_rows(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    return list(
        db.query("select * from benchmark_attempts order by tier, agent, agent_version, model, task_id, attempt")
    )


def _stored(row: dict[str, Any]) -> dict[str, Any]:
    return {k: json.dumps(v) if isinstance(v, list) else int(v) if isinstance(v, bool) else v for k, v in row.items()}


def _columns(db: sqlite_utils.Database, table: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as the table stores them: JSON for lists and objects, only the table's columns."""
    columns = set(db.table(table).columns_dict)
    return [{k: _json(v) for k, v in _stored(row).items() if k in columns} for row in rows]


def save_boards(db: sqlite_utils.Database, boards: Boards) -> None:
    """Replace the leaderboard tables with freshly computed figures, in one transaction."""
    with write_transaction(db):
        for table, rows in (
            ("benchmark_entries", boards.entries),
            ("benchmark_agents", boards.agents),
            ("benchmark_tasks", boards.tasks),
        ):
            db.execute(f"delete from {table}")
            db.table(table).insert_all(_columns(db, table, rows), alter=False)


def _json(value: Any) -> Any:
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if isinstance(value, dict | list) else value


def save_methods(db: sqlite_utils.Database, methods: Methods) -> None:
    """Replace every registered method's items, and each attempt's list-price cost and task status, in one
    transaction: a method with a table of its own fills it, the others the shared benchmark_method_items."""
    with write_transaction(db):
        db.execute("delete from benchmark_method_items")
        for spec in registry.METHODS.values():
            rows = methods.items.get(spec.key, [])
            if spec.table is None:
                db.table("benchmark_method_items").insert_all(
                    (
                        {"method": spec.key, "position": n, "tier": row.get("tier"), "item": _json(row)}
                        for n, row in enumerate(rows)
                    ),
                    alter=False,
                )
                continue
            db.execute(f"delete from {spec.table}")
            db.table(spec.table).insert_all(_columns(db, spec.table, rows), alter=False)
        db.execute("update benchmark_attempts set list_cost_usd = null, task_status = null")
        db.conn.executemany(
            "update benchmark_attempts set list_cost_usd = ?, task_status = ? where attempt_id = ?",
            [(r, t, i) for i, (r, t) in methods.attempt_updates.items() if r is not None or t is not None],
        )


def load_method_inputs(db: sqlite_utils.Database) -> dict[str, Any]:
    """What the methods are computed from besides the attempts: tasks, prices, assessments, indexes."""
    return {
        "task_records": list(db.query("select * from benchmark_task_records")),
        "prices": list(db.query("select * from benchmark_prices")),
        "assessments": list(db.query("select * from benchmark_assessments order by agent, suite")),
        "indexes": list(db.query("select * from benchmark_index_defs order by name")),
    }


def refresh_boards(db: sqlite_utils.Database) -> Boards:
    """Recompute every leaderboard figure and every method's view from the stored ledger and store them.

    One transaction (a savepoint inside the caller's): the inputs a ledger command writes and the
    figures computed from them commit together, so a kill leaves either both or neither.
    """
    with write_transaction(db):
        rows = load_attempt_rows(db)
        methods = compute_methods(rows, **load_method_inputs(db))
        boards = build_boards(methods.counted_rows, methods.suite_tasks)
        save_boards(db, boards)
        save_methods(db, methods)
    return boards
