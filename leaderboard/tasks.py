"""Task records (seed 000 §2): a task counts only once the harness proved that it discriminates.

``agentrank import-tasks FILE`` reads one task object, a JSON list or JSON Lines. A task counts
when its untouched code fails (``baseline_passed < hidden_tests``) and the reference fix passes
every hidden test (``reference_passed == hidden_tests``). Attempts at any other task of a suite
that has task records are kept and shown apart with the reason; a suite without task records
counts every attempt, as before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from crawler.items import check_instant
from db.runs import iso
from leaderboard.attempt import _URL, MAX_INT

Count = Field(ge=0, le=MAX_INT)


class TestResult(BaseModel):
    """One hidden test under the validation: did it pass on the untouched code and on the reference fix."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    test: str = Field(min_length=1, max_length=500)
    baseline: bool
    reference: bool


class TaskRecord(BaseModel):
    """One benchmark task with the harness's validation of it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, title="AgentRank benchmark task")

    suite: str = Field(min_length=1, max_length=200)
    task_id: str = Field(min_length=1, max_length=200)
    title: str = Field(min_length=1, max_length=500)
    brief_url: str | None = Field(None, max_length=2000, pattern=_URL)
    visible_tests: int | None = Field(None, ge=0, le=MAX_INT)
    hidden_tests: int = Field(ge=1, le=MAX_INT)
    baseline_passed: int | None = Field(None, ge=0, le=MAX_INT)
    reference_passed: int | None = Field(None, ge=0, le=MAX_INT)
    validated_at: AwareDatetime | None = None
    per_test: list[TestResult] = Field(default_factory=list)

    @field_validator("validated_at")
    @classmethod
    def _validated_in_range(cls, value: datetime | None) -> datetime | None:
        # Between 2000 and a day from now, as every other date: 9999-12-31T23:59:59-01:00 is past
        # what a date can hold once in UTC, and a validation cannot have happened in the future.
        if value is None:
            return None
        try:
            check_instant(value.astimezone(UTC))
        except OverflowError:
            raise ValueError("outside the dates the ledger can represent") from None
        return value

    @model_validator(mode="after")
    def _within(self) -> TaskRecord:
        for name in ("baseline_passed", "reference_passed"):
            value = getattr(self, name)
            if value is not None and value > self.hidden_tests:
                raise ValueError(f"{name}: {value} is more than hidden_tests {self.hidden_tests}")
        return self

    @property
    def key(self) -> tuple[str, str]:
        return (self.suite, self.task_id)

    def status(self) -> tuple[bool, str | None]:
        """Whether the task counts, and why not."""
        return task_counts(self.hidden_tests, self.baseline_passed, self.reference_passed)

    def row(self) -> dict[str, Any]:
        counts, reason = self.status()
        return {
            "suite": self.suite,
            "task_id": self.task_id,
            "title": self.title,
            "brief_url": self.brief_url,
            "visible_tests": self.visible_tests,
            "hidden_tests": self.hidden_tests,
            "baseline_passed": self.baseline_passed,
            "reference_passed": self.reference_passed,
            "validated_at": None if self.validated_at is None else iso(self.validated_at),
            "per_test": json.dumps([t.model_dump() for t in self.per_test], ensure_ascii=False),
            "counts": int(counts),
            "reason": reason,
        }


def task_counts(hidden: int, baseline: int | None, reference: int | None) -> tuple[bool, str | None]:
    if baseline is None or reference is None:
        return False, "not validated: the harness has not run the untouched code and the reference fix"
    if baseline >= hidden:
        return False, f"failed validation: the untouched code passes {baseline} of {hidden} hidden tests"
    if reference < hidden:
        return False, f"failed validation: the reference fix passes only {reference} of {hidden} hidden tests"
    return True, None


def task_status(
    row: Mapping[str, Any], records: Mapping[tuple[str, str], Mapping[str, Any]], suites: set[str]
) -> str | None:
    """Why an attempt's task does not count (None when it counts)."""
    suite = row.get("suite") or "agentrank"
    if suite not in suites:
        return None
    record = records.get((suite, row["task_id"]))
    if record is None:
        return f"no task record: {row['task_id']} is not among suite {suite}'s tasks"
    return None if record["counts"] else record["reason"]
