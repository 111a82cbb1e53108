"""The documented deploy (docs/publishing.md, "Deploying to a hosted service") from a clean machine.

The docs' three lines are run as written: the wheel is built, the snapshot made, and the real
``datasette publish cloudrun`` generates its build directory (a stand-in ``gcloud`` on PATH keeps
a copy of what it would upload). The ``Dockerfile``'s ``RUN`` lines then run in a fresh virtualenv
and its ``CMD`` serves the snapshot: the maker's page answers 200 from the wheel's plugin.

Offline-safe: the fresh virtualenv sees this one's packages (a ``.pth`` line) and pip runs with
``PIP_NO_INDEX``, so ``pip install -U datasette WHEEL`` resolves everything locally.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import httpx
import pytest

from tests.publish_helpers import free_port

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "publishing.md"
MARK = "<!-- deploy-command:"

FAKE_GCLOUD = """#!/bin/sh
case "$1 $2" in
  "config get-value") echo test-project ;;
  "builds submit") cp -r . "$CAPTURE_DIR" ;;
esac
exit 0
"""


def documented_commands() -> list[list[str]]:
    """The shell lines of the documented deploy block, continuations joined, split as a shell would."""
    text = DOCS.read_text()
    block = text[text.index(MARK) :]
    block = block[block.index("```bash\n") + len("```bash\n") :]
    block = block[: block.index("```")]
    joined = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.strip()]


def test_the_documented_install_spec_is_one_word_pip_accepts():
    commands = documented_commands()
    assert [c[:3] for c in commands] == [
        ["pip", "wheel", "--no-deps"],
        ["agentrank", "snapshot", "--out"],
        ["datasette", "publish", "cloudrun"],
    ]
    install = commands[2][commands[2].index("--install") + 1]
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version is not None
    assert install == f"wheel/agentrank-{version.group(1)}-py3-none-any.whl"  # no spaces, no git


@pytest.mark.timeout(600)
def test_the_documented_deploy_installs_in_a_fresh_virtualenv_and_serves_the_makers_page(published_db, tmp_path):
    wheel_cmd, snapshot_cmd, publish_cmd = documented_commands()
    bin_dir = Path(sys.executable).parent
    work = tmp_path / "site"
    work.mkdir()
    # 1. The wheel, built from this checkout (the docs run it in the repository: "." is ROOT).
    built = subprocess.run([sys.executable, "-m", *wheel_cmd[:-1], str(ROOT)], cwd=work, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    # 2. The snapshot, from the published database, with the public address the docs give.
    snap = subprocess.run(
        [str(bin_dir / "agentrank"), "--db", str(published_db.path), *snapshot_cmd[1:]],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert snap.returncode == 0, snap.stderr
    assert "WARNING" not in snap.stderr  # an https public address: nothing to warn about
    # 3. datasette publish, as written, with gcloud stood in for.
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "gcloud").write_text(FAKE_GCLOUD)
    (fake / "gcloud").chmod(0o755)
    captured = tmp_path / "uploaded"
    env = {**os.environ, "PATH": f"{fake}:{bin_dir}:{os.environ['PATH']}", "CAPTURE_DIR": str(captured)}
    published = subprocess.run(
        [str(bin_dir / "datasette"), *publish_cmd[1:]], cwd=work, env=env, capture_output=True, text=True
    )
    assert published.returncode == 0, published.stdout + published.stderr
    dockerfile = (captured / "Dockerfile").read_text()
    runs = [line.removeprefix("RUN ") for line in dockerfile.splitlines() if line.startswith("RUN ")]
    cmd = next(line.removeprefix("CMD ") for line in dockerfile.splitlines() if line.startswith("CMD "))
    assert runs[0].startswith("pip install -U datasette wheel/agentrank-")

    # A fresh virtualenv that sees this one's packages, and no package index.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
    (site / "_this_checkouts_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    python = venv / "bin" / "python"
    run_env = {**os.environ, "PIP_NO_INDEX": "1", "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    for line in runs:
        # pip and datasette as the image has them: the virtualenv's own (datasette through -m).
        command = line.replace("pip install", f"{python} -m pip install", 1)
        command = re.sub(r"^datasette ", f"{python} -m datasette ", command)
        step = subprocess.run(command, shell=True, cwd=captured, env=run_env, capture_output=True, text=True)
        assert step.returncode == 0, f"{line}\n{step.stdout}\n{step.stderr}"
    where = subprocess.run(
        [str(python), "-c", "import datasette_plugins; print(datasette_plugins.__file__)"],
        cwd=captured,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(venv)), where.stdout  # the wheel's plugin, not this checkout's

    port = free_port()
    serve = re.sub(r"^datasette ", f"{python} -m datasette ", cmd).replace("$PORT", str(port))
    env_lines = dict(re.findall(r"^ENV (\w+) '?([^'\n]*)'?$", dockerfile, re.M))
    log = (tmp_path / "serve.log").open("w")
    # Its own process group: the shell may fork datasette rather than exec it, and terminating the
    # shell alone would leave the server running after the test.
    server = subprocess.Popen(
        serve,
        shell=True,
        cwd=captured,
        env={**run_env, **env_lines},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        page = None
        while time.monotonic() < deadline:
            try:
                page = httpx.get(f"{url}/-/agent/{published_db.top_name}", timeout=10)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert page is not None, (tmp_path / "serve.log").read_text()
        assert page.status_code == 200
        assert published_db.top_name in page.text
        # The public address the snapshot was made with is the one its badge snippet names.
        assert "https://agentrank.example.org/-/agent/" in page.text
        data = httpx.get(f"{url}/-/agent/{published_db.top_name}.json", timeout=10)
        assert data.status_code == 200 and data.headers["access-control-allow-origin"] == "*"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        log.close()
        shutil.rmtree(captured, ignore_errors=True)


def test_snapshot_and_export_say_when_public_url_is_the_default_and_how_to_set_it(published_db, tmp_path):
    from click.testing import CliRunner

    from agentrank.cli import cli

    runner = CliRunner()
    base = ["--db", str(published_db.path)]
    for args in (["snapshot", "--out", str(tmp_path / "s.db")], ["export", "--out", str(tmp_path / "e.json")]):
        result = runner.invoke(cli, [*base, *args])
        assert result.exit_code == 0, result.output
        assert "WARNING: public_url is http://127.0.0.1:8001, this machine's loopback address" in result.stderr
        assert "--public-url https://" in result.stderr and "[serve]" in result.stderr
        plain = runner.invoke(cli, [*base, *args, "--public-url", "http://agentrank.example.org"])
        assert "plain http" in plain.stderr
        fine = runner.invoke(cli, [*base, *args, "--public-url", "https://agentrank.example.org"])
        assert fine.exit_code == 0 and "WARNING" not in fine.stderr
    exported = (tmp_path / "e.json").read_text()
    assert '"page_url": "https://agentrank.example.org/-/agent/' in exported


def test_serve_public_refuses_a_loopback_public_url(published_db):
    from click.testing import CliRunner

    from agentrank.cli import cli

    result = CliRunner().invoke(cli, ["--db", str(published_db.path), "serve", "--public"])
    assert result.exit_code != 0
    assert "--public: public_url is http://127.0.0.1:8001, this machine's loopback address" in result.stderr
    assert "--public-url https://" in result.stderr


@pytest.mark.asyncio
async def test_cors_on_the_read_only_data_under_serve_and_off_when_set(published_db):
    from agentrank.serve import build_datasette
    from datasette_plugins.settings import ServeConfig

    datasette = build_datasette(published_db.path, ServeConfig(heap_limit_mb=0))
    name = published_db.top_name
    for path in (
        f"/{published_db.path.stem}/agents.json",
        f"/-/agent/{name}.json",
        f"/-/agent/{name}/shields.json",
        "/-/feeds/new.atom",
        f"/{published_db.path.stem}/agents.csv",
    ):
        response = await datasette.client.get(path)
        assert response.status_code == 200, path
        assert response.headers["access-control-allow-origin"] == "*", path
    page = await datasette.client.get(f"/-/agent/{name}")
    assert "access-control-allow-origin" not in page.headers  # HTML pages: not needed
    off = build_datasette(published_db.path, ServeConfig(heap_limit_mb=0, cors=False))
    assert "access-control-allow-origin" not in (await off.client.get(f"/-/agent/{name}.json")).headers


@pytest.mark.parametrize(
    "how",
    [("--public-url", "https://agentrank.example.org"), ("--setting", "public_url", "https://agentrank.example.org")],
)
def test_serve_public_runs_with_an_https_public_url_given_either_way(published_db, tmp_path, how):
    from tests.publish_helpers import agentrank_serve, running

    port = free_port()
    log = tmp_path / "serve.log"
    with running(agentrank_serve(published_db.path, port, "--public", *how), port, log) as server:
        page = httpx.get(f"{server.url}/-/agent/{published_db.top_name}", timeout=30)
        assert page.status_code == 200
        assert f"https://agentrank.example.org/-/agent/{published_db.top_name}/badge.svg" in page.text
    assert "WARNING" not in log.read_text()


def test_the_nginx_config_limits_every_canned_query(published_db):
    """deploy/nginx/agentrank-http.conf names the canned queries (nginx cannot ask Datasette): a
    query added to the metadata must be added there too, or it escapes the per-IP limit."""
    from agentrank.serve import build_datasette
    from datasette_plugins.admission import canned_queries
    from datasette_plugins.settings import ServeConfig

    conf = (ROOT / "deploy" / "nginx" / "agentrank-http.conf").read_text()
    listed = set(re.search(r'"~\^/\[\^/\]\+/\(([^)]*)\)', conf).group(1).split("|"))
    names = {name for _, name in canned_queries(build_datasette(published_db.path, ServeConfig(heap_limit_mb=0)))}
    assert names and names <= listed, sorted(names - listed)


SYSTEMD = ROOT / "deploy" / "systemd"
AGENTRANK_BIN = "/srv/agentrank/.venv/bin/agentrank"


def unit_settings(path: Path) -> list[tuple[str, str]]:
    """A systemd unit's Key=Value lines in order (keys repeat: a oneshot has several ExecStart)."""
    pairs = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            pairs.append((key.strip(), value.strip()))
    return pairs


def unit_commands(path: Path) -> list[list[str]]:
    """The unit's Exec* command lines, split, without systemd's prefixes (+, -, @, !, :)."""
    return [shlex.split(value.lstrip("+-@!:")) for key, value in unit_settings(path) if key.startswith("Exec")]


def documented_block(marker: str) -> str:
    text = DOCS.read_text()
    block = text[text.index(marker) :]
    block = block[block.index("```bash\n") + len("```bash\n") :]
    return block[: block.index("```")]


def documented_config(tmp_path: Path) -> Path:
    """The agentrank.toml the documented install writes (its printf line), in ``tmp_path``."""
    line = next(line for line in documented_block("<!-- systemd-install:").splitlines() if line.startswith("printf"))
    printf, pipe = line.split(" | ")
    assert shlex.split(pipe) == ["sudo", "tee", "/srv/agentrank/agentrank.toml"]
    written = subprocess.run(["bash", "-c", printf], capture_output=True, text=True, check=True).stdout
    path = tmp_path / "agentrank.toml"
    path.write_text(written)
    return path


def test_the_shipped_systemd_units_run_agentrank_commands_that_exist(tmp_path):
    """Every agentrank command line in deploy/systemd parses (its command and options exist), the
    configuration file they name is the one the docs write, and the optional token file is optional."""
    from click.testing import CliRunner

    from agentrank.cli import cli
    from agentrank.config import load_config

    config = load_config(documented_config(tmp_path), environ={})
    assert config.serve.public_url == "https://agentrank.example.org" and config.serve.cache_max_age == 600
    units = sorted(p.name for p in SYSTEMD.iterdir())
    assert units == ["agentrank-refresh.service", "agentrank-refresh.timer", "agentrank.service"]
    seen = []
    for unit in ("agentrank.service", "agentrank-refresh.service"):
        settings = dict(unit_settings(SYSTEMD / unit))
        assert settings["WorkingDirectory"] == "/srv/agentrank"  # where the docs put agentrank.toml
        for env_file in [v for k, v in unit_settings(SYSTEMD / unit) if k == "EnvironmentFile"]:
            assert env_file.startswith("-"), f"{unit}: {env_file} would be required"
        for command in unit_commands(SYSTEMD / unit):
            if command[0] == "/usr/bin/systemctl":  # the refresh restarts the site's unit, shipped here
                assert command[1:] == ["try-restart", "agentrank.service"]
                continue
            assert command[0] == AGENTRANK_BIN, command
            assert command[command.index("--config") + 1] == "agentrank.toml", command
            result = CliRunner().invoke(cli, [*command[1:], "--help"])
            assert result.exit_code == 0, (command, result.output)
            seen.append(next(word for word in command[1:] if word in cli.commands))
    assert seen == ["serve", "refresh", "snapshot"]
    timer = dict(unit_settings(SYSTEMD / "agentrank-refresh.timer"))
    assert timer["OnCalendar"] == "Mon *-*-* 06:00:00 UTC" and timer["Persistent"] == "true"


def test_the_refresh_units_snapshot_is_what_the_site_unit_serves(published_db, tmp_path, monkeypatch):
    """The refresh unit's snapshot line and the site unit's serve line, run as written in a folder
    laid out as /srv/agentrank (another port): the site serves the snapshot with the public address
    from the documented agentrank.toml."""
    from tests.publish_helpers import running

    documented_config(tmp_path)
    shutil.copy(published_db.path, tmp_path / "agentrank.db")
    snapshot = next(c for c in unit_commands(SYSTEMD / "agentrank-refresh.service") if "snapshot" in c)
    serve = unit_commands(SYSTEMD / "agentrank.service")[0]
    python = [sys.executable, "-c", "from agentrank.cli import cli; cli()"]
    made = subprocess.run([*python, *snapshot[1:]], cwd=tmp_path, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    port = free_port()
    serve = [*python, *serve[1:]]
    serve[serve.index("--port") + 1] = str(port)
    monkeypatch.chdir(tmp_path)  # the unit's WorkingDirectory: its paths are relative to it
    with running(serve, port, tmp_path / "serve.log") as server:
        page = httpx.get(f"{server.url}/-/agent/{published_db.top_name}", timeout=30)
    assert page.status_code == 200
    assert f"https://agentrank.example.org/-/agent/{published_db.top_name}/badge.svg" in page.text
    assert page.headers["cache-control"].endswith("max-age=600")


def test_the_docs_install_and_reference_the_shipped_units():
    install = documented_block("<!-- systemd-install:")
    refresh_doc = (ROOT / "docs" / "refresh.md").read_text()
    for unit in SYSTEMD.iterdir():
        assert f"deploy/systemd/{unit.name}" in install, unit.name
        assert unit.name in DOCS.read_text()
    assert "agentrank-refresh.service" in refresh_doc and "agentrank-refresh.timer" in refresh_doc
    # The restart the docs give is the site's unit, and no doc shows a unit of its own any more.
    assert "systemctl restart agentrank " in DOCS.read_text()
    for doc in (DOCS, ROOT / "docs" / "refresh.md"):
        assert "ExecStart=" not in doc.read_text(), doc.name


def test_the_export_is_where_the_docs_tell_the_website_to_copy_it_from(published_db, tmp_path, monkeypatch):
    """docs/export.md: under the shipped units (their --db and --config, in /srv/agentrank) the
    refresh's export stage writes /srv/agentrank/agentrank-export.json, which the website copies."""
    from click.testing import CliRunner

    from agentrank.cli import cli

    text = (ROOT / "docs" / "export.md").read_text()
    named = re.search(r"rsync (/srv/agentrank/\S+) ", text)
    assert named, "docs/export.md no longer shows where to copy the export from"
    refresh = next(c for c in unit_commands(SYSTEMD / "agentrank-refresh.service") if "refresh" in c)
    global_options = refresh[1 : refresh.index("refresh")]
    documented_config(tmp_path)
    shutil.copy(published_db.path, tmp_path / "agentrank.db")
    monkeypatch.chdir(tmp_path)  # the unit's WorkingDirectory, /srv/agentrank
    result = CliRunner().invoke(cli, [*global_options, "export"])  # the refresh's export stage, alone
    assert result.exit_code == 0, result.output
    written = tmp_path / Path(named.group(1)).relative_to("/srv/agentrank")
    assert json.loads(written.read_text())["agents"]
    assert '"page_url": "https://agentrank.example.org/-/agent/' in written.read_text()
