"""The weekly job as one run: corrections → crawl (or import) → classify → score → export → publish.

``run_pipeline`` is the only place the stages are chained. ``agentrank refresh``, the scheduler
and ``agentrank demo`` all reach it through ``refresh_database`` (run lock → open the store →
pipeline), the demo with the crawl pointed at the local GitHub emulator.

Nothing a visitor sees changes until every stage has succeeded: the score stage writes an
unpublished score run, the export is written to a temporary file beside the old one, and only
then does one transaction point ``published`` at the new run (and replace the ``corrections``
table) and, as its last step before the COMMIT, rename the export file into place (the file it
replaced is put back if the COMMIT fails). A refresh that fails or is killed at
any stage leaves the previous ranking, export and corrections as they were, and its ``runs`` row
says which stage failed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from agentrank.classifier import apply_category_corrections, classify_listed
from agentrank.config import Config, load_config, place_export_beside
from agentrank.corrections import (
    Correction,
    CorrectionsError,
    Resolved,
    apply_corrections,
    correction_rows,
    load_corrections,
    pending_when_absent,
    resolve_corrections,
)
from agentrank.crawl import crawl
from agentrank.exporter import ExportError, StagedFile, staged_export
from agentrank.importer import check_files, import_files
from agentrank.locks import LockHeld, lock_path, run_lock
from agentrank.scorer import score
from crawler.client import ClockSkew, GitHubClient, GitHubError
from crawler.items import DroppedTopics
from crawler.repository import RepoFetch, fetch_repo
from crawler.saved import iter_saved_items
from crawler.secrets import github_token
from db.connection import DatabaseError, snapshot_refusal, write_transaction
from db.corrections import save_corrections
from db.paths import database_file, output_refusal
from db.runs import UNRESUMABLE_KINDS, RunRecord, iso, mark_interrupted, recorded_run, utcnow
from db.scores import publish
from db.store import open_store
from schedules.jobs import SKIPPED, last_successful_refresh

log = logging.getLogger("agentrank.refresh")
T = TypeVar("T")


class RefreshFailed(Exception):
    """A stage failed; the previous published state is intact. The message names the stage."""

    def __init__(self, stage: str, message: str):
        super().__init__(f"refresh failed in the {stage} stage: {message}; the published ranking is unchanged")
        self.stage = stage


@dataclass
class PipelineResult:
    run_id: int
    score_run_id: int
    export_path: Path
    count: int
    stages: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> str:
        timings = ", ".join(f"{s['stage']} {s['duration_s']:.1f} s" for s in self.stages)
        return (
            f"refresh run {self.run_id}: published score run {self.score_run_id} with {self.count} agents; "
            f"wrote {self.export_path} ({timings})"
        )


def corrections_file(config: Config) -> tuple[Path, bool]:
    """The corrections file and whether the operator named it (then it must exist)."""
    return Path(config.corrections.path), "path" in config.corrections.model_fields_set


class _Stages:
    """Runs named stages inside the refresh run, recording each one's status, figures and time."""

    def __init__(self, run: RunRecord, after_stage: Callable[[str], None] | None):
        self.run = run
        self.done: list[dict[str, Any]] = []
        self.after_stage = after_stage

    def __call__(self, name: str, work: Callable[[], tuple[T, dict[str, Any]]]) -> T:
        """Run one stage; ``work`` returns its value and the figures to record for it."""
        started = time.monotonic()
        log.info("refresh %s: %s stage started", self.run.id, name)
        try:
            value, figures = work()
        except BaseException as e:
            message = str(e) or type(e).__name__
            took = round(time.monotonic() - started, 3)
            self.done.append({"stage": name, "status": "failed", "error": message, "duration_s": took})
            self.run.details = {"stages": self.done, "failed_stage": name}
            self.run.error = f"{name} stage failed: {message}"
            if isinstance(e, Exception):
                raise RefreshFailed(name, message) from e
            raise
        self.done.append({"stage": name, "status": "ok", "duration_s": round(time.monotonic() - started, 3), **figures})
        if self.after_stage:
            self.after_stage(name)
        return value


def read_corrections(config: Config) -> list[Correction]:
    """The corrections file's entries; CorrectionsError when it cannot be used (or, named by the
    operator, is missing)."""
    corrections_path, named = corrections_file(config)
    if named and not corrections_path.exists():
        raise CorrectionsError(f"{corrections_path}: corrections file not found")
    return load_corrections(corrections_path)


def run_pipeline(
    db: sqlite_utils.Database,
    config: Config,
    *,
    export_path: str | Path | None = None,
    import_paths: Sequence[str | Path] | None = None,
    client: GitHubClient | None = None,
    api_url: str | None = None,
    token: str | None = None,
    progress: bool | None = None,
    fresh_crawl: bool = False,
    after_stage: Callable[[str], None] | None = None,
    at: datetime | None = None,
) -> PipelineResult:
    """Run the whole weekly chain as one ``refresh`` run; see the module docstring.

    With ``import_paths`` the saved search results in those files stand in for the crawl (the
    way to reproduce a published run from saved data). ``at`` is the instant the run happens at
    (default: now): the refresh, crawl and score runs start then, the crawl's snapshots are
    observed then and the ranking is scored as of then (the demo replays past weeks with it).
    Call it holding the run lock, as ``refresh_database`` does.
    """
    export_path = Path(export_path or config.export.path)
    check_output_path(export_path, database_file(db.conn))
    corrections_path, _ = corrections_file(config)
    corrections = read_corrections(config)  # a bad file fails here, before anything is recorded
    # The caller holds the run lock, so any stage still marked running belongs to a dead process.
    mark_interrupted(db, UNRESUMABLE_KINDS)
    own_client = client is None
    try:
        github = client or GitHubClient(config.github, api_url=api_url, token=token)
    except GitHubError as e:  # a bad API URL or token, before any stage runs
        raise RefreshFailed("crawl", str(e)) from e
    details = {"export": str(export_path), "corrections": str(corrections_path)}
    try:
        if not import_paths:
            try:
                github.check_clock()  # before the refresh run is recorded at a wrong time
            except ClockSkew as e:
                raise RefreshFailed("crawl", str(e)) from e  # nothing recorded: the clock is wrong
            except GitHubError as e:
                # GitHub refused the token or could not be reached: the week's run failed in its crawl
                # stage, and the runs table says so (the clock was not in question).
                with recorded_run(db, "refresh", details=details, started_at=at) as failed:
                    failed.details = {
                        "stages": [{"stage": "crawl", "status": "failed", "error": str(e), "duration_s": 0.0}],
                        "failed_stage": "crawl",
                    }
                    failed.error = f"crawl stage failed: {e}"
                    raise RefreshFailed("crawl", str(e)) from e
        with recorded_run(db, "refresh", details=details, started_at=at) as run:
            stage = _Stages(run, after_stage)
            result = _chain(
                db,
                config,
                stage,
                run.id,
                corrections,
                str(corrections_path),
                github,
                export_path,
                import_paths,
                progress,
                fresh_crawl,
                at,
            )
            run.counts = {"items": result.count, "saved": result.count}
            run.details = {"stages": stage.done, "score_run_id": result.score_run_id}
    finally:
        if own_client:
            github.close()
    result.stages = stage.done
    return result


def _chain(
    db: sqlite_utils.Database,
    config: Config,
    stage: _Stages,
    run_id: int,
    corrections: list[Any],
    corrections_source: str,
    github: GitHubClient,
    export_path: Path,
    import_paths: Sequence[str | Path] | None,
    progress: bool | None,
    fresh_crawl: bool,
    at: datetime | None,
) -> PipelineResult:
    saved: dict[str, Any] | None = None

    def fetch(name: str) -> RepoFetch:
        # A run reproduced from saved results (--from-file) finds a corrected repo in them first, so it
        # needs GitHub only for repos the files do not hold (an include of a repo no query found).
        nonlocal saved
        if import_paths:
            if saved is None:
                wanted = {c.repo.strip().lower() for c in corrections}
                saved = {}
                for _, raw in iter_saved_items(list(import_paths)):
                    found = raw.get("full_name") if isinstance(raw, dict) else None
                    if isinstance(found, str) and found.lower() in wanted:
                        saved[found.lower()] = raw
            item = saved.get(name.strip().lower())
            if item is not None:
                return RepoFetch("ok", name, item=item, full_name=item["full_name"])
        return fetch_repo(github, name)

    def do_resolve() -> tuple[list[Resolved], dict[str, Any]]:
        dropped = DroppedTopics()
        resolved = resolve_corrections(db, corrections, fetch, corrections_source, dropped)
        details: dict[str, Any] = {"entries": len(resolved)}
        if dropped:  # from a repo fetched by name, as a crawl says it of the repos it finds
            log.warning("corrections: %s", dropped.line())
            details["dropped_topics"] = dropped.as_dict()
        return resolved, details

    resolved = stage("corrections", do_resolve)

    def do_crawl() -> tuple[None, dict[str, Any]]:
        result = crawl(db, config, client=github, progress=progress, parent_id=run_id, fresh=fresh_crawl, at=at)
        if not result.complete:
            log.warning("crawl run %s was incomplete: nothing was delisted", result.run_id)
        return None, {
            "run_id": result.run_id,
            "complete": result.complete,
            "found": result.found,
            "new": result.new,
            "delisted": result.delisted,
            "requests": result.requests,
        }

    def do_import() -> tuple[None, dict[str, Any]]:
        result = import_files(db, list(import_paths or ()), min_stars=config.crawl.min_stars, parent_id=run_id)
        if result.dropped_topics:
            log.warning("import run %s: %s", result.run_id, result.dropped_topics.line())
        return None, {"run_id": result.run_id, "found": result.counts.items, "new": result.counts.new}

    if import_paths:
        stage("import", do_import)
    else:
        stage("crawl", do_crawl)

    # a correction of a repo the crawl did not bring in waits for it (no row to point at yet)
    resolved = pending_when_absent(db, resolved)

    def do_apply() -> tuple[None, dict[str, Any]]:
        with recorded_run(db, "corrections", parent_id=run_id) as child:
            counts = apply_corrections(db, resolved, min_stars=config.crawl.min_stars, run_id=child.id)
            child.counts, child.details = {"saved": counts["included"]}, counts
        return None, {"run_id": child.id, **counts}

    stage("apply-corrections", do_apply)
    categories: dict[int | str, str | tuple[str, str | None]] = {
        (r.repo_id if r.repo_id is not None else r.correction.repo): (r.correction.value or "", r.correction.reason)
        for r in resolved
        if r.correction.kind == "category"
    }

    def do_classify() -> tuple[None, dict[str, Any]]:
        # The file is the whole set: a correction removed from it goes back to the model.
        apply_category_corrections(db, categories, replace=True)
        result = classify_listed(
            db,
            uncertain_below=config.classify.uncertain_below,
            parent_id=run_id,
            cross_validate=config.classify.cross_validate,
        )
        return None, {"run_id": result.run_id, "category_corrections": len(categories)}

    stage("classify", do_classify)

    def do_score() -> tuple[int, dict[str, Any]]:
        result = score(db, publish_result=False, parent_id=run_id, started_at=at)
        return result.run_id, {"run_id": result.run_id}

    score_run = stage("score", do_score)

    # The new export file waits beside the old one until the database publishes the run: it is
    # renamed into place inside the publishing transaction (put back if its COMMIT fails), and
    # removed if publishing fails before that.
    with ExitStack() as pending_file:
        staged: list[StagedFile] = []

        def do_export() -> tuple[int, dict[str, Any]]:
            exported = pending_file.enter_context(
                staged_export(
                    db, export_path, score_run_id=score_run, parent_id=run_id, public_url=config.serve.public_url
                )
            )
            if exported.staged is not None:
                staged.append(exported.staged)
            return exported.count, {"agents": exported.count}

        count = stage("export", do_export)
        stage("publish", lambda: _publish(db, resolved, score_run, run_id, at, staged))
    return PipelineResult(run_id=run_id, score_run_id=score_run, export_path=export_path, count=count)


def _publish(
    db: sqlite_utils.Database,
    resolved: list[Resolved],
    score_run: int,
    run_id: int,
    at: datetime | None,
    staged: Sequence[StagedFile] = (),
) -> tuple[None, dict[str, Any]]:
    now = iso(at or utcnow())
    try:
        with write_transaction(db):
            save_corrections(db, correction_rows(resolved), run_id=run_id, at=now)
            publish(db, score_run, run_id, at=now)
            # The new export replaces the old one last, inside the transaction: a rename the system
            # refuses (a busy or immutable file) rolls the publish back, so the two never disagree.
            for file in staged:
                file.place()
    except BaseException as failed:
        # The COMMIT itself failed (a full disk, an I/O error, a constraint checked at commit) or the
        # run was stopped after the rename: the file it replaced goes back, so the export is never
        # ahead of the database.
        stuck: list[ExportError] = []
        for file in staged:
            try:
                file.restore()
            except ExportError as e:
                stuck.append(e)
        if stuck:
            raise stuck[0] from failed
        raise
    return None, {"score_run_id": score_run}


def check_output_path(path: Path, database: Path | None = None) -> None:
    """Fail before any stage runs when ``path`` cannot or must not be written: its nearest existing
    ancestor must be a directory (missing folders are created when the file is written, as
    ``mkdir -p``) that this process may write in, and it must not be the database or a file beside it
    (:func:`output_refusal`)."""
    refusal = output_refusal(path, database, sqlite=False)
    if refusal:
        raise RefreshFailed("export", f"cannot write {path}: {refusal}")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise RefreshFailed("export", f"cannot write {path}: {parent} is not a directory")
    # The export is staged and renamed in its folder (or the folders made in ``parent``): found only
    # at the export stage, an unwritable folder cost the week's crawl and scoring for nothing.
    if not os.access(parent, os.W_OK | os.X_OK):
        raise RefreshFailed("export", f"cannot write {path}: {parent} is not writable")


def refresh_database(
    db_path: str | Path, config: Config, *, what: str = "refresh", must_exist: bool = False, **options: Any
) -> PipelineResult:
    """Take the run lock, open the store and run the pipeline: the refresh command, the scheduler
    and the demo all start here. ``must_exist``: a missing database is an error, not a new one.
    ``options`` go to ``run_pipeline``."""
    if refusal := snapshot_refusal(db_path):  # before the lock file is created beside it
        raise DatabaseError(refusal)
    # Bad input changes nothing: the corrections file and the saved results are read before the
    # database (or its lock file) is created or opened and a run recorded, as `import` reads them.
    read_corrections(config)
    if options.get("import_paths"):
        check_files(options["import_paths"])
    # A refresh that fails on a database it created itself before it stored any repo (a first
    # refresh that never reached GitHub, say) takes that file away again, as a failed first `crawl`
    # leaves none: it held nothing but the failed run. Only the files it created, and only while it
    # holds the lock, so another run's files are never touched; a crawl's repos are always kept.
    new = [p for p in _store_files(db_path) if not p.exists()] if not Path(db_path).exists() else []
    with run_lock(db_path, what):
        empty = False
        try:
            db = open_store(db_path, check=True, must_exist=must_exist)
            try:
                return run_pipeline(db, config, **options)
            except Exception:  # a failure; an interrupted run stays recorded as interrupted
                with contextlib.suppress(Exception):  # a database that cannot say so is kept
                    empty = bool(new) and not db.execute("select 1 from repos limit 1").fetchone()
                raise
            finally:
                db.close()
        finally:
            for path in new if empty else []:
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)


def _store_files(db_path: str | Path) -> list[Path]:
    """The database file and what SQLite and the run lock put beside it."""
    path = Path(db_path)
    return [path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal"), lock_path(path)]


schedule_log = logging.getLogger("agentrank.schedule")


STALE_AFTER = timedelta(days=8)  # a weekly job with no success this long has missed a week: said loudly


def scheduled_refresh(db_path: str, config_path: str | None, *, must_exist: bool = False) -> bool | str:
    """Run one refresh under the run lock; configuration is read afresh for every run. False when it
    failed, ``schedules.jobs.SKIPPED`` when another command held the database (the scheduler tries
    either again later), True when it published. With
    ``must_exist`` (the database was there when the scheduler started, or a run has made it) a
    database that has gone is an error line, never silently replaced by a new, empty one."""
    started = time.monotonic()
    schedule_log.info("refresh starting (database %s)", db_path)
    if must_exist and not (Path(db_path).is_file() and Path(db_path).stat().st_size):
        schedule_log.error(
            "refresh not run: the database %s has gone (deleted or moved while the scheduler ran); "
            "restore it, or restart `agentrank schedule` to start a new one",
            db_path,
        )
        return False
    try:
        config = place_export_beside(load_config(config_path), db_path)  # where `refresh` writes it
        result = refresh_database(
            db_path, config, what="scheduled refresh", must_exist=must_exist, token=github_token(), progress=False
        )
    except LockHeld as e:
        # Another command holds the database: not a fault of this run (it is tried again). Only a
        # ranking more than a week out of date is an error; a database no refresh has published yet
        # (a first crawl still running, say) is not one for that.
        schedule_log.info("refresh skipped: %s", e)
        _say_if_stale(db_path, never_is_an_error=False)
        return SKIPPED
    except Exception as e:  # the scheduler keeps running and tries again
        schedule_log.error("refresh failed after %.0f s: %s", time.monotonic() - started, e)
        _say_if_stale(db_path)
        return False
    schedule_log.info(
        "refresh finished: run %s published score run %s, %s agents, in %.0f s",
        result.run_id,
        result.score_run_id,
        result.count,
        time.monotonic() - started,
    )
    return True


def _say_if_stale(db_path: str, *, never_is_an_error: bool = True) -> None:
    """An error line when no refresh has succeeded for more than a week and a day (the heartbeat an
    operator's log watch can alert on), or, after a failed run, ever on a database that exists."""
    if not Path(db_path).is_file():
        return
    try:
        since = last_successful_refresh(db_path)  # what the scheduler's catch-up check reads too
    except (sqlite3.Error, DatabaseError):
        return
    if since is None:
        if never_is_an_error:
            schedule_log.error("no refresh has succeeded on this database yet")
    elif utcnow() - since > STALE_AFTER:
        schedule_log.error(
            "no successful refresh for %d days (the last started %s): the published ranking is out of date",
            (utcnow() - since).days,
            iso(since),
        )
