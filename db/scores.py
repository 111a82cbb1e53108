"""Reading the listed set for scoring, writing score rows, and the published pointer."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import sqlite_utils

from db.agents import refresh_agents
from db.connection import write_transaction
from db.runs import iso, utcnow
from scoring.licenses import SPDX_LIST_VERSION, is_osi_approved
from scoring.score import METHOD_VERSION, ScoreInputs

_INPUTS_SQL = """
select id, full_name, stars, forks, created_at, pushed_at, license_spdx
from repos where listed = 1
"""


def _epochs(timestamps: list[str | None]) -> np.ndarray:
    """UTC epoch seconds of stored 'YYYY-MM-DDTHH:MM:SSZ' timestamps, NaN for None.

    numpy parses a million of these in a fraction of the time SQLite's strftime takes.
    """
    present = np.array([t is not None for t in timestamps], dtype=bool)
    parsed = np.array([t[:19] for t in timestamps if t is not None], dtype="datetime64[s]").astype(np.int64)
    out = np.full(len(timestamps), np.nan)
    out[present] = parsed
    return out


def load_score_inputs(db: sqlite_utils.Database, as_of_epoch: int) -> tuple[ScoreInputs, dict[str, list[Any]]]:
    """The listed repos as score inputs, plus the raw columns the score rows keep."""
    rows = db.execute(_INPUTS_SQL).fetchall()
    columns = list(zip(*rows, strict=False)) if rows else [()] * 7
    ids, names, stars, forks, created, pushed, licences = columns
    osi_of = {spdx: is_osi_approved(spdx) for spdx in set(licences)}
    inputs = ScoreInputs(
        repo_id=np.asarray(ids, dtype=np.int64),
        full_name=np.asarray(names, dtype=str),
        stars=np.asarray(stars, dtype=np.int64),
        forks=np.asarray(forks, dtype=np.int64),
        created_epoch=_epochs(list(created)).astype(np.int64),
        pushed_epoch=_epochs(list(pushed)),
        osi=np.asarray([osi_of[spdx] for spdx in licences], dtype=bool),
        as_of_epoch=as_of_epoch,
    )
    raw = {"created_at": list(created), "pushed_at": list(pushed), "license_spdx": list(licences)}
    return inputs, raw


_BASELINE_SQL = """
select repo_id, stars, forks from (
  select repo_id, stars, forks,
         row_number() over (partition by repo_id order by observed_at desc, run_id desc) as newest
  from snapshots where observed_at <= ?
) where newest = 1
"""


def _baseline(db: sqlite_utils.Database, as_of: str, days: float) -> dict[int, tuple[int, int]]:
    cutoff = iso(datetime.fromisoformat(as_of.replace("Z", "+00:00")) - timedelta(days=days))
    return {repo_id: (stars, forks) for repo_id, stars, forks in db.execute(_BASELINE_SQL, [cutoff])}


def growth(db: sqlite_utils.Database, as_of: str, repo_ids: list[int], stars: list[int], forks: list[int]):
    """Stars gained over about a week and four weeks, forks over a week, from the snapshots.

    The baseline is the newest snapshot at least 6 (or 27) days older than ``as_of``, so a weekly
    crawl that starts a few minutes later than last week still compares with last week. None when
    there is no snapshot that old.
    """
    week, month = _baseline(db, as_of, 6), _baseline(db, as_of, 27)
    out: dict[str, list[int | None]] = {"stars_delta_7d": [], "stars_delta_28d": [], "forks_delta_7d": []}
    for repo_id, s, f in zip(repo_ids, stars, forks, strict=False):
        w, m = week.get(repo_id), month.get(repo_id)
        out["stars_delta_7d"].append(None if w is None else s - w[0])
        out["forks_delta_7d"].append(None if w is None else f - w[1])
        out["stars_delta_28d"].append(None if m is None else s - m[0])
    return out


def current_categories(db: sqlite_utils.Database, repo_ids: list[int]) -> dict[str, list[Any]]:
    """Each repo's current category, to be kept with its score row."""
    found = {
        row[0]: row[1:]
        for row in db.execute("select repo_id, category, source, probability, uncertain from repo_categories")
    }
    empty = (None, None, None, None)
    values = [found.get(repo_id, empty) for repo_id in repo_ids]
    return {
        "category": [v[0] for v in values],
        "category_source": [v[1] for v in values],
        "category_probability": [v[2] for v in values],
        "category_uncertain": [None if v[0] is None else int(bool(v[3])) for v in values],
    }


def save_scores(
    db: sqlite_utils.Database,
    run_id: int,
    as_of: str,
    inputs: ScoreInputs,
    raw: dict[str, list[Any]],
    result: dict[str, np.ndarray],
) -> int:
    """Write one score row per repo with every input, so the row alone recomputes the score.

    The row also keeps the repo's category and recent growth as they were at scoring time.
    """
    n = len(inputs)
    repo_ids = inputs.repo_id.tolist()
    pushed_nan = np.isnan(result["days_since_push"])
    columns = {
        "run_id": [run_id] * n,
        "repo_id": repo_ids,
        "full_name": inputs.full_name.tolist(),
        "as_of": [as_of] * n,
        "method_version": [METHOD_VERSION] * n,
        "stars": inputs.stars.tolist(),
        "forks": inputs.forks.tolist(),
        "created_at": raw["created_at"],
        "pushed_at": raw["pushed_at"],
        "license_spdx": raw["license_spdx"],
        "license_osi": inputs.osi.astype(int).tolist(),
        "spdx_list_version": [SPDX_LIST_VERSION] * n,
        "age_days": result["age_days"].tolist(),
        "days_since_push": [
            None if missing else d for missing, d in zip(pushed_nan, result["days_since_push"].tolist(), strict=False)
        ],
        "stars_per_day": result["stars_per_day"].tolist(),
        "popularity": result["popularity"].tolist(),
        "adoption": result["adoption"].tolist(),
        "activity": result["activity"].tolist(),
        "momentum": result["momentum"].tolist(),
        "openness": result["openness"].tolist(),
        "score": result["score"].tolist(),
        "rank": result["rank"].tolist(),
        **current_categories(db, repo_ids),
        **growth(db, as_of, repo_ids, inputs.stars.tolist(), inputs.forks.tolist()),
    }
    names = list(columns)
    sql = "insert into scores ({}) values ({})".format(
        ", ".join(f'"{c}"' for c in names), ", ".join("?" for _ in names)
    )
    with write_transaction(db):
        db.execute("delete from scores where run_id = ?", [run_id])
        # executemany over column tuples: a million rows go in several times faster than dicts.
        db.conn.executemany(sql, zip(*columns.values(), strict=False))
    return n


def publish(
    db: sqlite_utils.Database, score_run_id: int, refresh_run_id: int | None = None, *, at: str | None = None
) -> None:
    """Point the published ranking (Datasette's ``agents``, the export) at a score run.

    Inside a caller's transaction it becomes a savepoint, so the refresh publishes its corrections
    and its ranking together.
    """
    row = {"id": 1, "score_run_id": score_run_id, "refresh_run_id": refresh_run_id, "published_at": at or iso(utcnow())}
    with write_transaction(db):
        db.table("published").upsert(row, pk="id")
        refresh_agents(db)


def published_score_run(db: sqlite_utils.Database) -> int | None:
    row = db.execute("select score_run_id from published where id = 1").fetchone()
    return row[0] if row else None


def top_of_run(conn: sqlite3.Connection, run_id: int) -> tuple[str, float] | None:
    """(full_name, score) ranked first in a score run."""
    row = conn.execute(
        "select full_name, score from scores where run_id = ? order by rank limit 1", [run_id]
    ).fetchone()
    return (row[0], row[1]) if row else None
