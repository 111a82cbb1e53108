"""One GitHub ``/search/repositories`` item, validated at the edge.

The crawler and ``agentrank import`` both turn raw items into repo records here, so saved data
and live data go through exactly the same rules. GitHub adds fields over time, so unknown keys
are ignored (and never reach the schema); a wrong type is a rejected item, never a coerced one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError, field_validator

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Lenient on purpose: any "owner/name" without whitespace, control characters or a second slash.
_FULL_NAME = re.compile(r"^[^/\s]{1,100}/[^/\s]{1,200}$")
MAX_INT = 2**63 - 1


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


def _timestamp(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("expected an ISO 8601 timestamp string")
    try:
        return format_timestamp(parse_timestamp(value))
    except (ValueError, OverflowError):
        raise ValueError("not a valid ISO 8601 timestamp") from None


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
        if not _FULL_NAME.match(value) or _CONTROL.search(value):
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


def parse_item(raw: Any) -> dict[str, Any]:
    """Validate one raw search item and return the ``repos`` columns it sets.

    Raises :class:`ItemRejected` with a one-line reason.
    """
    if not isinstance(raw, dict):
        raise ItemRejected(f"item: expected a JSON object, got {type(raw).__name__}")
    # Only the fields we read are cleaned: a search item carries some 80 keys, mostly URLs.
    raw = clean_text({key: value for key, value in raw.items() if key in _FIELDS})
    repo_id = raw.get("id") if isinstance(raw.get("id"), int) and not isinstance(raw.get("id"), bool) else None
    full_name = raw.get("full_name") if isinstance(raw.get("full_name"), str) else None
    try:
        item = SearchItem.model_validate(raw)
    except ValidationError as e:
        raise ItemRejected(_describe(e), repo_id, full_name) from None

    owner_login, _, name = item.full_name.partition("/")
    owner = item.owner or Owner()
    licence = item.license
    topics_raw = item.topics or []
    # Topics are strings on GitHub; anything else in the list cannot be a topic and is dropped.
    topics = [t for t in topics_raw if isinstance(t, str)]
    try:
        updated_at = _timestamp(item.updated_at)
    except ValueError:
        updated_at = None  # not a score input: an unreadable value is dropped, not fatal
    return {
        "id": item.id,
        "node_id": item.node_id,
        "full_name": item.full_name,
        "name": item.name or name,
        "owner_login": owner_login,
        "owner_id": owner.id,
        "owner_type": owner.type,
        "owner_avatar_url": owner.avatar_url,
        "html_url": item.html_url or f"https://github.com/{item.full_name}",
        "description": item.description,
        "homepage": item.homepage,
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
