"""The ``agentrank`` command line: a thin layer that opens the database and calls the library."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import click
import sqlite_utils

from agentrank import __version__
from agentrank.classifier import classify_listed
from agentrank.config import Config, ConfigError, load_config
from agentrank.corrections import CorrectionsError
from agentrank.errors import PipelineError
from agentrank.exporter import ExportError
from agentrank.exporter import export as write_export
from agentrank.importer import format_summary as import_summary
from agentrank.importer import import_files
from agentrank.locks import LockHeld, run_lock
from agentrank.pipeline import RefreshFailed, refresh_database
from agentrank.scorer import score as score_listed
from classify.examples import ClassifyError
from crawler.client import GitHubError
from crawler.saved import SavedFileError
from crawler.secrets import github_token, redact
from datasette_plugins.settings import ServeConfig, SettingError
from db.breakdown import UnknownRun, load_breakdown, load_change
from db.connection import DatabaseError
from db.snapshot import SnapshotError
from db.store import open_store
from leaderboard.ingest import AttemptFileError
from leaderboard.ingest import import_attempts as load_attempts
from scoring.explain import format_breakdown, format_change

# Errors a user can cause: reported as one line on stderr with a non-zero exit, never a traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    AttemptFileError,
    ClassifyError,
    ConfigError,
    DatabaseError,
    ExportError,
    GitHubError,
    LockHeld,
    PipelineError,
    SettingError,
    SavedFileError,
    SnapshotError,
    UnknownRun,
    CorrectionsError,
    RefreshFailed,
)


class AgentRankGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as e:
            raise click.ClickException(redact(str(e))) from None
        except sqlite3.OperationalError as e:
            raise click.ClickException(redact(f"database error: {e}")) from None


class State:
    def __init__(self, db_path: str, config_path: str | None):
        self.db_path = Path(db_path)
        self.config_path = config_path
        self._config: Config | None = None

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.config_path)
        return self._config

    def open(self) -> sqlite_utils.Database:
        return open_store(self.db_path)

    def lock(self, what: str) -> AbstractContextManager[None]:
        return run_lock(self.db_path, what)


pass_state = click.make_pass_decorator(State)


def out_option(help: str, *, required: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--out PATH`` option of the commands that write a file."""
    return click.option("--out", "out", default=None, required=required, type=click.Path(dir_okay=False), help=help)


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
    ctx.obj = State(db_path, config_path)
    _ = ctx.obj.config  # a bad config file fails every command, before it does anything


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
    from agentrank.crawl import format_summary

    token = github_token()
    config = state.config
    with state.lock("crawl"):
        db = state.open()
        result = run_crawl(db, config, api_url=api_url or config.github.api_url, token=token, fresh=fresh)
    click.echo(format_summary(result))


@cli.command()
@click.option("--api-url", default=None, metavar="URL", help="GitHub API base URL (as for crawl)")
@click.option(
    "--from-file",
    "from_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Saved search results to use instead of crawling (repeatable): reproduces a run from saved data",
)
@out_option("Where the site JSON goes (default: export.path from the config)")
@pass_state
def refresh(state: State, api_url: str | None, from_files: tuple[str, ...], out: str | None) -> None:
    "The weekly job: crawl, corrections, classify, score and export as one run; publishes only if all succeed"
    result = refresh_database(
        state.db_path,
        state.config,
        export_path=out,
        import_paths=list(from_files) or None,
        api_url=api_url or state.config.github.api_url,
        token=github_token(),
    )
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
    from functools import partial

    from schedules.jobs import last_successful_refresh, scheduled_refresh
    from schedules.weekly import next_fire_times, run_forever, weekly_trigger

    cfg = state.config.schedule
    trigger = weekly_trigger(cfg.day_of_week, cfg.hour, cfg.minute)
    if next_count:
        for when in next_fire_times(trigger, next_count):
            click.echo(f"{when.isoformat()} {when:%A}")
        return
    logging.getLogger("agentrank").setLevel(logging.INFO)
    click.echo(
        f"weekly refresh of {state.db_path}: {cfg.day_of_week} {cfg.hour:02d}:{cfg.minute:02d} UTC; "
        f"next {next_fire_times(trigger, 1)[0]:%a %Y-%m-%d %H:%M UTC} (Ctrl-C to stop)"
    )
    run_forever(
        partial(scheduled_refresh, str(state.db_path), state.config_path),
        last_successful_refresh(state.db_path),
        day_of_week=cfg.day_of_week,
        hour=cfg.hour,
        minute=cfg.minute,
        misfire_grace_s=cfg.misfire_grace_s,
    )


@cli.command(name="import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@pass_state
def import_(state: State, files: tuple[str, ...]) -> None:
    "Load saved GitHub search results from FILES (JSON lists of items or saved response pages) as if crawled"
    config = state.config
    with state.lock("import"):
        db = state.open()
        result = import_files(db, list(files), min_stars=config.crawl.min_stars)
    click.echo(import_summary(result))


# Exit status of import-attempts when some records were rejected (the valid ones are stored).
EXIT_RECORDS_REJECTED = 3


@cli.command(name="import-attempts")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@pass_state
def import_attempts(state: State, file: str) -> None:
    """Load task-benchmark attempts from FILE (one JSON object, a JSON list, or JSON Lines); recompute the leaderboards

    Re-importing an attempt updates it in place (same tier, agent, version, model, task and
    attempt number), so importing a file twice changes nothing.

    \b
    Exit status:
      0  every record was imported
      1  nothing was imported: the file is not attempts (one line on stderr says why)
      2  bad usage (missing file, unknown option)
      3  some records were rejected (one line each on stderr); the valid ones were imported
    """
    with state.lock("import-attempts"):
        db = state.open()
        result = load_attempts(db, file)
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
    help="Score the model on a labelled CSV (full_name, description, topics, category); no database",
)
@click.option("--cross-validate", is_flag=True, help="k-fold cross-validation on the bundled training set")
@click.option("--folds", type=click.IntRange(2, 20), default=5, show_default=True, help="Folds for --cross-validate")
@click.option(
    "--held-out", is_flag=True, help="Score the model on the bundled held-out examples (never trained on); no database"
)
@pass_state
def classify(
    state: State, only_changed: bool, evaluate_path: str | None, cross_validate: bool, folds: int, held_out: bool
) -> None:
    "Assign a category to every listed repo, or evaluate the classifier"
    if evaluate_path or cross_validate or held_out:
        from classify import evaluate as ev

        uncertain_below = state.config.classify.uncertain_below
        if evaluate_path:
            click.echo(ev.evaluation_report(evaluate_path, uncertain_below=uncertain_below))
        if held_out:
            if evaluate_path:
                click.echo("")
            click.echo(ev.held_out_report(uncertain_below=uncertain_below))
        if cross_validate:
            if evaluate_path or held_out:
                click.echo("")
            click.echo(ev.cross_validation_report(folds, uncertain_below=uncertain_below))
        return
    with state.lock("classify"):
        db = state.open()
        result = classify_listed(db, uncertain_below=state.config.classify.uncertain_below, only_changed=only_changed)
    click.echo(result.summary())


@cli.command()
@click.option("--as-of", "as_of", default=None, help="ISO 8601 instant (default: start of the latest crawl/import)")
@pass_state
def score(state: State, as_of: str | None) -> None:
    "Compute the AgentRank Score for every listed repo and publish the ranking"
    with state.lock("score"):
        db = state.open()
        result = score_listed(db, as_of=as_of)
    click.echo(result.summary())


@cli.command()
@out_option("Where to write the JSON (default: export.path from the config)")
@pass_state
def export(state: State, out: str | None) -> None:
    "Write the site JSON of the published ranking, atomically"
    path = out or state.config.export.path
    db = state.open()
    result = write_export(db, path)
    click.echo(f"wrote {result.path}: {result.count} agents as of {result.as_of}")


@cli.command()
@click.argument("full_name", metavar="OWNER/REPO")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output")
@click.option("--run", "run_id", type=int, default=None, help="A score run id (default: the published run)")
@click.option(
    "--since",
    default=None,
    metavar="PREVIOUS",
    help="Explain the change since an earlier score run: a run id, 'previous' or an ISO date",
)
@pass_state
def explain(state: State, full_name: str, as_json: bool, run_id: int | None, since: str | None) -> None:
    "OWNER/REPO's score breakdown (an earlier name works too): each component, its points, what would move it"
    if not state.db_path.exists():
        raise click.ClickException(f"no database at {state.db_path}: crawl or import first")
    db = state.open()
    formatter: Callable[[dict[str, Any]], str]
    if since:
        result = load_change(db.conn, full_name, since, run_id)
        formatter = format_change
    else:
        result = load_breakdown(db.conn, full_name, run_id)
        formatter = format_breakdown
    if result is None:
        raise click.ClickException(f"unknown repository: {full_name}")
    click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else formatter(result))


def serve_settings(state: State, overrides: dict[str, Any]) -> ServeConfig:
    """The [serve] config with command-line overrides (None means "not given") applied."""
    return state.config.serve.with_overrides({k: v for k, v in overrides.items() if v is not None})


SETTING_HELP = "Override one [serve] setting for this run, e.g. --setting sql_time_limit_ms 500 (repeatable)"


@cli.command()
@click.option("--host", default=None, help="Interface to bind (default from config: 127.0.0.1)")
@click.option("--port", type=int, default=None, help="Port (default from config: 8001)")
@click.option(
    "--immutable",
    is_flag=True,
    default=None,
    help="Open the file with immutable=1: for a snapshot nothing writes to (caching, counts once)",
)
@click.option("--setting", "settings", type=(str, str), multiple=True, metavar="NAME VALUE", help=SETTING_HELP)
@pass_state
def serve(
    state: State, host: str | None, port: int | None, immutable: bool | None, settings: tuple[tuple[str, str], ...]
) -> None:
    "Datasette over the database: read-only, bounded, with the project's plugins and metadata"
    from agentrank.serve import serve as run_datasette

    config = serve_settings(state, {**dict(settings), "host": host, "port": port, "immutable": immutable})
    if not state.db_path.exists():
        raise click.ClickException(f"no database at {state.db_path}: run `agentrank demo` or crawl first")
    if not config.immutable:
        state.open().close()  # migrate before Datasette opens it read-only
    click.echo(f"Datasette: http://{config.host}:{config.port}/{state.db_path.stem}/agents  (Ctrl-C to stop)")
    run_datasette(state.db_path, config)


@cli.command()
@out_option("The snapshot file; its Datasette metadata goes next to it as STEM.metadata.json", required=True)
@pass_state
def snapshot(state: State, out: str) -> None:
    "A consistent, integrity-checked read-only copy of the published database for datasette -i / publish"
    from agentrank.serve import datasette_command, publish_snapshot

    if not state.db_path.exists():
        raise click.ClickException(f"no database at {state.db_path}: crawl or import first")
    if Path(out).resolve() == state.db_path.resolve():
        raise click.ClickException("--out must not be the database itself")
    result = publish_snapshot(state.open(), out, state.config.serve)
    dropped = f"; left out {', '.join(result.dropped)}" if result.dropped else ""
    click.echo(
        f"wrote {result.path}: {result.size_bytes / 1e6:.1f} MB, {result.agents} agents, "
        f"integrity ok, scores recompute{dropped}"
    )
    click.echo(f"wrote {result.metadata_path}")
    click.echo(f"serve it with: {datasette_command(result, state.config.serve)}")


@cli.command()
@click.option(
    "--dir",
    "out_dir",
    default="demo-output",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where the demo database and export go",
)
@click.option("--no-serve", is_flag=True, help="Stop after the export instead of starting Datasette")
@click.option("--port", type=int, default=8001, show_default=True, help="Port for Datasette (a free one if taken)")
@click.option(
    "--size",
    type=click.IntRange(10, 1_000_000),
    default=8000,
    show_default=True,
    help="Repos in the synthetic population",
)
@pass_state
def demo(state: State, out_dir: str, no_serve: bool, port: int, size: int) -> None:
    "Build a database from the bundled demo population through the whole pipeline, then serve it"
    from agentrank.demo import build_demo
    from agentrank.serve import free_port
    from agentrank.serve import serve as run_datasette

    result = build_demo(Path(out_dir), state.config, size=size)
    click.echo(f"ran the weekly pipeline against the emulator: {result.refresh.summary()}")
    click.echo(f"database: {result.db_path}")
    click.echo(
        f"export:   {result.export_path} ({result.document['count']} agents, "
        f"valid against schema v{result.schema_version})"
    )
    click.echo(f"saved search items (re-import with `agentrank import`): {result.items_path}")
    if no_serve:
        return
    config = state.config.serve
    config = config.with_overrides({"port": free_port(config.host, port)})
    base = f"http://{config.host}:{config.port}"
    top = result.document["agents"][0]["full_name"] if result.document["agents"] else None
    click.echo(f"Datasette: {base}/{result.db_path.stem}/agents  (Ctrl-C to stop)")
    if top:
        click.echo(f"a maker's page: {base}/-/agent/{top}")
    run_datasette(result.db_path, config)


if __name__ == "__main__":
    cli()
