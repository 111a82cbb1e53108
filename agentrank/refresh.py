"""``agentrank refresh``: the weekly job, crawl → corrections → classify → score → export, as one run.

Nothing a visitor sees changes until every stage has succeeded: the score stage writes an
unpublished score run, the export is written to a temporary file, and only then does one
transaction point ``published`` at the new run (and replace the ``corrections`` table), after
which the export file is renamed into place. A refresh that fails or is killed at any stage
leaves the previous ranking, export and corrections as they were, and its ``runs`` row says which
stage failed.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from agentrank import pipeline
from agentrank.config import Config
from agentrank.corrections import Correction, CorrectionsError, load_corrections
from agentrank.crawl import crawl
from crawler.client import GitHubClient, GitHubError
from crawler.items import ItemRejected, parse_item
from crawler.repository import fetch_repo
from db.breakdown import resolve_repo
from db.connection import write_transaction
from db.corrections import save_corrections
from db.export import build_export, validate_export, write_json_atomic
from db.repos import relist, save_repos
from db.runs import finish_run, iso, mark_interrupted, start_run, utcnow

log = logging.getLogger("agentrank.refresh")
STAGES = ("corrections", "crawl", "apply-corrections", "classify", "score", "export", "publish")


class RefreshFailed(Exception):
    """A stage failed; the previous published state is intact. The message names the stage."""

    def __init__(self, stage: str, message: str):
        super().__init__(f"refresh failed in the {stage} stage: {message}; the published ranking is unchanged")
        self.stage = stage


@dataclass
class Resolved:
    """A correction matched to a repo id (and, for includes, the repo as GitHub has it now)."""

    correction: Correction
    repo_id: int | None = None
    item: dict[str, Any] | None = None
    status: str = "applied"


@dataclass
class RefreshResult:
    run_id: int
    score_run_id: int
    export_path: Path
    count: int
    stages: list[dict[str, Any]] = field(default_factory=list)


def resolve_corrections(
    db: sqlite_utils.Database, corrections: list[Correction], fetch: Callable[[str], Any] | None, source: str
) -> list[Resolved]:
    """Match every correction to a repo, before anything is written.

    A repo the database knows (by its current or a previous name) needs no request; any other is
    asked of GitHub. Includes are always fetched, so their data is as fresh as a crawl's. An
    unknown repo is an error naming the file and line.
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
            raise CorrectionsError(f"{source}:{c.line}: unknown repo {c.repo} (GitHub: {answer.state})")
        try:
            record = parse_item(answer.item)
        except ItemRejected as e:
            raise CorrectionsError(f"{source}:{c.line}: {c.repo}: GitHub's answer failed validation: {e}") from None
        resolved.append(Resolved(c, repo_id=record["id"], item=record if c.kind == "include" else None))
    return resolved


def _resolve(
    db: sqlite_utils.Database, corrections: list[Correction], client: GitHubClient, source: str
) -> tuple[list[Resolved], dict[str, Any]]:
    resolved = resolve_corrections(db, corrections, lambda name: fetch_repo(client, name), source)
    return resolved, {"entries": len(resolved)}


def apply_corrections(
    db: sqlite_utils.Database, resolved: list[Resolved], config: Config, run_id: int
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
        min_stars=config.crawl.min_stars,
        source="correction",
        matched=True,
        exclusions=exclusions,
    )
    changed = relist(db, min_stars=config.crawl.min_stars, exclusions=exclusions)
    for r in resolved:
        if r.correction.kind == "include" and r.item is not None:
            row = db["repos"].get(r.repo_id)
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


def corrections_path(config: Config) -> tuple[Path, bool]:
    """The corrections file and whether the operator named it (then it must exist)."""
    return Path(config.corrections.path), "path" in config.corrections.model_fields_set


def refresh(
    db: sqlite_utils.Database,
    config: Config,
    *,
    export_path: str | Path | None = None,
    client: GitHubClient | None = None,
    api_url: str | None = None,
    token: str | None = None,
    progress: bool | None = None,
    after_stage: Callable[[str], None] | None = None,
) -> RefreshResult:
    """Run the whole weekly chain as one ``refresh`` run; see the module docstring.

    Call it holding the run lock (``agentrank.locks.run_lock``), as the CLI and the scheduler do.
    """
    export_path = Path(export_path or config.export.path)
    if not export_path.parent.is_dir():
        raise RefreshFailed("export", f"directory {export_path.parent} does not exist")
    path, named = corrections_path(config)
    if named and not path.exists():
        raise CorrectionsError(f"{path}: corrections file not found")
    corrections = load_corrections(path)  # a bad file fails here, before anything is recorded
    # The caller holds the run lock, so any stage still marked running belongs to a dead process.
    mark_interrupted(db, ("refresh", "corrections", "classify", "score", "export"))
    run_id = start_run(db, "refresh", details={"export": str(export_path), "corrections": str(path)})
    stages: list[dict[str, Any]] = []
    own_client = client is None
    client = client or GitHubClient(config.github, api_url=api_url, token=token)
    state: dict[str, Any] = {}

    def stage(name: str, work: Callable[[], tuple[Any, dict[str, Any]]]) -> Any:
        """Run one stage; ``work`` returns its value and the figures to record for it."""
        started = time.monotonic()
        log.info("refresh %s: %s stage started", run_id, name)
        try:
            value, figures = work()
        except BaseException as e:
            message = str(e) or type(e).__name__
            stages.append(
                {
                    "stage": name,
                    "status": "failed",
                    "error": message,
                    "duration_s": round(time.monotonic() - started, 3),
                }
            )
            finish_run(
                db,
                run_id,
                "failed" if isinstance(e, Exception) else "interrupted",
                error=f"{name} stage failed: {message}",
                details={"stages": stages, "failed_stage": name},
            )
            if isinstance(e, Exception):
                raise RefreshFailed(name, message) from e
            raise
        stages.append({"stage": name, "status": "ok", "duration_s": round(time.monotonic() - started, 3), **figures})
        if after_stage:
            after_stage(name)
        return value

    try:
        resolved = stage("corrections", lambda: _resolve(db, corrections, client, str(path)))

        def do_crawl() -> tuple[Any, dict[str, Any]]:
            result = crawl(db, config, client=client, progress=progress, parent_id=run_id)
            if not result.complete:
                log.warning("crawl run %s was incomplete: nothing was delisted", result.run_id)
            return result, {
                "run_id": result.run_id,
                "complete": result.complete,
                "found": result.found,
                "new": result.new,
                "delisted": result.delisted,
                "requests": result.requests,
            }

        stage("crawl", do_crawl)

        def do_apply() -> tuple[Any, dict[str, Any]]:
            child = start_run(db, "corrections", parent_id=run_id)
            counts = apply_corrections(db, resolved, config, child)
            finish_run(db, child, "ok", counts={"saved": counts["included"]}, details=counts)
            return counts, {"run_id": child, **counts}

        stage("apply-corrections", do_apply)
        categories = {
            r.repo_id: (r.correction.value, r.correction.reason) for r in resolved if r.correction.kind == "category"
        }

        def do_classify() -> tuple[Any, dict[str, Any]]:
            # The file is the whole set: a correction removed from it goes back to the model.
            pipeline.apply_category_corrections(db, categories, replace=True)
            child = pipeline.classify_listed(db, config, parent_id=run_id)
            return child, {"run_id": child, "category_corrections": len(categories)}

        stage("classify", do_classify)

        def do_score() -> tuple[Any, dict[str, Any]]:
            child = pipeline.score(db, publish_result=False, parent_id=run_id)
            return child, {"run_id": child}

        score_run = stage("score", do_score)

        def do_export() -> tuple[Any, dict[str, Any]]:
            document = build_export(db, score_run)
            validate_export(document)
            fd, tmp = tempfile.mkstemp(prefix=f".{export_path.name}.", suffix=".next", dir=export_path.parent)
            os.close(fd)
            state["export_tmp"] = Path(tmp)
            write_json_atomic(document, tmp)
            return document["count"], {"agents": document["count"]}

        count = stage("export", do_export)

        def do_publish() -> tuple[Any, dict[str, Any]]:
            now = iso(utcnow())
            with write_transaction(db):
                save_corrections(db, correction_rows(resolved), run_id=run_id, at=now)
                db["published"].upsert(
                    {"id": 1, "score_run_id": score_run, "refresh_run_id": run_id, "published_at": now}, pk="id"
                )
            os.replace(state.pop("export_tmp"), export_path)
            return None, {"score_run_id": score_run}

        stage("publish", do_publish)
    except GitHubError as e:  # raised before a stage could wrap it (client set-up)
        raise RefreshFailed("crawl", str(e)) from e
    finally:
        if state.get("export_tmp"):
            Path(state["export_tmp"]).unlink(missing_ok=True)
        if own_client:
            client.close()
    finish_run(
        db, run_id, "ok", counts={"items": count, "saved": count}, details={"stages": stages, "score_run_id": score_run}
    )
    return RefreshResult(run_id=run_id, score_run_id=score_run, export_path=export_path, count=count, stages=stages)
