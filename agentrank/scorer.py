"""``agentrank score``: the AgentRank Score of every listed repo, as one ``score`` run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlite_utils

from agentrank.errors import InputRefused, PipelineError
from crawler.items import format_timestamp, parse_timestamp
from db.runs import latest_run, recorded_run, utcnow
from db.scores import load_score_inputs, publish, save_scores, top_of_run
from scoring.score import compute_scores


@dataclass
class ScoreResult:
    run_id: int
    as_of: str
    count: int
    top: tuple[str, float] | None  # (full_name, score) ranked first
    published: bool

    def summary(self) -> str:
        line = f"score run {self.run_id}: {self.count} listed repos scored as of {self.as_of}"
        if self.top:
            line += f"; #1 {self.top[0]} ({self.top[1]:.1f})"
        return line


def default_as_of(db: sqlite_utils.Database) -> str:
    run = latest_run(db, ("crawl", "import"))
    if run is None:
        raise PipelineError("nothing to score yet: run `agentrank crawl` or `agentrank import FILE` first")
    started: str = run["started_at"]
    return started


# How far ahead of this machine's clock an --as-of may be (another machine's clock may run fast).
CLOCK_SKEW = timedelta(minutes=5)


def parse_as_of(value: str) -> str:
    try:
        return format_timestamp(parse_timestamp(value))
    except ValueError:
        raise InputRefused(f"--as-of {value!r}: not an ISO 8601 instant; give one like 2026-11-30T06:00:00Z") from None


def check_as_of(db: sqlite_utils.Database, value: str, *, now: datetime | None = None) -> str:
    """``value`` as a stored timestamp, refused when it is in the future (beyond ``CLOCK_SKEW``) or
    before the latest crawl or import fetched the data it would score."""
    as_of = parse_as_of(value)
    fetched = default_as_of(db)
    latest = format_timestamp((now or utcnow()) + CLOCK_SKEW)
    accepted = f"give an instant from {fetched} (when the latest crawl/import started) to now, or add --force"
    if as_of > latest:
        raise InputRefused(f"--as-of {value}: is in the future; {accepted}")
    if as_of < fetched:
        raise InputRefused(f"--as-of {value}: is before the data it would score was fetched; {accepted}")
    return as_of


def score(
    db: sqlite_utils.Database,
    *,
    as_of: str | None = None,
    publish_result: bool = True,
    parent_id: int | None = None,
    started_at: datetime | None = None,
    check: bool = False,
) -> ScoreResult:
    """Score every listed repo as of ``as_of`` in one ``score`` run; publish it unless told not to.

    With ``check`` (the command line without --force) a given ``as_of`` must lie between the start
    of the latest crawl/import and now.
    """
    if as_of:
        as_of = check_as_of(db, as_of) if check else parse_as_of(as_of)
    else:
        as_of = default_as_of(db)
    as_of_epoch = int(parse_timestamp(as_of).timestamp())
    inputs, raw = load_score_inputs(db, as_of_epoch)
    if len(inputs) == 0:
        raise PipelineError("no listed repos to score: crawl or import repos with at least min_stars stars first")
    with recorded_run(db, "score", parent_id=parent_id, as_of=as_of, started_at=started_at) as run:
        saved = save_scores(db, run.id, as_of, inputs, raw, compute_scores(inputs))
        run.counts = {"items": saved, "saved": saved}
    if publish_result:
        publish(db, run.id)
    return ScoreResult(run.id, as_of, saved, top_of_run(db.conn, run.id), publish_result)
