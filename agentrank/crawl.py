"""One crawl run: every configured search, split past the cap, saved page by page with its checkpoint.

The run is a small state machine kept in ``crawl_parts``: each part is pending, paging (with the
next page to fetch), split (replaced by narrower children) or done; a done part is then verified
(its first page fetched again and the distinct repos it has given compared with what GitHub now
says it holds; a short part is swept again). Every page is saved in one transaction with the
part's new state, so a crawl killed at any point resumes where it stopped and ends with the same
data as one that never stopped.

A repo missing from the run is recorded; it is delisted only when the run was complete (no part
incomplete), never on the evidence of a crawl that may have missed it.

This is orchestration: GitHub is reached through ``crawler`` (the HTTP client, search planning,
item validation) and every SQL statement lives in ``db``.
"""

from __future__ import annotations

import json
import logging
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import click
import sqlite_utils

from agentrank.config import Config
from agentrank.errors import PipelineError
from crawler.client import GitHubClient, GitHubError, RateLimitStop
from crawler.clock import Clock, RealClock
from crawler.items import DroppedTopics, json_int, parse_timestamp, validate_items
from crawler.search import (
    CAP,
    EMPTY_BELOW_TOTAL,
    INCOMPLETE_RESULTS,
    MAX_PAGE,
    UNSHRUNK_SPLITS,
    Part,
    SearchPage,
    base_queries,
    fetch_pages,
    fetch_search_page,
    narrowing_fails,
    pages_for,
    plan_split,
)
from crawler.secrets import redact
from db import crawl_state
from db.connection import checkpoint_wal, write_transaction
from db.listing import unlisted_reason
from db.repos import (
    count_listed,
    count_seen_in_run,
    crawl_candidates,
    mark_missing,
    save_rejects,
    save_repos,
    unlist_name_twins,
)
from db.runs import finish_run, get_run, iso, latest_run, start_run, update_run

log = logging.getLogger("agentrank.crawl")

# What a configured query's root part is flagged with when a guard stopped its splitting (and what
# the end of the crawl says, once a query).
NOT_NARROWED = (
    "narrower searches did not report fewer results (stars:/created: ignored?): split no further, "
    f"each part read to its first {CAP:,} results"
)
PARTS_SPENT = (
    f"split into the most parts crawl.max_query_parts allows: parts still over {CAP:,} results "
    f"read to their first {CAP:,}"
)

RESUMABLE = ("running", "interrupted", "failed")  # not "refused": see DelistRefused
RESUME_WITHIN_S = 3 * 24 * 3600  # an older unfinished crawl is stale: start afresh
MAX_SWEEPS = 2
# A configured query that held at least this many repos in the last crawl and now holds none is an
# outage of GitHub's search, not a week's change: that crawl is incomplete and delists nothing.
EMPTIED_FROM = 10
# The delisting guard ignores a crawl that would delist this many repos or fewer, whatever the share.
DELIST_GUARD_FLOOR = 10


class DelistRefused(PipelineError):
    """A complete crawl would delist more than ``crawl.max_delist_share`` of the listing."""


@dataclass
class CrawlResult:
    run_id: int
    complete: bool
    resumed: bool
    requests: int
    search_requests: int
    found: int
    new: int
    updated: int
    delisted: int
    missing: int
    rejected: int
    listed: int
    waits: int
    wait_s: float
    retries: int
    duration_s: float
    parts: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        state = "complete" if self.complete else "incomplete, so nothing was delisted"
        resumed = ", resumed" if self.resumed else ""
        return (
            f"crawl run {self.run_id} ({state}{resumed}): {self.requests} requests, {self.found} repos found "
            f"({self.new} new, {self.updated} updated, {self.delisted} delisted), {self.waits} waits "
            f"({self.wait_s:.0f} s), {self.retries} retries, {self.duration_s:.1f} s"
        )


@dataclass(frozen=True)
class _Stop:
    """Why a guard refused to split a part: ``flags`` for the part, ``query`` for its configured query."""

    flags: list[str]
    query: str


def fingerprint(config: Config) -> str:
    """What a checkpoint's parts were planned for; a resume needs the same."""
    bases = base_queries(config.crawl.topics, config.crawl.keywords)
    return json.dumps({"queries": bases, "min_stars": config.crawl.min_stars}, sort_keys=True)


def _item_ids(items: list[Any]) -> list[int]:
    """The ids of a page's items that can be repo ids (an id past 64 bits is a rejected item, not a sighting)."""
    ids = (json_int(item.get("id")) if isinstance(item, dict) else None for item in items)
    return [i for i in ids if i is not None and i > 0]


class CrawlProgress:
    """A progress bar per query part on a terminal; silent otherwise."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._bar: Any = None

    def page(self, part: dict[str, Any], page: SearchPage, verifying: bool = False) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            label = textwrap.shorten(("verify " if verifying else "") + part["q"], 70, placeholder="…")
            # Verifying fetches the first page again, nothing more: a bar of one.
            length = 1 if verifying else pages_for(page.total_count)
            self._bar = click.progressbar(length=length, label=label, file=sys.stderr, show_pos=True)
            self._bar.__enter__()
            if page.number > 1:
                self._bar.update(page.number - 1)
        self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


class _Crawl:
    def __init__(
        self, db: sqlite_utils.Database, config: Config, client: GitHubClient, clock: Clock, progress: CrawlProgress
    ) -> None:
        self.db, self.config, self.client, self.clock, self.progress = db, config, client, clock, progress
        self.min_stars = config.crawl.min_stars
        self.run_id = 0
        self.resumed = False
        self.seen_at = ""
        self.base: dict[str, Any] = {}
        self.session_start = clock.now()
        self.offset = 0.0  # seconds from the clock to the run's own time (a run dated in the past)
        # Parts whose total_count changed while they were paged (this session): repos entered or
        # left the part, so a repo that rose onto a page already fetched can be missing while
        # another that left still counts as seen; such a part is swept once more before it is
        # trusted, whatever its count says.
        self.moved: set[int] = set()
        # Topics dropped from repos this session saved for the first time in the run (said at the end).
        self.dropped_topics = DroppedTopics()

    # -- opening or resuming ------------------------------------------------------------------
    def open(self, *, fresh: bool, parent_id: int | None, at: datetime | None = None) -> None:
        db, fp = self.db, fingerprint(self.config)
        self.client.check_clock()  # before anything is recorded: a wrong clock dates every row wrong
        last = latest_run(db, ("crawl",), status=None)
        if last is not None and not fresh and last["status"] in RESUMABLE:
            state = crawl_state.get_state(db.conn, last["id"])
            last_started = parse_timestamp(last["started_at"]).timestamp()
            if state is not None and state["fingerprint"] == fp and self.clock.now() - last_started <= RESUME_WITHIN_S:
                with write_transaction(db):
                    update_run(db, last["id"], status="running", error=None, finished_at=None)
                    crawl_state.add_session(db, last["id"])
                self.run_id, self.resumed, self.seen_at = last["id"], True, last["started_at"]
                self.base = dict(crawl_state.get_state(db.conn, self.run_id) or {})
                return
        if last is not None and last["status"] == "running":
            # We hold the run lock, so its process is gone.
            update_run(
                db,
                last["id"],
                status="interrupted",
                finished_at=last["started_at"],
                error="superseded by a fresh crawl",
            )
        if at is not None:
            self.offset = at.timestamp() - self.clock.now()
        started = self._now().replace(microsecond=0)
        bases = base_queries(self.config.crawl.topics, self.config.crawl.keywords)
        with write_transaction(db):
            self.run_id = start_run(
                db,
                "crawl",
                parent_id=parent_id,
                started_at=started,
                as_of=iso(started),
                details={
                    "api_url": redact(self.client.api_url),
                    "queries": bases,
                    "min_stars": self.min_stars,
                    # The delisting guard's base: repos this crawl lists anew must not dilute it.
                    "listed_at_start": count_listed(db.conn, confirmed=True),
                },
            )
            crawl_state.create_state(db, self.run_id, fingerprint=fp, api_url=redact(self.client.api_url))
            roots = [
                {**asdict(Part(b, self.min_stars)), "q": Part(b, self.min_stars).q, "query_index": i}
                for i, b in enumerate(bases)
            ]
            crawl_state.add_parts(db, self.run_id, roots)
        self.seen_at = iso(started)
        self.base = dict(crawl_state.get_state(db.conn, self.run_id) or {})

    # -- the loop ---------------------------------------------------------------------------------
    def run(self) -> CrawlResult:
        try:
            while (part := crawl_state.next_part(self.db.conn, self.run_id)) is not None:
                if part["state"] == "done":
                    self._verify(part)
                else:
                    self._page_through(part)
                self.progress.close()
            return self._finish()
        except RateLimitStop as e:
            self._end("interrupted", str(e))
            raise
        except DelistRefused as e:
            # A finished crawl whose result was refused: nothing to resume, the next one starts afresh.
            self._end("refused", str(e))
            raise
        except KeyboardInterrupt:
            self._end("interrupted", "interrupted by the user")
            raise
        except GitHubError as e:
            self._end("failed", str(e))
            raise
        except BaseException as e:
            self._end("failed", redact(f"{type(e).__name__}: {e}"))
            raise
        finally:
            self.progress.close()

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now() + self.offset, UTC)

    @staticmethod
    def _spec(part: dict[str, Any]) -> Part:
        return Part(part["base"], part["stars_lo"], part["stars_hi"], part["created_lo"], part["created_hi"])

    def _page_through(self, part: dict[str, Any]) -> None:
        spec = self._spec(part)
        flags = crawl_state.part_flags(part)
        if (part["next_page"] or 1) > MAX_PAGE:
            # A checkpoint past the last page GitHub serves (left by an older version that followed a
            # bad Link header): the part has nothing more to give.
            with write_transaction(self.db):
                crawl_state.update_part(self.db, part["id"], {"state": "done"})
            part["state"] = "done"
            return
        totals = {part["total_count"]} if part["total_count"] is not None else set()
        stop: _Stop | None = None  # a guard refused to split this part (_children)
        for page in fetch_pages(self.client, part["q"], first_page=part["next_page"] or 1):
            self.progress.page(part, page)
            totals.add(page.total_count)
            if len(totals) > 1:
                self.moved.add(part["id"])
            if page.number == 1 and page.total_count > CAP:
                children, stop = self._children(part, spec, page)
                if children:
                    self._save(part, page, self._split_values(flags, page), children, "cap")
                    return
                if stop:
                    flags.extend(stop.flags)
                else:
                    flags.append(f"{page.total_count} results in one created second: only the first {CAP}")
            if page.incomplete:
                if part["split_reason"] != "incomplete" and stop is None:
                    children, stop = self._children(part, spec, page)
                    if children:
                        self._save(part, page, self._split_values(flags, page), children, "incomplete")
                        return
                    if stop:
                        flags.extend(stop.flags)
                flags.extend(page.flags)
            last = page.next_page is None
            values = {
                "state": "done" if last else "paging",
                "next_page": page.number + 1,
                "total_count": page.total_count,
                "incomplete": int(bool(flags)),
                "flags": flags,
            }
            if stop:
                # Incomplete whatever a verification would find, so not verified: a second read of a
                # part its server does not narrow would only spend requests on the same answer.
                values["verified"] = 1
            self._save(part, page, values, query_flag=stop.query if stop else None)
            if last:
                return

    @staticmethod
    def _split_values(flags: list[str], page: SearchPage) -> dict[str, Any]:
        """A split part's new state; an incomplete first page is flagged (its total is not a whole to
        hold its parts to: _narrowing)."""
        values: dict[str, Any] = {"state": "split", "total_count": page.total_count}
        if page.incomplete:
            values["flags"] = [*flags, *page.flags]
        return values

    # -- the guards on splitting ------------------------------------------------------------------
    # Splitting recurses until each part holds at most 1,000 results or cannot be narrowed (one
    # star value, one second). Against a server whose total_count does not shrink as a search is
    # narrowed (a proxy dropping stars:/created:, a count stuck at one big number) that is every
    # star value and then every second since 2007: hundreds of thousands of searches at 30 a
    # minute, a weekly crawl that never ends. Two guards stop it: a split that did not narrow (two
    # of its parts each report nearly all of the whole, or a total unshrunk through three splits:
    # _narrowing), and a budget of parts per configured query (_budget, crawl.max_query_parts)
    # that bounds whatever the first does not catch.
    def _children(self, part: dict[str, Any], spec: Part, page: SearchPage) -> tuple[list[Part], _Stop | None]:
        """The parts to split ``part`` into; none when it cannot be narrowed (no stop) or a guard
        refuses (the stop says why)."""
        children = plan_split(spec, page.total_count, page.items, now=self._now())
        if not children:
            return [], None
        narrowing = self._narrowing(part, page.total_count)
        budget = None if narrowing else self._budget(part, len(children))
        reason = narrowing or budget
        if reason is None:
            return children, None
        flags = [f"{reason}: split no further, only the first {CAP:,} of its {page.total_count:,} results read"]
        query = NOT_NARROWED if narrowing else PARTS_SPENT
        if part["parent_id"] is None:
            flags.append(query)  # the query's root itself: its own flags say it for the query
        return [], _Stop(flags=flags, query=query)

    def _narrowing(self, part: dict[str, Any], total: int) -> str | None:
        """Whether the splits above ``part`` did not narrow: a split two of whose parts each report
        nearly all of its results, or a total that has not shrunk through UNSHRUNK_SPLITS splits in a row.

        Parts are taken in the order they were planned, so every child of a split is fetched before
        any grandchild: a split whose narrower searches each report what the whole did is caught at
        its second child, before anything deeper is asked for. Every ancestor is checked, so the
        parts a first child was split into before that are split no further either. Only the
        totals stored with the checkpoint are read, so a resumed crawl decides the same. Parts are
        not held against a total from an incomplete first page (it may be short of the truth); the
        unshrunk chain and crawl.max_query_parts still bound that branch.
        """
        node_id, node_total, parent_id = part["id"], total, part["parent_id"]
        unshrunk, chain = 0, True  # consecutive splits, from this part up, whose part did not shrink
        while parent_id is not None:
            parent = crawl_state.get_part(self.db.conn, parent_id)
            whole = parent["total_count"]
            if whole is None:
                return None
            counted = not {INCOMPLETE_RESULTS, EMPTY_BELOW_TOTAL} & set(crawl_state.part_flags(parent))
            totals = {**crawl_state.child_totals(self.db.conn, parent_id), node_id: node_total}
            if counted and narrowing_fails(whole, totals.values()):
                a, b = sorted(totals.values(), reverse=True)[:2]
                return f"two parts of {parent['q']} report {a:,} and {b:,} of its {whole:,} results"
            chain = chain and node_total >= whole
            unshrunk += chain
            if unshrunk >= UNSHRUNK_SPLITS:
                return f"its total has not shrunk through {unshrunk} splits ({whole:,} above them)"
            node_id, node_total, parent_id = parent_id, whole, parent["parent_id"]
        return None

    def _budget(self, part: dict[str, Any], children: int) -> str | None:
        """Whether ``children`` more parts would take its query past crawl.max_query_parts."""
        limit = self.config.crawl.max_query_parts
        planned = crawl_state.count_query_parts(self.db.conn, self.run_id, part["query_index"])
        if planned + children <= limit:
            return None
        return f"its query has {planned:,} parts, {children} more would pass crawl.max_query_parts ({limit:,})"

    def _verify(self, part: dict[str, Any]) -> None:
        """Fetch the first page again, and the last one of a part of several pages; a part that now
        holds repos it never gave us is swept again.

        Results come by stars, descending, so a repo joining the part as it pages (one crossing
        ``min_stars``) lands on its last page while one leaving it (rising into the next part) leaves
        its first: the count alone stays the same, the two ends show the change.
        """
        page = fetch_search_page(self.client, part["q"], 1)
        self.progress.page(part, page, verifying=True)
        if page.total_count > CAP:
            children, stop = self._children(part, self._spec(part), page)
            if children:
                split = self._split_values(crawl_state.part_flags(part), page)
                self._save(part, page, {**split, "verified": 1}, children, "verify")
                return
            if stop:
                flags = [*crawl_state.part_flags(part), *page.flags, *stop.flags]
                stopped = {"total_count": page.total_count, "verified": 1, "incomplete": 1, "flags": flags}
                self._save(part, page, stopped, query_flag=stop.query)
                return
        ends = [page]
        last_page = pages_for(page.total_count)
        if last_page > 1 and page.next_page is not None:
            last = fetch_search_page(self.client, part["q"], last_page)
            self.progress.page(part, last, verifying=True)
            ends.append(last)
        shown = [i for end in ends for i in _item_ids(end.items)]
        sighted = crawl_state.distinct_in_part(self.db.conn, self.run_id, part["id"])
        distinct = crawl_state.distinct_in_part(self.db.conn, self.run_id, part["id"], shown)
        if len(ends) > 1 and distinct > sighted:
            self.moved.add(part["id"])  # repos it never returned: its pages shifted under the crawl
        expected = min(page.total_count, CAP)
        values: dict[str, Any] = {"total_count": page.total_count}
        emptied = self._emptied(part, page.total_count)
        if emptied:
            # Not believed: a whole configured query does not empty in a week; GitHub's search
            # answering nothing for it (an outage, an index being rebuilt) must not delist its repos.
            flags = [*crawl_state.part_flags(part), emptied]
            self._save(part, page, {**values, "verified": 1, "incomplete": 1, "flags": flags})
            return
        if part["total_count"] is not None and page.total_count != part["total_count"]:
            self.moved.add(part["id"])
        # Moved (its total changed while it was paged, or it holds repos it never returned): swept
        # again while sweeps are left, and after that never trusted on its count, which includes
        # repos that have left the query since and so can reach the new total with repos missed.
        moved = part["id"] in self.moved
        if distinct >= expected and not page.incomplete and not moved:
            values["verified"] = 1
        elif part["sweeps"] < MAX_SWEEPS:
            self.moved.discard(part["id"])  # the sweep pages it again and looks again
            values["sweeps"] = part["sweeps"] + 1
            if pages_for(page.total_count) > 1 and page.next_page is not None:
                values.update(state="paging", next_page=page.next_page)
        else:
            flags = crawl_state.part_flags(part) + page.flags
            if moved:
                flags.append(f"its results were still moving after {MAX_SWEEPS} sweeps ({distinct} seen of {expected})")
            else:
                flags.append(f"{distinct} of {expected} results after {MAX_SWEEPS} sweeps")
            values.update(verified=1, incomplete=1, flags=flags)
        self._save(part, page, values)
        for end in ends[1:]:  # after the part's new state: a resumed run sweeps or trusts it as decided
            self._save(part, end, {})

    def _emptied(self, part: dict[str, Any], total: int) -> str | None:
        """Why a configured query that now holds nothing is not believed, or None."""
        if total or part["parent_id"] is not None:
            return None
        before = crawl_state.previous_query_total(self.db.conn, self.run_id, part["base"])
        if before is None or before < EMPTIED_FROM:
            return None
        return f"GitHub returned no results where the last crawl found {before:,}: not trusted as complete"

    # -- saving -----------------------------------------------------------------------------------
    def _stats(self) -> dict[str, float]:
        s, b = self.client.stats, self.base
        return {
            "requests": b.get("requests", 0) + s.requests,
            "search_requests": b.get("search_requests", 0) + s.search_requests,
            "waits": b.get("waits", 0) + s.waits,
            "wait_s": b.get("wait_s", 0.0) + s.wait_s,
            "retries": b.get("retries", 0) + s.retries,
            "elapsed_s": b.get("elapsed_s", 0.0) + (self.clock.now() - self.session_start),
        }

    def _save(
        self,
        part: dict[str, Any],
        page: SearchPage,
        values: dict[str, Any],
        children: Sequence[Part] = (),
        reason: str | None = None,
        query_flag: str | None = None,
    ) -> None:
        """The page's repos, rejects and sightings, the part's new state and any children, and
        ``query_flag`` on its configured query: one transaction."""
        refs = [(f"{part['q']} page {page.number} #{i}", item) for i, item in enumerate(page.items)]
        records, rejects = validate_items(refs)
        ids = _item_ids(page.items)
        db = self.db
        with write_transaction(db):
            before = crawl_state.seen_in_run(db.conn, self.run_id, ids)
            save: dict[str, Any] = {
                "run_id": self.run_id,
                "seen_at": self.seen_at,
                "min_stars": self.min_stars,
                "source": "crawl",
            }
            for record in records:
                if record["id"] not in before:  # a page fetched again says nothing new
                    self.dropped_topics.take(record)
            counts = save_repos(db, [r for r in records if r["id"] not in before], **save)
            save_repos(db, [r for r in records if r["id"] in before], **save)
            # A page fetched again (verification, a re-sweep) must not count its rejects twice.
            known = crawl_state.rejects_in_run(db.conn, self.run_id)
            rejects = [
                r
                for r in rejects
                if r["repo_id"] not in before and (r["repo_id"], r["full_name"], r["reason"]) not in known
            ]
            save_rejects(db, self.run_id, rejects)
            crawl_state.record_sightings(db, self.run_id, part["id"], ids)
            crawl_state.update_part(
                db, part["id"], {"pages": part["pages"] + 1, "items": part["items"] + len(page.items), **values}
            )
            if children:
                rows = [{**asdict(child), "q": child.q} for child in children]
                crawl_state.add_parts(db, self.run_id, rows, parent=part, reason=reason)
            if query_flag:
                crawl_state.flag_query(db, part, query_flag)
            deltas = {"items": len(page.items), "new": counts.new, "updated": counts.updated, "rejected": len(rejects)}
            crawl_state.add_counters(db, self.run_id, deltas, self._stats())
        part.update(pages=part["pages"] + 1, items=part["items"] + len(page.items), **values)
        if isinstance(part.get("flags"), list):
            part["flags"] = json.dumps(part["flags"])

    # -- the end ----------------------------------------------------------------------------------
    def _finish(self) -> CrawlResult:
        db = self.db
        summary = crawl_state.parts_summary(db.conn, self.run_id)
        complete = summary["incomplete"] == 0
        seen = crawl_state.seen_ids(db.conn, self.run_id)
        candidates = [row for row in crawl_candidates(db.conn) if row["id"] not in seen]
        if complete:
            started_with = json.loads(get_run(db, self.run_id).get("details") or "{}").get("listed_at_start")
            listed_before = count_listed(db.conn, confirmed=True) if started_with is None else int(started_with)
            would_delist = sum(1 for row in candidates if row["listed"] and row["confirmed"])
            self._check_delist_share(would_delist, listed_before)
        delisted = 0
        with write_transaction(db):
            crawl_state.record_misses(db, self.run_id, [row["id"] for row in candidates], complete=complete)
            if complete:
                reasons: dict[int, str | None] = {}
                for row in candidates:
                    reason = row["unlisted_reason"] if not row["listed"] and row["unlisted_reason"] else None
                    reason = reason or unlisted_reason(
                        matched=True,
                        stars=row["stars"],
                        fork=bool(row["fork"]),
                        archived=bool(row["archived"]),
                        min_stars=self.min_stars,
                        missing=True,
                    )
                    delisted += row["listed"]
                    reasons[row["id"]] = reason
                mark_missing(db, self.run_id, reasons)
            unlist_name_twins(db)
            found = count_seen_in_run(db.conn, self.run_id)
            stats = self._stats()
            crawl_state.add_counters(db, self.run_id, {}, stats)
            state = crawl_state.get_state(db.conn, self.run_id) or {}
            listed = count_listed(db.conn)
            details = {
                **stats,
                "complete": complete,
                "delisted": delisted,
                "missing": len(candidates),
                "sessions": state.get("sessions", 1),
                **summary,
            }
            if self.dropped_topics:
                details["dropped_topics"] = self.dropped_topics.as_dict()
            finish_run(
                db,
                self.run_id,
                "ok",
                counts={
                    "items": state.get("items", 0),
                    "saved": found,
                    "new": state.get("new", 0),
                    "updated": state.get("updated", 0),
                    "rejected": state.get("rejected", 0),
                    "listed": listed,
                },
                details=details,
                finished_at=self._now().replace(microsecond=0),
            )
            # Earlier runs' sightings have served their purpose (their misses are recorded).
            crawl_state.prune_sightings(db, self.run_id)
        checkpoint_wal(db)
        if self.dropped_topics:
            log.warning("crawl run %s: %s", self.run_id, self.dropped_topics.line())
        for base, flags in crawl_state.query_flags(db.conn, self.run_id):
            for flag in flags:
                if flag in (NOT_NARROWED, PARTS_SPENT):
                    log.warning("crawl: query %s: %s; the crawl is incomplete, so nothing was delisted", base, flag)
        return CrawlResult(
            run_id=self.run_id,
            complete=complete,
            resumed=self.resumed,
            requests=int(stats["requests"]),
            search_requests=int(stats["search_requests"]),
            found=found,
            new=state.get("new", 0),
            updated=state.get("updated", 0),
            delisted=delisted,
            missing=len(candidates),
            rejected=state.get("rejected", 0),
            listed=listed,
            waits=int(stats["waits"]),
            wait_s=stats["wait_s"],
            retries=int(stats["retries"]),
            duration_s=stats["elapsed_s"],
            parts=summary,
        )

    def _check_delist_share(self, would_delist: int, listed: int) -> None:
        """Refuse to finish a crawl that would delist more than ``crawl.max_delist_share`` of the listing
        (and more than ``DELIST_GUARD_FLOOR`` repos: a small listing's weekly churn is not an outage)."""
        share = self.config.crawl.max_delist_share
        if listed and would_delist > DELIST_GUARD_FLOOR and would_delist / listed > share:
            raise DelistRefused(
                f"crawl run {self.run_id} would delist {would_delist} of {listed} listed repos "
                f"({would_delist / listed:.0%}, more than crawl.max_delist_share {share:.0%}): stopped before "
                "delisting or publishing anything; check [crawl] topics and keywords, or raise the share "
                "(the next crawl starts afresh)"
            )

    def _end(self, status: str, error: str) -> None:
        """Record how the run stopped; its checkpoint stays for the next ``agentrank crawl``."""
        try:
            with write_transaction(self.db):
                crawl_state.add_counters(self.db, self.run_id, {}, self._stats())
                finish_run(
                    self.db,
                    self.run_id,
                    status,
                    error=redact(error),
                    details=self._stats(),
                    finished_at=self._now().replace(microsecond=0),
                )
        except Exception:  # the original error matters more than a failure to record it
            pass


def crawl(
    db: sqlite_utils.Database,
    config: Config,
    *,
    api_url: str | None = None,
    token: str | None = None,
    clock: Clock | None = None,
    client: GitHubClient | None = None,
    progress: bool | None = None,
    fresh: bool = False,
    parent_id: int | None = None,
    at: datetime | None = None,
) -> CrawlResult:
    """Crawl GitHub search (or resume the unfinished crawl) into ``db`` as one ``crawl`` run.

    ``at`` (default: the clock's now) is when a new run starts and its repos are seen.

    ``progress`` None shows progress bars only when stderr is a terminal. Raises
    :class:`crawler.client.GitHubError` (and its subclasses) when the crawl cannot go on; the run
    is then recorded as interrupted or failed and the next call resumes it.
    """
    own_client = client is None
    clock = clock or (client.clock if client is not None else RealClock())
    if client is None:
        client = GitHubClient(config.github, api_url=api_url, token=token, clock=clock)
    try:
        run = _Crawl(db, config, client, clock, CrawlProgress(sys.stderr.isatty() if progress is None else progress))
        run.open(fresh=fresh, parent_id=parent_id, at=at)
        return run.run()
    finally:
        if own_client:
            client.close()
