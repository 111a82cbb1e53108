"""``agentrank import``: saved search results loaded as one ``import`` run, as if crawled."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

import sqlite_utils

from agentrank.errors import InputRefused, PipelineError
from crawler.items import EARLIEST, FUTURE_SLACK, DroppedTopics, ItemRejected, parse_item, parse_timestamp
from crawler.saved import iter_saved_items
from db.connection import write_transaction
from db.redate import skew_hint
from db.repos import SaveCounts, count_listed, newest_snapshot_after, save_rejects, save_repos, unlist_name_twins
from db.runs import iso, recorded_run, utcnow

BATCH = 500
MAX_CONFLICTS_SHOWN = 20
# What one import may hold, so that its memory stays bounded whatever the file: items past this
# refuse the whole import (split the file); rejects past MAX_REJECTS_KEPT are counted by reason
# but get no row of their own (2M `{}` items are 2M reasons "id: missing", not 2M rows).
MAX_IMPORT_ITEMS = 1_000_000
MAX_REJECTS_KEPT = 10_000


@dataclass
class ImportResult:
    run_id: int
    files: int
    counts: SaveCounts
    rejected: int
    reasons: dict[str, int] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)  # the same id twice with different data
    rejects_recorded: int = 0  # rows in `rejects` (at most MAX_REJECTS_KEPT)
    note: str | None = None  # something the user should look at (printed on stderr)
    dropped_topics: DroppedTopics = field(default_factory=DroppedTopics)  # from items that were kept
    # Listed repos in the database after the import: an import never delists, so repos of earlier
    # runs that these files do not hold stay listed, and the listing can be larger than what was saved.
    listed_in_all: int | None = None

    def summary(self) -> str:
        c = self.counts
        line = (
            f"import run {self.run_id}: {_n(c.items, 'item')} from {_n(self.files, 'file')}: "
            f"{_n(c.saved, 'repo')} saved ({c.new} new, {c.updated} updated), {self.rejected} rejected; "
            f"{c.listed} of them listed"
        )
        if self.listed_in_all is not None and self.listed_in_all != c.listed:
            line += f", {self.listed_in_all} listed in all"
        if self.reasons:
            line += " — rejects by field: " + ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items()))
        if self.rejects_recorded < self.rejected:
            line += f" (the first {self.rejects_recorded:,} are listed in the rejects table)"
        if self.dropped_topics:
            line += f"\n{self.dropped_topics.line()}"
        for conflict in self.conflicts:
            line += f"\nduplicate with different data: {conflict}"
        return line


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def save_items(
    db: sqlite_utils.Database,
    raw_items: Iterable[tuple[str, Any]],
    *,
    run_id: int,
    min_stars: int,
    source: str,
    seen_at: str,
) -> tuple[SaveCounts, list[dict[str, Any]]]:
    """Validate raw items and save them in batches; rejected items are recorded, the rest kept."""
    counts = SaveCounts()
    rejects: list[dict[str, Any]] = []
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        counts.add(save_repos(db, batch, run_id=run_id, seen_at=seen_at, min_stars=min_stars, source=source))
        batch.clear()

    for ref, raw in raw_items:
        try:
            batch.append(parse_item(raw))
        except ItemRejected as e:
            rejects.append({"item_ref": ref, "repo_id": e.repo_id, "full_name": e.full_name, "reason": e.reason})
            counts.items += 1
            continue
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    save_rejects(db, run_id, rejects)
    return counts, rejects


# How far ahead of this machine's clock an --observed-at may be (the saving machine's clock may run fast).
CLOCK_SKEW = timedelta(minutes=5)


def parse_observed_at(value: str | datetime, *, now: datetime | None = None) -> datetime:
    """``--observed-at`` as a UTC instant (whole seconds); a time without a zone is UTC.

    Results cannot have been fetched in the future (beyond ``CLOCK_SKEW``) or before 2000: such an
    instant is refused, as it would date every later import's history before it. A refusal is
    ``InputRefused`` (bad usage, exit 2), as for ``score --as-of``.
    """
    try:
        parsed = parse_timestamp(value.isoformat() if isinstance(value, datetime) else value).replace(microsecond=0)
    except (ValueError, OverflowError):
        raise InputRefused(f"--observed-at: not an ISO 8601 time: {value!r} (e.g. 2026-11-30T06:00:00Z)") from None
    latest = (now or utcnow()) + CLOCK_SKEW
    if not EARLIEST <= parsed <= latest:
        when = "in the future" if parsed > latest else f"before {EARLIEST:%Y}"
        raise InputRefused(
            f"--observed-at {iso(parsed)}: is {when}; give the instant the saved results were fetched from GitHub"
        )
    return parsed


@dataclass
class _Validated:
    """Phase one of an import: every item validated, the good records spooled to a temporary file."""

    spool: IO[str]
    records: int = 0
    items: int = 0
    rejects: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_REJECTS_KEPT
    rejected: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # every reject, by field
    conflicts: list[str] = field(default_factory=list)
    dropped_topics: DroppedTopics = field(default_factory=DroppedTopics)
    newest: tuple[datetime, str, str] | None = None  # the latest created_at or pushed_at: when, whose, which


def _validate(paths: list[str | Path], spool: IO[str]) -> _Validated:
    """Read every file incrementally and validate every item, keeping compact records on disk only."""
    result = _Validated(spool=spool)
    seen: dict[int, int] = {}  # id -> 64-bit digest of its record (compact: a million ids ~ 130 MB)
    for ref, raw in iter_saved_items(paths):
        result.items += 1
        if result.items > MAX_IMPORT_ITEMS:
            raise PipelineError(
                f"more than {MAX_IMPORT_ITEMS:,} items in {', '.join(map(str, paths))}: nothing imported; "
                "split the results into several files and import them one after another"
            )
        try:
            record = parse_item(raw)
        except ItemRejected as e:
            result.rejected += 1
            field_name = e.reason.split(":", 1)[0]
            result.reasons[field_name] = result.reasons.get(field_name, 0) + 1
            if len(result.rejects) < MAX_REJECTS_KEPT:
                result.rejects.append(
                    {"item_ref": ref, "repo_id": e.repo_id, "full_name": e.full_name, "reason": e.reason}
                )
            continue
        result.dropped_topics.take(record)
        for which in ("created_at", "pushed_at"):
            if record.get(which):
                when = parse_timestamp(record[which])
                if result.newest is None or when > result.newest[0]:
                    result.newest = (when, record["full_name"], which.replace("_at", ""))
        line = json.dumps(record, ensure_ascii=False, sort_keys=True)
        digest = int.from_bytes(hashlib.blake2b(line.encode("utf-8"), digest_size=8).digest())
        first = seen.setdefault(record["id"], digest)
        if first != digest and len(result.conflicts) < MAX_CONFLICTS_SHOWN:
            result.conflicts.append(f"id {record['id']}: {ref} differs from an earlier item (the later one is kept)")
        result.spool.write(line + "\n")
        result.records += 1
    if result.items == 0:
        raise PipelineError(f"no search items in {', '.join(map(str, paths))}: nothing imported")
    if result.records == 0:  # an import run would still move the score's as-of to its time
        reject = result.rejects[0]
        raise PipelineError(
            f"no valid search item in {', '.join(map(str, paths))} ({result.items:,} rejected; the first, "
            f"{reject['item_ref']}: {reject['reason']}): nothing imported"
        )
    result.spool.seek(0)
    return result


def check_files(paths: Sequence[str | Path]) -> None:
    """Refuse saved results :func:`import_files` would refuse (not search results, no valid item,
    too many items), reading them as it does: for a caller that must refuse them before it opens
    the database or records a run (``refresh --from-file``)."""
    with open(os.devnull, "w", encoding="utf-8") as nowhere:  # the records are not kept
        _validate(list(paths), nowhere)


def _spooled(spool: IO[str]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for line in spool:
        batch.append(json.loads(line))
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def import_files(
    db: sqlite_utils.Database,
    paths: list[str | Path],
    *,
    min_stars: int,
    observed_at: str | datetime | None = None,
    parent_id: int | None = None,
) -> ImportResult:
    """Load saved search results as one ``import`` run, through the crawler's validation and writers.

    ``observed_at`` is when the results were fetched from GitHub (default: now). It becomes the
    run's time, so the snapshots, the default score ``as_of`` and the 7-/28-day deltas fall on it.
    History is appended, never rewritten: an instant earlier than the newest stored snapshot is
    refused before anything is written (the scores' default ``as_of`` is the latest import's time,
    so every repo's history must run forward together).

    All or nothing: every file is read and every item validated first (streamed, so memory stays
    bounded), then everything is written in one transaction. A process killed while writing
    leaves the database as it was, and its ``running`` run is marked ``interrupted`` by the next
    command that takes the run lock.
    """
    started = utcnow() if observed_at is None else parse_observed_at(observed_at)
    later = newest_snapshot_after(db.conn, iso(started))
    if later:
        given = f"--observed-at {iso(started)}" if observed_at is not None else f"now ({iso(started)})"
        raise PipelineError(
            f"{given} is earlier than the stored snapshot of {later[0]} observed at "
            f"{later[1]}: history is appended, never rewritten (import older saves first)"
            + skew_hint(later[1], utcnow(), CLOCK_SKEW)
        )
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        validated = _validate(paths, spool)
        result = _import(db, paths, validated, started=started, min_stars=min_stars, parent_id=parent_id)
        if observed_at is not None and validated.newest and validated.newest[0] > started + FUTURE_SLACK:
            # Results cannot have been fetched before the data they hold: ages and days since the last
            # push would be measured from the wrong day (the score clamps them at 0). Said, not refused:
            # the design lets such a history be built, and the score's own checks still apply.
            when, name, which = validated.newest
            result.note = (
                f"--observed-at {iso(started)} is before the data the files hold ({name} was {which} at "
                f"{iso(when)}): was it the instant the saved results were fetched from GitHub?"
            )
        return result


def _import(
    db: sqlite_utils.Database,
    paths: list[str | Path],
    validated: _Validated,
    *,
    started: datetime,
    min_stars: int,
    parent_id: int | None,
) -> ImportResult:
    details = {"files": [str(p) for p in paths]}
    with recorded_run(
        db, "import", parent_id=parent_id, started_at=started, as_of=iso(started), details=details
    ) as run:
        counts = SaveCounts(items=validated.items - validated.records)
        with write_transaction(db):
            for batch in _spooled(validated.spool):
                counts.add(
                    save_repos(db, batch, run_id=run.id, seen_at=iso(started), min_stars=min_stars, source="import")
                )
            save_rejects(db, run.id, validated.rejects)
            if unlist_name_twins(db):
                # Two of these items under one name (a name that moved, or one case apart): the older
                # is unlisted, so count the listed repos this import saved again.
                counts.listed = db.execute(
                    "select count(*) from repos where listed = 1 and last_seen_at = ?", [iso(started)]
                ).fetchone()[0]
        counts.items = validated.items
        reasons = validated.reasons
        run.counts = {**counts.as_dict(), "rejected": validated.rejected}
        run.details = {
            "reject_reasons": reasons,
            "conflicting_duplicates": validated.conflicts,
            "rejects_recorded": len(validated.rejects),
        }
        if validated.dropped_topics:
            run.details["dropped_topics"] = validated.dropped_topics.as_dict()
    return ImportResult(
        run_id=run.id,
        files=len(paths),
        counts=counts,
        rejected=validated.rejected,
        rejects_recorded=len(validated.rejects),
        reasons=reasons,
        conflicts=validated.conflicts,
        dropped_topics=validated.dropped_topics,
        listed_in_all=count_listed(db.conn),
    )
