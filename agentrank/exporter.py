"""The site export: the published ranking as one JSON document, built, checked and written here only.

Schema version 2 keeps every version-1 field as it was and adds the task-benchmark ledger: each
agent's ``benchmark`` (null when the agent has no runs) and the top-level ``leaderboards``.
Schema version 3 keeps every version-2 field and adds the trust fields: each agent's
``rank_range``, ``score_range``, ``flags`` and ``growth_check``, and the top-level ``validation``.

The document is validated against the shipped JSON Schema and written atomically (temp file in
the same directory, fsync, rename), so the website never reads half a file or an invalid one.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema_rs
import sqlite_utils

from classify.reasons import category_reason_in_words
from datasette_plugins.paths import agent_path
from datasette_plugins.settings import ServeConfig
from db.demo import demo_marker
from db.export import load_categories, load_export_rows, run_as_of, stored_method_version
from db.paths import database_file, make_folder_for, output_refusal, staging_file
from db.runs import iso, recorded_run, utcnow
from db.scores import published_score_run
from db.validation import load_validation
from leaderboard.summary import benchmarks_by_repo, leaderboards
from leaderboard.views import methods_document
from scoring.components import with_components
from scoring.score import COMPONENTS, METHOD_VERSION, shown, shown_range

SCHEMA_VERSION = 4
DEFAULT_PUBLIC_URL = ServeConfig().public_url


class ExportError(Exception):
    """Nothing to export, or the export could not be written."""


NOTHING_PUBLISHED = "nothing is published yet: run `agentrank score` (or `agentrank refresh`) first"


@dataclass
class StagedFile:
    """A file written beside ``path``, waiting to replace it (:func:`staged_json`)."""

    tmp: Path
    path: Path
    placed: bool = False
    # The file it replaced, kept (a second name for it, beside it) until the caller's commit is
    # known: None when there was none. The name is a staging file's, so a killed run's is removed.
    previous: Path | None = None

    def place(self) -> None:
        """Rename it into place now (once): the refresh does so inside its publishing transaction,
        so a rename that fails rolls the publish back instead of leaving the database ahead. The file
        it replaces is kept until :meth:`restore` or :meth:`settle`: a commit that fails after the
        rename puts it back, so the export is never ahead of the database either."""
        if self.placed:
            return
        try:
            self.previous = _keep_previous(self.path)
            os.replace(self.tmp, self.path)
        except OSError as e:
            self.settle()
            raise ExportError(f"cannot write {self.path}: {e.strerror or e}") from None
        self.placed = True

    def restore(self) -> None:
        """Undo :meth:`place` (the commit it went with failed): the file it replaced is back, or,
        when there was none, the new one is gone."""
        if not self.placed:
            return
        try:
            if self.previous is not None:
                os.replace(self.previous, self.path)
                self.previous = None
            else:
                self.path.unlink(missing_ok=True)
        except OSError as e:
            raise ExportError(
                f"cannot put the previous {self.path} back after the publish failed: {e.strerror or e}; "
                "it holds the ranking the database did not publish until the next refresh or `agentrank export`"
            ) from None
        self.placed = False

    def settle(self) -> None:
        """The publish is done (or never placed the file): the file it replaced is let go."""
        if self.previous is not None:
            with contextlib.suppress(OSError):
                self.previous.unlink()
            self.previous = None


def _keep_previous(path: Path) -> Path | None:
    """A second name beside ``path`` for the file there now (a hard link: nothing is copied), or None
    when there is no file; a copy on a file system without hard links."""
    if not path.is_file():
        return None
    keep = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}previous.tmp")
    try:
        os.link(path, keep)
    except OSError:
        shutil.copy2(path, keep)
    return keep


@dataclass
class ExportResult:
    run_id: int  # the export run
    path: Path
    count: int
    as_of: str
    score_run_id: int
    staged: StagedFile | None = field(default=None, repr=False, compare=False)


SCHEMA_FILE = "export.schema.json"


@cache
def export_schema() -> dict[str, Any]:
    """The shipped ``export.schema.json``, its ``components`` as ``scoring/components.py`` has them
    (the same as the file's once ``make docs`` has run; a test checks that it has)."""
    return with_components(json.loads(files("agentrank").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")))


def write_export_schema() -> bool:
    """Write the score components into the shipped schema file (``make docs``); True if it changed."""
    path = Path(str(files("agentrank").joinpath(SCHEMA_FILE)))
    text = json.dumps(export_schema(), indent=2, ensure_ascii=False) + "\n"
    if path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def _web_url(value: str | None) -> str | None:
    # Descriptions and homepages are attacker-controlled: only plain http(s) links go to the site.
    if value and value.strip().lower().startswith(("http://", "https://")) and not any(c.isspace() for c in value):
        return value
    return None


def _category_reason(stored: str | None) -> dict[str, Any] | None:
    """The classifier's stored reason (text, the features that decided it, runner-up), or None for
    corrections and older rows."""
    try:
        found = json.loads(stored) if stored else None
    except ValueError:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("text"), str):
        return None
    because = [[str(k), str(t)] for k, t in found.get("because") or [] if isinstance(k, str) and isinstance(t, str)]
    runner_up = found.get("runner_up") if isinstance(found.get("runner_up"), str) else None
    # A reason stored before the rules were put in words says them in words too (classify.reasons).
    return category_reason_in_words({"text": found["text"], "because": because, "runner_up": runner_up})


def _agent(row: dict[str, Any], benchmark: dict[str, Any] | None, public_url: str) -> dict[str, Any]:
    owner_login = row["owner_login"] or row["full_name"].split("/", 1)[0]
    page_url = public_url.rstrip("/") + agent_path(row["full_name"])
    return {
        "rank": row["rank"],
        "repo_id": row["repo_id"],
        "full_name": row["full_name"],
        "html_url": _web_url(row["html_url"]) or f"https://github.com/{row['full_name']}",
        "description": row["description"],
        "homepage": _web_url(row["homepage"]),
        "owner": {"login": owner_login, "avatar_url": _web_url(row["owner_avatar_url"])},
        "category": row["category"],
        "category_name": row["category_name"],
        "category_source": row["category_source"],
        # The classifier's probability only: a maintainer's correction has none (the schema's null).
        "category_probability": None if row["category_source"] == "correction" else row["category_probability"],
        "category_uncertain": bool(row["category_uncertain"]) or row["category"] is None,
        "category_reason": _category_reason(row.get("category_reason")),
        "topics": json.loads(row["topics"] or "[]"),
        "language": row["language"],
        "license_spdx": row["license_spdx"],
        "license_osi": bool(row["license_osi"]),
        "stars": row["stars"],
        "forks": row["forks"],
        "created_at": row["created_at"],
        "pushed_at": row["pushed_at"],
        "score": shown(row["score"]),
        "score_exact": row["score"],
        "components": {name: row[name] for name in COMPONENTS},
        "stars_delta_7d": row["stars_delta_7d"],
        "stars_delta_28d": row["stars_delta_28d"],
        "forks_delta_7d": row["forks_delta_7d"],
        "benchmark": benchmark,
        **_trust(row),
        "page_url": page_url,
        "badge_url": page_url + "/badge.svg",
    }


def _trust(row: dict[str, Any]) -> dict[str, Any]:
    """The rank and score ranges (the score's to one decimal, rounded outwards so they still hold
    the shown score), the flags and the growth figures behind them."""
    best, worst = row.get("rank_best"), row.get("rank_worst")
    low, high = row.get("score_low"), row.get("score_high")
    if best is None or low is None or high is None:  # scored before ranges existed: no spread known
        best = worst = row["rank"]
        low = high = row["score"]
    return {
        "rank_range": [best, worst],
        "score_range": list(shown_range(low, high)),
        "flags": json.loads(row.get("flags") or "[]"),
        "growth_check": json.loads(row["growth_check"]) if row.get("growth_check") else None,
    }


def _validation(conn: Any, run_id: int, count: int) -> dict[str, Any]:
    """The run's validation figures with a reason next to each null one."""
    stored = load_validation(conn, run_id)
    if stored is None:
        return {
            "n": count,
            "spearman_vs_stars": None,
            "kendall_tau_vs_previous": None,
            "previous_run": None,
            "notes": {"all": "this run was scored before validation figures were kept"},
        }
    details = stored.pop("details")
    stored.pop("run_id")
    notes = {
        key: details.get(key)
        for key in ("spearman_vs_stars", "kendall_tau_vs_previous", "classifier_cv_accuracy")
        if stored.get(key) is None and details.get(key)
    }
    coverage = details.get("crawl_coverage") or {}
    if stored.get("crawl_coverage") is None and coverage.get("reason"):
        notes["crawl_coverage"] = coverage["reason"]
    return {**stored, "wide_rank_range_places": details.get("wide_rank_range_places"), "notes": notes}


def build_export(
    db: sqlite_utils.Database, run_id: int | None = None, *, public_url: str = DEFAULT_PUBLIC_URL
) -> dict[str, Any]:
    """The export document for a score run (default: the published one); ``public_url`` is where the
    directory is served (``serve.public_url``), the base of each agent's ``page_url`` and ``badge_url``."""
    run_id = run_id or published_score_run(db)
    if run_id is None:
        raise ExportError(NOTHING_PUBLISHED)
    conn = db.conn
    benchmarks = benchmarks_by_repo(conn)
    agents = [_agent(row, benchmarks.get(row["repo_id"]), public_url) for row in load_export_rows(conn, run_id)]
    counts: dict[str, int] = {}
    for agent in agents:
        if agent["category"]:
            counts[agent["category"]] = counts.get(agent["category"], 0) + 1
    document = {
        "schema_version": SCHEMA_VERSION,
        "method_version": stored_method_version(conn, run_id) or METHOD_VERSION,
        "as_of": run_as_of(conn, run_id),
        "generated_at": iso(utcnow()),
        "score_run_id": run_id,
        "count": len(agents),
        "agents": agents,
        "categories": [
            {"id": c["id"], "name": c["name"], "count": counts.get(c["id"], 0)} for c in load_categories(conn)
        ],
        "leaderboards": leaderboards(conn),
        "validation": _validation(conn, run_id, len(agents)),
        "methods": methods_document(conn),
    }
    marker = demo_marker(conn)
    if marker:
        document["demo"] = marker["note"]  # synthetic data, and the export says so
    return document


@cache
def _export_validator() -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(export_schema())


def validate_export(document: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when the document breaks the shipped schema.

    jsonschema-rs checks the demo's export (1,300 repos) in 4 ms, where jsonschema took a second on
    every export; jsonschema then names the clearest error of a document that fails.
    """
    if _export_validator().is_valid(document):
        return
    import jsonschema  # (only to word a failure)

    jsonschema.validate(document, export_schema())
    try:  # (the two libraries disagree: the stricter one decides)
        _export_validator().validate(document)
    except jsonschema_rs.ValidationError as e:
        raise jsonschema.ValidationError(e.message, path=list(e.instance_path)) from None


def write_json_atomic(document: Any, path: str | Path) -> Path:
    """Write JSON to ``path`` so readers see the old file or the new one, never a part."""
    with staged_json(document, path):
        pass
    return Path(path)


@contextmanager
def staged_json(document: Any, path: str | Path) -> Iterator[StagedFile]:
    """Write ``document`` next to ``path`` and rename it into place when the block succeeds (or
    earlier, when the block calls ``place()``).

    The refresh publishes inside the block and places the file inside its publishing transaction,
    so the file changes only with the database, and a refused rename publishes nothing.
    """
    path = Path(path)
    try:
        # Folders as `mkdir -p` (the document is ready to go); what a killed run left is removed.
        fd, staging = staging_file(path)
        tmp = str(staging)
    except OSError as e:
        raise ExportError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes it owner-only; the file is published
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(document, f, ensure_ascii=False, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        staged = StagedFile(Path(tmp), path)
        try:
            yield staged
            staged.place()
        finally:
            staged.settle()
    except OSError as e:
        raise ExportError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def check_target(path: str | Path, database: Path | None = None) -> None:
    """Refuse a path the export cannot or must not be written to, in one line (its folders are
    created, as ``mkdir -p`` would); ``database`` is the database file, never to be replaced."""
    if not str(path).strip():  # before Path(), which reads "" as "."
        raise ExportError("--out '': give the file to write, e.g. --out site/agentrank.json")
    path = Path(path)
    refusal = output_refusal(path, database, sqlite=False)
    if refusal:
        raise ExportError(f"cannot write {path}: {refusal}")
    try:
        directory = make_folder_for(path)
    except OSError as e:
        raise ExportError(f"cannot write {path}: {e.strerror or e}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ExportError(f"cannot write {path}: {directory} is not writable")


@contextmanager
def staged_export(
    db: sqlite_utils.Database,
    path: str | Path,
    *,
    score_run_id: int | None = None,
    parent_id: int | None = None,
    public_url: str = DEFAULT_PUBLIC_URL,
) -> Iterator[ExportResult]:
    """Build, validate and write the export of a score run as one ``export`` run.

    The file replaces ``path`` when the block ends without error; code inside the block (the
    refresh's publish step) runs with the new file ready beside the old one.
    """
    # What a user can get wrong is refused before the run is recorded: the database stays as it was.
    if (score_run_id or published_score_run(db)) is None:
        raise ExportError(NOTHING_PUBLISHED)
    check_target(path, database_file(db.conn))
    with recorded_run(db, "export", parent_id=parent_id, details={"path": str(path)}) as run:
        document = build_export(db, score_run_id, public_url=public_url)
        validate_export(document)
        with staged_json(document, path) as staged:
            yield ExportResult(
                run.id, Path(path), document["count"], document["as_of"], document["score_run_id"], staged
            )
        run.counts = {"items": document["count"], "saved": document["count"]}


def export(
    db: sqlite_utils.Database, path: str | Path, *, parent_id: int | None = None, public_url: str = DEFAULT_PUBLIC_URL
) -> ExportResult:
    """Write the published ranking's export to ``path``."""
    with staged_export(db, path, parent_id=parent_id, public_url=public_url) as result:
        return result
