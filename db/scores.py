"""Reading the listed set for scoring, writing score rows, and the published pointer."""

from __future__ import annotations

from typing import Any

import numpy as np
import sqlite_utils

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
    columns = list(zip(*rows)) if rows else [()] * 7
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


def save_scores(
    db: sqlite_utils.Database,
    run_id: int,
    as_of: str,
    inputs: ScoreInputs,
    raw: dict[str, list[Any]],
    result: dict[str, np.ndarray],
) -> int:
    """Write one score row per repo with every input, so the row alone recomputes the score."""
    n = len(inputs)
    pushed_nan = np.isnan(result["days_since_push"])
    columns = {
        "run_id": [run_id] * n,
        "repo_id": inputs.repo_id.tolist(),
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
        "days_since_push": [None if missing else d for missing, d in zip(pushed_nan, result["days_since_push"].tolist())],
        "stars_per_day": result["stars_per_day"].tolist(),
        "popularity": result["popularity"].tolist(),
        "adoption": result["adoption"].tolist(),
        "activity": result["activity"].tolist(),
        "momentum": result["momentum"].tolist(),
        "openness": result["openness"].tolist(),
        "score": result["score"].tolist(),
        "rank": result["rank"].tolist(),
    }
    names = list(columns)
    sql = "insert into scores ({}) values ({})".format(", ".join(f'"{c}"' for c in names), ", ".join("?" for _ in names))
    with write_transaction(db):
        db.execute("delete from scores where run_id = ?", [run_id])
        # executemany over column tuples: a million rows go in several times faster than dicts.
        db.conn.executemany(sql, zip(*columns.values()))
    return n


def publish(db: sqlite_utils.Database, score_run_id: int, refresh_run_id: int | None = None) -> None:
    """Point the published ranking (Datasette's ``agents``, the export) at a score run."""
    with write_transaction(db):
        db["published"].upsert(
            {"id": 1, "score_run_id": score_run_id, "refresh_run_id": refresh_run_id, "published_at": iso(utcnow())},
            pk="id",
        )


def published_score_run(db: sqlite_utils.Database) -> int | None:
    row = db.execute("select score_run_id from published where id = 1").fetchone()
    return row[0] if row else None
