"""One task-benchmark attempt, validated at the edge.

The model is strict: unknown keys are refused and a wrong type is an error, never coerced (``"3"``
is not a number, ``1`` is not ``true``). A measurement that was not taken is ``null`` or absent,
never 0. The JSON Schema shipped next to this module (``attempt.schema.json``) is generated from
the model: ``python -m leaderboard.attempt`` rewrites it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from datetime import UTC, datetime
from functools import cached_property
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from crawler.items import check_instant
from db.runs import iso

Tier = Literal["verified", "community"]
Flag = Literal["modified-tests", "added-dependency", "reward-hacking", "infra-error", "agent-error", "timed-out"]
CostSource = Literal["provider-dashboard", "provider-invoice", "api-list-price", "self-reported"]
# Each cost source in the words every page shows it with (the benchmark pages' costs and the ledger's
# canned queries, through datasette_plugins/ledger_words.py); the ledger, its JSON and CSV keep the names.
COST_SOURCE_LABELS: dict[str, str] = {
    "api-list-price": "list price",
    "provider-invoice": "provider invoice",
    "self-reported": "self-reported",
    "provider-dashboard": "dashboard",
}
PermissionMode = Literal["ask", "auto-edit", "full-auto"]
NetworkAccess = Literal["none", "allow-list", "full"]

TIERS: tuple[str, ...] = ("verified", "community")
DISQUALIFYING = frozenset({"modified-tests", "added-dependency", "reward-hacking"})
INFRA_ERROR = "infra-error"
AGENT_ERROR = "agent-error"
MAX_INT = 2**63 - 1
SCHEMA_FILE = "attempt.schema.json"
DEFAULT_SUITE = "agentrank"

# GitHub's rules: owner up to 39 alphanumerics or hyphens, repo name of alphanumerics, '.', '-', '_'.
_REPO = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
_URL = r"^https?://\S+$"


def agent_key(name: str) -> str:
    """How agents are told apart: GitHub names ignore case, a closed agent's name is taken as written."""
    return name.lower() if "/" in name else name


def _when(condition: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    return {"if": condition, "then": then}


# The rules across fields that _consistent checks, stated in the JSON Schema too.
_RULES = (
    _when(
        {
            "not": {
                "required": ["flags"],
                "properties": {"flags": {"type": "array", "contains": {"enum": ["infra-error", "agent-error"]}}},
            }
        },
        {
            "required": ["tests_passed", "tests_total"],
            "properties": {"tests_passed": {"type": "integer"}, "tests_total": {"type": "integer"}},
        },
    ),
    _when(
        {"required": ["cost_usd"], "properties": {"cost_usd": {"type": "number"}}},
        {"required": ["cost_source"], "properties": {"cost_source": {"type": "string"}}},
    ),
    _when(
        {"required": ["cost_source"], "properties": {"cost_source": {"type": "string"}}},
        {"required": ["cost_usd"], "properties": {"cost_usd": {"type": "number"}}},
    ),
    _when(
        {"properties": {"tier": {"const": "community"}}},
        {"properties": {"cost_source": {"enum": ["self-reported", None]}}},
    ),
    _when(
        {"properties": {"tier": {"const": "verified"}}},
        {"required": ["log_url"], "properties": {"log_url": {"type": "string"}}},
    ),
)


def _scalar(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        # JSON does not tell 1.0 from 1: one setting, one variant (and one attempt on re-import)
        return int(value)
    if isinstance(value, str | int) or (isinstance(value, float) and math.isfinite(value)):
        return value  # bool is an int
    raise ValueError("a setting must be a string, a number or a boolean")


Scalar = Annotated[Any, PlainValidator(_scalar), WithJsonSchema({"type": ["string", "number", "boolean"]})]
# Plausible ranges: anything past these is a broken measurement, refused at the edge, so the
# figures (sums and means over every attempt) always stay finite.
MAX_COUNT = 10**12  # a trillion tokens, tests or interventions
MAX_WALL_SECONDS = 30 * 24 * 3600.0  # thirty days
MAX_COST_USD = 100_000.0
MAX_SETTINGS = 50
MAX_SETTING_TEXT = 1_000
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]


class Tokens(BaseModel):
    """Token counts as the provider reported them; a count that is not known is null."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    input: Count | None = Field(None, description="prompt tokens, cached ones included")
    cached: Count | None = Field(None, description="prompt tokens served from the provider's cache")
    output: Count | None = Field(None, description="completion tokens, reasoning included")
    reasoning: Count | None = Field(None, description="reasoning tokens, when the provider reports them")
    cache_write: Count | None = Field(None, description="prompt tokens written to the provider's cache (part of input)")

    @model_validator(mode="after")
    def _parts_within_totals(self) -> Tokens:
        # input counts cached reads and cache writes, output counts reasoning: a part larger than
        # its total is a broken record, and its list-price cost would be negative.
        if self.input is not None:
            parts = (self.cached or 0) + (self.cache_write or 0)
            if parts > self.input:
                raise ValueError(
                    f"cached + cache_write ({parts}) is more than input ({self.input}), which includes both"
                )
        if self.output is not None and self.reasoning is not None and self.reasoning > self.output:
            raise ValueError(f"reasoning ({self.reasoning}) is more than output ({self.output}), which includes it")
        return self


class Attempt(BaseModel):
    """One attempt of one agent at one benchmark task, with its hidden-test result."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        allow_inf_nan=False,
        title="AgentRank task-benchmark attempt",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema", "allOf": list(_RULES)},
    )

    agent: str = Field(
        min_length=1,
        max_length=200,
        description="the directory repo the agent belongs to as 'owner/repo', or the name of a closed agent "
        "(a name without '/')",
    )
    agent_version: str = Field(min_length=1, max_length=100, description="the agent's release or commit")
    model: str = Field(min_length=1, max_length=200, description="the model the agent ran on, as its provider names it")
    settings: dict[str, Scalar] = Field(
        default_factory=dict, description="the agent's other settings (reasoning effort, turn limit, ...)"
    )
    task_id: str = Field(min_length=1, max_length=200, description="the benchmark task")
    attempt: int = Field(ge=1, le=MAX_COUNT, description="1 for the first attempt of this task by this entry, 2, ...")
    date: AwareDatetime = Field(description="when the attempt started (RFC 3339 with a UTC offset)")
    tier: Tier = Field(
        description="'verified': run by the site with a published log; 'community': submitted, score re-checked, "
        "identity, time and cost self-reported"
    )
    tests_passed: Count | None = Field(
        None, description="hidden tests passed; null only with the infra-error or agent-error flag"
    )
    tests_total: int | None = Field(
        None, ge=1, le=MAX_COUNT, description="hidden tests run; null only with the infra-error or agent-error flag"
    )
    wall_seconds: float | None = Field(
        None, ge=0, le=MAX_WALL_SECONDS, description="wall-clock seconds (at most 30 days); null when not measured"
    )
    cost_usd: float | None = Field(
        None, ge=0, le=MAX_COST_USD, description="cost in US dollars (at most 100,000); null when not measured"
    )
    cost_source: CostSource | None = Field(None, description="where cost_usd comes from; null exactly when it is null")
    tokens: Tokens | None = Field(None, description="token counts; null when none are known")
    human_interventions: Count | None = Field(
        None, description="times a human stepped in during the attempt; null when not recorded"
    )
    permission_mode: PermissionMode | None = Field(
        None,
        description="'ask': a human approves actions; 'auto-edit': edits run unasked, commands ask; "
        "'full-auto': nothing asks",
    )
    network_access: NetworkAccess | None = Field(None, description="the network the agent could reach")
    flags: list[Flag] = Field(
        default_factory=list,
        json_schema_extra={"uniqueItems": True},
        description="modified-tests, added-dependency and reward-hacking disqualify (score 0); infra-error "
        "(our set-up or the provider broke) takes the attempt out of the figures; agent-error (the agent itself "
        "failed to run properly) is a fail; timed-out is shown and scored as tested",
    )
    log_url: str | None = Field(
        None, max_length=2000, pattern=_URL, description="the attempt's log (required for verified)"
    )
    diff_url: str | None = Field(None, max_length=2000, pattern=_URL, description="the agent's diff")
    suite: Annotated[
        str,
        WithJsonSchema(
            {
                "anyOf": [{"type": "string", "minLength": 1, "maxLength": 200}, {"type": "null"}],
                "default": DEFAULT_SUITE,
                "description": f"the benchmark the task belongs to (null or absent: {DEFAULT_SUITE!r})",
                "title": "Suite",
            }
        ),
    ] = Field(DEFAULT_SUITE, min_length=1, max_length=200)
    run: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="the dated benchmark run the attempt belongs to (default: the attempt's date, YYYY-MM-DD)",
    )
    quality: int | None = Field(
        None,
        ge=1,
        le=5,
        description="the FitScore rubric: 5 pass with no unrelated change, 4 pass with one harmless unrelated "
        "change, 2 partially met, 1 fail",
    )
    unrelated_changes: Count | None = Field(None, description="files or behaviours changed outside the task's scope")
    regression_passed: Count | None = Field(None, description="existing tests passed after the change")
    regression_total: Count | None = Field(None, description="existing tests run after the change")
    repo_commit: str | None = Field(None, min_length=1, max_length=100, description="the starting commit")
    limit_seconds: float | None = Field(None, gt=0, description="the task's time limit in seconds")
    cost_lower_bound: bool | None = Field(
        None, description="true when the run stopped before the agent reported its final usage"
    )
    agent_seconds: float | None = Field(
        None,
        ge=0,
        le=MAX_WALL_SECONDS,
        description="the part of the wall time the agent itself spent, where the harness reports it",
    )
    error_detail: str | None = Field(
        None,
        min_length=1,
        max_length=500,
        description="what went wrong, for an attempt flagged infra-error or agent-error (shown with the count)",
    )

    @field_validator("suite", mode="before")
    @classmethod
    def _default_suite(cls, value: Any) -> Any:
        # Every added field is optional with null for "not given" (design.md); a suite not given is the default one.
        return DEFAULT_SUITE if value is None else value

    @field_validator("agent")
    @classmethod
    def _agent(cls, value: str) -> str:
        if "/" in value and not _REPO.match(value):
            raise ValueError("an agent with '/' must be a GitHub repository 'owner/repo'")
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("date")
    @classmethod
    def _date_in_range(cls, value: datetime) -> datetime:
        try:
            check_instant(value.astimezone(UTC))
            return value
        except OverflowError:
            raise ValueError("outside the dates the ledger can represent") from None

    @field_validator("settings")
    @classmethod
    def _bounded_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        if len(value) > MAX_SETTINGS:
            raise ValueError(f"at most {MAX_SETTINGS} settings")
        for key, setting in value.items():
            if len(key) > 100 or (isinstance(setting, str) and len(setting) > MAX_SETTING_TEXT):
                raise ValueError(f"a setting name is at most 100 characters and a value {MAX_SETTING_TEXT}")
        return value

    @field_validator("flags")
    @classmethod
    def _unique_flags(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("a flag is listed twice")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Attempt:
        infra = INFRA_ERROR in self.flags
        if (self.tests_passed is None) != (self.tests_total is None):
            field = "tests_passed" if self.tests_passed is None else "tests_total"
            raise ValueError(f"{field}: required when the other hidden-test count is given")
        if self.tests_total is None and not infra and AGENT_ERROR not in self.flags:
            raise ValueError("tests_passed: required (null only for an attempt flagged infra-error or agent-error)")
        if self.tests_passed is not None and self.tests_total is not None and self.tests_passed > self.tests_total:
            raise ValueError(f"tests_passed: {self.tests_passed} is more than tests_total {self.tests_total}")
        if (self.cost_usd is None) != (self.cost_source is None):
            field = "cost_source" if self.cost_source is None else "cost_usd"
            raise ValueError(f"{field}: cost_usd and cost_source go together (both null when cost was not measured)")
        if self.tier == "community" and self.cost_source not in (None, "self-reported"):
            raise ValueError("cost_source: a community attempt's cost is 'self-reported'")
        if self.tier == "verified" and self.log_url is None:
            raise ValueError("log_url: a verified attempt has a published log")
        if self.agent_seconds is not None and self.wall_seconds is not None and self.agent_seconds > self.wall_seconds:
            raise ValueError(
                f"agent_seconds: {self.agent_seconds:g} is more than wall_seconds {self.wall_seconds:g}"
                " (the agent's own time is part of the wall time)"
            )
        if (self.regression_passed is None) != (self.regression_total is None):
            raise ValueError("regression_passed: regression_passed and regression_total go together")
        regression = (self.regression_passed, self.regression_total)
        if regression[0] is not None and regression[1] is not None and regression[0] > regression[1]:
            raise ValueError("regression_passed: more than regression_total")
        return self

    @property
    def run_name(self) -> str:
        """The dated run: as given, or the attempt's UTC date."""
        return self.run if self.run is not None else iso(self.date)[:10]

    @property
    def agent_kind(self) -> str:
        return "repo" if "/" in self.agent else "closed"

    @property
    def key(self) -> tuple[str, str, str, str, str, int]:
        """What makes an attempt the same attempt: re-importing it updates, never duplicates."""
        return (self.tier, agent_key(self.agent), self.agent_version, self.model, self.task_id, self.attempt)

    @cached_property
    def variant(self) -> tuple[str, str, str]:
        """Suite, run and settings: part of the identity (design.md: two dated runs are two attempts)."""
        return (self.suite, self.run_name, json.dumps(self.settings, sort_keys=True, ensure_ascii=False))

    @cached_property
    def attempt_id(self) -> str:
        # Always the whole identity: the same task and attempt number on another day is another run's
        # attempt (the run defaults to the date), never an update of last week's. Migration
        # m027_attempt_ids_carry_suite_run_settings rewrote the ids stored before under this formula.
        identity: tuple[Any, ...] = (*self.key, *self.variant)
        return hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]

    def row(self) -> dict[str, Any]:
        """The ``benchmark_attempts`` columns this attempt sets (scores are added by the figures)."""
        tokens = self.tokens or Tokens()
        return {
            "attempt_id": self.attempt_id,
            "tier": self.tier,
            "agent": self.agent,
            "agent_kind": self.agent_kind,
            "agent_version": self.agent_version,
            "model": self.model,
            "settings": json.dumps(self.settings, sort_keys=True, ensure_ascii=False),
            "task_id": self.task_id,
            "attempt": self.attempt,
            "date": iso(self.date),
            "tests_passed": self.tests_passed,
            "tests_total": self.tests_total,
            "wall_seconds": self.wall_seconds,
            "cost_usd": self.cost_usd,
            "cost_source": self.cost_source,
            "tokens_input": tokens.input,
            "tokens_cached": tokens.cached,
            "tokens_output": tokens.output,
            "tokens_reasoning": tokens.reasoning,
            "tokens_cache_write": tokens.cache_write,
            "human_interventions": self.human_interventions,
            "permission_mode": self.permission_mode,
            "network_access": self.network_access,
            "flags": json.dumps(sorted(self.flags)),
            "log_url": self.log_url,
            "diff_url": self.diff_url,
            "suite": self.suite,
            "run": self.run_name,
            "quality": self.quality,
            "unrelated_changes": self.unrelated_changes,
            "regression_passed": self.regression_passed,
            "regression_total": self.regression_total,
            "repo_commit": self.repo_commit,
            "limit_seconds": self.limit_seconds,
            "cost_lower_bound": None if self.cost_lower_bound is None else int(self.cost_lower_bound),
            "agent_seconds": self.agent_seconds,
            "error_detail": self.error_detail,
        }


SCHEMA_ID = "https://agentrank.dev/schemas/attempt-v1.schema.json"
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "deprecated", "$comment"})


def _without_union_types(node: Any) -> Any:
    """``"type": [A, B]`` as ``anyOf`` (ajv's strict mode refuses a union type), recursively."""
    if isinstance(node, list):
        return [_without_union_types(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _without_union_types(value) for key, value in node.items()}
    kinds = node.get("type")
    if isinstance(kinds, list):
        rest = {k: v for k, v in node.items() if k not in _ANNOTATIONS and k != "type"}
        outer = {k: v for k, v in node.items() if k in _ANNOTATIONS}
        return {**outer, "anyOf": [{"type": kind, **({} if kind == "null" else rest)} for kind in kinds]}
    return node


def attempt_json_schema() -> dict[str, Any]:
    """The JSON Schema of one attempt, as generated from the model (strict: no union types)."""
    schema: dict[str, Any] = {"$id": SCHEMA_ID, **_without_union_types(Attempt.model_json_schema())}
    schema["description"] = (
        "One attempt of one agent at one benchmark task. A file for `agentrank import-attempts` holds one "
        "attempt, a JSON list of them, or JSON Lines. Rules across fields (test counts, cost source, "
        "the verified tier's log) are checked on import and stated in the field descriptions."
    )
    return schema


def render_schema() -> str:
    return json.dumps(attempt_json_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_schema() -> dict[str, Any]:
    return json.loads(files("leaderboard").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


if __name__ == "__main__":
    target = Path(__file__).with_name(SCHEMA_FILE)
    target.write_text(render_schema(), encoding="utf-8")
    sys.stdout.write(f"wrote {target}\n")
