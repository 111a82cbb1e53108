"""Every shell command in README.md and docs/*.md names a real command with real options, and the
safe ones run as printed against the demo database, so the docs cannot drift from the CLI again."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from agentrank.cli import cli
from tests.first_hour import agentrank

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GLOBAL_WITH_VALUE = {"--db", "--config"}
# Read-only commands, run for real in a copy of the demo folder.
SAFE = {"explain", "export", "snapshot"}
PLACEHOLDERS = {"OWNER/REPO", "owner/repo"}


def shell_commands() -> list[tuple[str, list[str]]]:
    """(where, argv after `agentrank`) for every agentrank line in a bash block."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"```(?:bash|sh|console)\n(.*?)```", text, re.S):
            for line in block.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                if words and Path(words[0]).name == "agentrank":
                    found.append((f"{path.name}: {line.strip()}", words[1:]))
    return found


COMMANDS = shell_commands()


def split_global(argv: list[str]) -> tuple[list[str], list[str]]:
    """The global options and the rest (command and its arguments)."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in GLOBAL_WITH_VALUE else 1
    return argv[:i], argv[i:]


def test_the_docs_show_commands():
    assert len(COMMANDS) > 15
    names = {split_global(argv)[1][0] for _, argv in COMMANDS if split_global(argv)[1]}
    assert {"explain", "export", "serve", "snapshot", "refresh"} <= names


@pytest.mark.parametrize(("where", "argv"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_each_documented_command_parses(where, argv):
    options, rest = split_global(argv)
    group_parser = cli.make_parser(click.Context(cli, info_name="agentrank"))
    group_parser.parse_args(list(options))  # raises on an unknown global option
    assert rest, f"{where}: no command"
    command = cli.commands.get(rest[0])
    assert command is not None, f"{where}: no command {rest[0]!r}"
    ctx = click.Context(command, info_name=rest[0])
    values, extra, _ = command.make_parser(ctx).parse_args(list(rest[1:]))
    assert not extra, f"{where}: unexpected arguments {extra}"
    for param in command.params:
        if param.required and param.name not in values:
            pytest.fail(f"{where}: missing {param.human_readable_name}")


def test_the_safe_documented_commands_run_against_the_demo(demo_folder, tmp_path):
    folder = demo_folder.copy(tmp_path / "project")
    ran = 0
    for where, argv in COMMANDS:
        options, rest = split_global(argv)
        if options or not rest or rest[0] not in SAFE:
            continue
        args = [folder.riser if a in PLACEHOLDERS else a for a in rest]
        result = agentrank(folder.path, *args)
        assert result.returncode == 0, f"{where}: {result.stderr}"
        ran += 1
    assert ran >= 4
