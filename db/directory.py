"""Readers for the directory pages: home, category, owner, feeds and badges.

Every statement reads the published ranking (the ``agents`` view, or ``scores`` rows of the
published score run) and, for changes, the successful score run before it. Readers take a plain
``sqlite3.Connection``, as Datasette's ``execute_fn`` hands one.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import numpy as np

from db.breakdown import resolve_repo
from db.rows import dicts
from db.scores import SEEN_WITHIN_DAYS, baseline_window
from scoring.components import NAMES as COMPONENTS

# The columns one line of a list shows (from the agents view).
LINE_COLUMNS = (
    "a.rank, a.full_name, a.description, a.category, cat.name as category_name, a.score, a.stars, a.forks, "
    "a.stars_delta_7d, a.pushed_at as last_push, a.owner, a.repo_id, a.category_uncertain, a.flags, a.openness, "
    "a.license_spdx as license, a.rank_best, a.rank_worst, a.topics"
)
_FROM_AGENTS = "from agents a left join categories cat on cat.id = a.category"
_PUBLISHED = "(select score_run_id from published where id = 1)"


def published_run(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """The published score run: id, as_of, method_version and how many repos are listed in it."""
    found = dicts(
        conn.execute(
            "select r.id, r.as_of, r.finished_at, (select count(*) from scores s where s.run_id = r.id) as listed, "
            "(select method_version from scores s where s.run_id = r.id limit 1) as method_version "
            "from published p join runs r on r.id = p.score_run_id where p.id = 1"
        )
    )
    return found[0] if found else None


def score_runs(conn: sqlite3.Connection, limit: int = 8) -> list[dict[str, Any]]:
    """Successful score runs up to the published one, latest as-of first, each with the run before it
    (by as-of: a what-if scored as of a later date is not "before" an ordinary run; view
    ``score_run_previous``)."""
    return dicts(
        conn.execute(
            """
            select r.run_id as id, r.as_of, r.previous_id
            from score_run_previous r, score_run_previous published
            where published.run_id = (select score_run_id from published where id = 1)
              and (r.as_of < published.as_of or (r.as_of = published.as_of and r.run_id <= published.run_id))
            order by r.as_of desc, r.run_id desc
            limit ?
            """,
            [limit],
        )
    )


def previous_run_id(conn: sqlite3.Connection) -> int | None:
    runs = score_runs(conn, 1)
    return runs[0]["previous_id"] if runs else None


def category_counts(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every category in display order with its definition and how many published repos it has."""
    return dicts(
        conn.execute(
            "select c.id, c.name, c.description, coalesce(n.repos, 0) as repos from categories c left join "
            f"(select category, count(*) as repos from scores where run_id = {_PUBLISHED} group by category) n "
            "on n.category = c.id order by c.position, c.id"
        )
    )


def category(conn: sqlite3.Connection, category_id: str) -> dict[str, Any] | None:
    found = dicts(conn.execute("select id, name, description from categories where id = ?", [category_id]))
    return found[0] if found else None


def top(conn: sqlite3.Connection, limit: int = 10, category_id: str | None = None) -> list[dict[str, Any]]:
    """The best-ranked published repos (of one category, when given)."""
    where = "where a.category = ?" if category_id else ""
    params: list[Any] = [category_id] if category_id else []
    return dicts(
        conn.execute(f"select {LINE_COLUMNS} {_FROM_AGENTS} {where} order by a.rank limit ?", [*params, limit])
    )


def rising_start(conn: sqlite3.Connection, days: int) -> str | None:
    """When the star growth over ``days`` (7 or 28) is counted from (None: no earlier run to count from)."""
    return _rising_baseline(conn, days)[0]


_RUN_AS_OF = f"""
select {{pick}}(r.as_of) from runs r, (select as_of from runs where id = {_PUBLISHED}) p
where r.kind = 'score' and r.status = 'ok'
  and r.as_of <= strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, ?) and r.as_of > strftime('%Y-%m-%dT%H:%M:%SZ', p.as_of, ?)
"""


def _rising_baseline(conn: sqlite3.Connection, days: int) -> tuple[str | None, bool]:
    """The as-of growth over ``days`` is counted from, and whether it is the stored changes' own
    baseline: the newest score run in their window (``db.scores.baseline_window``: 6 to 10 days for
    a week) when there is one; else, on a site whose data starts later, the oldest score run within
    the period (the page says from when); else None."""
    newest, oldest = baseline_window(days)
    [(found,)] = conn.execute(_RUN_AS_OF.format(pick="max"), [f"-{newest} days", f"-{oldest} days"]).fetchall()
    if found is not None:
        return found, True
    [(young,)] = conn.execute(_RUN_AS_OF.format(pick="min"), ["-0 days", f"-{days + 1} days"]).fetchall()
    [(published,)] = conn.execute(f"select as_of from runs where id = {_PUBLISHED}").fetchall() or [(None,)]
    return (young, False) if young is not None and young != published else (None, False)


def risers(
    conn: sqlite3.Connection, limit: int = 10, category_id: str | None = None, days: int = 7
) -> list[dict[str, Any]]:
    """Repos that gained the most stars over ``days`` (7 or 28): the stored 7- or 28-day change,
    else the change since the score run it is counted from (:func:`rising_start`). Only star growth
    counts: a repo whose stars did not grow is never a riser, however far its rank moved."""
    column = "stars_delta_28d" if days == 28 else "stars_delta_7d"
    start, stored = _rising_baseline(conn, days)
    # Only the stored change when a run in its window exists (a repo without one was not seen in
    # both); else the change since the oldest run, for the repos seen in the published run.
    gained, seen = f"s.{column}", ""
    if not stored:
        gained = f"coalesce(s.{column}, case when seen.repo_id is not null then a.stars - p.stars end)"
        seen = f"""
              left join (
                select distinct n.repo_id from snapshots n, runs pub
                where pub.id = {_PUBLISHED}
                  and n.observed_at > strftime('%Y-%m-%dT%H:%M:%SZ', pub.as_of, '-{SEEN_WITHIN_DAYS} days')
              ) seen on seen.repo_id = a.repo_id"""
    where = "and a.category = ?" if category_id else ""
    params: list[Any] = [start, *([category_id] if category_id else []), limit]
    return dicts(
        conn.execute(
            f"""
            select * from (
              select {LINE_COLUMNS}, {gained} as gained
              {_FROM_AGENTS}
              join scores s on s.run_id = {_PUBLISHED} and s.repo_id = a.repo_id
              left join scores p on p.repo_id = a.repo_id
                and p.run_id = (select min(id) from runs where kind = 'score' and status = 'ok' and as_of = ?){seen}
              where 1 {where}
            ) where gained > 0
            order by gained desc, rank
            limit ?
            """,
            params,
        )
    )


def newly_listed(
    conn: sqlite3.Connection, run_id: int, previous_id: int | None, limit: int = -1
) -> list[dict[str, Any]]:
    """Repos in score run ``run_id`` that were not in ``previous_id`` (every repo when there is none)."""
    return dicts(
        conn.execute(
            """
            select s.rank, s.full_name, r.description, s.category, cat.name as category_name, s.score, s.stars,
                   s.forks, s.stars_delta_7d, s.pushed_at as last_push, s.category_uncertain, s.as_of, s.repo_id,
                   s.run_id, s.rank_best, s.rank_worst, s.flags, s.openness, s.license_spdx as license, r.topics
            from scores s join repos r on r.id = s.repo_id left join categories cat on cat.id = s.category
            where s.run_id = ? and s.repo_id not in (select repo_id from scores where run_id = ?)
            order by s.rank
            limit ?
            """,
            [run_id, previous_id if previous_id is not None else -1, limit],
        )
    )


def newly_listed_count(conn: sqlite3.Connection, run_id: int, previous_id: int | None) -> int:
    """How many repos score run ``run_id`` lists that ``previous_id`` did not."""
    row = conn.execute(
        "select count(*) from scores where run_id = ? and repo_id not in (select repo_id from scores where run_id = ?)",
        [run_id, previous_id if previous_id is not None else -1],
    ).fetchone()
    return int(row[0])


def left_count(conn: sqlite3.Connection, run_id: int, previous_id: int) -> int:
    """How many repos ``previous_id`` listed that score run ``run_id`` does not."""
    row = conn.execute(
        "select count(*) from scores where run_id = ? and repo_id not in (select repo_id from scores where run_id = ?)",
        [previous_id, run_id],
    ).fetchone()
    return int(row[0])


def left_list(conn: sqlite3.Connection, run_id: int, previous_id: int, limit: int = -1) -> list[dict[str, Any]]:
    """Repos in ``previous_id`` that are not in ``run_id``, with the reason they are not listed now."""
    return dicts(
        conn.execute(
            """
            select p.rank as previous_rank, r.full_name, r.description, p.score as previous_score, p.stars,
                   r.unlisted_reason, s.as_of, p.repo_id, ? as run_id
            from scores p join repos r on r.id = p.repo_id
            join (select as_of from runs where id = ?) s
            where p.run_id = ? and p.repo_id not in (select repo_id from scores where run_id = ?)
            order by p.rank
            limit ?
            """,
            [run_id, run_id, previous_id, run_id, limit],
        )
    )


def observed_times(conn: sqlite3.Connection, run_id: int, repo_ids: list[int]) -> dict[int, str]:
    """When the data each repo was scored on in score run ``run_id`` was observed (its newest
    snapshot from a run before it), by repo id; repos without one are left out."""
    found: dict[int, str] = {}
    for start in range(0, len(repo_ids), 500):
        chunk = repo_ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"select repo_id, max(observed_at) from snapshots where run_id < ? and repo_id in ({marks}) group by repo_id",
            [run_id, *chunk],
        )
        found.update({repo_id: observed for repo_id, observed in rows if observed})
    return found


# The score-row columns a move is classified on (scoring.movement).
_MOVE_COLUMNS = (
    "rank", "stars", "forks", "stars_per_day", "popularity", "adoption", "activity", "momentum", "openness",
    "score", "license_spdx", "days_since_push", "as_of",
)  # fmt: skip


def _paired(prefix: str, alias: str) -> str:
    return ", ".join(f"{alias}.{column} as {prefix}{column}" for column in _MOVE_COLUMNS)


def _unpair(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with ``b_*``/``a_*`` columns as ``before`` and ``after`` dicts (score-row keys)."""
    out = []
    for row in rows:
        before = {c: row.pop("b_" + c) for c in _MOVE_COLUMNS}
        after = {c: row.pop("a_" + c) for c in _MOVE_COLUMNS}
        out.append({**row, "before": before, "after": after})
    return out


def _moves(conn: sqlite3.Connection, where: str, order: str, params: list[Any]) -> list[dict[str, Any]]:
    return _unpair(
        dicts(
            conn.execute(
                f"""
                select c.full_name, r.description, c.repo_id, c.run_id, c.category, cat.name as category_name,
                       c.category_uncertain, {_paired("b_", "p")}, {_paired("a_", "c")}
                from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ?
                join repos r on r.id = c.repo_id left join categories cat on cat.id = c.category
                where c.run_id = ? {where}
                order by {order}
                """,
                params,
            )
        )
    )


def movers(conn: sqlite3.Connection, run_id: int, previous_id: int, limit: int = 200) -> list[dict[str, Any]]:
    """Candidates for the movers: repos in both runs whose rank changed, the ``limit`` biggest rank
    moves and the ``limit`` biggest star changes, each with its ``before`` and ``after`` score
    rows (scoring.movement says which are news)."""
    found: dict[int, dict[str, Any]] = {}
    for order in ("abs(p.rank - c.rank) desc, c.rank", "abs(c.stars - p.stars) desc, c.rank"):
        for row in _moves(conn, "and p.rank != c.rank", f"{order} limit ?", [previous_id, run_id, limit]):
            found.setdefault(row["repo_id"], row)
    return list(found.values())


def rank_pairs(conn: sqlite3.Connection, run_id: int, previous_id: int) -> dict[str, np.ndarray]:
    """Every repo scored in both runs: ``repo_id``, its rank ``before`` (the previous run) and
    ``after`` (NaN for a repo without a rank). A page can keep them per pair of runs (the rows of a
    score run never change) and count who passed whom without reading the runs again."""
    rows = conn.execute(
        "select c.repo_id, p.rank, c.rank from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ? "
        "where c.run_id = ?",
        [previous_id, run_id],
    ).fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    before = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=float)
    after = np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=float)
    return {"repo_id": ids, "before": before, "after": after}


def places_in_both(pairs: dict[str, np.ndarray], before: float, after: float) -> int:
    """Places a repo ranked ``before`` then ``after`` moved up among the repos ranked in both runs
    (``pairs`` from :func:`rank_pairs`): those it passed less those that passed it. Repos that joined
    or left the list move its rank number but are not places it won or lost."""
    passed_it, it_passed = _passings(pairs, before, after)
    return int(np.count_nonzero(it_passed)) - int(np.count_nonzero(passed_it))


def _passings(pairs: dict[str, np.ndarray], before: float, after: float) -> tuple[np.ndarray, np.ndarray]:
    """Of the repos ranked in both runs, which passed the repo ranked ``before`` then ``after`` (below it
    then, above it now) and which it passed (above it then, below it now)."""
    was, now = pairs["before"], pairs["after"]
    return (was > before) & (now < after), (was < before) & (now > after)


def arrivals_above(conn: sqlite3.Connection, repo_id: int, run_id: int, previous_id: int) -> dict[str, int]:
    """How many ranked repos joined the list above the repo since the previous run, and how many that
    were above it then are not ranked now: the part of its rank change that is nobody's move."""
    row = conn.execute(
        """
        select
          (select count(*) from scores c where c.run_id = :run and c.rank < (select rank from scores
             where run_id = :run and repo_id = :repo) and not exists (select 1 from scores p
             where p.run_id = :previous and p.repo_id = c.repo_id and p.rank is not null)),
          (select count(*) from scores p where p.run_id = :previous and p.rank < (select rank from scores
             where run_id = :previous and repo_id = :repo) and not exists (select 1 from scores c
             where c.run_id = :run and c.repo_id = p.repo_id and c.rank is not null))
        """,
        {"run": run_id, "previous": previous_id, "repo": repo_id},
    ).fetchone()
    return {"joined_above": row[0] or 0, "left_above": row[1] or 0}


def passed(
    conn: sqlite3.Connection,
    repo_id: int,
    run_id: int,
    previous_id: int,
    limit: int = 5,
    pairs: dict[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """Who passed the repo between two runs (below it before, above it now) and whom it passed:
    how many of each, and the ``limit`` nearest to it now, with their ``before``/``after`` rows;
    ``mine`` is the repo's own pair of rows. ``pairs`` is :func:`rank_pairs` for the two runs when
    the caller keeps it (counting in SQL read every repo of both runs on every page: at 30,000
    listed that made a maker's page's first visit several times slower than at 1,300)."""
    mine = conn.execute(
        "select p.rank, c.rank from scores c join scores p on p.repo_id = c.repo_id and p.run_id = ? "
        "where c.run_id = ? and c.repo_id = ?",
        [previous_id, run_id, repo_id],
    ).fetchone()
    if mine is None:
        return {"passed_it": [], "it_passed": [], "passed_it_count": 0, "it_passed_count": 0, "mine": None}
    before, after = mine
    own = _moves(conn, "and c.repo_id = ?", "c.rank", [previous_id, run_id, repo_id])
    result: dict[str, Any] = {"mine": own[0] if own else None}
    if before is None or after is None:  # (SQL's comparisons with NULL hold for no row)
        return {**result, "passed_it": [], "it_passed": [], "passed_it_count": 0, "it_passed_count": 0}
    if pairs is None:
        pairs = rank_pairs(conn, run_id, previous_id)
    now = pairs["after"]
    passed_it, it_passed = _passings(pairs, before, after)
    for key, chosen, nearest_first in (
        ("passed_it", passed_it, -1),  # above it now: the lowest of them first
        ("it_passed", it_passed, 1),  # below it now: the highest first
    ):
        picked = np.flatnonzero(chosen)
        result[key + "_count"] = len(picked)
        nearest = picked[np.argsort(nearest_first * now[picked], kind="stable")[:limit]]
        ids = [int(i) for i in pairs["repo_id"][nearest]]
        order = "c.rank desc" if nearest_first < 0 else "c.rank"
        marks = ", ".join("?" * len(ids))
        result[key] = _moves(conn, f"and c.repo_id in ({marks})", order, [previous_id, run_id, *ids]) if ids else []
    return result


def owner_repos(conn: sqlite3.Connection, login: str, limit: int = -1, offset: int = 0) -> list[dict[str, Any]]:
    """The repos of an owner the crawler has seen, listed or not (with why), best-ranked first
    (``limit`` of them from ``offset``; all by default)."""
    return dicts(
        conn.execute(
            f"""
            select r.full_name, r.owner_login, r.description, r.stars, r.forks, r.listed, r.unlisted_reason,
                   r.pushed_at as last_push, a.rank, a.score, a.category, cat.name as category_name,
                   a.stars_delta_7d, a.category_uncertain, a.rank_best, a.rank_worst
            from repos r left join scores a on a.repo_id = r.id and a.run_id = {_PUBLISHED}
            left join categories cat on cat.id = a.category
            where r.owner_login = ? collate nocase
            order by a.rank is null, a.rank, r.stars desc, r.full_name
            limit ? offset ?
            """,
            [login, limit, offset],
        )
    )


def owner_counts(conn: sqlite3.Connection, login: str) -> tuple[int, int]:
    """How many repos of an owner the crawler has seen, and how many of them the published run lists."""
    row = conn.execute(
        f"""
        select count(*), count(a.repo_id)
        from repos r left join scores a on a.repo_id = r.id and a.run_id = {_PUBLISHED}
        where r.owner_login = ? collate nocase
        """,
        [login],
    ).fetchone()
    return int(row[0]), int(row[1])


def badge_facts(conn: sqlite3.Connection, full_name: str) -> dict[str, Any] | None:
    """The repo's name and, when it is in the published run, its score, rank and category name.

    None when the name is unknown (old names of renamed repos are found too).
    """
    repo = resolve_repo(conn, full_name)
    if repo is None:
        return None
    found = dicts(
        conn.execute(
            "select s.score, s.rank, s.category, cat.name as category_name, s.category_uncertain from scores s "
            "left join categories cat on cat.id = s.category "
            "where s.run_id = (select score_run_id from published where id = 1) and s.repo_id = ?",
            [repo["id"]],
        )
    )
    return {
        "full_name": repo["full_name"],
        "score": None,
        "rank": None,
        "category_name": None,
        **(found[0] if found else {}),
    }


def leaderboard_entries(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every benchmark leaderboard entry by tier and rank, with the directory name of its repo (when it is one)."""
    return dicts(
        conn.execute(
            """
            select e.*, r.full_name as repo_name
            from benchmark_entries e left join repos r on e.agent_kind = 'repo' and r.full_name = e.agent collate nocase
            order by e.tier, e.rank is null, e.rank, e.agent, e.agent_version, e.model
            """
        )
    )


def published_components(conn: sqlite3.Connection, limit: int = 20_000) -> list[dict[str, Any]]:
    """Every published repo's five components (0–100), rank, stars and category name, best first:
    what "your own weights" re-ranks in the browser (at most ``limit`` repos).

    The components are the score rows' own, unrounded (the ``agents`` table shows them to one
    decimal): at the published weights the page must give each repo its published score, and a sum
    of rounded parts can miss it by 0.1."""
    columns = ", ".join(f"s.{name}" for name in COMPONENTS)
    return dicts(
        conn.execute(
            f"select a.rank, a.full_name, a.stars, cat.name as category_name, a.category_uncertain, {columns} "
            f"{_FROM_AGENTS} "
            "join scores s on s.run_id = a.score_run_id and s.repo_id = a.repo_id order by a.rank limit ?",
            [limit],
        )
    )


def similar_names(conn: sqlite3.Connection, full_name: str, limit: int = 3) -> list[str]:
    """Repo names close to a mistyped ``full_name`` (or a bare repo name), best first: "did you mean".

    Candidates are the owner's repos and the names containing a part of the repo name (one index
    lookup each), then every name when the directory is small; difflib orders them.
    """
    import difflib

    wanted = full_name.strip().strip("/")
    owner, _, repo = wanted.rpartition("/")
    candidates: set[str] = set()
    if owner:
        candidates.update(
            r[0] for r in conn.execute("select full_name from repos where owner_login = ? collate nocase", [owner])
        )
    stem = (repo or wanted)[:6]
    if stem:
        candidates.update(
            r[0]
            for r in conn.execute(
                "select full_name from repos where full_name like ? escape '\\' limit 2000",
                ["%" + stem.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"],
            )
        )
    (count,) = conn.execute("select count(*) from repos").fetchone()
    if count <= 20_000:
        candidates.update(r[0] for r in conn.execute("select full_name from repos"))
    by_lower = {c.lower(): c for c in candidates}
    key = wanted.lower() if owner else None
    found = difflib.get_close_matches(key or wanted.lower(), list(by_lower), n=limit, cutoff=0.6)
    if not found and not owner:  # a bare repo name: compare with the repo part of each name
        parts = {c.split("/", 1)[-1]: c for c in by_lower}
        found = [parts[p] for p in difflib.get_close_matches(wanted.lower(), list(parts), n=limit, cutoff=0.6)]
    return [by_lower[f] for f in found]
