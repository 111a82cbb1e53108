"""``agentrank score``: the AgentRank Score of every listed repo, as one ``score`` run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlite_utils

from agentrank.errors import PipelineError
from crawler.items import EARLIEST, format_timestamp, parse_timestamp
from db.runs import latest_run, recorded_run
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


LATEST_AS_OF = datetime(9000, 1, 1, tzinfo=UTC)


def parse_as_of(value: str) -> str:
    try:
        parsed = parse_timestamp(value)
    except (ValueError, OverflowError):
        raise PipelineError(f"--as-of: not an ISO 8601 time: {value!r} (e.g. 2026-11-30T06:00:00Z)") from None
    # A what-if date in the future is fine, as long as the score's arithmetic can represent it.
    if not EARLIEST <= parsed < LATEST_AS_OF:
        raise PipelineError(f"--as-of: {value!r} is outside {EARLIEST:%Y-%m-%d} .. {LATEST_AS_OF:%Y-%m-%d}")
    return format_timestamp(parsed)


def score(
    db: sqlite_utils.Database,
    *,
    as_of: str | None = None,
    publish_result: bool = True,
    parent_id: int | None = None,
) -> ScoreResult:
    """Score every listed repo as of ``as_of`` in one ``score`` run; publish it unless told not to."""
    as_of = parse_as_of(as_of) if as_of else default_as_of(db)
    as_of_epoch = int(parse_timestamp(as_of).timestamp())
    inputs, raw = load_score_inputs(db, as_of_epoch)
    if len(inputs) == 0:
        raise PipelineError("no listed repos to score: crawl or import repos with at least min_stars stars first")
    with recorded_run(db, "score", parent_id=parent_id, as_of=as_of) as run:
        saved = save_scores(db, run.id, as_of, inputs, raw, compute_scores(inputs))
        run.counts = {"items": saved, "saved": saved}
    if publish_result:
        publish(db, run.id)
    return ScoreResult(run.id, as_of, saved, top_of_run(db.conn, run.id), publish_result)
