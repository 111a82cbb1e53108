"""The ``agentrank`` command line: a thin layer that opens the database and calls the library."""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import shutil
import signal
import socket
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import sqlite_utils

from agentrank import __version__
from agentrank.errors import InputRefused
from schedules.stops import stop_signals

if TYPE_CHECKING:
    from agentrank.config import Config, ScheduleConfig
    from datasette_plugins.settings import ServeConfig

# Errors a user can cause: reported as one line on stderr with a non-zero exit, never a traceback.
# Named, not imported: each lives beside the code that raises it, and importing them all would make
# every command (even `agentrank --help`) load the whole library first. An exception counts when
# its class or a base class is named here.
USER_ERRORS = frozenset(
    {
        "leaderboard.ingest.AttemptFileError",
        "leaderboard.imports.LedgerFileError",
        "classify.examples.ClassifyError",
        "agentrank.config.ConfigError",
        "db.connection.DatabaseError",
        "agentrank.exporter.ExportError",
        "crawler.client.GitHubError",
        "agentrank.locks.LockHeld",
        "agentrank.errors.PipelineError",
        "datasette_plugins.settings.SettingError",
        "crawler.saved.SavedFileError",
        "db.snapshot.SnapshotError",
        "crawler.secrets.TokenError",
        "db.breakdown.UnknownRun",
        "agentrank.corrections.CorrectionsError",
        "agentrank.pipeline.RefreshFailed",
    }
)
# A value on the command line that is not accepted: one line, exit 2 (as click's own usage errors).
REFUSALS = frozenset({"agentrank.errors.InputRefused", "db.breakdown.UnknownRun"})


def is_one_of(exception: BaseException, names: frozenset[str]) -> bool:
    """Is ``exception`` an instance of a class named in ``names`` (module.qualname)?"""
    return any(f"{cls.__module__}.{cls.__qualname__}" in names for cls in type(exception).__mro__)


def redact(text: str) -> str:
    from crawler.secrets import redact as redact_token

    return redact_token(text)


class Refused(click.ClickException):
    exit_code = 2


class UsageRefused(click.ClickException):
    """A usage error (unknown option, bad value, missing argument) as one line, exit 2.

    Click prints a usage error as four lines (usage, a hint, a blank line, the error); the house
    rule is one clear line, so the hint goes at its end.
    """

    exit_code = 2

    @classmethod
    def of(cls, e: click.UsageError) -> UsageRefused:
        command = e.ctx.command_path if e.ctx is not None else "agentrank"
        return cls(redact(f"{e.format_message()} (see `{command} --help`)"))


def _remove_new_files(ctx: click.Context) -> None:
    if isinstance(ctx.obj, State):
        ctx.obj.remove_new_files()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so every Ctrl-C path (rollback, run marked) applies."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def _terminate_like_ctrl_c() -> dict[signal.Signals, Any]:
    """Install the SIGTERM (and SIGHUP) handler; the ones it replaced, none where signals cannot be set."""
    previous: dict[signal.Signals, Any] = {}
    try:
        for signum in stop_signals():
            previous[signum] = signal.signal(signum, _raise_terminated)
    except ValueError:  # not the main thread (an embedding program's worker): leave signals alone
        pass
    return previous


class AgentRankGroup(click.Group):
    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as e:
            raise UsageRefused.of(e) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # A subcommand's --help shows even with a bad config file (the group's callback reads it).
        ctx.meta["agentrank.help"] = "--help" in args
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        # SIGTERM (systemctl stop, kill), or SIGHUP (its terminal closed), ends a command the way Ctrl-C does: its run is recorded as
        # interrupted, its transaction rolled back, one line said. By default Python dies silently and
        # leaves the run "running" until another command takes the lock. `schedule` and `serve`
        # install their own handlers while they run.
        previous = _terminate_like_ctrl_c()
        try:
            return self._invoke(ctx)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM (Terminated): click would print only "Aborted!". The run is already
            # recorded as interrupted and its open transaction rolled back; say what is left.
            if ctx.invoked_subcommand == "crawl":
                raise click.ClickException(
                    "interrupted: the pages fetched so far are saved; run `agentrank crawl` again to resume"
                ) from None
            raise click.ClickException(
                "interrupted: what the command had not finished was rolled back, and its run is recorded as interrupted"
            ) from None
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as e:
            raise UsageRefused.of(e) from None
        except click.ClickException as e:
            cleaned = redact(e.message)  # a value quoted back (a URL, a path) may hold the token
            if cleaned == e.message:
                raise
            raise (Refused if e.exit_code == Refused.exit_code else click.ClickException)(cleaned) from None
        except Exception as e:
            if is_one_of(e, REFUSALS):
                _remove_new_files(ctx)
                raise Refused(redact(str(e))) from None
            if is_one_of(e, USER_ERRORS):
                _remove_new_files(ctx)
                raise click.ClickException(redact(str(e))) from None
            if isinstance(e, sqlite3.OperationalError):
                if "locked" in str(e) or "busy" in str(e):
                    from db.connection import BUSY_TIMEOUT_MS

                    # A long write by another command (a large import) outlasted the busy timeout.
                    raise click.ClickException(
                        f"database error: {e}: another command has been writing to it for more than "
                        f"{BUSY_TIMEOUT_MS // 1000} s; try again when it has finished"
                    ) from None
                raise click.ClickException(redact(f"database error: {e}")) from None
            if isinstance(e, sqlite3.DatabaseError):  # "malformed", "not a database": damage found while reading
                from db.connection import DAMAGED

                raise click.ClickException(redact(f"database error: {e}; {DAMAGED}")) from None
            if isinstance(e, OSError):  # a read-only or full file system, a folder that vanished
                where = f"{e.filename}: " if e.filename else ""
                raise click.ClickException(redact(f"{where}{e.strerror or e}")) from None
            raise


class State:
    def __init__(self, db_path: str, config_path: str | None):
        self.db_path = Path(db_path)
        self.config_path = config_path
        self._config: Config | None = None
        self.locked = False
        # What this command created, so a command refused for bad input can take it away again.
        self._new_files: list[Path] = []
        self._opened: list[sqlite_utils.Database] = []

    @property
    def config(self) -> Config:
        if self._config is None:
            from agentrank.config import load_config, place_export_beside

            # GITHUB_API_URL is read by the commands that contact GitHub (github_api_url): a bad one
            # fails them, not every command, and never one given --api-url.
            # Unless the configuration names it, the export sits beside the database.
            self._config = place_export_beside(load_config(self.config_path, environ={}), self.db_path)
        return self._config

    def open(self, *, must_exist: bool = False, check: bool = False) -> sqlite_utils.Database:
        """The database; with ``must_exist`` a missing file is one line, and nothing is created.
        A command that writes (holding the lock), or publishes (``check``), first checks the file
        is sound: a damaged one is refused, not written into or published from."""
        from db.runs import UNRESUMABLE_KINDS, mark_interrupted
        from db.store import open_store

        if not self.db_path.exists():
            self._new_files += [self.db_path, *(Path(f"{self.db_path}{end}") for end in ("-wal", "-shm", "-journal"))]
        db = open_store(self.db_path, must_exist=must_exist, check=check or self.locked)
        self._opened.append(db)
        if self.locked:
            # This process holds the run lock, so a run still marked running was killed.
            mark_interrupted(db, UNRESUMABLE_KINDS)
        return db

    @contextmanager
    def only_scheduler(self) -> Iterator[None]:
        """Be the only ``agentrank schedule`` on the database, or refuse in one line; a lock file this
        command creates goes again if it is refused later (a damaged database, say)."""
        from agentrank.locks import schedule_lock, schedule_lock_path

        if not schedule_lock_path(self.db_path).exists():
            self._new_files.append(schedule_lock_path(self.db_path))
        with schedule_lock(self.db_path):
            yield

    @contextmanager
    def lock(self, what: str, *, must_exist: bool = False) -> Iterator[None]:
        from agentrank.locks import lock_path, run_lock
        from db.connection import refuse_read_only, snapshot_refusal

        if refusal := snapshot_refusal(self.db_path):  # a published copy: refused before anything opens it
            raise click.ClickException(redact(refusal))
        refuse_read_only(self.db_path, "this command writes into it")  # before must_exist opens it
        if must_exist:
            self.open(must_exist=True).close()  # fail before the lock file is created
        if not lock_path(self.db_path).exists():
            self._new_files.append(lock_path(self.db_path))
        with run_lock(self.db_path, what):
            self.locked = True
            try:
                yield
            finally:
                self.locked = False

    def remove_new_files(self) -> None:
        """After a refused command: remove the database and lock file it created, unless it recorded
        a run in them (a crawl cut short keeps what it fetched, to resume)."""
        if self.db_path not in self._new_files:
            # The database was there before: only a lock file this command made goes (the file
            # itself is locked too while a command writes, so another run is never left unguarded).
            for path in self._new_files:
                path.unlink(missing_ok=True)
            return
        for db in self._opened:
            db.close()
        from db.runs import file_has_runs

        if file_has_runs(self.db_path):
            return
        for path in self._new_files:
            path.unlink(missing_ok=True)


pass_state = click.make_pass_decorator(State)


PUBLIC_URL_HELP = "Where the directory is served, https://… (overrides [serve] public_url)"


def public_url_option() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option("--public-url", "public_url", default=None, metavar="URL", help=PUBLIC_URL_HELP)


def warn_public_url(url: str) -> None:
    """A loud warning on stderr when ``url`` cannot be the public address, with how to set it."""
    from datasette_plugins.settings import HOW_TO_SET_PUBLIC_URL, public_url_problem

    problem = public_url_problem(url)
    if problem:
        click.echo(f"WARNING: {problem}; {HOW_TO_SET_PUBLIC_URL}", err=True)


def out_option(help: str, *, required: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--out PATH`` option of the commands that write a file."""
    if required:  # (no default at all: click 8.3+ takes an explicit default=None as given, not missing)
        return click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help=help)
    return click.option("--out", "out", default=None, type=click.Path(dir_okay=False), help=help)


def refuse_empty(option: str, value: str | None, advice: str) -> None:
    """An option given as '' (``--out "$UNSET"``) is refused in one line, never read as not given."""
    if value is not None and not value.strip():
        raise click.ClickException(f"{option} {value!r}: {advice}")


def check_out(out: str | None, example: str = "site/agentrank.json") -> None:
    """Refuse an ``--out`` that names no file: empty, or a folder (``x/`` wrote a file named ``x``)."""
    from agentrank.config import names_a_folder

    refuse_empty("--out", out, f"give the file to write, e.g. --out {example}")
    if out is not None and names_a_folder(out):
        raise click.ClickException(f"--out {out!r}: names a folder; give a file in it, e.g. --out {example}")


API_URL_ADVICE = "give GitHub's API base URL, e.g. --api-url https://api.github.com"


@click.group(cls=AgentRankGroup)
@click.version_option(__version__, prog_name="agentrank")
@click.option(
    "--db",
    "db_path",
    default="agentrank.db",
    show_default=True,
    envvar="AGENTRANK_DB",
    type=click.Path(dir_okay=False),
    help="SQLite database file (env AGENTRANK_DB)",
)
@click.option(
    "--config",
    "config_path",
    default=None,
    envvar="AGENTRANK_CONFIG",
    type=click.Path(dir_okay=False),
    help="TOML configuration file (env AGENTRANK_CONFIG)",
)
@click.option("-v", "--verbose", is_flag=True, help="Log progress details to stderr")
@click.pass_context
def cli(ctx: click.Context, db_path: str, config_path: str | None, verbose: bool) -> None:
    "AgentRank: the most-starred open-source AI agents on GitHub, scored 0-100 from public data."
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    from crawler.secrets import register_secret

    # The token is a secret from the first line on: any error that quotes a value holding it (a URL,
    # a config path) prints it redacted, whether or not the command uses GitHub.
    register_secret(os.environ.get("GITHUB_TOKEN", "").strip() or None)
    # A name ending in a folder (data/, ., data/.): as agentrank.config.names_a_folder, not imported
    # here so that `agentrank CMD --help` does not load the configuration's models.
    if not db_path.strip() or os.path.basename(db_path) in ("", ".", ".."):
        raise Refused(f"--db {db_path!r}: give the database's file name (e.g. agentrank.db)")
    ctx.obj = State(db_path, config_path)
    # A bad config file fails every command, before it does anything; a command's --help still shows.
    if not ctx.meta.get("agentrank.help"):
        _ = ctx.obj.config


def is_demo_file(path: Path) -> bool:
    from db.demo import file_demo_marker

    return path.exists() and file_demo_marker(path) is not None


def _demo_database(state: State, api_url: str | None) -> bool:
    """Is this the demo's database, with GitHub's API not named by the user?"""
    from agentrank.config import GitHubConfig
    from db.demo import file_demo_marker

    named = api_url or os.environ.get("GITHUB_API_URL") or state.config.github.api_url != GitHubConfig().api_url
    return not named and state.db_path.exists() and file_demo_marker(state.db_path) is not None


@cli.command()
@click.option(
    "--api-url",
    default=None,
    metavar="URL",
    help="GitHub API base URL (default: env GITHUB_API_URL, then github.api_url, then api.github.com)",
)
@click.option("--fresh", is_flag=True, help="Start a new crawl instead of resuming an unfinished one")
@pass_state
def crawl(state: State, api_url: str | None, fresh: bool) -> None:
    "Search GitHub for agent repos and upsert them; an interrupted crawl resumes where it stopped"
    from agentrank.crawl import crawl as run_crawl

    refuse_empty("--api-url", api_url, API_URL_ADVICE)  # it crawled the default instead
    if _demo_database(state, api_url):
        raise click.ClickException(
            f"{state.db_path} is the demo database (synthetic repos): `agentrank refresh` moves the demo on a week; "
            "to crawl GitHub use another database, e.g. agentrank --db mine.db crawl"
        )
    from agentrank.config import github_api_url
    from crawler.secrets import github_token

    token = github_token()
    config = state.config
    url = github_api_url(config, api_url)
    with state.lock("crawl"):
        db = state.open()
        result = run_crawl(db, config, api_url=url, token=token, fresh=fresh)
    click.echo(result.summary())


@cli.command()
@click.option("--api-url", default=None, metavar="URL", help="GitHub API base URL (as for crawl)")
@click.option(
    "--from-file",
    "from_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Saved search results to use instead of crawling (repeatable): reproduces a run from saved data (a corrected repo is looked up in them before GitHub)",
)
@out_option("Where the site JSON goes (default: export.path from the config, else beside the database: DB-export.json)")
@pass_state
def refresh(state: State, api_url: str | None, from_files: tuple[str, ...], out: str | None) -> None:
    """The weekly job: crawl, corrections, classify, score and export as one run; publishes only if all succeed

    On the demo database (built by `agentrank demo`) without --api-url or --from-file, the week is
    crawled from the demo's GitHub emulator instead, so the demo moves on a week.
    """
    from agentrank.progress import Report, stage_ticker

    check_out(out)  # as `export --out ''`: never a silent fall back to the default
    refuse_empty("--api-url", api_url, API_URL_ADVICE)
    report = Report()
    if _demo_database(state, api_url) and not from_files:
        from agentrank.demo import refresh_demo

        demo_result = refresh_demo(state.db_path, Path(out or state.config.export.path), state.config, report=report)
        report.close()
        click.echo(demo_result.summary())
        return
    from agentrank.config import github_api_url
    from agentrank.pipeline import refresh_database
    from crawler.client import check_api_url
    from crawler.secrets import github_token

    url = github_api_url(state.config, api_url)
    if not from_files:  # a URL that cannot be used is refused before the database is touched
        check_api_url(url)
    try:
        result = refresh_database(
            state.db_path,
            state.config,
            export_path=out,
            import_paths=list(from_files) or None,
            api_url=url,
            token=github_token(),
            after_stage=stage_ticker(report, "refresh: "),
        )
    finally:
        report.close()
    click.echo(result.summary())


@cli.command()
@click.option(
    "--next",
    "next_count",
    type=click.IntRange(1, 1000),
    default=None,
    metavar="N",
    help="Print the next N fire times and exit",
)
@pass_state
def schedule(state: State, next_count: int | None) -> None:
    "Run the weekly refresh forever (apscheduler); --next N prints the next N fire times"
    from schedules.weekly import next_fire_times, weekly_trigger

    cfg = state.config.schedule
    trigger = weekly_trigger(cfg.day_of_week, cfg.hour, cfg.minute)
    if next_count:
        for when in next_fire_times(trigger, next_count):
            click.echo(f"{when.isoformat()} {when:%A}")
        return
    if _demo_database(state, None):  # its weekly refresh would crawl GitHub into synthetic data
        raise click.ClickException(
            f"{state.db_path} is the demo database (synthetic repos): `agentrank refresh` moves the demo on a week; "
            "to schedule the weekly crawl use another database, e.g. agentrank --db mine.db schedule"
        )
    # A database every run would refuse (a missing folder, a damaged file, a newer schema, a snapshot),
    # or a GITHUB_API_URL every run would (each reads the configuration afresh), is refused now, in
    # one line, rather than logged and failed every week while the process looks fine.
    from agentrank.config import github_api_url

    github_api_url(state.config)
    with state.only_scheduler():  # a second scheduler on the database is refused before it opens it
        _schedule(state, cfg, trigger)


def _schedule(state: State, cfg: ScheduleConfig, trigger: Any) -> None:
    """The scheduler itself, once it is the only one on the database."""
    from agentrank.pipeline import scheduled_refresh
    from schedules.jobs import last_successful_refresh
    from schedules.weekly import next_fire_times, run_forever

    state.open(check=True).close()
    logging.getLogger("agentrank").setLevel(logging.INFO)
    click.echo(
        f"weekly refresh of {state.db_path}: {cfg.day_of_week} {cfg.hour:02d}:{cfg.minute:02d} UTC; "
        f"next {next_fire_times(trigger, 1)[0]:%a %Y-%m-%d %H:%M UTC} (Ctrl-C to stop)"
    )
    # A database that was there (at start-up, or made by a run since) and has gone is said every run,
    # not replaced by a new, empty one that would publish a ranking without its history.
    existed = state.db_path.is_file()

    def weekly_job() -> bool | str:
        nonlocal existed
        _say_if_schedule_changed(state.config_path, cfg)
        outcome = scheduled_refresh(str(state.db_path), state.config_path, must_exist=existed)
        existed = existed or state.db_path.is_file()
        return outcome

    run_forever(
        weekly_job,
        last_successful_refresh(state.db_path),
        lambda: last_successful_refresh(state.db_path),  # asked again before each run
        day_of_week=cfg.day_of_week,
        hour=cfg.hour,
        minute=cfg.minute,
        misfire_grace_s=cfg.misfire_grace_s,
        retry_after_s=cfg.retry_after_s,
    )


def _say_if_schedule_changed(config_path: str | None, running: ScheduleConfig) -> None:
    """Each run reads the configuration afresh, but the weekly time is set when the scheduler starts:
    an edited [schedule] was silently ignored until a restart. Say so at each run."""
    from agentrank.config import ConfigError, load_config

    try:
        now = load_config(config_path, environ={}).schedule
    except ConfigError:
        return  # the run itself says what is wrong with the file
    if now != running:
        logging.getLogger("agentrank.schedule").warning(
            "the [schedule] settings in %s changed since the scheduler started (%s %02d:%02d UTC now): "
            "restart `agentrank schedule` for them to apply",
            config_path,
            now.day_of_week,
            now.hour,
            now.minute,
        )


@cli.command(name="import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option(
    "--observed-at",
    "observed_at",
    default=None,
    metavar="ISO8601",
    help="When the saved results were fetched from GitHub (default: now); the snapshots and deltas fall on it",
)
@pass_state
def import_(state: State, files: tuple[str, ...], observed_at: str | None) -> None:
    "Load saved GitHub search results from FILES (JSON lists of items or saved response pages; - reads stdin) as if crawled"
    from agentrank.importer import import_files, parse_observed_at

    config = state.config
    if observed_at is not None:
        parse_observed_at(observed_at)  # a bad value is bad usage (exit 2), refused before stdin is read
    with ExitStack() as stack:
        # A pipe (`-`, /dev/stdin, a process substitution) is read once into a temporary file: saved
        # results are read in two passes (their shape, then their items), which a pipe cannot give.
        paths: list[str | Path] = []
        shown: dict[str, str] = {}  # a temporary file's name → what the user gave
        for name in files:
            if name == "-" or not Path(name).is_file():
                spool = stack.enter_context(tempfile.NamedTemporaryFile(suffix=".json"))
                with click.open_file(name, "rb") as source:
                    shutil.copyfileobj(source, spool)
                spool.flush()
                paths.append(spool.name)
                shown[spool.name] = "stdin" if name == "-" else name
            else:
                paths.append(name)
        try:
            with state.lock("import"):
                db = state.open()
                result = import_files(db, paths, min_stars=config.crawl.min_stars, observed_at=observed_at)
        except Exception as e:
            # The refusal names the file it read; for a pipe that was the temporary copy
            # (/tmp/tmpXXXX.json), which the user never saw: name what they gave instead.
            message = str(e)
            if (
                not any(temporary in message for temporary in shown)
                or len(e.args) != 1
                or not isinstance(e.args[0], str)
            ):
                raise
            for temporary, name in shown.items():
                message = message.replace(temporary, name)
            raise type(e)(message) from None
    click.echo(result.summary())
    if result.note:
        click.echo(f"Note: {result.note}", err=True)


@cli.command(name="redate-run")
@click.argument("run_id", metavar="RUN", type=click.IntRange(1, 2**63 - 1))
@click.option("--to", "to", required=True, metavar="ISO8601", help="When the run really started (UTC if no zone)")
@pass_state
def redate_run(state: State, run_id: int, to: str) -> None:
    """Move RUN, recorded with a clock that was ahead, to when it really happened (then score again)

    Every time RUN and its stages recorded moves by the same offset: the runs, the snapshots, when
    each repo and name was seen, the scores', the publication's and the classifications' times. It
    must be the latest run, and --to must lie after the run before it and not in the future. The
    scores it computed counted ages to the wrong time: run `agentrank score` afterwards.
    """
    from crawler.items import parse_instant
    from db.redate import RedateRefused
    from db.redate import redate_run as move_run
    from db.runs import utcnow

    try:
        when = parse_instant(to)
    except ValueError as e:
        raise InputRefused(f"--to {to!r}: {e}") from None
    with state.lock("redate-run", must_exist=True):
        db = state.open()
        try:
            result = move_run(db, run_id, when, now=utcnow())
        except RedateRefused as e:
            raise InputRefused(f"redate-run {run_id}: {e}") from None
    moved = ", ".join(f"{name} {count}" for name, count in result.rows.items())
    click.echo(
        f"run {run_id} moved from {result.old_start} to {result.new_start} with runs "
        f"{', '.join(map(str, result.runs))} ({moved}); run `agentrank score` to score as of the right time"
    )


# Exit status of import-attempts when some records were rejected (the valid ones are stored).
EXIT_RECORDS_REJECTED = 3


@cli.command(name="import-attempts")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--verified",
    is_flag=True,
    help='The operator vouches for the file: its tier "verified" records go on the verified board '
    "(without it they are rejected; community records import either way)",
)
@pass_state
def import_attempts(state: State, file: str, verified: bool) -> None:
    """Load task-benchmark attempts from FILE (one JSON object, a JSON list, or JSON Lines); recompute the leaderboards

    Re-importing an attempt updates it in place (same tier, agent, version, model, settings, suite,
    run, task and attempt number; the run defaults to the attempt's date), so importing a file
    twice changes nothing. A record saying tier "verified"
    is rejected unless the operator passes --verified: a submitted file cannot assert it.

    \b
    Exit status:
      0  every record was imported
      1  nothing was imported: the file is not attempts, or not one record is valid (one line on
         stderr says why); the database is unchanged
      2  bad usage (missing file, unknown option)
      3  some records were rejected (one line each on stderr); the valid ones were imported
    """
    from agentrank.benchmark import prepare_methods
    from leaderboard.ingest import import_attempts as load_attempts
    from leaderboard.ingest import read_attempts

    read = read_attempts(file, verified=verified)  # a file with nothing to import is refused before any write
    with state.lock("import-attempts"):
        db = state.open()
        prepare_methods(db, state.config)
        result = load_attempts(db, read)
    for line in result.errors:
        click.echo(line, err=True)
    c = result.counts
    click.echo(
        f"import-attempts run {result.run_id}: {result.records} records from {file}: {c.saved} attempts "
        f"saved ({c.new} new, {c.updated} updated, {c.unchanged} unchanged), "
        f"{len(result.errors)} rejected"
    )
    if result.errors:
        click.get_current_context().exit(EXIT_RECORDS_REJECTED)


def _ledger_import(state: State, kind: str, file: str, **options: Any) -> None:
    from agentrank.benchmark import import_ledger_file

    with state.lock(kind):
        db = state.open()
        result = import_ledger_file(db, state.config, kind, file, **options)
    click.echo(f"{kind} run {result.run_id}: {result.saved} saved from {file} ({result.detail})")


@cli.command(name="import-tasks")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--leave-uncounted",
    is_flag=True,
    help="Accept a file that leaves attempted tasks of its suites without a record (their attempts stop counting)",
)
@pass_state
def import_tasks(state: State, file: str, leave_uncounted: bool) -> None:
    """Load benchmark tasks with their validation from FILE (JSON object, list or JSON Lines); recompute

    A task counts once its untouched code fails the hidden tests and its reference fix passes
    them all; attempts at other tasks of the suite are kept and shown apart with the reason.
    A file giving a suite its first records that would leave attempted tasks of the suite without
    one is refused unless --leave-uncounted is given. A bad file changes nothing (one line on stderr, exit 1).
    """
    _ledger_import(state, "import-tasks", file, leave_uncounted=leave_uncounted)


@cli.command(name="import-prices")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@pass_state
def import_prices(state: State, file: str) -> None:
    """Load model list prices from FILE (TOML [[price]]: model, from, input, cached_input, cache_write, output)

    Attempts with tokens and no cost get the list-price cost in force on their date; a model
    without a price stays "price unknown". A bad file changes nothing (one line, exit 1).
    """
    _ledger_import(state, "import-prices", file)


@cli.command(name="import-assessments")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@pass_state
def import_assessments(state: State, file: str) -> None:
    """Load FitScore assessments from FILE (TOML [method] and [[assessment]]); recompute the FitScores

    Quality, reliability and speed (median wall time against the task's limit) come from the
    attempts, the other criteria from the file, and a criterion the file gives wins; a published
    figure that does not recompute is reported and marked. A bad file changes nothing.
    """
    _ledger_import(state, "import-assessments", file)


@cli.command()
@click.option(
    "--only-changed",
    is_flag=True,
    help="Only repos that are new, changed (name, description, topics) or classified by another model",
)
@click.option(
    "--evaluate",
    "evaluate_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Score the model on a labelled CSV (full_name, description, topics, category, second_category); no database",
)
@click.option(
    "--repos",
    "repos_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Descriptions and topics by full_name (CSV or search-items JSON) for an --evaluate file without them",
)
@click.option(
    "--survey",
    "survey_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Classify unlabelled repos (search-items JSON or CSV): category mix and share uncertain; no database",
)
@click.option(
    "--source",
    "survey_source",
    metavar="PREFIX",
    default=None,
    help="With --survey: only the CSV rows whose source column starts with PREFIX (each repo once)",
)
@click.option("--cross-validate", is_flag=True, help="k-fold cross-validation on the bundled training set")
@click.option("--folds", type=click.IntRange(2, 20), default=5, show_default=True, help="Folds for --cross-validate")
@click.option(
    "--held-out", is_flag=True, help="Score the model on the bundled held-out examples (never trained on); no database"
)
@pass_state
def classify(
    state: State,
    only_changed: bool,
    evaluate_path: str | None,
    repos_path: str | None,
    survey_path: str | None,
    survey_source: str | None,
    cross_validate: bool,
    folds: int,
    held_out: bool,
) -> None:
    "Assign a category to every listed repo, or evaluate the classifier"
    # An empty name (an unset "$FILE" in a script) is not a missing option: it would classify the
    # database, a write, where a read-only report was asked for.
    for option, given in (("--evaluate", evaluate_path), ("--repos", repos_path), ("--survey", survey_path)):
        if given == "":
            raise click.UsageError(f"{option} needs a file name (it was empty)")
    if repos_path and not evaluate_path:
        raise click.UsageError("--repos goes with --evaluate")
    if survey_source is not None and not survey_path:
        raise click.UsageError("--source goes with --survey")
    folds_given = click.get_current_context().get_parameter_source("folds") != click.core.ParameterSource.DEFAULT
    if folds_given and not cross_validate:
        raise click.UsageError("--folds goes with --cross-validate")
    modes = [
        name
        for name, given in (
            ("--evaluate", evaluate_path),
            ("--survey", survey_path),
            ("--held-out", held_out),
            ("--cross-validate", cross_validate),
        )
        if given
    ]
    if only_changed and modes:
        raise click.UsageError(
            "--only-changed is for classifying the database; --evaluate, --survey, --held-out and "
            "--cross-validate read no database"
        )
    if len(modes) > 1:  # two reports asked for at once: one was silently not run
        raise click.UsageError(f"{' and '.join(modes)} are two reports: give one of them per run")
    if modes:
        from classify import evaluate as ev

        uncertain_below = state.config.classify.uncertain_below
        if evaluate_path:
            click.echo(ev.evaluation_report(evaluate_path, uncertain_below=uncertain_below, repos=repos_path))
        elif survey_path:
            click.echo(ev.survey_report(survey_path, uncertain_below=uncertain_below, source=survey_source))
        elif held_out:
            click.echo(ev.held_out_report(uncertain_below=uncertain_below))
        else:
            click.echo(ev.cross_validation_report(folds, uncertain_below=uncertain_below))
        return
    from agentrank.classifier import classify_listed
    from agentrank.errors import PipelineError
    from db.repos import count_listed

    with state.lock("classify", must_exist=True):
        db = state.open()
        if not count_listed(db.conn):
            raise PipelineError(
                f"no listed repos in {state.db_path} to classify: run `agentrank crawl` or import first"
            )
        result = classify_listed(
            db,
            uncertain_below=state.config.classify.uncertain_below,
            only_changed=only_changed,
            cross_validate=state.config.classify.cross_validate,
        )
    click.echo(result.summary())


@cli.command()
@click.option(
    "--as-of",
    "as_of",
    default=None,
    help="ISO 8601 instant to score as of (default: the start of the latest crawl/import)",
)
@click.option(
    "--force", is_flag=True, help="Score an --as-of in the future or before the data, or after an unfinished crawl"
)
@pass_state
def score(state: State, as_of: str | None, force: bool) -> None:
    """Compute the AgentRank Score for every listed repo and publish the ranking

    An --as-of in the future (beyond a few minutes of clock skew) or before the latest crawl/import
    fetched the data is refused (one line, exit 2, nothing written) unless --force: then ages and
    days since the last push are counted to it. Date saved results with `import --observed-at`.
    So is any score while the latest crawl stopped unfinished (it saved part of its data): resume
    it with `agentrank crawl`, or --force to score what is stored.
    """
    from agentrank.scorer import score as score_listed

    with state.lock("score", must_exist=True):
        db = state.open()
        result = score_listed(db, as_of=as_of, check=not force)
    click.echo(result.summary())


@cli.command()
@out_option("Where to write the JSON (default: export.path from the config, else beside the database: DB-export.json)")
@public_url_option()
@pass_state
def export(state: State, out: str | None, public_url: str | None) -> None:
    "Write the site JSON of the published ranking, atomically"
    from agentrank.exporter import export as write_export

    check_out(out)
    path = state.config.export.path if out is None else out  # an empty --out is refused, not the default
    serve_config = serve_settings(state, {"public_url": public_url})
    from db.connection import refuse_read_only

    refuse_read_only(state.db_path, "export records its run in the database, so it cannot export from a read-only copy")
    db = state.open(must_exist=True, check=True)
    result = write_export(db, path, public_url=serve_config.public_url)
    click.echo(f"wrote {result.path}: {result.count} agents as of {result.as_of}")
    if not is_demo_file(state.db_path):  # the demo's export is looked at here, not published
        warn_public_url(serve_config.public_url)


@cli.command()
@click.argument("full_name", metavar="OWNER/REPO")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output")
@click.option("--run", "run_id", type=int, default=None, help="A score run id (default: the published run)")
@click.option(
    "--since",
    default=None,
    metavar="PREVIOUS",
    help="Explain the change since an earlier score run: 'previous', a run id, or an ISO date "
    "(the score run in force then)",
)
@pass_state
def explain(state: State, full_name: str, as_json: bool, run_id: int | None, since: str | None) -> None:
    "OWNER/REPO's score breakdown (an earlier name or a GitHub URL works too): each component, its points, what would move it"
    from db.breakdown import load_breakdown, load_change
    from scoring.explain import format_breakdown, format_change

    full_name = repo_name(full_name)
    if since is not None and not since.strip():  # it explained the score, not a change
        raise InputRefused(f"--since {since!r}: give 'previous', a score run id or an ISO date")
    db = state.open(must_exist=True)
    formatter: Callable[[dict[str, Any]], str]
    if since is not None:
        result = load_change(db.conn, full_name, since, run_id)
        formatter = format_change
    else:
        result = load_breakdown(db.conn, full_name, run_id)
        formatter = format_breakdown
    if result is None:
        from db.directory import similar_names

        close = similar_names(db.conn, full_name)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise click.ClickException(
            f"unknown repository: {full_name} is not in {state.db_path} (under this or an earlier name){hint}"
        )
    click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else formatter(result))


_GITHUB_URL = re.compile(r"^(?:https?://)?(?:www\.)?github\.com/([^/\s]+)/([^/\s?#]+?)(?:\.git)?(?:[/?#].*)?$", re.I)


def repo_name(value: str) -> str:
    """OWNER/REPO from ``value`` (OWNER/REPO or a github.com URL), or InputRefused naming it."""
    from crawler.items import is_full_name

    value = value.strip()
    match = _GITHUB_URL.match(value)
    name = f"{match.group(1)}/{match.group(2)}" if match else value
    if not is_full_name(name):  # any name an import may have stored, not only GitHub's own
        raise InputRefused(f"{value!r}: not a repository; give OWNER/REPO or https://github.com/OWNER/REPO")
    return name


def serve_settings(state: State, overrides: dict[str, Any]) -> ServeConfig:
    """The [serve] config with command-line overrides (None means "not given") applied."""
    return state.config.serve.with_overrides({k: v for k, v in overrides.items() if v is not None})


def snapshot_public_url(db_path: Path, config: ServeConfig) -> ServeConfig:
    """A snapshot made with ``--public-url`` serves with that address (its metadata file beside it
    says it, as ``datasette serve -m`` would read it) unless this command or the config names one."""
    from datasette_plugins.settings import is_loopback
    from db.snapshot import metadata_path_for

    meta = metadata_path_for(db_path)
    if "public_url" in config.model_fields_set or not meta.is_file():
        return config
    try:
        url = json.loads(meta.read_text(encoding="utf-8"))["plugins"]["agentrank"]["public_url"]
        if is_loopback(url):
            return config  # made without one: the links follow the port this server listens on
        return config.with_overrides({"public_url": url})
    except (OSError, ValueError, KeyError, TypeError):  # (a SettingError is a ValueError)
        return config  # not a snapshot's metadata, or a damaged one: the server's own address


def follow_port(config: ServeConfig) -> ServeConfig:
    """Unless ``public_url`` is set, the pages' absolute links (badge snippets, feeds) name the host
    and port this server really listens on, not the default :8001."""
    if "public_url" in config.model_fields_set:
        return config
    host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    host = f"[{host}]" if ":" in host else host
    return config.with_overrides({"public_url": f"http://{host}:{config.port}"})


SETTING_HELP = "Override one [serve] setting for this run, e.g. --setting sql_time_limit_ms 500 (repeatable)"


def check_port(host: str, port: int) -> None:
    """Fail with one line, before any URL is printed, when Datasette could not listen there; the
    line says whether the host or the port is the trouble."""
    from datasette_plugins.settings import LISTEN_EXAMPLES

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            s.bind((host, port))
        except (socket.gaierror, UnicodeError) as e:  # not an address, and no name that resolves
            raise click.ClickException(
                f"host {host!r}: not an address or a host name this machine knows ({getattr(e, 'strerror', None) or e}); "
                f"give one of its addresses, {LISTEN_EXAMPLES}"
            ) from None
        except OSError as e:
            if e.errno == errno.EADDRNOTAVAIL:
                raise click.ClickException(
                    f"host {host}: not an address of this machine ({e.strerror}); give one of its addresses, "
                    f"{LISTEN_EXAMPLES}"
                ) from None
            raise click.ClickException(
                f"cannot listen on {host}:{port} ({e.strerror or e}): is another server using it? "
                "Choose another with --port N"
            ) from None


@cli.command()
@click.option("--host", default=None, help="Interface to bind (default from config: 127.0.0.1)")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port (default from config: 8001)")
@click.option(
    "--immutable",
    is_flag=True,
    default=None,
    help="Open the file with immutable=1: for a snapshot nothing writes to (caching, counts once)",
)
@click.option("--setting", "settings", type=(str, str), multiple=True, metavar="NAME VALUE", help=SETTING_HELP)
@public_url_option()
@click.option(
    "--public",
    is_flag=True,
    help="This is the public server: refuse a loopback or plain-http public_url",
)
@pass_state
def serve(
    state: State,
    host: str | None,
    port: int | None,
    immutable: bool | None,
    settings: tuple[tuple[str, str], ...],
    public_url: str | None,
    public: bool,
) -> None:
    "Datasette over the database: read-only, bounded, with the project's plugins and metadata"
    from agentrank.serve import serve as run_datasette
    from datasette_plugins.settings import HOW_TO_SET_PUBLIC_URL, LISTEN_EXAMPLES, public_url_problem
    from db.connection import immutable_refusal

    if host is not None and not host.strip():  # it listened on every interface
        raise InputRefused(f"--host {host!r}: give an address to listen on, {LISTEN_EXAMPLES}")
    overrides: dict[str, Any] = dict(settings)
    # A flag wins over a --setting of the same name; without the flag the --setting stays.
    flags = {"host": host, "port": port, "immutable": immutable, "public_url": public_url}
    overrides.update({name: value for name, value in flags.items() if value is not None})
    config = snapshot_public_url(state.db_path, serve_settings(state, overrides))
    problem = public_url_problem(config.public_url)
    if problem and public:
        raise click.ClickException(f"--public: {problem}; {HOW_TO_SET_PUBLIC_URL}")
    if not state.db_path.exists():
        state.open(must_exist=True)  # one line: no database there, and how to make one
    if config.immutable and (refusal := immutable_refusal(state.db_path)):
        raise click.ClickException(refusal)
    check_port(config.host, config.port)
    if problem and not config.host.startswith("127.") and config.host not in ("localhost", "::1"):
        warn_public_url(config.public_url)  # listening beyond this machine: probably meant for others
    if not config.immutable:
        state.open().close()  # migrate before Datasette opens it read-only
    config = follow_port(config)
    url = f"http://{config.host}:{config.port}/{state.db_path.stem}/agents"
    click.echo(f"Datasette: {url}  (Ctrl-C to stop)")
    from agentrank.serving import serving

    if config.immutable:  # a snapshot nothing writes to: nothing beside it either, and no demo rebuilds it
        why = run_datasette(state.db_path, config)
    else:
        with serving(state.db_path, url):
            why = run_datasette(state.db_path, config)
    _say_stopped(why)


def _say_stopped(why: str) -> None:
    """The server's last line, what stopped it; a terminal that has gone (SIGHUP) cannot take it."""
    with contextlib.suppress(OSError):
        click.echo(f"Datasette stopped: {why}")


@cli.command()
@out_option("The snapshot file; its Datasette metadata goes next to it as STEM.metadata.json", required=True)
@public_url_option()
@pass_state
def snapshot(state: State, out: str, public_url: str | None) -> None:
    "A consistent, integrity-checked read-only copy of the published database for datasette -i / publish"
    from agentrank.serve import datasette_command, publish_snapshot
    from db.paths import output_refusal
    from db.snapshot import metadata_path_for, replace_refusal

    check_out(out, "publish/agentrank.db")
    serve_config = serve_settings(state, {"public_url": public_url})
    refusal = (
        output_refusal(Path(out), state.db_path, sqlite=True)
        or replace_refusal(Path(out))
        or output_refusal(metadata_path_for(out), state.db_path, sqlite=False)
    )
    if refusal:
        raise click.ClickException(f"--out {out}: {refusal}")
    result = publish_snapshot(state.open(must_exist=True, check=True), out, serve_config)
    dropped = f"; left out {', '.join(result.dropped)}" if result.dropped else ""
    click.echo(
        f"wrote {result.path}: {result.size_bytes / 1e6:.1f} MB, {result.agents} agents, "
        f"integrity ok, scores recompute{dropped}"
    )
    click.echo(f"wrote {result.metadata_path}")
    click.echo(f"serve it with: {datasette_command(result, serve_config)}")
    if not is_demo_file(state.db_path):  # a demo snapshot is tried out here, not published
        warn_public_url(serve_config.public_url)


def _command_prefix() -> str:
    """How to type ``agentrank`` in this shell: bare when it is on PATH, else the path that runs it."""
    import shutil
    import sys

    here = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    on_path = shutil.which("agentrank")
    if here is None or here.name != "agentrank" or (on_path and Path(on_path).resolve() == here):
        return "agentrank"
    try:
        return str(here.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(here)


def _db_flag(state: State) -> str:
    default = Path("agentrank.db")
    return "" if state.db_path == default and not os.environ.get("AGENTRANK_DB") else f" --db {state.db_path}"


@cli.command()
@click.option("--no-serve", is_flag=True, help="Stop after the export instead of starting Datasette")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8001,
    show_default=True,
    help="Port for Datasette (a free one if taken)",
)
@click.option(
    "--size",
    type=click.IntRange(10, 1_000_000),
    default=4000,
    show_default=True,
    help="Repos in the synthetic population",
)
@click.option(
    "--weeks",
    type=click.IntRange(2, 52),
    default=5,
    show_default=True,
    help="Weekly refreshes to simulate, the last one now",
)
@out_option("Where the site JSON goes (default: export.path from the config, else beside the database: DB-export.json)")
@pass_state
def demo(state: State, no_serve: bool, port: int, size: int, weeks: int, out: str | None) -> None:
    """Build the database (--db, default agentrank.db) from the bundled synthetic population through several weekly refreshes, then serve it

    A database the demo did not build is never replaced; run it again to rebuild the demo.
    """
    from agentrank.demo import build_demo, check_replaceable
    from agentrank.progress import Report
    from agentrank.serve import free_port
    from agentrank.serve import serve as run_datasette
    from agentrank.serving import serving, stale_server_warning

    check_out(out)  # '' wrote the default export instead
    check_replaceable(state.db_path)  # a database the demo did not build: refused before any warning
    warning = stale_server_warning(state.db_path)
    if warning:
        click.echo(warning, err=True)
    report = Report()
    try:
        result = build_demo(
            state.db_path, Path(out or state.config.export.path), state.config, size=size, weeks=weeks, report=report
        )
    finally:
        report.close()
    click.echo(
        f"demo database: {result.db_path} ({result.weeks} weekly refreshes of {size} synthetic repos, "
        f"{result.document['count']} agents published, {result.attempts} benchmark attempts)"
    )
    click.echo(f"export: {result.export_path} (valid against schema v{result.schema_version})")
    prog = _command_prefix() + _db_flag(state)
    mover = result.riser
    steps = [
        (f"explain {mover} --since previous", "why its score moved this week") if mover else None,
        ("export --out site/agentrank.json", "the site JSON"),
        ("snapshot --out publish/agentrank.db", "a checked copy to publish"),
        ("serve", "browse it with Datasette") if no_serve else None,
    ]
    shown = [step for step in steps if step]
    width = max(len(command) for command, _ in shown)
    click.echo("next, in another terminal in this folder:")
    for command, why in shown:
        click.echo(f"  {prog} {command.ljust(width)}   # {why}")
    if no_serve:
        return
    config = state.config.serve
    config = follow_port(config.with_overrides({"port": free_port(config.host, port)}))
    base = f"http://{config.host}:{config.port}"
    url = f"{base}/{result.db_path.stem}/agents"
    click.echo(f"Datasette: {url}  (Ctrl-C to stop)")
    if mover:
        click.echo(f"a maker's page: {base}/-/agent/{mover}")
    with serving(result.db_path, url):
        why = run_datasette(result.db_path, config)
    _say_stopped(why)


if __name__ == "__main__":
    cli()
