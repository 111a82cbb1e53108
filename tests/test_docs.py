"""The documentation against the code: generated tables are current, every command and option is described.

The tables and the CLI reference in README.md and docs/ are cog blocks that import the package
(``make docs`` regenerates them); here cog runs in check mode, so a doc that drifts from the code
fails the suite. The help-text checks follow sqlite-utils' own tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from agentrank.cli import cli
from agentrank.config import Config, load_config

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
COGGED = [ROOT / "README.md", *DOCS]


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    """Every command under ``group`` (nested groups included), with its full name."""
    found = []
    for name, command in sorted(group.commands.items()):
        full = (*path, name)
        found.append((" ".join(full), command))
        if isinstance(command, click.Group):
            found += _commands(command, full)
    return found


COMMANDS = [("agentrank", cli), *_commands(cli, ("agentrank",))]


def test_generated_docs_match_the_code():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "AGENTRANK_DB", "AGENTRANK_CONFIG")}
    result = subprocess.run(
        [sys.executable, "-m", "cogapp", "--check", "--diff", *map(str, COGGED)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"docs out of date; run `make docs`\n{result.stdout}\n{result.stderr}"


def test_every_doc_has_its_cog_blocks_closed():
    for path in COGGED:
        text = path.read_text(encoding="utf-8")
        assert text.count("[[[cog") == text.count("[[[end]]]"), path


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_command_has_help(name: str, command: click.Command):
    assert (command.help or "").strip(), f"{name} has no help text (a docstring)"


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_option_has_help_and_every_argument_is_described(name: str, command: click.Command):
    for param in command.params:
        if isinstance(param, click.Option):
            assert (param.help or "").strip(), f"{name} {param.opts[0]} has no help="
        elif isinstance(param, click.Argument):
            # click arguments take no help=: the command's help text must name them.
            shown = param.metavar or (param.name or "").upper()
            assert shown in (command.help or ""), f"{name}: the help text does not mention {shown}"


def test_the_cli_reference_lists_every_command():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name, _ in COMMANDS:
        assert f"## `{name}`" in text, name


def test_the_configuration_page_is_a_valid_file_of_the_defaults(tmp_path: Path):
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block, "no TOML block in docs/configuration.md"
    path = tmp_path / "agentrank.toml"
    path.write_text(block.group(1), encoding="utf-8")
    assert load_config(path, environ={}) == Config()


def test_relative_links_in_the_docs_resolve():
    for path in COGGED:
        for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            assert (path.parent / target).exists(), f"{path.relative_to(ROOT)} links to missing {target}"


def test_the_score_page_states_the_growth_rules_figures_as_the_code_has_them():
    from scoring import growth

    text = " ".join((ROOT / "docs" / "score.md").read_text().split())
    assert f"at least {growth.MIN_GAIN} stars and" in text
    assert f"{growth.OWN_FACTOR:g} times the larger" in text
    assert f"{growth.OWN_FLOOR_SHARE:.0%}".replace("%", " %") + " of its stars" in text
    assert f"at least {growth.MIN_GROUP} judged repos are on each side" in text
    assert f"fewer than {growth.MIN_PEERS} judged repos" in text


def test_the_crawling_page_states_when_an_emptied_query_is_not_believed():
    from agentrank.crawl import EMPTIED_FROM

    text = " ".join((ROOT / "docs" / "crawling.md").read_text().split())
    assert f"held at least {EMPTIED_FROM} repos in the last crawl and holds none now" in text


def test_the_benchmark_page_lists_each_script_once_and_only_scripts_that_exist():
    # bench/serve_load.py was listed twice, with two different descriptions of what it measures.
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(bench/[^`]+\.py)` \|", text, re.M)
    assert listed, "no script table in docs/benchmarks.md"
    assert sorted(listed) == sorted(set(listed)), [name for name in set(listed) if listed.count(name) > 1]
    assert [name for name in listed if not (ROOT / name).is_file()] == []


def test_the_categories_page_gives_figures_for_the_model_in_use():
    # The accuracy figures are measurements, not generated: when the classifier's code version moves,
    # this fails until they are measured again for the new model and the page says which model.
    from classify.model import CODE_VERSION

    text = " ".join((ROOT / "docs" / "categories.md").read_text(encoding="utf-8").split())
    section = text.split("## Measured accuracy", 1)[-1]
    assert f"The figures of the model in use (clf{CODE_VERSION}, code version {CODE_VERSION})" in section
