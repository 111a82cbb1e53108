"""Writing repositories: current state in ``repos``, history in ``snapshots`` and ``repo_names``."""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from crawler.items import MISSING
from crawler.secrets import redact
from db.connection import write_transaction
from db.listing import TWIN_REASON, unlisted_reason

# The columns of ``repos`` that a validated item sets (see crawler.items.parse_item).
ITEM_COLUMNS = (
    "id",
    "node_id",
    "full_name",
    "name",
    "owner_login",
    "owner_id",
    "owner_type",
    "owner_avatar_url",
    "html_url",
    "description",
    "homepage",
    "language",
    "topics",
    "license_key",
    "license_name",
    "license_spdx",
    "stars",
    "forks",
    "open_issues",
    "size_kb",
    "default_branch",
    "created_at",
    "pushed_at",
    "updated_at",
    "archived",
    "fork",
)
# A change in any of these makes a seen repo count as "updated".
_TRACKED = (
    "full_name",
    "description",
    "homepage",
    "language",
    "topics",
    "license_spdx",
    "stars",
    "forks",
    "pushed_at",
    "archived",
    "fork",
)


@dataclass
class SaveCounts:
    items: int = 0
    saved: int = 0
    new: int = 0
    updated: int = 0
    renamed: int = 0
    listed: int = 0
    new_ids: list[int] = field(default_factory=list)

    def add(self, other: SaveCounts) -> None:
        for name in ("items", "saved", "new", "updated", "renamed", "listed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.new_ids.extend(other.new_ids)

    def as_dict(self) -> dict[str, int]:
        return {
            "items": self.items,
            "saved": self.saved,
            "new": self.new,
            "updated": self.updated,
            "renamed": self.renamed,
            "listed": self.listed,
        }


def _existing(db: sqlite_utils.Database, ids: list[int]) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        sql = "select * from repos where id in ({})".format(", ".join("?" for _ in chunk))
        for row in db.query(sql, chunk):
            found[row["id"]] = row
    return found


def save_repos(
    db: sqlite_utils.Database,
    records: Iterable[dict[str, Any]],
    *,
    run_id: int,
    seen_at: str,
    min_stars: int,
    source: str,
    matched: bool = True,
    exclusions: dict[int, str] | None = None,
) -> SaveCounts:
    """Upsert validated repo records and their snapshot for this run, in one transaction.

    Records are keyed by GitHub's numeric id, so a renamed repo keeps its row and history and its
    old name is kept in ``repo_names``. Duplicate ids in one batch collapse to the last one.
    ``exclusions`` (repo id → reason) defaults to the ones the latest refresh applied, so a crawl or
    an import on its own never lists a repo a correction excludes.
    """
    waiting: dict[str, str] = {}
    if exclusions is None:
        exclusions = stored_exclusions(db.conn)
        waiting = waiting_exclusions(db.conn)
    batch: dict[int, dict[str, Any]] = {}
    counts = SaveCounts()
    for record in records:
        counts.items += 1
        batch[record["id"]] = record
    if not batch:
        return counts
    with write_transaction(db):
        existing = _existing(db, list(batch))
        rows, snapshots, names = [], [], []
        for repo_id, record in batch.items():
            old = existing.get(repo_id)
            # A column whose key was missing from a saved item keeps what is stored (crawler.items.MISSING).
            kept = set(record.get(MISSING, ())) if old is not None else set()
            row: dict[str, Any] = {
                column: (old or {}).get(column) if column in kept else record.get(column) for column in ITEM_COLUMNS
            }
            was_matched = bool(old and old["matched"])
            row["matched"] = int(matched or was_matched)
            reason = unlisted_reason(
                matched=bool(row["matched"]),
                stars=row["stars"],
                fork=bool(row["fork"]),
                archived=bool(row["archived"]),
                min_stars=min_stars,
                excluded=exclusions.get(repo_id, waiting.get(str(record.get("full_name") or "").lower())),
            )
            row.update(
                listed=int(reason is None),
                unlisted_reason=reason,
                last_seen_at=seen_at,
                last_seen_run=run_id,
                missing_since_run=None,
            )
            if old is None:
                row.update(first_seen_at=seen_at, first_seen_run=run_id, source=source)
                counts.new += 1
                counts.new_ids.append(repo_id)
            else:
                if any(old.get(c) != row.get(c) for c in _TRACKED):
                    counts.updated += 1
                if old["full_name"] != row["full_name"]:
                    counts.renamed += 1
                    names.append({"repo_id": repo_id, "full_name": old["full_name"], "last_seen_at": seen_at})
            names.append(
                {"repo_id": repo_id, "full_name": row["full_name"], "first_seen_at": seen_at, "last_seen_at": seen_at}
            )
            counts.listed += row["listed"]
            rows.append(row)
            snapshots.append(
                {
                    "run_id": run_id,
                    "repo_id": repo_id,
                    "full_name": row["full_name"],
                    "stars": row["stars"],
                    "forks": row["forks"],
                    "pushed_at": row["pushed_at"],
                    "observed_at": seen_at,
                }
            )
        # upsert_all fills keys missing from some records with NULL, so rows that carry
        # first_seen_* (new repos) go in a separate call from rows that must keep theirs.
        db.table("repos").upsert_all([r for r in rows if "first_seen_at" in r], pk="id")
        db.table("repos").upsert_all([r for r in rows if "first_seen_at" not in r], pk="id")
        db.table("snapshots").upsert_all(snapshots, pk=("run_id", "repo_id"))
        for name in names:
            # first_seen_at of a name is set once, when the row is created.
            db.execute(
                "insert into repo_names (repo_id, full_name, first_seen_at, last_seen_at) values (?, ?, ?, ?) "
                "on conflict (repo_id, full_name) do update set last_seen_at = excluded.last_seen_at",
                [
                    name["repo_id"],
                    name["full_name"],
                    name.get("first_seen_at") or name["last_seen_at"],
                    name["last_seen_at"],
                ],
            )
        counts.saved = len(rows)
    return counts


def save_rejects(db: sqlite_utils.Database, run_id: int, rejects: Iterable[dict[str, Any]]) -> int:
    """Record items that failed validation, one row each with its reason."""
    rows = [
        {
            "run_id": run_id,
            "item_ref": r.get("item_ref"),
            "repo_id": r.get("repo_id"),
            "full_name": r.get("full_name"),
            "reason": redact(r["reason"]),  # it may quote the item's values, never the token
        }
        for r in rejects
    ]
    if rows:
        with write_transaction(db):
            db.table("rejects").insert_all(rows, pk="id")
    return len(rows)


def stored_exclusions(conn: sqlite3.Connection) -> dict[int, str]:
    """The exclusions of the corrections file as the latest refresh applied it: repo id → reason."""
    rows = conn.execute("select repo_id, reason from corrections where kind = 'exclude' and repo_id is not null")
    return {repo_id: reason or "" for repo_id, reason in rows}


def waiting_exclusions(conn: sqlite3.Connection) -> dict[str, str]:
    """Exclusions of repos the database did not hold at the last refresh (kept by name, no repo id):
    lower-cased name → reason. A crawl or an import that brings such a repo leaves it unlisted."""
    rows = conn.execute("select repo, reason from corrections where kind = 'exclude' and repo_id is null")
    return {repo.lower(): reason or "" for repo, reason in rows}


def relist(db: sqlite_utils.Database, *, min_stars: int, exclusions: dict[int, str]) -> dict[str, int]:
    """Apply the listing rule again to every repo, with the corrections' exclusions.

    A repo excluded last week and no longer in the file is listed again if the rule allows; a
    repo delisted by a complete crawl (``missing_since_run``) stays delisted until it is seen.
    Returns how many repos were delisted and relisted.
    """
    changed = {"delisted": 0, "relisted": 0}
    updates = []
    for row in db.query(
        "select id, matched, stars, fork, archived, missing_since_run, listed, unlisted_reason from repos"
    ):
        reason = unlisted_reason(
            matched=bool(row["matched"]),
            stars=row["stars"],
            fork=bool(row["fork"]),
            archived=bool(row["archived"]),
            min_stars=min_stars,
            excluded=exclusions.get(row["id"]),
            missing=row["missing_since_run"] is not None,
        )
        if reason != row["unlisted_reason"] or int(reason is None) != row["listed"]:
            updates.append((int(reason is None), reason, row["id"]))
            changed["relisted" if reason is None else "delisted"] += int(bool(row["listed"]) != (reason is None))
    if updates:
        with write_transaction(db):
            db.conn.executemany("update repos set listed = ?, unlisted_reason = ? where id = ?", updates)
    unlist_name_twins(db)
    return changed


def name_key(full_name: str) -> str:
    """What makes two names the same name: GitHub's names ignore letter case, and Unicode look-alikes
    that normalise to the same text (NFKC: a full-width letter, a composed accent) read the same."""
    return unicodedata.normalize("NFKC", full_name).casefold()


def unlist_name_twins(db: sqlite_utils.Database) -> int:
    """Unlist all but one of the listed repos that share a name (``name_key``) under different ids.

    GitHub keys repos by id and a name belongs to one repo at a time, so two ids with one name are a
    name that moved (a repo deleted or renamed, and the name taken again): the repo seen most
    recently holds it (then the larger id, the newer repo); the others are unlisted with the
    winner's id in their reason. Returns how many were unlisted.
    """
    groups: dict[str, list[tuple[str, int]]] = {}
    for repo_id, full_name, last_seen_at in db.execute(
        "select id, full_name, last_seen_at from repos where listed = 1"
    ):
        groups.setdefault(name_key(full_name), []).append((last_seen_at or "", repo_id))
    updates: list[tuple[str, int]] = []
    for members in groups.values():
        if len(members) > 1:
            members.sort(reverse=True)
            winner = members[0][1]
            updates.extend((TWIN_REASON.format(id=winner), repo_id) for _, repo_id in members[1:])
    if updates:
        with write_transaction(db):
            db.conn.executemany("update repos set listed = 0, unlisted_reason = ? where id = ?", updates)
    return len(updates)


# A repo first found by a crawl whose result was refused (``agentrank.crawl.DelistRefused``) was
# never confirmed by an accepted crawl: the delisting guard neither counts it nor measures by it.
_CONFIRMED = "not exists (select 1 from runs u where u.id = repos.first_seen_run and u.status = 'refused')"


def crawl_candidates(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Repos a crawl is expected to find again: matched ones not added by a correction."""
    cursor = conn.execute(
        f"select id, listed, unlisted_reason, stars, fork, archived, {_CONFIRMED} as confirmed from repos "
        "where matched = 1 and coalesce(source, '') != 'correction'"
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def mark_missing(db: sqlite_utils.Database, run_id: int, reasons: dict[int, str | None]) -> None:
    """Delist repos a complete crawl ``run_id`` did not find, each with its reason (no transaction of its own)."""
    for repo_id, reason in reasons.items():
        db.execute(
            "update repos set listed = 0, unlisted_reason = ?, "
            "missing_since_run = coalesce(missing_since_run, ?) where id = ?",
            [reason, run_id, repo_id],
        )


def count_seen_in_run(conn: sqlite3.Connection, run_id: int) -> int:
    return int(conn.execute("select count(*) from repos where last_seen_run = ?", [run_id]).fetchone()[0])


def count_listed(conn: sqlite3.Connection, *, confirmed: bool = False) -> int:
    """Listed repos (``confirmed``: only those first found by a crawl whose result was accepted)."""
    where = f"listed = 1 and {_CONFIRMED}" if confirmed else "listed = 1"
    return int(conn.execute(f"select count(*) from repos where {where}").fetchone()[0])


def newest_snapshot_after(conn: sqlite3.Connection, instant: str) -> tuple[str, str] | None:
    """(full_name, observed_at) of the newest stored snapshot later than ``instant``, if any."""
    row = conn.execute(
        "select full_name, observed_at from snapshots where observed_at > ? order by observed_at desc, run_id desc "
        "limit 1",
        [instant],
    ).fetchone()
    return (row[0], row[1]) if row else None


def listed_names(conn: sqlite3.Connection) -> set[str]:
    """The listed repos' full names, lower-cased (names compare case-insensitively on GitHub)."""
    return {name.lower() for (name,) in conn.execute("select full_name from repos where listed = 1")}
