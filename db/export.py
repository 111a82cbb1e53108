"""The site export (schema version 2): the published ranking as one JSON document.

Version 2 keeps every version-1 field as it was and adds the task-benchmark ledger: each agent's
``benchmark`` (null when the agent has no runs) and the top-level ``leaderboards``.

The file is validated against the shipped JSON Schema and written atomically (temp file in the
same directory, fsync, rename), so the website never reads half a file or an invalid one.
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import sqlite_utils

from db.runs import iso, utcnow
from db.scores import published_score_run
from leaderboard.summary import benchmarks_by_repo, leaderboards
from scoring.score import METHOD_VERSION

SCHEMA_VERSION = 2
COMPONENTS = ("popularity", "adoption", "activity", "momentum", "openness")


class ExportError(Exception):
    """Nothing to export, or the export could not be written."""


@cache
def export_schema() -> dict[str, Any]:
    return json.loads(files("db").joinpath("export.schema.json").read_text(encoding="utf-8"))


def _web_url(value: str | None) -> str | None:
    # Descriptions and homepages are attacker-controlled: only plain http(s) links go to the site.
    if value and value.strip().lower().startswith(("http://", "https://")) and not any(c.isspace() for c in value):
        return value
    return None


def build_export(db: sqlite_utils.Database, run_id: int | None = None) -> dict[str, Any]:
    """The export document for a score run (default: the published one)."""
    run_id = run_id or published_score_run(db)
    if run_id is None:
        raise ExportError("nothing is published yet: run `agentrank score` (or `agentrank refresh`) first")
    run = db.table("runs").get(run_id)
    rows = db.query(
        """
        select s.*, r.html_url, r.description, r.homepage, r.owner_login, r.owner_avatar_url, r.topics,
               r.language, cat.name as category_name
        from scores s
        join repos r on r.id = s.repo_id
        left join categories cat on cat.id = s.category
        where s.run_id = ?
        order by s.rank
        """,
        [run_id],
    )
    benchmarks = benchmarks_by_repo(db.conn)
    agents = []
    for row in rows:
        owner_login = row["owner_login"] or row["full_name"].split("/", 1)[0]
        agents.append(
            {
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
                "category_probability": row["category_probability"],
                "category_uncertain": bool(row["category_uncertain"]) or row["category"] is None,
                "topics": json.loads(row["topics"] or "[]"),
                "language": row["language"],
                "license_spdx": row["license_spdx"],
                "license_osi": bool(row["license_osi"]),
                "stars": row["stars"],
                "forks": row["forks"],
                "created_at": row["created_at"],
                "pushed_at": row["pushed_at"],
                "score": round(row["score"], 1),
                "score_exact": row["score"],
                "components": {name: row[name] for name in COMPONENTS},
                "stars_delta_7d": row["stars_delta_7d"],
                "stars_delta_28d": row["stars_delta_28d"],
                "forks_delta_7d": row["forks_delta_7d"],
                "benchmark": benchmarks.get(row["repo_id"]),
            }
        )
    counts: dict[str, int] = {}
    for agent in agents:
        if agent["category"]:
            counts[agent["category"]] = counts.get(agent["category"], 0) + 1
    categories = [
        {"id": c["id"], "name": c["name"], "count": counts.get(c["id"], 0)}
        for c in db.query("select id, name from categories order by position")
    ]
    return {
        "schema_version": SCHEMA_VERSION,
        "method_version": _method_version(db, run_id),
        "as_of": run["as_of"],
        "generated_at": iso(utcnow()),
        "score_run_id": run_id,
        "count": len(agents),
        "agents": agents,
        "categories": categories,
        "leaderboards": leaderboards(db.conn),
    }


def _method_version(db: sqlite_utils.Database, run_id: int) -> str:
    row = db.execute("select method_version from scores where run_id = ? limit 1", [run_id]).fetchone()
    return row[0] if row else METHOD_VERSION


def validate_export(document: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when the document breaks the shipped schema."""
    jsonschema.validate(document, export_schema())


def write_json_atomic(document: Any, path: str | Path) -> Path:
    """Write JSON to ``path`` so readers see the old file or the new one, never a part."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise ExportError(f"cannot write {path}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes it owner-only; the file is published
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(document, f, ensure_ascii=False, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def export_to(db: sqlite_utils.Database, path: str | Path, run_id: int | None = None) -> dict[str, Any]:
    document = build_export(db, run_id)
    validate_export(document)
    try:
        write_json_atomic(document, path)
    except OSError as e:
        raise ExportError(f"cannot write {path}: {e.strerror or e}") from None
    return document
