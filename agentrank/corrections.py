"""``corrections.toml``: how makers fix their listing, kept by the operator under version control.

Every entry is an array-of-tables item, so each change is one small, reviewable diff in git::

    [[exclude]]                 # not an agent: leaves the listed population
    repo = "owner/repo"
    reason = "a prompt collection, not an agent"
    date = 2026-11-20           # optional; shown with the correction
    by = "octocat"              # optional (any kind): who asked for it, shown with the correction

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
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from classify.categories import CATEGORY_IDS
from crawler.items import DroppedTopics, ItemRejected, check_instant, parse_item
from db.breakdown import resolve_repo
from db.connection import write_transaction
from db.repos import relist, save_repos
from db.runs import iso, utcnow

KINDS = ("exclude", "include", "category", "claim")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$")
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")


class CorrectionsError(ValueError):
    """The corrections file cannot be used; the message names the file and the line."""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    repo: str
    reason: str = Field("", max_length=1_000)
    date: dt.date | None = None
    by: str | None = Field(None, max_length=200, description="who asked for it (a login or a name)")

    @field_validator("date")
    @classmethod
    def _date(cls, value: dt.date | None) -> dt.date | None:
        if value is not None:
            check_instant(dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC))
        return value

    @field_validator("repo")
    @classmethod
    def _repo(cls, value: str) -> str:
        if not _REPO.match(value):
            raise ValueError(f"'{value}' is not owner/repo")
        return value


class Exclude(_Entry):
    # Restating the field drops the base's bound, so it is said again here.
    reason: str = Field(min_length=1, max_length=1_000)

    @field_validator("reason")
    @classmethod
    def _said(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("an exclusion needs a reason in words, not only spaces")
        return value


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


def _table_line(text: str, kind: str) -> int:
    """The first line naming ``kind`` as a table (``[kind]``), a key (``kind = ...``) or a dotted key."""
    pattern = rf"^\s*(\[+\s*{re.escape(kind)}\s*[\].]|{re.escape(kind)}\s*[=.])"
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(pattern, line):
            return number
    return 1


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
    except RecursionError:
        raise CorrectionsError(f"{source}: not valid TOML: nested too deeply") from None
    headers = _header_lines(text)
    corrections: list[Correction] = []
    seen: dict[tuple[str, str], int] = {}
    for kind, entries in data.items():
        if kind in KINDS and not isinstance(entries, list):
            raise CorrectionsError(
                f"{source}:{_table_line(text, kind)}: '{kind}' must be a list of entries: write [[{kind}]], not [{kind}]"
            )
        if kind not in KINDS:
            line = (headers.get(kind) or [_table_line(text, kind)])[0]
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


MAX_FILE_BYTES = 16 * 2**20  # thousands of entries fit in a few hundred KiB


def load_corrections(path: str | Path) -> list[Correction]:
    """The corrections in ``path``; a missing file means no corrections."""
    path = Path(path)
    if not path.exists():
        return []
    # A pipe or a device (a symlink to /dev/zero) was read until memory ran out, or for ever: the
    # weekly job hung before its lock, and no failure was ever logged.
    if not path.is_file():
        raise CorrectionsError(f"{path}: not a regular file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise CorrectionsError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB, not a corrections file")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (some Windows editors write one) is no TOML error
    except (OSError, UnicodeDecodeError) as e:
        raise CorrectionsError(f"{path}: cannot read: {e}") from None
    return parse_corrections(text, str(path))


@dataclass
class Resolved:
    """A correction matched to a repo id (and, for includes, the repo as GitHub has it now)."""

    correction: Correction
    repo_id: int | None = None
    item: dict[str, Any] | None = None
    status: str = "applied"


def resolve_corrections(
    db: sqlite_utils.Database,
    corrections: list[Correction],
    fetch: Callable[[str], Any] | None,
    source: str,
    dropped: DroppedTopics | None = None,
) -> list[Resolved]:
    """Match every correction to a repo, before anything is written.

    A repo the database knows (by its current or a previous name) needs no request; any other is
    asked of GitHub. Includes are always fetched, so their data is as fresh as a crawl's. An
    unknown repo is an error naming the file and line. Topics GitHub's answer held that it would
    not allow (as a crawl drops them) are counted in ``dropped``, for the caller to say.
    """
    resolved = []
    for c in corrections:
        known = resolve_repo(db.conn, c.repo)
        if known is not None and c.kind != "include":
            resolved.append(Resolved(c, repo_id=known["id"]))
            continue
        if fetch is None:
            raise CorrectionsError(f"{source}:{c.line}: unknown repo {c.repo} (not in the database)")
        answer = fetch(c.repo)
        if answer.state != "ok":
            if known is not None:  # gone or blocked now: keep the row, say so
                resolved.append(Resolved(c, repo_id=known["id"], status=f"not applied: the repo is {answer.state}"))
                continue
            # "gone" is GitHub's 404: a repo that never existed, or a deleted or private one.
            why = "GitHub has no such public repository" if answer.state == "gone" else f"GitHub: {answer.state}"
            raise CorrectionsError(f"{source}:{c.line}: unknown repo {c.repo} ({why})")
        try:
            record = parse_item(answer.item)
        except ItemRejected as e:
            raise CorrectionsError(f"{source}:{c.line}: {c.repo}: GitHub's answer failed validation: {e}") from None
        (dropped if dropped is not None else DroppedTopics()).take(record)  # removes the note from the record
        resolved.append(Resolved(c, repo_id=record["id"], item=record if c.kind == "include" else None))
    # The file checks each (kind, name) once; a repo's old and new names are one repo too, and two
    # entries of one kind for it would leave one silently winning.
    first: dict[tuple[str, int], Resolved] = {}
    for r in resolved:
        if r.repo_id is None:
            continue
        earlier = first.setdefault((r.correction.kind, r.repo_id), r)
        if earlier is not r:
            raise CorrectionsError(
                f"{source}:{r.correction.line}: duplicate [[{r.correction.kind}]] entry for {r.correction.repo}: "
                f"the same repo as {earlier.correction.repo} (line {earlier.correction.line}), under another name"
            )
    return resolved


PENDING = "pending: not in the database yet; applies when a crawl or an import brings it"


def pending_when_absent(db: sqlite_utils.Database, resolved: list[Resolved]) -> list[Resolved]:
    """After the crawl: a correction (not an include) of a repo GitHub knows but the database does not
    hold is kept without a repo id, pending until a crawl finds the repo (a category correction
    waits by name), instead of pointing at a row that is not there."""
    ids = [r.repo_id for r in resolved if r.repo_id is not None and r.item is None]
    present = {
        row[0] for row in db.conn.execute(f"select id from repos where id in ({', '.join('?' * len(ids))})", ids)
    }
    return [
        replace(r, repo_id=None, status=PENDING)
        if r.repo_id is not None and r.item is None and r.repo_id not in present
        else r
        for r in resolved
    ]


def apply_corrections(
    db: sqlite_utils.Database, resolved: list[Resolved], *, min_stars: int, run_id: int
) -> dict[str, int]:
    """Save included repos, apply exclusions to the listing; returns counts."""
    exclusions = {r.repo_id: r.correction.reason for r in resolved if r.correction.kind == "exclude" and r.repo_id}
    includes = [r.item for r in resolved if r.item is not None]
    seen_at = iso(utcnow())
    counts = save_repos(
        db,
        includes,
        run_id=run_id,
        seen_at=seen_at,
        min_stars=min_stars,
        source="correction",
        matched=True,
        exclusions=exclusions,
    )
    # An include dropped from the file: a repo that only the correction brought in (no crawl or
    # import has seen it since) matches nothing any more, so the listing rule takes it out.
    kept = [r.repo_id for r in resolved if r.correction.kind == "include" and r.repo_id is not None]
    with write_transaction(db):
        db.execute(
            "update repos set matched = 0 where source = 'correction' and matched = 1 "
            f"and id not in ({', '.join('?' * len(kept))}) "
            "and coalesce((select kind from runs where runs.id = repos.last_seen_run), 'corrections') = 'corrections'",
            kept,
        )
    changed = relist(db, min_stars=min_stars, exclusions=exclusions)
    for r in resolved:
        if r.correction.kind == "include" and r.item is not None and r.repo_id is not None:
            row = db.table("repos").get(r.repo_id)
            if not row["listed"]:
                r.status = f"included but not listed: {row['unlisted_reason']}"
    return {"included": counts.saved, **changed, "excluded": len(exclusions)}


def correction_rows(resolved: list[Resolved]) -> list[dict[str, Any]]:
    return [
        {
            "kind": r.correction.kind,
            "repo": r.correction.repo,
            "repo_id": r.repo_id,
            "value": r.correction.value,
            "reason": r.correction.reason,
            "date": r.correction.date,
            "by": r.correction.by,
            "line": r.correction.line,
            "status": r.status,
        }
        for r in resolved
    ]
