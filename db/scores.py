"""Reading the listed set for scoring, writing score rows, and the published pointer."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import timedelta
from typing import Any

import numpy as np
import sqlite_utils

from crawler.items import parse_timestamp
from db.agents import refresh_agents
from db.connection import bulk_cache, write_transaction
from db.runs import iso, utcnow
from scoring.components import EXTRA_INPUTS, NAMES
from scoring.licenses import SPDX_LIST_VERSION, is_osi_approved
from scoring.score import METHOD_VERSION, ScoreInputs

# The listed set is copied once into a temporary table: scoring reads its numbers from there and
# the score rows take their stored inputs (name, timestamps, licence) from the same copy, so what
# is written is exactly what was scored, without a million strings passing through Python.
# The stored inputs a score component adds to these (scoring.components.EXTRA_INPUTS): columns of
# repos, copied and stored under the same name.
_EXTRA = "".join(f", {column}" for column in EXTRA_INPUTS)
_INPUTS_TABLE_SQL = f"""
create temp table score_inputs (
  repo_id integer primary key, full_name, stars, forks, created_at, pushed_at, license_spdx{_EXTRA}
)
"""
_COPY_INPUTS_SQL = f"""
insert into temp.score_inputs
select id, full_name, stars, forks, created_at, pushed_at, license_spdx{_EXTRA} from repos where listed = 1 order by id
"""
_EPOCH = "unixepoch({})" if sqlite3.sqlite_version_info >= (3, 38, 0) else "cast(strftime('%s', {}) as integer)"
# Each input column comes back as one JSON array built in SQLite (the columns of one aggregate
# pass, so they line up): a million rows cross into Python as six strings, parsed by the json
# module's C scanner, instead of six million values converted one by one from fetched rows.
_INPUTS_SQL = f"""
select json_group_array(repo_id), json_group_array(stars), json_group_array(forks),
  json_group_array({_EPOCH.format("created_at")}), json_group_array({_EPOCH.format("pushed_at")}),
  json_group_array(license_spdx){"".join(f", json_group_array({column})" for column in EXTRA_INPUTS)}
from temp.score_inputs
"""
_NAMES_SQL = """
select i.full_name from json_each(?) j join temp.score_inputs i on i.repo_id = j.value order by j.key
"""


def load_score_inputs(db: sqlite_utils.Database, as_of_epoch: int) -> tuple[ScoreInputs, dict[str, Any]]:
    """The listed repos as score inputs; the second value names where their stored columns wait
    for :func:`save_scores` (a temporary table of this connection)."""
    conn = db.conn
    outside = not conn.in_transaction
    conn.execute("drop table if exists temp.score_inputs")
    conn.execute(_INPUTS_TABLE_SQL)
    conn.execute(_COPY_INPUTS_SQL)
    if outside and conn.in_transaction:
        conn.commit()  # the INSERT opened a (read) transaction on main: end it
    texts = list(conn.execute(_INPUTS_SQL).fetchone())

    def column(k: int) -> list[Any]:
        """Column ``k`` as a list, its JSON text dropped: one parsed list at a time."""
        values, texts[k] = json.loads(texts[k]), None
        return values

    repo_id = np.array(column(0), dtype=np.int64)
    stars, forks = np.array(column(1), dtype=np.int64), np.array(column(2), dtype=np.int64)
    created, pushed = np.array(column(3), dtype=np.int64), np.array(column(4), dtype=float)  # no push: NaN
    licences = column(5)
    osi_of = {spdx: is_osi_approved(spdx) for spdx in set(licences)}
    inputs = ScoreInputs(
        repo_id=repo_id,
        full_name=StoredNames(conn, repo_id),
        stars=stars,
        forks=forks,
        created_epoch=created,
        pushed_epoch=pushed,
        osi=np.array(list(map(osi_of.__getitem__, licences)), dtype=bool),
        as_of_epoch=as_of_epoch,
        extra=_extra_inputs([column(6 + k) for k in range(len(EXTRA_INPUTS))], len(repo_id)),
    )
    return inputs, {"table": "temp.score_inputs"}


def _extra_inputs(columns: list[list[Any]], n: int) -> np.ndarray:
    """The extra inputs as ScoreInputs keeps them: one float field per column (None: NaN)."""
    extra = np.zeros(n, dtype=np.dtype([(name, float) for name in EXTRA_INPUTS]))
    for name, values in zip(EXTRA_INPUTS, columns, strict=True):
        extra[name] = np.array(values, dtype=float)
    return extra


class StoredNames:
    """The full names of the listed set, read from the scoring copy only at the positions asked
    for (the rank needs them only where score and stars tie)."""

    def __init__(self, conn: sqlite3.Connection, repo_ids: np.ndarray):
        self.conn = conn
        self.repo_ids = repo_ids

    def __getitem__(self, positions: np.ndarray) -> np.ndarray:
        ids = json.dumps(self.repo_ids[np.asarray(positions, dtype=np.intp)].tolist())
        return np.asarray([row[0] for row in self.conn.execute(_NAMES_SQL, [ids])], dtype=str)


# The newest snapshot of each repo observed in a baseline window (see baseline_window): the baseline
# of its growth. Only for a repo seen in the run being scored (a snapshot less than a day before the
# as-of, or after it): an import never delists, so a repo missing from the latest save keeps its
# last figures, and comparing those with a baseline would claim growth that nobody saw this week.
_BASELINE_SQL = """
select repo_id, stars, forks from (
  select repo_id, stars, forks,
         row_number() over (partition by repo_id order by observed_at desc, run_id desc) as newest
  from snapshots where observed_at <= {cutoff} and observed_at > {oldest}
) b where newest = 1
  and exists (select 1 from snapshots later where later.repo_id = b.repo_id and later.observed_at > {seen})
"""


# A repo counts as seen in the run being scored when it has a snapshot less than this many days
# before the as-of (a crawl's snapshots fall on its start, which is the as-of).
SEEN_WITHIN_DAYS = 1


def baseline_window(days: int) -> tuple[int, int]:
    """How old (in days before the as-of) the baseline of a ``days``-day change (7 or 28) may be:
    at least ``days`` - 1 and less than ``days`` + 3, so a weekly crawl a day early or a few days late
    still compares with last week, and a save two weeks back is not called "this week"."""
    return days - 1, days + 3


# What scoring computed (and the inputs it read), one row per repo, bound from Python in chunks.
_COMPUTED = (
    "repo_id",
    "license_osi",
    "age_days",
    "days_since_push",
    "stars_per_day",
    *NAMES,
    "score",
    "rank",
)
WRITE_CHUNK = 50_000

# The score rows: the computed columns, the run's constants, and, joined in SQL, each repo's
# current category and its growth since the week-old and four-week-old baselines.
_SAVE_SQL = """
with week as ({week}), month as ({month})
insert into scores (run_id, as_of, method_version, spdx_list_version,
  full_name, stars, forks, created_at, pushed_at, license_spdx{extra}, {computed},
  category, category_source, category_probability, category_uncertain,
  stars_delta_7d, stars_delta_28d, forks_delta_7d)
select :run_id, :as_of, :method_version, :spdx_list_version,
  i.full_name, i.stars, i.forks, i.created_at, i.pushed_at, i.license_spdx{extra_i}, {computed_s},
  c.category, c.source, c.probability,
  case when c.category is null then null else coalesce(c.uncertain, 0) != 0 end,
  i.stars - w.stars, i.stars - m.stars, i.forks - w.forks
from temp.score_rows s
join temp.score_inputs i on i.repo_id = s.repo_id
left join repo_categories c on c.repo_id = s.repo_id
left join week w on w.repo_id = s.repo_id
left join month m on m.repo_id = s.repo_id
order by s.repo_id
"""


def _cutoff(as_of: str, days: float) -> str:
    return iso(parse_timestamp(as_of) - timedelta(days=days))


def _by_repo(repo_ids: np.ndarray, rows: list[tuple[Any, ...]], columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each row's repo (its first value) sits in ``repo_ids``, and the rows' other values as a
    float array, for the rows whose repo is there (vectorised: a million rows in well under a second)."""
    if not rows or not len(repo_ids):
        return np.zeros(0, dtype=np.intp), np.zeros((0, columns))
    data = np.array(rows, dtype=float).reshape(len(rows), columns + 1)
    ids = data[:, 0].astype(np.int64)
    order = np.argsort(repo_ids, kind="stable")
    known = repo_ids[order]
    at = np.minimum(np.searchsorted(known, ids), len(known) - 1)
    found = known[at] == ids
    return order[at[found]], data[found, 1:]


def _baseline_bounds(as_of: str, days: int) -> dict[str, str]:
    newest, oldest = baseline_window(days)
    return {
        "cutoff": _cutoff(as_of, newest),
        "oldest": _cutoff(as_of, oldest),
        "seen": _cutoff(as_of, SEEN_WITHIN_DAYS),
    }


def _bounds_as(as_of: str, days: int, name: str) -> dict[str, str]:
    """The bounds as the save's parameters: ``week``, ``week_oldest`` and ``seen`` for ``name`` week."""
    bounds = _baseline_bounds(as_of, days)
    return {name: bounds["cutoff"], f"{name}_oldest": bounds["oldest"], "seen": bounds["seen"]}


def _baseline(db: sqlite_utils.Database, as_of: str, days: int, repo_ids: np.ndarray) -> np.ndarray:
    """(stars, forks) of each repo at its baseline, N × 2, NaN without one."""
    out = np.full((len(repo_ids), 2), np.nan)
    sql = _BASELINE_SQL.format(cutoff=":cutoff", oldest=":oldest", seen=":seen")
    slots, values = _by_repo(repo_ids, db.execute(sql, _baseline_bounds(as_of, days)).fetchall(), 2)
    out[slots] = values
    return out


def growth(
    db: sqlite_utils.Database, as_of: str, repo_ids: np.ndarray, stars: np.ndarray, forks: np.ndarray
) -> dict[str, np.ndarray]:
    """Stars gained over about a week and four weeks, forks over a week, from the snapshots.

    The baseline is the newest snapshot 6 to 10 (or 27 to 31) days older than ``as_of``
    (:func:`baseline_window`), so a weekly crawl that starts a few minutes later than last week still
    compares with last week. NaN when there is no snapshot in that window, or the repo was not seen
    in the run being scored (see _BASELINE_SQL).
    """
    repo_ids = np.asarray(repo_ids, dtype=np.int64)
    week, month = _baseline(db, as_of, 7, repo_ids), _baseline(db, as_of, 28, repo_ids)
    stars, forks = np.asarray(stars, dtype=float), np.asarray(forks, dtype=float)
    return {
        "stars_delta_7d": stars - week[:, 0],
        "stars_delta_28d": stars - month[:, 0],
        "forks_delta_7d": forks - week[:, 1],
    }


_WEEK_POINT_SQL = """
select repo_id, stars from (
  select repo_id, stars,
         row_number() over (partition by repo_id order by observed_at desc, run_id desc) as newest
  from snapshots where observed_at <= ? and observed_at > ?
) where newest = 1
"""


def weekly_stars(
    db: sqlite_utils.Database, as_of: str, repo_ids: np.ndarray, stars: np.ndarray, weeks: int
) -> np.ndarray:
    """Stars at the end of each of the last ``weeks`` weeks, from the snapshots: N × (weeks + 1).

    Column 0 is the stars now; column k the newest snapshot taken between 7k − 1 and 7k + 3 days
    before ``as_of`` (:func:`baseline_window`: a weekly crawl a day early or a few days late still
    counts), NaN without one.
    """
    repo_ids = np.asarray(repo_ids, dtype=np.int64)
    out = np.full((len(repo_ids), weeks + 1), np.nan)
    out[:, 0] = stars
    for k in range(1, weeks + 1):
        newest, oldest = baseline_window(7 * k)
        bounds = [_cutoff(as_of, newest), _cutoff(as_of, oldest)]
        slots, values = _by_repo(repo_ids, db.execute(_WEEK_POINT_SQL, bounds).fetchall(), 1)
        out[slots, k] = values[:, 0]
    return out


def save_scores(
    db: sqlite_utils.Database,
    run_id: int,
    as_of: str,
    inputs: ScoreInputs,
    raw: dict[str, Any],
    result: dict[str, np.ndarray],
    *,
    extra: dict[str, Any] | None = None,
) -> int:
    """Write one score row per repo with every input, so the row alone recomputes the score.

    The row also keeps the repo's category and recent growth as they were at scoring time: the
    baseline of growth is the newest snapshot 6 to 10 (or 27 to 31) days older than ``as_of``, so a
    weekly crawl that starts a few minutes later than last week still compares with last week
    (empty when there is no snapshot in that window, or the repo was not seen in this run).

    Written for a million rows: the computed columns go into a temporary table in chunks of
    tuples built from the arrays (bounded memory, no per-row dicts), then one ``insert … select``
    in SQLite adds the constants, categories and growth and writes the rows in key order, all in
    one transaction, with a large page cache.
    """
    n = len(inputs)
    # NaN (no push) is bound as a float, which SQLite stores as NULL.
    columns: dict[str, Any] = {
        "repo_id": inputs.repo_id,
        "license_osi": inputs.osi.astype(np.int64),
        **{name: result[name] for name in _COMPUTED[2:]},
        **(extra or {}),  # more columns computed with the score (rank and score ranges, flags)
    }
    conn = db.conn
    foreign_keys = conn.execute("pragma foreign_keys").fetchall()[0][0]
    if not conn.in_transaction:
        # Every row's run is the one being recorded and its repo was just read from repos: the
        # per-row foreign-key lookups would only cost time (a quarter of the write). A no-op
        # inside a caller's transaction.
        conn.execute("pragma foreign_keys = off")
    try:
        with bulk_cache(db):
            _write_rows(db, run_id, as_of, columns, n)
    finally:
        conn.execute(f"pragma foreign_keys = {foreign_keys}")
    return n


def _most_common_out(columns: dict[str, Any]) -> dict[str, Any]:
    """For each list column (text such as ``flags``), its most common value, replaced by None in the
    list: that value is then bound once for the whole insert instead of once per row."""
    common: dict[str, Any] = {}
    for name, column in columns.items():
        if isinstance(column, list) and column:
            value = Counter(column).most_common(1)[0][0]
            if value is not None:
                common[name] = value
                columns[name] = [None if v == value else v for v in column]
    return common


def _write_rows(db: sqlite_utils.Database, run_id: int, as_of: str, columns: dict[str, Any], n: int) -> None:
    conn = db.conn
    columns = dict(columns)
    common = _most_common_out(columns)
    with write_transaction(db):
        conn.execute("delete from scores where run_id = ?", [run_id])
        conn.execute("drop table if exists temp.score_rows")
        names = list(columns)
        conn.execute(f"create temp table score_rows (repo_id integer primary key, {', '.join(names[1:])})")
        insert = f"insert into temp.score_rows values ({', '.join('?' for _ in names)})"
        for start in range(0, n, WRITE_CHUNK):
            chunk = [
                column[start : start + WRITE_CHUNK].tolist()
                if isinstance(column, np.ndarray)
                else column[start : start + WRITE_CHUNK]
                for column in columns.values()
            ]
            conn.executemany(insert, zip(*chunk, strict=True))
        conn.execute(
            _SAVE_SQL.format(
                week=_BASELINE_SQL.format(cutoff=":week", oldest=":week_oldest", seen=":seen"),
                month=_BASELINE_SQL.format(cutoff=":month", oldest=":month_oldest", seen=":seen"),
                extra=_EXTRA,
                extra_i="".join(f", i.{column}" for column in EXTRA_INPUTS),
                computed=", ".join(names),
                computed_s=", ".join(f"coalesce(s.{c}, :common_{c})" if c in common else f"s.{c}" for c in names),
            ),
            {
                "run_id": run_id,
                "as_of": as_of,
                "method_version": METHOD_VERSION,
                "spdx_list_version": SPDX_LIST_VERSION,
                **_bounds_as(as_of, 7, "week"),
                **_bounds_as(as_of, 28, "month"),
                **{f"common_{c}": value for c, value in common.items()},
            },
        )
        conn.execute("drop table temp.score_rows")
        conn.execute("drop table temp.score_inputs")


def publish(
    db: sqlite_utils.Database, score_run_id: int, refresh_run_id: int | None = None, *, at: str | None = None
) -> None:
    """Point the published ranking (Datasette's ``agents``, the export) at a score run.

    Inside a caller's transaction it becomes a savepoint, so the refresh publishes its corrections
    and its ranking together.
    """
    row = {"id": 1, "score_run_id": score_run_id, "refresh_run_id": refresh_run_id, "published_at": at or iso(utcnow())}
    with write_transaction(db), bulk_cache(db):
        db.table("published").upsert(row, pk="id")
        refresh_agents(db)


def published_score_run(db: sqlite_utils.Database) -> int | None:
    row = db.execute("select score_run_id from published where id = 1").fetchone()
    return row[0] if row else None


def score_run_before(db: sqlite_utils.Database, as_of: str) -> int | None:
    """The successful score run a new run as of ``as_of`` comes after: the latest as-of on or before
    it (view ``score_run_previous``: a what-if scored as of a later date is not "previous")."""
    row = db.execute(
        "select run_id from score_run_previous where as_of <= ? order by as_of desc, run_id desc limit 1", [as_of]
    ).fetchone()
    return row[0] if row else None


def top_of_run(conn: sqlite3.Connection, run_id: int) -> tuple[str, float] | None:
    """(full_name, score) ranked first in a score run."""
    row = conn.execute(
        "select full_name, score from scores where run_id = ? order by rank limit 1", [run_id]
    ).fetchone()
    return (row[0], row[1]) if row else None
