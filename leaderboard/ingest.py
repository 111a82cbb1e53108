"""``agentrank import-attempts FILE``: read, validate and store attempts as one run.

A file holds one attempt object, a JSON list of them, or JSON Lines (one attempt per line). A
file that is none of these is refused before anything is written. Inside a good file every
record is validated on its own: a bad record gets one line naming the record (its position, and
its agent, task and attempt number when readable) and the field; the valid records are kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import ValidationError

from crawler.items import MAX_NESTING, clean_text, json_kind, nesting_depth
from db.connection import write_transaction
from db.runs import finish_run, start_run
from leaderboard.attempt import Attempt
from leaderboard.store import AttemptCounts, refresh_boards, save_attempts

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_KEY_FIELDS = ("tier", "agent", "agent_version", "model", "settings", "suite", "run", "task_id", "attempt")


class AttemptFileError(ValueError):
    """The file cannot be read as attempts at all; the message names the file and the problem."""


@dataclass
class Record:
    where: str  # "record 3" in a JSON list, "line 4" in JSON Lines
    raw: Any
    error: str | None = None  # a JSON Lines line that is not JSON


@dataclass
class ImportAttemptsResult:
    run_id: int
    records: int
    counts: AttemptCounts
    errors: list[str] = field(default_factory=list)


MAX_LINE = 1_000  # an error line is cut here, so the run's details stay a bounded size


def one_line(text: str) -> str:
    """Control characters shown as escapes, so one bad record is always one line of output."""
    line = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "\u2026"


TOO_LONG_NUMBER = "holds a number of more than 4,300 digits, which no attempt field can take"


# One attempts file is read whole, so it is bounded: a file past either limit is refused before
# anything is written (split it; importing the parts one after another gives the same ledger).
MAX_ATTEMPTS_FILE_BYTES = 64 * 2**20
MAX_ATTEMPT_RECORDS = 50_000


def read_records(path: str | Path, what: str = "attempt") -> list[Record]:
    """Every record of an attempts file (or of ``what`` records: a tasks file), in order."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise AttemptFileError(f"{path}: cannot read: {e.strerror or e}") from None
    if size > MAX_ATTEMPTS_FILE_BYTES:
        raise AttemptFileError(
            f"{path}: {size / 2**20:.0f} MB is more than one file may hold ({MAX_ATTEMPTS_FILE_BYTES // 2**20} MB): "
            "split it and import the parts one after another"
        )
    records = _records(path, what)
    if len(records) > MAX_ATTEMPT_RECORDS:
        raise AttemptFileError(
            f"{path}: {len(records):,} records is more than one file may hold ({MAX_ATTEMPT_RECORDS:,}): "
            "split it and import the parts one after another"
        )
    return records


def _records(path: Path, what: str) -> list[Record]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as e:
        raise AttemptFileError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise AttemptFileError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise AttemptFileError(f"{path}: the file is empty")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as whole:
        return _json_lines(path, text, whole, what)
    except RecursionError:
        raise AttemptFileError(f"{path}: JSON nested too deeply to be {what}s") from None
    except ValueError:  # an integer past Python's limit of 4,300 digits
        raise AttemptFileError(f"{path}: {TOO_LONG_NUMBER}") from None
    if isinstance(document, list):
        if not document:
            raise AttemptFileError(f"{path}: the file holds no {what}s (an empty list)")
        return [Record(f"record {i}", raw) for i, raw in enumerate(document, 1)]
    if isinstance(document, dict):
        return [Record("record 1", document)]
    raise AttemptFileError(
        f"{path}: expected {'an' if what[0] in 'aeiou' else 'a'} {what} object, a JSON list of {what}s or JSON Lines, "
        f"got {json_kind(document)}"
    )


def _json_lines(path: Path, text: str, whole: json.JSONDecodeError, what: str) -> list[Record]:
    """JSON Lines; a line that is not JSON is a bad record, unless the very first one is not."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(Record(f"line {number}", json.loads(line)))
        except RecursionError:
            records.append(
                Record(
                    f"line {number}", None, f"JSON nested too deeply to be {'an' if what[0] in 'aeiou' else 'a'} {what}"
                )
            )
        except json.JSONDecodeError as e:
            if not records:
                raise AttemptFileError(
                    f"{path}: not JSON or JSON Lines (line {whole.lineno}, column {whole.colno}: {whole.msg})"
                ) from None
            records.append(Record(f"line {number}", None, f"not valid JSON ({e.msg}, column {e.colno})"))
        except ValueError:
            records.append(Record(f"line {number}", None, TOO_LONG_NUMBER))
    return records


def _identity(raw: dict[str, Any]) -> str:
    parts = [
        f"{name} {json.dumps(raw[name], ensure_ascii=False)[:80]}"
        for name in ("agent", "task_id", "attempt")
        if isinstance(raw.get(name), str | int)
    ]
    return f" ({', '.join(parts)})" if parts else ""


def _location(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def describe(error: ValidationError) -> str:
    """Every problem of one record, each as ``field: what is wrong``."""
    problems = []
    for e in error.errors(include_url=False):
        message = {"extra_forbidden": "unknown field", "missing": "required"}.get(e["type"], e["msg"])
        message = message.removeprefix("Value error, ")
        if e["type"].endswith(("_type", "_parsing", "literal_error")) and isinstance(e["input"], str | int | float):
            message += f" (got {json.dumps(e['input'], ensure_ascii=False)[:60]})"
        where = _location(e["loc"])
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)


VERIFIED_REFUSED = (
    'tier: "verified" is the operator\'s to grant (agentrank import-attempts --verified); a file cannot assert it'
)


def validate_records(
    path: str | Path, records: list[Record], *, verified: bool = False
) -> tuple[list[Attempt], list[str]]:
    """The valid attempts, and one error line per bad record; a repeated attempt is a bad record.

    A record saying ``tier: "verified"`` is refused unless the operator vouches for the file
    (``verified=True``, the CLI's ``--verified``): a community submission cannot put itself on the
    verified board.
    """
    attempts: list[Attempt] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for record in records:
        prefix = f"{path}: {record.where}"
        if record.error:
            errors.append(one_line(f"{prefix}: {record.error}"))
            continue
        if not isinstance(record.raw, dict):
            errors.append(one_line(f"{prefix}: expected an attempt object, got {json_kind(record.raw)}"))
            continue
        if nesting_depth(record.raw) > MAX_NESTING:
            errors.append(one_line(f"{prefix}: nested deeper than {MAX_NESTING} levels"))
            continue
        raw = clean_text(record.raw)
        prefix += _identity(raw)
        try:
            attempt = Attempt.model_validate_json(json.dumps(raw, ensure_ascii=False))
        except ValidationError as e:
            errors.append(one_line(f"{prefix}: {describe(e)}"))
            continue
        if attempt.tier == "verified" and not verified:
            errors.append(one_line(f"{prefix}: {VERIFIED_REFUSED}"))
            continue
        if attempt.attempt_id in seen:
            same = seen[attempt.attempt_id]
            errors.append(one_line(f"{prefix}: {', '.join(_KEY_FIELDS)}: the same attempt as {same}"))
            continue
        seen[attempt.attempt_id] = record.where
        attempts.append(attempt)
    return attempts, errors


@dataclass
class ReadAttempts:
    """An attempts file read and validated, before anything is written."""

    path: str
    records: int
    attempts: list[Attempt]
    errors: list[str]


def read_attempts(path: str | Path, *, verified: bool = False) -> ReadAttempts:
    """The valid attempts of ``path`` and one error line per bad record.

    Raises :class:`AttemptFileError` when the file is not attempts at all, or when not one of its
    records is valid: such a file changes nothing (no run is recorded).
    """
    records = read_records(path)  # the whole file is read and parsed before anything is written
    attempts, errors = validate_records(path, records, verified=verified)
    if errors and not attempts:
        first = errors[0].removeprefix(f"{path}: ")
        more = f", all {len(errors)} records were rejected; the first" if len(errors) > 1 else ""
        raise AttemptFileError(one_line(f"{path}: nothing imported{more}: {first}"))
    return ReadAttempts(str(path), len(records), attempts, errors)


def import_attempts(
    db: sqlite_utils.Database, source: str | Path | ReadAttempts, *, verified: bool = False
) -> ImportAttemptsResult:
    """Load one attempts file (or one already read) as an ``import-attempts`` run and recompute the
    leaderboards; ``verified``: the operator vouches for the file's verified records."""
    read = source if isinstance(source, ReadAttempts) else read_attempts(source, verified=verified)
    path = read.path
    run_id = start_run(db, "import-attempts", details={"file": path})
    attempts, errors = read.attempts, read.errors
    try:
        with write_transaction(db):  # the attempts and the figures computed from them commit together
            counts = save_attempts(db, attempts, run_id=run_id)
            boards = refresh_boards(db)
    except BaseException as e:
        finish_run(db, run_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    finish_run(
        db,
        run_id,
        "ok",
        counts={
            "items": read.records,
            "saved": counts.saved,
            "new": counts.new,
            "updated": counts.updated,
            "rejected": len(errors),
        },
        details={"unchanged": counts.unchanged, "entries": len(boards.entries), "errors": errors[:100]},
    )
    return ImportAttemptsResult(run_id=run_id, records=read.records, counts=counts, errors=errors)
