"""FitScore (seed 004): seven criteria scored 1–5, weighted, from the attempts and an assessment file.

Pure: no database. The rules:

- a *pass* is an attempt that passed every hidden test, is not disqualified and did not hit the
  time limit (a cap hit is a fail whatever the code left behind); infra errors are left out;
- ``quality`` per task = the attempts' ``quality`` averaged and rounded half up; the criterion =
  the task scores averaged and rounded half up (attempts without a ``quality`` are skipped);
- ``reliability`` per task from its passes: every attempt passed → 5; none → 1; all but one → 3;
  any other share (two or more failures, at least one pass) → 2; the criterion as for quality;
- ``speed`` per task from the median wall time of its counted attempts and the task's
  ``limit_seconds`` (the attempts'): median under a third of the limit → 5, under half → 4, under
  two thirds → 3, within the limit → 2, over it → 1; the criterion as for quality (no limit or no
  time recorded: no derived speed);
- a criterion given in the assessment's ``scores`` wins over the derived one;
- the attempts are one tier's (``tier``; default verified when the agent has verified attempts in
  the suite, else community) in the run(s) the assessment names (``run`` or ``runs``), by default
  the latest run by date in that tier that the agent took part in (a later round of other tools
  takes nothing away); the runs used are recorded;
- FitScore = round half up of Σ score × weight / 5 (weights sum to 100), null when a criterion is
  missing or the agent has no runs in the suite ("facts, no FitScore");
- each judgement call is the same sum with its scores swapped in; an assessment (or a judgement)
  whose ``published`` figure differs from the recomputed one is marked ``matches_published = false``;
- FitScores rank within a tier by FitScore (high first), then the unrounded sum (exactly), then
  agent name.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from leaderboard.fairness import run_order
from leaderboard.figures import Scored, scored, settings_of
from leaderboard.toml_files import read_toml

CRITERIA = ("quality", "reliability", "cost", "speed", "setup", "agent", "privacy")
DERIVED = ("quality", "reliability", "speed")
WEIGHTS: dict[str, int] = {
    "quality": 30,
    "reliability": 15,
    "cost": 15,
    "speed": 10,
    "setup": 10,
    "agent": 10,
    "privacy": 10,
}


class AssessmentFileError(ValueError):
    """The assessments file cannot be used; the message names the file and the problem."""


def round_half_up(value: Fraction | float | int) -> int:
    """4.5 → 5, 4.49 → 4: exact for fractions, so a mean of integers never rounds the wrong way."""
    return math.floor(Fraction(value) + Fraction(1, 2))


Score = int  # 1..5


def _criteria(value: dict[str, int]) -> dict[str, int]:
    for name, score in value.items():
        if name not in CRITERIA:
            raise ValueError(f"unknown criterion {name!r} (one of {', '.join(CRITERIA)})")
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise ValueError(f"{name}: a criterion score is a whole number from 1 to 5")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Judgement(_Strict):
    call: str = Field(min_length=1, max_length=2000)
    scores: dict[str, int] = Field(min_length=1)
    published: int | None = Field(None, ge=0, le=100)

    @field_validator("scores")
    @classmethod
    def _scores(cls, value: dict[str, int]) -> dict[str, int]:
        return _criteria(value)


class Assessment(_Strict):
    agent: str = Field(min_length=1, max_length=200)
    suite: str = Field(min_length=1, max_length=200)
    tier: Literal["verified", "community"] | None = None
    run: str | None = Field(None, min_length=1, max_length=100)
    runs: list[str] | None = Field(None, min_length=1, max_length=100)
    scores: dict[str, int] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)
    published: int | None = Field(None, ge=0, le=100)
    judgement: list[Judgement] = Field(default_factory=list)

    @field_validator("scores")
    @classmethod
    def _scores(cls, value: dict[str, int]) -> dict[str, int]:
        return _criteria(value)

    @model_validator(mode="after")
    def _one_run_key(self) -> Assessment:
        if self.run is not None and self.runs is not None:
            raise ValueError("run: give run or runs, not both")
        return self

    @property
    def named_runs(self) -> list[str] | None:
        return [self.run] if self.run is not None else self.runs


class Method(_Strict):
    weights: dict[str, int] = Field(default_factory=lambda: dict(WEIGHTS))

    @model_validator(mode="after")
    def _sum(self) -> Method:
        unknown = set(self.weights) - set(CRITERIA)
        if unknown:
            raise ValueError(f"weights: unknown criterion {sorted(unknown)[0]!r}")
        # A criterion left out would silently weigh 0 and its score be ignored: name each one
        # (0 leaves one out on purpose).
        missing = [c for c in CRITERIA if c not in self.weights]
        if missing:
            raise ValueError(
                f"weights: no weight for {missing[0]!r} (give all of {', '.join(CRITERIA)}; 0 leaves one out)"
            )
        if any(w < 0 for w in self.weights.values()) or sum(self.weights.values()) != 100:
            raise ValueError("weights: must be non-negative and sum to 100")
        return self


class AssessmentFile(_Strict):
    method: Method = Field(default_factory=Method)
    assessment: list[Assessment] = Field(min_length=1)


def read_assessments(path: str | Path) -> AssessmentFile:
    """Parse and validate an assessments TOML file; any problem is one AssessmentFileError line."""
    path = Path(path)
    data = read_toml(path, AssessmentFileError)
    try:
        parsed = AssessmentFile.model_validate(data)
    except ValidationError as e:
        first = e.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = {"extra_forbidden": "unknown key", "missing": "required"}.get(first["type"], first["msg"])
        raise AssessmentFileError(f"{path}: {where}: {message.removeprefix('Value error, ')}") from None
    keys = [(a.agent, a.suite) for a in parsed.assessment]
    if len(set(keys)) != len(keys):
        raise AssessmentFileError(f"{path}: an agent is assessed twice for the same suite")
    return parsed


def is_pass(attempt: Scored) -> bool:
    return bool(attempt.result.solved) and "timed-out" not in attempt.flags


def reliability_of(passes: int, attempts: int) -> int | None:
    """One task's reliability from its passes (see the module's docstring)."""
    if attempts == 0:
        return None
    if passes == attempts:
        return 5
    if passes == 0:
        return 1
    if passes == attempts - 1:
        return 3
    return 2


def decimal(value: float | Fraction) -> Fraction:
    """A figure as its writer meant it: 0.09 is 9/100, not the binary float nearest to it.

    Time limits and wall times arrive as decimal text, so a median exactly on a threshold (0.3 s of a
    0.9 s limit) must compare as on it, whichever way the numbers were written.
    """
    return value if isinstance(value, Fraction) else Fraction(repr(float(value)))


def speed_of(median_wall: float | Fraction | None, limit: float | None) -> int | None:
    """One task's speed from its median wall time and time limit (see the module's docstring)."""
    if median_wall is None or not limit:
        return None
    share = decimal(median_wall) / decimal(limit)
    for bound, score in ((Fraction(1, 3), 5), (Fraction(1, 2), 4), (Fraction(2, 3), 3)):
        if share < bound:
            return score
    return 2 if share <= 1 else 1


def derive(rows: Iterable[Mapping[str, Any] | Scored]) -> dict[str, Any]:
    """Quality, reliability and speed from one agent's counted attempts, with per-task detail."""
    by_task: dict[str, list[Scored]] = {}
    for attempt in scored(rows):
        if attempt.result.counted:
            by_task.setdefault(attempt.row["task_id"], []).append(attempt)
    tasks: list[dict[str, Any]] = []
    for task_id, attempts in sorted(by_task.items()):
        qualities = [a.row["quality"] for a in attempts if a.row.get("quality") is not None]
        passes = sum(1 for a in attempts if is_pass(a))
        walls = sorted(decimal(a.row["wall_seconds"]) for a in attempts if a.row.get("wall_seconds") is not None)
        limits = [a.row["limit_seconds"] for a in attempts if a.row.get("limit_seconds")]
        median_wall = statistics.median(walls) if walls else None
        limit = max(limits) if limits else None
        tasks.append(
            {
                "task_id": task_id,
                "attempts": len(attempts),
                "passes": passes,
                "quality_by_run": qualities,
                "quality": round_half_up(Fraction(sum(qualities), len(qualities))) if qualities else None,
                "reliability": reliability_of(passes, len(attempts)),
                "median_wall_seconds": None if median_wall is None else float(median_wall),
                "limit_seconds": limit,
                "speed": speed_of(median_wall, limit),
            }
        )
    out: dict[str, Any] = {"tasks": tasks}
    for criterion in DERIVED:
        values: list[int] = [t[criterion] for t in tasks if t[criterion] is not None]
        out[criterion] = round_half_up(Fraction(sum(values), len(values))) if values else None
    return out


def weighted_sum(criteria: Mapping[str, int | None], weights: Mapping[str, int]) -> Fraction | None:
    """Σ score × weight / 5, exactly; None when a weighted criterion has no score."""
    known = {name: criteria.get(name) for name, weight in weights.items() if weight}
    if any(score is None for score in known.values()):
        return None
    return Fraction(sum((score or 0) * weights[name] for name, score in known.items()), 5)


def fitscore(criteria: Mapping[str, int | None], weights: Mapping[str, int]) -> int | None:
    """round half up (Σ score × weight / 5); None when a weighted criterion has no score."""
    total = weighted_sum(criteria, weights)
    return None if total is None else round_half_up(total)


def assess(
    assessment: Assessment,
    weights: Mapping[str, int],
    rows: Iterable[Mapping[str, Any] | Scored],
    *,
    tier: str | None = None,
    runs: Sequence[str] = (),
) -> dict[str, Any]:
    """One assessment's criteria, FitScore, reconciliation and judgement calls.

    ``rows`` are the attempts it is computed from (one tier's, in the chosen runs: see
    :func:`select`); ``tier`` and ``runs`` are recorded with the result.
    """
    attempts = scored(rows)
    has_runs = any(a.result.counted for a in attempts)
    derived = derive(attempts)
    criteria: dict[str, int | None] = dict.fromkeys(CRITERIA)
    for name in DERIVED:
        criteria[name] = derived[name]
    criteria.update(assessment.scores)
    value = fitscore(criteria, weights) if has_runs else None
    total = weighted_sum(criteria, weights) if has_runs else None
    judgements = []
    for call in assessment.judgement:
        figure = fitscore({**criteria, **call.scores}, weights) if has_runs else None
        judgements.append(
            {
                "call": call.call,
                "scores": dict(call.scores),
                "fitscore": figure,
                "published": call.published,
                "matches_published": None if call.published is None else call.published == figure,
            }
        )
    counted = [a.row for a in attempts if a.result.counted]
    return {
        "agent": assessment.agent,
        "suite": assessment.suite,
        "tier": tier,
        "runs": list(runs),
        "runs_named": assessment.named_runs is not None,
        "versions": [
            {"agent_version": v, "model": m} for v, m in sorted({(r["agent_version"], r["model"]) for r in counted})
        ],
        # Settings variants are different entries everywhere else (design.md); an assessment names an
        # agent, so when its runs hold more than one variant the FitScore pools them: said, not hidden.
        "settings_variants": [json.loads(v) for v in sorted({settings_of(r) for r in counted})],
        "median_wall_seconds": _median([r.get("wall_seconds") for r in counted]),
        "weighted_sum": None if total is None else float(total),
        "has_runs": has_runs,
        "criteria": criteria,
        "derived": derived,
        "weights": dict(weights),
        "notes": dict(assessment.notes),
        "fitscore": value,
        "published": assessment.published,
        "matches_published": None if assessment.published is None else assessment.published == value,
        "judgements": judgements,
    }


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(statistics.median(known)) if known else None


def select(
    assessment: Assessment, attempts: Sequence[Scored], run_dates: Mapping[tuple[str, str, str], str]
) -> tuple[str, list[str], list[Scored]]:
    """The tier, the runs and the agent's attempts an assessment is computed from.

    ``attempts`` are the suite's attempts (every agent, every tier): the default run is the latest
    by date (the run name breaks ties) of the runs in the tier that this agent took part in. Not
    the suite's latest whoever ran in it: seed 004 publishes round 2's tools beside round 3's, and a
    round that other tools ran later must not take an agent's FitScore away.
    """
    from leaderboard.attempt import agent_key

    def run_of(row: Mapping[str, Any]) -> str:
        return row.get("run") or str(row["date"])[:10]

    mine = [a for a in attempts if agent_key(a.row["agent"]) == agent_key(assessment.agent)]
    tier = assessment.tier or ("verified" if any(a.row["tier"] == "verified" for a in mine) else "community")
    runs = assessment.named_runs
    if runs is None:
        in_tier = {run_of(a.row) for a in mine if a.row["tier"] == tier}
        latest = max(in_tier, key=lambda r: run_order(r, run_dates.get((assessment.suite, r, tier))), default=None)
        runs = [] if latest is None else [latest]
    chosen = [a for a in mine if a.row["tier"] == tier and run_of(a.row) in runs]
    return tier, list(runs), chosen


def rank_fitscores(results: list[dict[str, Any]]) -> None:
    """rank within each suite and tier: FitScore, then the unrounded sum, then agent name (no FitScore:
    no rank). A FitScore is a score on one pack of tasks (seed 004), so two suites are two rankings."""
    for suite, tier in {(r["suite"], r["tier"]) for r in results}:
        ranked = sorted(
            (r for r in results if (r["suite"], r["tier"]) == (suite, tier) and r["fitscore"] is not None),
            key=lambda r: (-r["fitscore"], -r["weighted_sum"], r["agent"].lower()),
        )
        for position, result in enumerate(ranked, 1):
            result["rank"] = position
    for result in results:
        result.setdefault("rank", None)
