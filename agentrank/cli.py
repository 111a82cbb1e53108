"""The ``agentrank`` command line: a thin layer that opens the database and calls the library."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

import click
import jsonschema

from agentrank import __version__, pipeline
from agentrank.config import Config, ConfigError, load_config
from agentrank.locks import LockHeld, run_lock
from classify.examples import ClassifyError
from crawler.saved import SavedFileError
from db.breakdown import load_breakdown
from db.connection import DatabaseError, open_db
from db.export import ExportError
from scoring.explain import format_breakdown

# Errors a user can cause: reported as one line on stderr with a non-zero exit, never a traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    ClassifyError,
    ConfigError,
    DatabaseError,
    ExportError,
    LockHeld,
    pipeline.PipelineError,
    SavedFileError,
)


class AgentRankGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as e:
            raise click.ClickException(str(e)) from None
        except sqlite3.OperationalError as e:
            raise click.ClickException(f"database error: {e}") from None


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

    def open(self):
        db = open_db(self.db_path)
        pipeline.prepare(db)
        return db


pass_state = click.make_pass_decorator(State)


@click.group(cls=AgentRankGroup)
@click.version_option(__version__, prog_name="agentrank")
@click.option("--db", "db_path", default="agentrank.db", show_default=True, envvar="AGENTRANK_DB",
              type=click.Path(dir_okay=False), help="SQLite database file (env AGENTRANK_DB)")
@click.option("--config", "config_path", default=None, envvar="AGENTRANK_CONFIG",
              type=click.Path(dir_okay=False), help="TOML configuration file (env AGENTRANK_CONFIG)")
@click.option("-v", "--verbose", is_flag=True, help="Log progress details to stderr")
@click.pass_context
def cli(ctx: click.Context, db_path: str, config_path: str | None, verbose: bool) -> None:
    "AgentRank: the most-starred open-source AI agents on GitHub, scored 0-100 from public data."
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    ctx.obj = State(db_path, config_path)


@cli.command(name="import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@pass_state
def import_(state: State, files: tuple[str, ...]) -> None:
    "Load saved GitHub search results (JSON list of items or saved response pages) as if crawled"
    config = state.config
    with run_lock(state.db_path, "import"):
        db = state.open()
        result = pipeline.import_files(db, list(files), config)
    c = result.counts
    line = (
        f"import run {result.run_id}: {c.items} items from {len(files)} file(s): {c.saved} repos saved "
        f"({c.new} new, {c.updated} updated), {result.rejected} rejected, {c.listed} listed"
    )
    if result.reasons:
        line += " — rejects by field: " + ", ".join(f"{k} {v}" for k, v in sorted(result.reasons.items()))
    click.echo(line)


@cli.command()
@click.option("--only-changed", is_flag=True,
              help="Only repos that are new, changed (name, description, topics) or classified by another model")
@click.option("--evaluate", "evaluate_path", type=click.Path(dir_okay=False), default=None,
              help="Score the model on a labelled CSV (full_name, description, topics, category); no database")
@click.option("--cross-validate", is_flag=True, help="k-fold cross-validation on the bundled training set")
@click.option("--folds", type=click.IntRange(2, 20), default=5, show_default=True, help="Folds for --cross-validate")
@pass_state
def classify(state: State, only_changed: bool, evaluate_path: str | None, cross_validate: bool, folds: int) -> None:
    "Assign a category to every listed repo, or evaluate the classifier"
    if evaluate_path or cross_validate:
        from classify import evaluate as ev

        uncertain_below = state.config.classify.uncertain_below
        if evaluate_path:
            click.echo(ev.evaluation_report(evaluate_path, uncertain_below=uncertain_below))
        if cross_validate:
            if evaluate_path:
                click.echo("")
            click.echo(ev.cross_validation_report(folds, uncertain_below=uncertain_below))
        return
    with run_lock(state.db_path, "classify"):
        db = state.open()
        run_id = pipeline.classify_listed(db, state.config, only_changed=only_changed)
    run = db["runs"].get(run_id)
    details = json.loads(run["details"])
    counts = db.execute(
        "select category, count(*) from repo_categories where repo_id in (select id from repos where listed = 1) "
        "group by category order by 2 desc, 1"
    ).fetchall()
    click.echo(f"classify run {run_id}: {run['saved']} of {run['items']} listed repos classified "
               f"({details['uncertain']} uncertain, {details['corrections']} corrections known), "
               f"model {details['model_version']} trained on {details['training_examples']} examples "
               f"in {details['train_seconds']:.1f}s")  # fmt: skip
    if counts:
        click.echo("categories: " + ", ".join(f"{c} {n}" for c, n in counts))


@cli.command()
@click.option("--as-of", "as_of", default=None, help="ISO 8601 instant (default: start of the latest crawl/import)")
@pass_state
def score(state: State, as_of: str | None) -> None:
    "Compute the AgentRank Score for every listed repo and publish the ranking"
    with run_lock(state.db_path, "score"):
        db = state.open()
        run_id = pipeline.score(db, as_of=as_of)
    run = db["runs"].get(run_id)
    top = db.execute("select full_name, score from scores where run_id = ? order by rank limit 1", [run_id]).fetchone()
    click.echo(f"score run {run_id}: {run['saved']} listed repos scored as of {run['as_of']}; "
               f"#1 {top[0]} ({top[1]:.1f})")  # fmt: skip


@cli.command()
@click.option("--out", "out", default=None, type=click.Path(dir_okay=False),
              help="Where to write the JSON (default: export.path from the config)")
@pass_state
def export(state: State, out: str | None) -> None:
    "Write the site JSON of the published ranking, atomically"
    path = out or state.config.export.path
    db = state.open()
    document = pipeline.export(db, path)
    click.echo(f"wrote {path}: {document['count']} agents as of {document['as_of']}")


@cli.command()
@click.argument("full_name", metavar="OWNER/REPO")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output")
@click.option("--run", "run_id", type=int, default=None, help="A score run id (default: the published run)")
@pass_state
def explain(state: State, full_name: str, as_json: bool, run_id: int | None) -> None:
    "A repo's score breakdown: each component, its points, and what would move it"
    if not state.db_path.exists():
        raise click.ClickException(f"no database at {state.db_path}: crawl or import first")
    db = state.open()
    breakdown = load_breakdown(db.conn, full_name, run_id)
    if breakdown is None:
        raise click.ClickException(f"unknown repository: {full_name}")
    if as_json:
        click.echo(json.dumps(breakdown, indent=2, ensure_ascii=False))
    else:
        click.echo(format_breakdown(breakdown))


@cli.command()
@click.option("--host", default=None, help="Interface to bind (default from config: 127.0.0.1)")
@click.option("--port", type=int, default=None, help="Port (default from config: 8001)")
@pass_state
def serve(state: State, host: str | None, port: int | None) -> None:
    "Datasette over the database, with the project's plugins and metadata"
    from agentrank.serve import serve as run_datasette

    if not state.db_path.exists():
        raise click.ClickException(f"no database at {state.db_path}: run `agentrank demo` or crawl first")
    state.open().close()  # migrate before Datasette opens it read-only
    run_datasette(state.db_path, host or state.config.serve.host, port or state.config.serve.port)


@cli.command()
@click.option("--dir", "out_dir", default="demo-output", show_default=True, type=click.Path(file_okay=False),
              help="Where the demo database and export go")
@click.option("--no-serve", is_flag=True, help="Stop after the export instead of starting Datasette")
@click.option("--port", type=int, default=8001, show_default=True, help="Port for Datasette (a free one if taken)")
@click.option("--size", type=click.IntRange(10, 1_000_000), default=8000, show_default=True,
              help="Repos in the synthetic population")
@pass_state
def demo(state: State, out_dir: str, no_serve: bool, port: int, size: int) -> None:
    "Build a database from the bundled demo population through the whole pipeline, then serve it"
    from agentrank.demo import build_demo
    from agentrank.serve import free_port, serve as run_datasette
    from db.export import validate_export

    result = build_demo(Path(out_dir), state.config, size=size)
    try:
        validate_export(json.loads(result.export_path.read_text(encoding="utf-8")))
    except jsonschema.ValidationError as e:
        raise click.ClickException(f"the export does not validate: {e.message}") from None
    click.echo(f"database: {result.db_path}")
    click.echo(f"export:   {result.export_path} ({result.document['count']} agents, valid against schema v1)")
    click.echo(f"saved search items (re-import with `agentrank import`): {result.items_path}")
    if no_serve:
        return
    host = state.config.serve.host
    port = free_port(host, port)
    click.echo(f"Datasette: http://{host}:{port}/{result.db_path.stem}/agents  (Ctrl-C to stop)")
    run_datasette(result.db_path, host, port)
