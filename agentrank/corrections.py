"""``corrections.toml``: how makers fix their listing, kept by the operator under version control.

Every entry is an array-of-tables item, so each change is one small, reviewable diff in git::

    [[exclude]]                 # not an agent: leaves the listed population
    repo = "owner/repo"
    reason = "a prompt collection, not an agent"
    date = 2026-11-20           # optional; shown with the correction

    [[include]]                 # an agent the searches miss: fetched by name on every refresh
    repo = "owner/repo"
    reason = "no topics yet"

    [[category]]                # the category, overriding the classifier
    repo = "owner/repo"
    category = "coding"
    reason = "maker's request"

    [[claim]]                   # a maker's claim, shown on the repo's page
    repo = "owner/repo"
    login = "octocat"

Validation happens on load, before anything is written: an unknown key, kind or category, a
malformed repo name, or the same (kind, repo) twice is an error naming the file and line.
Whether a repo exists is checked later against the database and GitHub (``unknown repo``).
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from classify.categories import CATEGORY_IDS

KINDS = ("exclude", "include", "category", "claim")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$")
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")


class CorrectionsError(ValueError):
    """The corrections file cannot be used; the message names the file and the line."""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    repo: str
    reason: str = ""
    date: dt.date | None = None
    by: str | None = Field(None, description="who asked for it (a login or a name)")

    @field_validator("repo")
    @classmethod
    def _repo(cls, value: str) -> str:
        if not _REPO.match(value):
            raise ValueError(f"'{value}' is not owner/repo")
        return value


class Exclude(_Entry):
    reason: str = Field(min_length=1)


class Include(_Entry):
    pass


class CategoryEntry(_Entry):
    category: str

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if value not in CATEGORY_IDS:
            raise ValueError(f"unknown category '{value}' (one of: {', '.join(CATEGORY_IDS)})")
        return value


class Claim(_Entry):
    login: str

    @field_validator("login")
    @classmethod
    def _login(cls, value: str) -> str:
        if not _LOGIN.match(value):
            raise ValueError(f"'{value}' is not a GitHub login")
        return value


_MODELS: dict[str, type[_Entry]] = {"exclude": Exclude, "include": Include, "category": CategoryEntry, "claim": Claim}


@dataclass(frozen=True)
class Correction:
    kind: str
    repo: str
    reason: str
    line: int
    value: str | None = None  # the category or the claiming login
    date: str | None = None
    by: str | None = None

    @property
    def where(self) -> str:
        return f"line {self.line}"


def _header_lines(text: str) -> dict[str, list[int]]:
    """Line numbers of each ``[[kind]]`` header, in order (tomllib keeps no positions)."""
    lines: dict[str, list[int]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = re.match(r"^\s*\[\[\s*([A-Za-z0-9_-]+)\s*\]\]", line)
        if match:
            lines.setdefault(match.group(1), []).append(number)
    return lines


def _key_line(text: str, start: int, key: str) -> int:
    """The line of ``key = ...`` inside the entry whose header is on line ``start``."""
    for number, line in enumerate(text.splitlines()[start:], start + 1):
        if re.match(r"^\s*\[", line):
            break
        if re.match(rf"^\s*{re.escape(key)}\s*=", line):
            return number
    return start


def parse_corrections(text: str, source: str = "corrections.toml") -> list[Correction]:
    """Validate the whole file and return its entries; raise CorrectionsError on the first problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CorrectionsError(f"{source}: not valid TOML: {e}") from None
    headers = _header_lines(text)
    corrections: list[Correction] = []
    seen: dict[tuple[str, str], int] = {}
    for kind, entries in data.items():
        if kind not in KINDS or not isinstance(entries, list):
            line = (headers.get(kind) or [_key_line(text, 0, kind)])[0]
            raise CorrectionsError(
                f"{source}:{line}: unknown entry kind '{kind}' (use [[exclude]], [[include]], [[category]] or [[claim]])"
            )
        for index, entry in enumerate(entries):
            kind_lines = headers.get(kind, [])
            line = kind_lines[index] if index < len(kind_lines) else _key_line(text, 0, kind)
            try:
                model = _MODELS[kind].model_validate(entry)
            except ValidationError as e:
                first = e.errors()[0]
                key = ".".join(str(p) for p in first["loc"]) or kind
                problem = (
                    "unknown key" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
                )
                raise CorrectionsError(f"{source}:{_key_line(text, line, key)}: [[{kind}]] {key}: {problem}") from None
            identity = (kind, model.repo.lower())
            if identity in seen:
                raise CorrectionsError(
                    f"{source}:{line}: duplicate [[{kind}]] entry for {model.repo} (first on line {seen[identity]})"
                )
            seen[identity] = line
            value = getattr(model, "category", None) or getattr(model, "login", None)
            corrections.append(
                Correction(
                    kind=kind,
                    repo=model.repo,
                    reason=model.reason,
                    line=line,
                    value=value,
                    date=model.date.isoformat() if model.date else None,
                    by=model.by,
                )
            )
    excluded = {c.repo.lower() for c in corrections if c.kind == "exclude"}
    for c in corrections:
        if c.kind == "include" and c.repo.lower() in excluded:
            raise CorrectionsError(f"{source}:{c.line}: {c.repo} is both included and excluded")
    return sorted(corrections, key=lambda c: c.line)


def load_corrections(path: str | Path) -> list[Correction]:
    """The corrections in ``path``; a missing file means no corrections."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CorrectionsError(f"{path}: cannot read: {e}") from None
    return parse_corrections(text, str(path))


def as_rows(corrections: list[Correction]) -> list[dict[str, Any]]:
    return [
        {
            "kind": c.kind,
            "repo": c.repo,
            "value": c.value,
            "reason": c.reason,
            "date": c.date,
            "by": c.by,
            "line": c.line,
        }
        for c in corrections
    ]
