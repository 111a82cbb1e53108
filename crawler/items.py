"""One GitHub ``/search/repositories`` item, validated at the edge.

The crawler and ``agentrank import`` both turn raw items into repo records here, so saved data
and live data go through exactly the same rules. GitHub adds fields over time, so unknown keys
are ignored (and never reach the schema); a wrong type is a rejected item, never a coerced one.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError, field_validator

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Lenient on purpose: any "owner/name" without whitespace, control characters or a second slash.
_FULL_NAME = re.compile(r"^[^/\s]{1,100}/[^/\s]{1,200}$")
MAX_INT = 2**63 - 1
# The span of time the score and SQL can represent: GitHub was founded in 2008, so an earlier
# date is a broken value; a date more than a day ahead of the clock is one too.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=1)
# The longest text kept per field, in characters (GitHub's own limits as the guide: names 100,
# topics 20 of 50 characters, descriptions 350 in its web form). Longer text is cut at the limit
# and ends with an ellipsis; a longer URL is dropped (a cut URL would point somewhere else). With
# these, the longest repos row is some 40 kB, far under the server's longest value (100 kB at least).
TEXT_LIMITS = {
    "description": 1_000,
    "name": 100,
    "language": 100,
    "node_id": 100,
    "default_branch": 255,
    "owner_login": 100,
    "owner_type": 50,
    "license_key": 100,
    "license_name": 200,
    "license_spdx": 100,
}
URL_LIMIT = 2_000
MAX_TOPICS = 20
MAX_TOPIC_LENGTH = 50
# Why a topic was dropped from an item that is kept (``DROPPED_TOPICS``).
TOPIC_NOT_TEXT = "not text"
TOPIC_TOO_LONG = f"longer than GitHub's {MAX_TOPIC_LENGTH} characters"
TOPIC_PAST_LIMIT = f"past GitHub's {MAX_TOPICS} per repo"
# Deeper JSON than this is not a search item; refused before it reaches recursive code.
MAX_NESTING = 16


def is_full_name(value: str) -> bool:
    """Is ``value`` a repository's name as an item may carry it: ``owner/name``, one slash, no spaces
    or control characters (GitHub's own names are narrower; saved results are taken as they are)."""
    return bool(_FULL_NAME.match(value)) and not _CONTROL.search(value)


class ItemRejected(ValueError):
    """An item failed validation; ``reason`` is one line saying which field and why."""

    def __init__(self, reason: str, repo_id: int | None = None, full_name: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.repo_id = repo_id
        self.full_name = full_name


def clean_text(value: Any) -> Any:
    """Replace lone UTF-16 surrogates (which SQLite's UTF-8 encoder refuses) with U+FFFD.

    Everything else, HTML and control characters included, is kept as it came.
    """
    if isinstance(value, str):
        return value if value.isascii() else _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [clean_text(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): clean_text(v) for k, v in value.items()}
    return value


def format_timestamp(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_timestamp(value: str) -> datetime:
    """ISO 8601 as GitHub writes it; a timestamp without a zone is taken as UTC."""
    parsed = datetime.fromisoformat(value.strip())
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def check_instant(value: datetime, now: datetime | None = None) -> datetime:
    """``value`` if it lies between 2000-01-01 and a day after ``now``, else a ValueError saying so."""
    latest = (now or datetime.now(UTC)) + FUTURE_SLACK
    if value < EARLIEST or value > latest:
        raise ValueError(f"{value.isoformat()} is outside {EARLIEST:%Y-%m-%d} .. {latest:%Y-%m-%d}")
    return value


def parse_instant(value: str) -> datetime:
    """An ISO 8601 timestamp inside the representable span; ValueError otherwise (one line)."""
    try:
        parsed = parse_timestamp(value)
    except (ValueError, OverflowError):
        raise ValueError("not a valid ISO 8601 timestamp") from None
    return check_instant(parsed)


def _timestamp(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("expected an ISO 8601 timestamp string")
    return format_timestamp(parse_instant(value))


def nesting_depth(value: Any, limit: int = MAX_NESTING) -> int:
    """How deeply lists and objects nest in ``value``, counted without recursion, up to ``limit + 1``."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, (list, dict)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = current.values() if isinstance(current, dict) else current
            stack.extend((v, depth + 1) for v in children if isinstance(v, (list, dict)))
    return deepest


def duplicate_key(value: Any, limit: int = MAX_NESTING) -> str | None:
    """A key some object in ``value`` held twice, as the file reader marks it (``duplicate_key``), or None."""
    if not isinstance(value, (list, dict)):
        return None
    # Only objects and lists are stacked: an item's 80-odd values are mostly strings, and walking
    # each of them was a third of the time a crawl spent checking its items.
    stack: list[tuple[list[Any] | dict[str, Any], int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            twice = getattr(current, "duplicate_key", None)
            if twice is not None:
                return str(twice)
        if depth <= limit:
            children = current.values() if isinstance(current, dict) else current
            stack.extend((v, depth + 1) for v in children if isinstance(v, (list, dict)))
    return None


def _cut(value: str | None, limit: int) -> str | None:
    if value is None or len(value) <= limit:
        return value
    return value[: limit - 1] + "\u2026"


def _url(value: str | None) -> str | None:
    return value if value is None or len(value) <= URL_LIMIT else None


def _repo_url(given: str | None, full_name: str) -> str:
    """The repo's page on GitHub. A saved item's ``html_url`` is everyone's link to the repo on every
    page and in the export, so one that points anywhere but the repo's own page (a file edited to
    send visitors to another site) is replaced by the page its name gives."""
    canonical = f"https://github.com/{full_name}"
    return given if given is not None and given.lower() == canonical.lower() else canonical


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words ("null", "a number", …), for a message about a file."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Number):  # int, float, or the Decimal a streaming parser gives
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def json_int(value: Any) -> int | None:
    """``value`` if it is an integer SQLite can store, else None (for naming a rejected item)."""
    if isinstance(value, int) and not isinstance(value, bool) and -MAX_INT - 1 <= value <= MAX_INT:
        return value
    return None


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Owner(_Model):
    login: StrictStr | None = None
    id: StrictInt | None = Field(default=None, ge=0, le=MAX_INT)
    type: StrictStr | None = None
    avatar_url: StrictStr | None = None


class License(_Model):
    key: StrictStr | None = None
    name: StrictStr | None = None
    spdx_id: StrictStr | None = None

    @field_validator("spdx_id")
    @classmethod
    def _spdx_id(cls, value: str | None) -> str | None:
        # An SPDX id never holds a space: " MIT " in a saved file is MIT, and "" is no licence (null
        # in the export, as GitHub sends it), not an id nobody can look up.
        return (value.strip() or None) if value is not None else None


class SearchItem(_Model):
    id: StrictInt = Field(gt=0, le=MAX_INT)
    node_id: StrictStr | None = None
    name: StrictStr | None = None
    full_name: StrictStr
    owner: Owner | None = None
    html_url: StrictStr | None = None
    description: StrictStr | None = None
    homepage: StrictStr | None = None
    language: StrictStr | None = None
    topics: list[Any] | None = None
    stargazers_count: StrictInt = Field(ge=0, le=MAX_INT)
    forks_count: StrictInt = Field(ge=0, le=MAX_INT)
    open_issues_count: StrictInt | None = Field(None, ge=0, le=MAX_INT)
    size: StrictInt | None = Field(None, ge=0, le=MAX_INT)
    default_branch: StrictStr | None = None
    created_at: str
    pushed_at: str | None = None
    updated_at: Any = None
    # Search omits forks and we ask for archived:false, so an absent flag means "no".
    archived: StrictBool = False
    fork: StrictBool = False
    license: License | None = None

    @field_validator("full_name")
    @classmethod
    def _full_name(cls, value: str) -> str:
        if not is_full_name(value):
            raise ValueError("expected 'owner/name' without spaces or control characters")
        return value

    @field_validator("created_at", "pushed_at", mode="before")
    @classmethod
    def _required_timestamps(cls, value: Any) -> str | None:
        return _timestamp(value)

    @field_validator("created_at")
    @classmethod
    def _created_present(cls, value: str | None) -> str:
        if value is None:
            raise ValueError("created_at is required")
        return value


_FIELDS = frozenset(SearchItem.model_fields)


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "item"
    if first["type"] == "missing":
        return f"{field}: missing"
    shown = repr(first.get("input"))
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{field}: {first['msg']} (got {shown})"


# The record's key that lists the columns whose item key was missing (not a repos column).
MISSING = "missing_columns"
# The record's key that says why each topic dropped from the item was dropped (not a repos column).
DROPPED_TOPICS = "dropped_topics"
# An item's keys that may be missing from a saved file, and the repos columns each sets.
OPTIONAL_KEYS: dict[str, tuple[str, ...]] = {
    "node_id": ("node_id",),
    "description": ("description",),
    "homepage": ("homepage",),
    "language": ("language",),
    "topics": ("topics",),
    "license": ("license_key", "license_name", "license_spdx"),
    "open_issues_count": ("open_issues",),
    "size": ("size_kb",),
    "default_branch": ("default_branch",),
    "pushed_at": ("pushed_at",),
    "updated_at": ("updated_at",),
    # A stored archived repo or fork stays one (and unlisted) when a trimmed save leaves the flag out.
    "archived": ("archived",),
    "fork": ("fork",),
    "owner": ("owner_id", "owner_type", "owner_avatar_url"),
}


def parse_item(raw: Any) -> dict[str, Any]:
    """Validate one raw search item and return the ``repos`` columns it sets.

    Raises :class:`ItemRejected` with a one-line reason.
    """
    if not isinstance(raw, dict):
        raise ItemRejected(f"item: expected a JSON object, got {json_kind(raw)}")
    twice = duplicate_key(raw)
    if twice is not None:
        name = raw.get("full_name")
        raise ItemRejected(
            f"item: the key {twice[:60]!r} twice in one object",
            json_int(raw.get("id")),
            clean_text(name[:400]) if isinstance(name, str) else None,
        )
    if raw.get("private") is True:
        # Search shows a token's own private repos among the public ones: the directory is of open
        # source, and its name must not reach the public rejects table either.
        raise ItemRejected(
            "item: a private repository (the token can see it): neither stored nor listed", json_int(raw.get("id"))
        )
    # Only the fields we read are cleaned: a search item carries some 80 keys, mostly URLs.
    raw = {key: value for key, value in raw.items() if key in _FIELDS}
    repo_id = json_int(raw.get("id"))
    full_name = raw.get("full_name") if isinstance(raw.get("full_name"), str) else None
    if full_name is not None and len(full_name) > 400:
        full_name = full_name[:400]
    if nesting_depth(raw) > MAX_NESTING:
        raise ItemRejected(f"item: nested deeper than {MAX_NESTING} levels", repo_id, full_name)
    raw = clean_text(raw)
    if full_name is not None:
        full_name = clean_text(full_name)
    try:
        item = SearchItem.model_validate(raw)
    except ValidationError as e:
        raise ItemRejected(_describe(e), repo_id, full_name) from None

    owner_login, _, name = item.full_name.partition("/")
    owner = item.owner or Owner()
    licence = item.license
    topics, dropped = _topics(item.topics or [])
    try:
        updated_at = _timestamp(item.updated_at)
    except ValueError:
        updated_at = None  # not a score input: an unreadable value is dropped, not fatal
    record: dict[str, Any] = {
        "id": item.id,
        "node_id": item.node_id,
        "full_name": item.full_name,
        "name": item.name or name,
        "owner_login": owner_login,
        "owner_id": owner.id,
        "owner_type": owner.type,
        "owner_avatar_url": _url(owner.avatar_url),
        "html_url": _repo_url(item.html_url, item.full_name),
        "description": item.description,
        "homepage": _url(item.homepage),
        "language": item.language,
        "topics": json.dumps(topics, ensure_ascii=False),
        "license_key": licence.key if licence else None,
        "license_name": licence.name if licence else None,
        "license_spdx": licence.spdx_id if licence else None,
        "stars": item.stargazers_count,
        "forks": item.forks_count,
        "open_issues": item.open_issues_count,
        "size_kb": item.size,
        "default_branch": item.default_branch,
        "created_at": item.created_at,
        "pushed_at": item.pushed_at,
        "updated_at": updated_at,
        "archived": int(item.archived),
        "fork": int(item.fork),
    }
    for column, limit in TEXT_LIMITS.items():
        record[column] = _cut(record[column], limit)
    # A key the item does not carry at all is not GitHub saying "none" (it sends every one of these,
    # null when empty): a saved file trimmed of it says nothing, so its columns are named here and a
    # repo already stored keeps its values for them (``db.repos.save_repos``); a new repo gets what
    # null would give.
    missing = [column for key, columns in OPTIONAL_KEYS.items() if key not in raw for column in columns]
    if missing:
        record[MISSING] = missing
    if dropped:
        record[DROPPED_TOPICS] = dropped
    return record


def _topics(given: list[Any]) -> tuple[list[str], list[str]]:
    """The topics kept, and why each other one was dropped (the item itself is kept).

    Topics are strings on GitHub; anything else in the list cannot be a topic. GitHub allows 20
    topics of at most 50 characters; a longer one cannot be a topic, and only the first 20 are kept.
    """
    kept: list[str] = []
    dropped: list[str] = []
    for topic in given:
        if not isinstance(topic, str):
            dropped.append(TOPIC_NOT_TEXT)
        elif len(topic) > MAX_TOPIC_LENGTH:
            dropped.append(TOPIC_TOO_LONG)
        elif len(kept) >= MAX_TOPICS:
            dropped.append(TOPIC_PAST_LIMIT)
        else:
            kept.append(topic)
    return kept, dropped


@dataclass
class DroppedTopics:
    """The topics an import or a crawl dropped from items it kept, said once by the command."""

    reasons: dict[str, int] = field(default_factory=dict)  # why → how many topics
    repos: int = 0
    names: list[str] = field(default_factory=list)  # the first few repos they were dropped from
    ids: set[int] = field(default_factory=set, repr=False)  # a repo met twice is counted once

    SHOWN = 5

    def take(self, record: dict[str, Any]) -> None:
        """Count, and remove, what :func:`parse_item` recorded about ``record``'s dropped topics."""
        dropped = record.pop(DROPPED_TOPICS, None)
        if not dropped or record["id"] in self.ids:
            return
        self.ids.add(record["id"])
        for reason in dropped:
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        self.repos += 1
        if len(self.names) < self.SHOWN:
            self.names.append(record["full_name"])

    def __bool__(self) -> bool:
        return self.repos > 0

    def as_dict(self) -> dict[str, Any]:
        return {"reasons": dict(self.reasons), "repos": self.repos, "first_repos": list(self.names)}

    def line(self) -> str:
        """One line: how many topics were dropped and why, from which repos (which are kept)."""
        total = sum(self.reasons.values())
        why = ", ".join(f"{count:,} {reason}" for reason, count in sorted(self.reasons.items()))
        names = ", ".join(self.names) + (", …" if self.repos > len(self.names) else "")
        return (
            f"{total:,} topic{'s' if total != 1 else ''} dropped ({why}) from {self.repos:,} "
            f"repo{'s' if self.repos != 1 else ''}, which {'are' if self.repos != 1 else 'is'} kept: {names}"
        )


def validate_items(raw_items: Iterable[tuple[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Split ``(reference, raw item)`` pairs into repo records and reject rows (with their reasons)."""
    records: list[dict[str, Any]] = []
    rejects: list[dict[str, Any]] = []
    for ref, raw in raw_items:
        try:
            records.append(parse_item(raw))
        except ItemRejected as e:
            rejects.append({"item_ref": ref, "repo_id": e.repo_id, "full_name": e.full_name, "reason": e.reason})
    return records, rejects
