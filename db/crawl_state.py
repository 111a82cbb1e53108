"""The crawl's checkpoint: query parts, per-run sightings and misses, run counters.

These ``crawl_*`` tables are private bookkeeping, never published. Readers take a
``sqlite3.Connection``, writers a ``sqlite_utils.Database``. Writers here do not open their own
transaction: the crawl calls them inside the one ``write_transaction`` that also saves the page,
so a page and its checkpoint land together or not at all.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

import sqlite_utils

PART_COLUMNS = ("base", "q", "stars_lo", "stars_hi", "created_lo", "created_hi")
COUNTERS = ("items", "new", "updated", "rejected")
CLIENT_STATS = ("requests", "search_requests", "waits", "wait_s", "retries", "elapsed_s")


def _chunks(values: list[int], size: int = 500) -> Iterable[list[int]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _dicts(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def create_state(db: sqlite_utils.Database, run_id: int, *, fingerprint: str, api_url: str) -> None:
    db.table("crawl_state").insert({"run_id": run_id, "fingerprint": fingerprint, "api_url": api_url}, pk="run_id")


def get_state(conn: sqlite3.Connection, run_id: int) -> dict[str, Any] | None:
    rows = _dicts(conn.execute("select * from crawl_state where run_id = ?", [run_id]))
    return rows[0] if rows else None


def add_session(db: sqlite_utils.Database, run_id: int) -> None:
    """A resumed crawl: one more session of the same run."""
    db.execute("update crawl_state set sessions = sessions + 1 where run_id = ?", [run_id])


def add_parts(
    db: sqlite_utils.Database,
    run_id: int,
    parts: list[dict[str, Any]],
    *,
    query_index: int | None = None,
    parent: dict[str, Any] | None = None,
    reason: str | None = None,
) -> None:
    """Add query parts (dicts with PART_COLUMNS), children of ``parent`` when given."""
    rows = []
    for part in parts:
        row = {column: part.get(column) for column in PART_COLUMNS}
        row.update(
            run_id=run_id,
            state="pending",
            query_index=parent["query_index"] if parent else part.get("query_index", query_index),
            parent_id=parent["id"] if parent else None,
            split_reason=reason,
        )
        rows.append(row)
    db.table("crawl_parts").insert_all(rows, pk="id")


def next_part(conn: sqlite3.Connection, run_id: int) -> dict[str, Any] | None:
    """The next part to page through; when none is left, the next one to verify."""
    for where in ("state in ('pending', 'paging')", "state = 'done' and verified = 0"):
        rows = _dicts(
            conn.execute(
                f"select * from crawl_parts where run_id = ? and {where} order by query_index, id limit 1", [run_id]
            )
        )
        if rows:
            return rows[0]
    return None


def update_part(db: sqlite_utils.Database, part_id: int, values: dict[str, Any]) -> None:
    if "flags" in values and not isinstance(values["flags"], str):
        values = {**values, "flags": json.dumps(sorted(set(values["flags"])))}
    db.table("crawl_parts").update(part_id, values)


def get_part(conn: sqlite3.Connection, part_id: int) -> dict[str, Any]:
    return _dicts(conn.execute("select * from crawl_parts where id = ?", [part_id]))[0]


def child_totals(conn: sqlite3.Connection, parent_id: int) -> dict[int, int]:
    """The total_count each child of ``parent_id`` reported so far (those not fetched yet have none)."""
    return dict(
        conn.execute(
            "select id, total_count from crawl_parts where parent_id = ? and total_count is not null", [parent_id]
        ).fetchall()
    )


def count_query_parts(conn: sqlite3.Connection, run_id: int, query_index: int) -> int:
    """How many parts one configured query has been split into in this run (its root included)."""
    row = conn.execute(
        "select count(*) from crawl_parts where run_id = ? and query_index = ?", [run_id, query_index]
    ).fetchone()
    return int(row[0])


def flag_query(db: sqlite_utils.Database, part: dict[str, Any], flag: str) -> None:
    """Mark the root part of ``part``'s configured query incomplete, saying why (``part`` carries its
    own flags; a root that is ``part`` itself is left to them)."""
    rows = _dicts(
        db.conn.execute(
            "select id, flags from crawl_parts where run_id = ? and query_index = ? and parent_id is null and id != ?",
            [part["run_id"], part["query_index"], part["id"]],
        )
    )
    for row in rows:
        update_part(db, row["id"], {"incomplete": 1, "flags": [*part_flags(row), flag]})


def query_flags(conn: sqlite3.Connection, run_id: int) -> list[tuple[str, list[str]]]:
    """Each configured query of the run (its root part's base) with the flags on its root part."""
    rows = conn.execute(
        "select base, flags from crawl_parts where run_id = ? and parent_id is null order by query_index", [run_id]
    ).fetchall()
    return [(base, list(json.loads(flags or "[]"))) for base, flags in rows]


def part_flags(part: dict[str, Any]) -> list[str]:
    """What made a part incomplete; on a split part, what its first page said (a total from a page
    flagged incomplete may be short, so the narrowing guard does not judge its parts by it)."""
    return list(json.loads(part.get("flags") or "[]"))


def parts_summary(conn: sqlite3.Connection, run_id: int) -> dict[str, int]:
    row = conn.execute(
        "select count(*), sum(state = 'split'), sum(state != 'split' and incomplete = 1), sum(pages) "
        "from crawl_parts where run_id = ?",
        [run_id],
    ).fetchone()
    return {"parts": row[0] or 0, "split": row[1] or 0, "incomplete": row[2] or 0, "pages": row[3] or 0}


def previous_query_total(conn: sqlite3.Connection, run_id: int, base: str) -> int | None:
    """What the latest earlier finished crawl's GitHub said query ``base`` held (its root part's total)."""
    row = conn.execute(
        "select p.total_count from crawl_parts p join runs r on r.id = p.run_id "
        "where p.base = ? and p.parent_id is null and p.run_id < ? and r.kind = 'crawl' and r.status = 'ok' "
        "and p.total_count is not null order by p.run_id desc limit 1",
        [base, run_id],
    ).fetchone()
    return row[0] if row else None


def seen_in_run(conn: sqlite3.Connection, run_id: int, ids: list[int]) -> set[int]:
    found: set[int] = set()
    for chunk in _chunks(ids):
        sql = "select repo_id from crawl_sightings where run_id = ? and repo_id in ({})".format(
            ", ".join("?" for _ in chunk)
        )
        found.update(row[0] for row in conn.execute(sql, [run_id, *chunk]))
    return found


def distinct_in_part(conn: sqlite3.Connection, run_id: int, part_id: int, more: Iterable[int] = ()) -> int:
    """Distinct repos sighted by a part so far, counting ``more`` (ids not saved yet) too."""
    known = {
        row[0]
        for row in conn.execute(
            "select repo_id from crawl_sightings where run_id = ? and part_id = ?", [run_id, part_id]
        )
    }
    return len(known | set(more))


def rejects_in_run(conn: sqlite3.Connection, run_id: int) -> set[tuple[Any, Any, str]]:
    return {
        tuple(row) for row in conn.execute("select repo_id, full_name, reason from rejects where run_id = ?", [run_id])
    }


def record_sightings(db: sqlite_utils.Database, run_id: int, part_id: int, ids: Iterable[int]) -> None:
    db.conn.executemany(
        "insert or ignore into crawl_sightings (run_id, part_id, repo_id) values (?, ?, ?)",
        [(run_id, part_id, repo_id) for repo_id in set(ids)],
    )


def add_counters(db: sqlite_utils.Database, run_id: int, deltas: dict[str, int], stats: dict[str, float]) -> None:
    """Add this page's counts and set the client's running totals (requests, waits, …)."""
    sets = [f"[{name}] = [{name}] + ?" for name in COUNTERS]
    params: list[Any] = [int(deltas.get(name, 0)) for name in COUNTERS]
    for name in CLIENT_STATS:
        sets.append(f"[{name}] = ?")
        params.append(stats[name])
    db.execute(f"update crawl_state set {', '.join(sets)} where run_id = ?", [*params, run_id])


def seen_ids(conn: sqlite3.Connection, run_id: int) -> set[int]:
    return {row[0] for row in conn.execute("select distinct repo_id from crawl_sightings where run_id = ?", [run_id])}


def record_misses(db: sqlite_utils.Database, run_id: int, ids: list[int], *, complete: bool) -> None:
    db.conn.executemany(
        "insert or replace into crawl_misses (run_id, repo_id, complete) values (?, ?, ?)",
        [(run_id, repo_id, int(complete)) for repo_id in ids],
    )


def prune_sightings(db: sqlite_utils.Database, run_id: int) -> None:
    """Earlier runs' sightings have served their purpose once their misses are recorded."""
    db.execute("delete from crawl_sightings where run_id < ?", [run_id])
