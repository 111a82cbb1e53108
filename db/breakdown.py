"""Reading one repo's score breakdown from the stored score rows of a run.

Written against a plain ``sqlite3`` connection so that Datasette's maker's page (through
``execute_fn``) and ``agentrank explain`` share this one implementation.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np

from classify.reasons import category_reason_in_words
from crawler.items import format_timestamp, parse_timestamp
from db.listing import reason_in_words
from db.paths import database_file
from scoring.components import RANKED_VALUES
from scoring.explain import explain_row


def _rows(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=False)) for row in cursor.fetchall()]


def resolve_repo(conn: sqlite3.Connection, full_name: str) -> dict[str, Any] | None:
    """The repo by current name, else by a previous name (renames keep the numeric id)."""
    rows = _rows(conn, "select * from repos where full_name = ? collate nocase", [full_name])
    if not rows:
        rows = _rows(
            conn,
            "select repos.* from repo_names join repos on repos.id = repo_names.repo_id "
            "where repo_names.full_name = ? collate nocase order by repo_names.last_seen_at desc limit 1",
            [full_name],
        )
    return rows[0] if rows else None


def _category_name(conn: sqlite3.Connection, category: str) -> str | None:
    found = conn.execute("select name from categories where id = ?", [category]).fetchone()
    return found[0] if found else None


def _parsed_reason(stored: str | None) -> dict[str, Any] | None:
    """``repo_categories.reason`` (JSON) as a dict, its rules in words (classify.reasons), or None."""
    try:
        found = json.loads(stored) if stored else None
    except ValueError:
        return None
    return category_reason_in_words(found) if isinstance(found, dict) else None


def _reason(current: dict[str, Any] | None, category: str, source: str | None) -> dict[str, Any] | None:
    """The stored reason of the classifier, when the current classification is the one published."""
    if not current or current.get("category") != category or source != "model":
        return None
    return current.get("reason")


def run_population(conn: sqlite3.Connection, run_id: int) -> dict[str, np.ndarray]:
    """A score run's ``repo_id`` and the percentile components' inputs (``stars``, ``forks``,
    ``stars_per_day``: ``scoring.components.RANKED_VALUES``), in rank order.

    The percentiles of a breakdown are taken against these; a run's rows never change once
    written, so a server may keep the result for the run (``Population`` callers pass their own).
    """
    rows = conn.execute(
        f"select repo_id, {', '.join(RANKED_VALUES)} from scores where run_id = ? order by rank", [run_id]
    ).fetchall()
    arrays = np.asarray(rows, dtype=float).reshape(-1, 1 + len(RANKED_VALUES)).T
    return {"repo_id": arrays[0].astype(np.int64), **{name: arrays[1 + k] for k, name in enumerate(RANKED_VALUES)}}


# How a reader gets a run's population: run_population, or a cached version of it.
Population = Callable[[sqlite3.Connection, int], dict[str, np.ndarray]]


def has_published_table(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute("select 1 from sqlite_master where type = 'table' and name = 'published'").fetchall())


def published_stamp(conn: sqlite3.Connection) -> tuple[int, str] | None:
    """The published score run and when it was published (None before anything is).

    Reads with ``fetchall``: a statement left unfinished would hold its read snapshot open, and a
    long-lived connection would then never see the next publish.
    """
    try:
        rows = conn.execute("select score_run_id, published_at from published where id = 1").fetchall()
    except sqlite3.OperationalError:
        return None
    return (rows[0][0], str(rows[0][1])) if rows and rows[0][0] is not None else None


def latest_run_stamp(conn: sqlite3.Connection) -> str:
    """The newest run of any kind and whether and when it ended: it changes with every command that
    writes (a task-benchmark import changes the benchmark pages without a new publish)."""
    try:
        rows = conn.execute("select id, status, finished_at from runs order by id desc limit 1").fetchall()
    except sqlite3.OperationalError:
        return ""
    return "|".join(str(value) for value in rows[0]) if rows else ""


def run_identity(conn: sqlite3.Connection, run_id: int) -> tuple[str, int, str | None]:
    """What names a score run's rows across files and rebuilds: the file, the run and its start."""
    file = str(database_file(conn) or "")
    started = conn.execute("select started_at from runs where id = ?", [run_id]).fetchall()
    return (file, run_id, started[0][0] if started else None)


def published_run_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("select score_run_id from published where id = 1").fetchone()
    return row[0] if row else None


def load_breakdown(
    conn: sqlite3.Connection, full_name: str, run_id: int | None = None, population: Population = run_population
) -> dict[str, Any] | None:
    """The breakdown of ``full_name`` in a score run (default: the published run).

    Returns None when the repo is unknown. A known repo that is not in the run comes back with
    ``score`` None and the reason it is not listed.
    """
    if run_id is not None:
        check_score_run(conn, run_id)
    repo = resolve_repo(conn, full_name)
    if repo is None:
        return None
    run_id = run_id or published_run_id(conn)
    category = _rows(
        conn,
        "select c.*, cat.name as category_name from repo_categories c left join categories cat "
        "on cat.id = c.category where c.repo_id = ?",
        [repo["id"]],
    )
    shown: dict[str, Any] = {
        "id": repo["id"],
        "full_name": repo["full_name"],
        "html_url": repo["html_url"],
        "description": repo["description"],
        "listed": bool(repo["listed"]),
        "unlisted_reason": repo["unlisted_reason"],
        # As the maker's page says it ("a maintainer's correction excludes it: …"), for explain.
        "unlisted_reason_words": reason_in_words(repo["unlisted_reason"]),
    }
    if (repo["unlisted_reason"] or "").startswith("excluded by correction: "):
        # Who asked and when, beside the reason the listing already says.
        shown["exclusion"] = applied_corrections(conn, repo["id"]).get("exclude")
    base = {
        "repo": shown,
        "category": {**category[0], "reason": _parsed_reason(category[0].get("reason"))} if category else None,
    }
    row = None
    if run_id is not None:
        found = _rows(conn, "select * from scores where run_id = ? and repo_id = ?", [run_id, repo["id"]])
        row = found[0] if found else None
    if row is None:
        return {**base, "run_id": run_id, "score": None, "rank": None, "components": []}
    if row.get("category"):
        # What was published with this score run, not a later re-classification.
        published: dict[str, Any] = {
            "category": row["category"],
            "category_name": _category_name(conn, row["category"]),
            "source": row["category_source"],
            "probability": row["category_probability"],
            "uncertain": row["category_uncertain"],
            "reason": _reason(base["category"], row["category"], row["category_source"]),
        }
        if row["category_source"] == "correction":
            # Why and at whose request, as the corrections file says (None once the entry is gone).
            published["correction"] = applied_corrections(conn, repo["id"]).get("category")
        base["category"] = published
    else:
        # Published before it was classified: every list shows it without a category, so does this.
        base["category"] = None
    arrays = population(conn, row["run_id"])
    # A population kept by a server also has each column sorted ("sorted_stars"...): no sort per page.
    breakdown = explain_row(row, {k: arrays.get(f"sorted_{k}", arrays[k]) for k in RANKED_VALUES})
    return {**base, **breakdown, "figures_from": figures_from(repo.get("last_seen_at"), row["as_of"])}


# How long before a run's as-of a repo's last sighting may be and still count as that run's (a
# score given a later --as-of than its crawl's start should not call every figure old).
SEEN_WITH_RUN_DAYS = 1


def figures_from(last_seen_at: str | None, as_of: str) -> str | None:
    """When the scored figures were fetched, if well before ``as_of``: the latest crawl or import did
    not return the repo (an import never delists, so it stays listed with its last figures). None
    when the run saw it, or when that is not known."""
    if not last_seen_at:
        return None
    if (parse_timestamp(as_of) - parse_timestamp(last_seen_at)).total_seconds() <= SEEN_WITH_RUN_DAYS * 86_400:
        return None
    return last_seen_at


class UnknownRun(ValueError):
    """A ``--run`` or ``--since`` value that names no score run; the message says what is accepted."""


_SINCE_ACCEPTED = "give 'previous', the id of an earlier score run, or a date on or after the first score run"


def _score_runs(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    """Every successful score run: (id, as_of), oldest first by as-of, then id (a run's as-of: the
    instant it scored, the time its data was fetched; saved results imported today can be scored as
    of a past week, and a what-if as of a later date does not come before an ordinary run)."""
    return conn.execute("select run_id, as_of from score_run_previous order by as_of, run_id").fetchall()


def _runs_hint(conn: sqlite3.Connection) -> str:
    runs = _score_runs(conn)
    if not runs:
        return "there are no score runs yet"
    dates = sorted(r[1] for r in runs)
    shown = runs[-8:]
    ids = ", ".join(str(r[0]) for r in shown)
    if len(shown) < len(runs):  # the dates cover every run, so the list says it is the latest only
        first = min(r[1] for r in shown)
        return (
            f"{len(runs)} score runs, as of {dates[0][:10]} to {dates[-1][:10]}; the latest {len(shown)}: "
            f"{ids} (as of {first[:10]} on)"
        )
    return f"score runs: {ids} (as of {dates[0][:10]} to {dates[-1][:10]})"


def check_score_run(conn: sqlite3.Connection, run_id: int) -> int:
    """``run_id`` when it is a successful score run, else UnknownRun naming the runs there are."""
    if not any(rid == run_id for rid, _ in _score_runs(conn)):
        raise UnknownRun(f"--run {run_id}: no successful score run with that id; {_runs_hint(conn)}")
    return run_id


def _parse_date(since: str) -> str | None:
    """``since`` as a stored timestamp prefix to compare with: a date, or an instant, else None."""
    try:
        if len(since) == 10:
            return date.fromisoformat(since).isoformat()
        return format_timestamp(parse_timestamp(since))
    except ValueError:
        return None


def resolve_since(conn: sqlite3.Connection, since: str, run_id: int) -> int:
    """The score run ``since`` names, earlier than ``run_id``: ``previous`` (the run before it), a run
    id, or a date or instant (the successful score run as of the latest instant on or before it, the
    newer run on a tie).

    Anything else, or a value that names ``run_id`` itself or a later run, raises UnknownRun.
    """
    since = since.strip()
    runs = _score_runs(conn)
    order = {rid: position for position, (rid, _) in enumerate(runs)}
    here = order.get(run_id, len(runs))
    if since.lower() == "previous":
        earlier = [rid for rid, _ in runs if order[rid] < here]
        if not earlier:
            raise UnknownRun(f"--since previous: there is no earlier successful score run than run {run_id}")
        return earlier[-1]
    if since.isdigit():
        if not any(rid == int(since) for rid, _ in runs):
            raise UnknownRun(f"--since {since}: no successful score run with that id; {_runs_hint(conn)}")
        found = int(since)
    else:
        bound = _parse_date(since)
        if bound is None:
            raise UnknownRun(f"--since {since!r}: not a run id, 'previous' or an ISO date; {_SINCE_ACCEPTED}")
        matching = [(as_of, rid) for rid, as_of in runs if as_of[: len(bound)] <= bound]
        if not matching:
            raise UnknownRun(f"--since {since}: no score run as of it or earlier; {_runs_hint(conn)}")
        found = max(matching)[1]
        # The day of the run being explained: its earlier run that day (or before), not itself.
        explained = dict(runs).get(run_id, "")
        before = [m for m in matching if order[m[1]] < here]
        if len(bound) == 10 and explained[:10] == bound and before:
            found = max(before)[1]
    if order.get(found, -1) >= here:
        which = "the run being explained" if found == run_id else f"later than the run being explained ({run_id})"
        raise UnknownRun(f"--since {since}: names score run {found}, {which}; {_SINCE_ACCEPTED}; {_runs_hint(conn)}")
    return found


def _others(conn: sqlite3.Connection, run_id: int, repo_id: int, population: Population) -> dict[str, np.ndarray]:
    """The run's other repos' columns (this one's value removed); sorted when the population keeps
    its columns sorted (``sorted_stars``...), so the change below does not sort them again."""
    arrays = population(conn, run_id)
    keep = arrays["repo_id"] != repo_id
    others = {}
    for k in RANKED_VALUES:
        ordered = arrays.get(f"sorted_{k}")
        if ordered is None:
            others[k] = arrays[k][keep]
            continue
        own = arrays[k][~keep]
        others[k] = ordered if own.size == 0 else np.delete(ordered, int(np.searchsorted(ordered, own[0])))
    return others


def load_change(
    conn: sqlite3.Connection,
    full_name: str,
    since: str,
    run_id: int | None = None,
    population: Population = run_population,
) -> dict[str, Any] | None:
    """Why ``full_name``'s score moved from the ``since`` run to ``run_id`` (default: published).

    None when the repo is unknown; raises UnknownRun for a bad ``since`` and ValueError when the
    repo is missing from one of the two runs.
    """
    from scoring.explain import explain_change

    if run_id is not None:
        check_score_run(conn, run_id)
    run_id = run_id or published_run_id(conn)
    if run_id is None:
        raise UnknownRun("nothing is published yet: run `agentrank refresh` (or crawl, classify and score) first")
    since_id = resolve_since(conn, since, run_id)
    repo = resolve_repo(conn, full_name)
    if repo is None:
        return None
    rows = {}
    for label, rid in (("before", since_id), ("after", run_id)):
        found = _rows(conn, "select * from scores where run_id = ? and repo_id = ?", [rid, repo["id"]])
        if not found:
            why = ""
            if repo.get("unlisted_reason"):
                # It left the ranking: say why, in the words the maker's page uses.
                why = f": {reason_in_words(repo['unlisted_reason'])}"
            raise UnknownRun(f"{repo['full_name']} was not listed in score run {rid}{why}")
        rows[label] = found[0]
    return explain_change(
        rows["before"],
        rows["after"],
        _others(conn, since_id, repo["id"], population),
        _others(conn, run_id, repo["id"], population),
    )


def score_history(conn: sqlite3.Connection, repo_id: int) -> list[dict[str, Any]]:
    """The repo's score and rank in every finished score run, oldest first."""
    cursor = conn.execute(
        """
        select s.run_id, s.as_of, s.score, s.rank, r.saved as listed_count, s.stars, s.method_version,
               s.run_id = (select score_run_id from published where id = 1) as published
        from scores s join runs r on r.id = s.run_id
        where s.repo_id = ? and r.status = 'ok'
        order by s.as_of, s.run_id
        """,
        [repo_id],
    )
    names = [d[0] for d in cursor.description]
    published = names.index("published")
    return [dict(zip(names, row, strict=False)) | {"published": bool(row[published])} for row in cursor.fetchall()]


def applied_corrections(conn: sqlite3.Connection, repo_id: int) -> dict[str, dict[str, Any]]:
    """The exclusion and the category correction that apply to the repo, as the latest refresh
    published the corrections file: {kind: {"reason", "by", "date"}} (the why and who a maker reads)."""
    rows = conn.execute(
        "select kind, reason, by, date from corrections where kind in ('exclude', 'category') and status = 'applied' "
        "and (repo_id = :id or (repo_id is null and lower(repo) = (select lower(full_name) from repos where id = :id))) "
        "order by line",
        {"id": repo_id},
    ).fetchall()
    return {kind: {"reason": reason or None, "by": by or None, "date": date} for kind, reason, by, date in rows}


def claims(conn: sqlite3.Connection, repo_id: int) -> list[dict[str, Any]]:
    """Makers who claimed the repo through the corrections file."""
    # A claim of a repo the database did not hold at the last refresh waits by name (repo_id null):
    # it shows once the repo arrives, by a crawl or an import, as an exclusion applies then.
    rows = conn.execute(
        "select value, reason, date from corrections where kind = 'claim' and (repo_id = :id or (repo_id is null "
        "and lower(repo) = (select lower(full_name) from repos where id = :id))) order by line",
        {"id": repo_id},
    ).fetchall()
    return [{"login": login, "reason": reason, "date": date} for login, reason, date in rows]
