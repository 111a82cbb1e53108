"""``agentrank score``: the AgentRank Score of every listed repo, as one ``score`` run."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import sqlite_utils

from agentrank.errors import InputRefused, PipelineError
from crawler.items import EARLIEST, format_timestamp, parse_timestamp
from db.repos import count_seen_in_run
from db.runs import latest_run, recorded_run, utcnow
from db.scores import growth, load_score_inputs, publish, save_scores, score_run_before, top_of_run, weekly_stars
from db.validation import classifier_accuracy, crawl_coverage, run_ranks, save_validation
from scoring import growth as growth_rule
from scoring import validation
from scoring.score import ScoreInputs, compute_scores, shown
from scoring.uncertainty import INTERVAL, SEED, draws_for, rank_ranges, weekly_noise


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
            line += f"; #1 {self.top[0]} ({shown(self.top[1]):.1f})"  # halves up, as everywhere else
        return line


def default_as_of(db: sqlite_utils.Database) -> str:
    run = latest_run(db, ("crawl", "import"))
    if run is None:
        raise PipelineError("nothing to score yet: run `agentrank crawl` or `agentrank import FILE` first")
    started: str = run["started_at"]
    return started


# How far ahead of this machine's clock an --as-of may be (another machine's clock may run fast).
CLOCK_SKEW = timedelta(minutes=5)
# The latest instant the score's arithmetic represents (a what-if date may be far ahead with --force).
LATEST_AS_OF = datetime(9000, 1, 1, tzinfo=UTC)


def parse_as_of(value: str) -> str:
    try:
        parsed = parse_timestamp(value)
    except (ValueError, OverflowError):
        raise InputRefused(f"--as-of {value!r}: not an ISO 8601 instant; give one like 2026-11-30T06:00:00Z") from None
    if not EARLIEST <= parsed < LATEST_AS_OF:
        raise InputRefused(
            f"--as-of {value!r}: outside {EARLIEST:%Y-%m-%d} .. {LATEST_AS_OF:%Y-%m-%d}, which the score can represent"
        )
    return format_timestamp(parsed)


def as_of_refusal(db: sqlite_utils.Database, as_of: str, *, now: datetime | None = None) -> str | None:
    """Why ``as_of`` is refused without ``--force``: it lies in the future (beyond ``CLOCK_SKEW``)
    or before the latest crawl/import fetched the data it scores; else None.

    With ``--force`` such an instant is scored (replaying past weeks, a what-if date): ages and the
    days since the last push are counted to it. Saved search results are dated with
    ``import --observed-at`` instead, so their score needs no ``--as-of``.
    """
    fetched = default_as_of(db)
    if as_of > format_timestamp((now or utcnow()) + CLOCK_SKEW):
        return (
            f"--as-of {as_of} is in the future (the data was fetched {fetched}); "
            "nothing was scored: leave --as-of out, or add --force for a what-if date"
        )
    if as_of < fetched:
        return (
            f"--as-of {as_of} is before the data it scores was fetched ({fetched}); nothing was scored: "
            "date saved results with `import --observed-at`, or add --force to replay a past week"
        )
    return None


def unfinished_crawl(db: sqlite_utils.Database) -> str | None:
    """Why scoring now would mix in a crawl that did not finish (and saved repos), or None.

    A crawl saves what it finds page by page, so after one that stopped (refused by the delisting
    guard, interrupted, failed) the repos hold part of its data: repos it first found are listed
    although no complete crawl has confirmed them, and they were fetched after the as-of a score
    would take (the start of the latest complete crawl or import). An import after it does not end
    this: it confirms only the repos it holds, and the crawl's first-found repos would be published
    with it."""
    last = latest_run(db, ("crawl",), status=None)
    if last is None or last["status"] == "ok":
        return None
    if count_seen_in_run(db.conn, last["id"]) == 0:  # it stopped before saving anything (a bad token)
        return None
    how = {"refused": "was stopped by the delisting guard"}.get(last["status"], f"did not finish ({last['status']})")
    return (
        f"crawl run {last['id']} {how}, and the repos hold part of its data; nothing was scored: "
        "resume it with `agentrank crawl` (`--fresh` to start again), or add --force to score what is stored"
    )


def unfinished_refresh(db: sqlite_utils.Database) -> str | None:
    """Why scoring now would publish half of a refresh that did not finish, or None.

    A refresh's stages write as they go (the crawl, the corrections, the classification) and only
    its last step publishes: after one that failed or was killed, a score would publish what its
    first stages stored (an exclusion, a category correction) while the published corrections table
    still shows the old file. Not once a later refresh or score has finished."""
    # The latest refresh that stored anything (a finished stage); one that stopped before its first
    # stage (GitHub refused the token) stored nothing and must not hide an earlier half-done one.
    row = db.execute(
        "select id, status from runs r where kind = 'refresh' and exists "
        "(select 1 from runs c where c.parent_id = r.id and c.status = 'ok') order by id desc limit 1"
    ).fetchone()
    if row is None or row[1] == "ok":
        return None
    last = {"id": row[0], "status": row[1]}
    later = latest_run(db, ("refresh", "score"))
    if later is not None and later["id"] > last["id"]:
        return None
    return (
        f"refresh run {last['id']} did not finish ({last['status']}), and what its first stages stored is not "
        "published; nothing was scored: run `agentrank refresh` again, or add --force to score what is stored"
    )


def score(
    db: sqlite_utils.Database,
    *,
    as_of: str | None = None,
    publish_result: bool = True,
    parent_id: int | None = None,
    started_at: datetime | None = None,
    check: bool = False,
    steps: dict[str, float] | None = None,
) -> ScoreResult:
    """Score every listed repo as of ``as_of`` in one ``score`` run; publish it unless told not to.

    With ``check`` (the command line without --force) a given ``as_of`` outside the start of the
    latest crawl/import to now is refused (:func:`as_of_refusal`, InputRefused) before anything is
    written. ``steps``, when given, receives the seconds each step took
    (``bench/score_import.py`` prints them).
    """
    lap = Stopwatch(steps)
    unfinished = (unfinished_crawl(db) or unfinished_refresh(db)) if check else None
    if unfinished:
        raise InputRefused(unfinished)
    if as_of is not None:  # an empty --as-of is refused, not taken for the default
        as_of = parse_as_of(as_of)
        refusal = as_of_refusal(db, as_of) if check else None
        if refusal:
            raise InputRefused(refusal)
    else:
        as_of = default_as_of(db)
    as_of_epoch = int(parse_timestamp(as_of).timestamp())
    inputs, raw = load_score_inputs(db, as_of_epoch)
    lap("read the listed set")
    if len(inputs) == 0:
        raise PipelineError("no listed repos to score: crawl or import repos with at least min_stars stars first")
    previous_run = score_run_before(db, as_of)
    with recorded_run(db, "score", parent_id=parent_id, as_of=as_of, started_at=started_at) as run:
        result = compute_scores(inputs)
        lap("compute the scores and ranks")
        deltas = growth(db, as_of, inputs.repo_id, inputs.stars, inputs.forks)
        extra, judgement = trust_columns(db, as_of, inputs, result, deltas)
        lap("rank and score ranges, flags")
        saved = save_scores(db, run.id, as_of, inputs, raw, result, extra=extra)
        lap("write the score rows")
        figures, details = validation_figures(db, inputs, result, extra, judgement, previous_run)
        save_validation(db, run.id, figures, details)
        lap("validation figures")
        run.counts = {"items": saved, "saved": saved}
        run.details = {"flagged": figures["flagged"], "spearman_vs_stars": figures["spearman_vs_stars"]}
    lap("end the run")
    if publish_result:
        publish(db, run.id)
        lap("publish")
    return ScoreResult(run.id, as_of, saved, top_of_run(db.conn, run.id), publish_result)


class Stopwatch:
    """Adds the seconds since the previous call (or since it was made) to ``into[step]``; a no-op
    without ``into``."""

    def __init__(self, into: dict[str, float] | None):
        self.into = into
        self.last = time.perf_counter()

    def __call__(self, step: str) -> None:
        now = time.perf_counter()
        if self.into is not None:
            self.into[step] = self.into.get(step, 0.0) + now - self.last
        self.last = now


def trust_columns(
    db: sqlite_utils.Database,
    as_of: str,
    inputs: ScoreInputs,
    result: dict[str, np.ndarray],
    deltas: dict[str, np.ndarray],
) -> tuple[dict[str, Any], growth_rule.GrowthJudgement]:
    """The rank and score ranges and the flags of every repo, as score-row columns."""
    stars_delta, forks_delta = deltas["stars_delta_7d"], deltas["forks_delta_7d"]
    ranges = rank_ranges(
        inputs, result, weekly_noise(inputs.stars, stars_delta), weekly_noise(inputs.forks, forks_delta)
    )
    weekly = weekly_stars(db, as_of, inputs.repo_id, inputs.stars, growth_rule.WEEKS)
    pushed = np.nan_to_num(result["days_since_push"], nan=np.inf) <= 7
    judgement = growth_rule.judge(weekly, forks_delta, pushed)
    checks = judgement.details(weekly, forks_delta, pushed)
    flagged_json, plain = json.dumps([growth_rule.FLAG]), json.dumps([])
    flags = [flagged_json if f else plain for f in judgement.flagged.tolist()]  # two shared strings
    extra: dict[str, Any] = {
        "rank_best": ranges.rank_best,
        "rank_worst": ranges.rank_worst,
        "score_low": ranges.score_low,
        "score_high": ranges.score_high,
        "flags": flags,
        "growth_check": checks,
    }
    return extra, judgement


def validation_figures(
    db: sqlite_utils.Database,
    inputs: ScoreInputs,
    result: dict[str, np.ndarray],
    extra: dict[str, Any],
    judgement: growth_rule.GrowthJudgement,
    previous_run: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """This run's validation figures and the details behind them (parameters, null reasons)."""
    rank = result["rank"]
    tau, common = None, 0
    if previous_run is not None:
        before = run_ranks(db.conn, previous_run)
        ids = inputs.repo_id.tolist()
        pairs = [(before[r], int(k)) for r, k in zip(ids, rank, strict=True) if r in before]
        common = len(pairs)
        if pairs:
            tau = validation.kendall_tau(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    coverage = crawl_coverage(db.conn)
    classifier = classifier_accuracy(db.conn)
    rho = validation.spearman_vs_stars(rank, inputs.stars)
    figures = {
        "n": len(inputs),
        "spearman_vs_stars": rho,
        "kendall_tau_vs_previous": tau,
        "previous_run": previous_run,
        "previous_common": common,
        "wide_rank_range_share": validation.wide_range_share(
            np.array(extra["rank_best"]), np.array(extra["rank_worst"])
        ),
        "crawl_run": coverage["crawl_run"],
        "crawl_coverage": coverage["coverage"],
        "classifier_cv_accuracy": classifier["accuracy"],
        "flagged": int(judgement.flagged.sum()),
        "judged": int(judgement.judged.sum()),
    }
    details = {
        "spearman_vs_stars": None
        if rho is not None
        else ("fewer than 2 listed repos" if len(inputs) < 2 else "every listed repo has the same star count"),
        "kendall_tau_vs_previous": None
        if tau is not None
        else ("no earlier published run" if previous_run is None else "fewer than 2 repos ranked in both runs"),
        "crawl_coverage": coverage,
        "classifier_cv_accuracy": classifier["reason"],
        "uncertainty": {"draws": draws_for(len(inputs)), "seed": SEED, "interval": list(INTERVAL)},
        "wide_rank_range_places": validation.WIDE_RANGE,
        "growth_peer_sd": judgement.peer_sd,
    }
    return figures, details
