"""Writing attempts and the leaderboard tables computed from them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from db.connection import write_transaction
from leaderboard.attempt import Attempt
from leaderboard.figures import Boards, build_boards, result_of


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


def save_boards(db: sqlite_utils.Database, boards: Boards) -> None:
    """Replace the leaderboard tables with freshly computed figures, in one transaction."""
    with write_transaction(db):
        for table in ("benchmark_entries", "benchmark_agents", "benchmark_tasks"):
            db.execute(f"delete from {table}")
        db.table("benchmark_entries").insert_all(
            map(_stored, boards.entries), pk=("tier", "agent", "agent_version", "model")
        )
        db.table("benchmark_agents").insert_all(map(_stored, boards.agents), pk=("tier", "agent"))
        db.table("benchmark_tasks").insert_all(
            map(_stored, boards.tasks), pk=("tier", "agent", "agent_version", "model", "task_id")
        )


def refresh_boards(db: sqlite_utils.Database) -> Boards:
    """Recompute every leaderboard figure from the stored attempts and store it."""
    boards = build_boards(load_attempt_rows(db))
    save_boards(db, boards)
    return boards
