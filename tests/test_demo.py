import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import jsonschema
from click.testing import CliRunner

from agentrank.cli import cli
from agentrank.exporter import export_schema
from agentrank.serve import free_port


def test_demo_builds_a_database_and_a_valid_export(tmp_path: Path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(
        cli,
        ["--db", str(tmp_path / "unused.db"), "demo", "--no-serve", "--dir", str(out), "--size", "400"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert f"database: {out / 'agentrank-demo.db'}" in result.output
    document = json.loads((out / "agentrank-export.json").read_text())
    jsonschema.validate(document, export_schema())
    assert document["count"] > 50
    assert {a["category"] for a in document["agents"]} - {None}
    # The demo is deterministic in what it lists.
    again = tmp_path / "again"
    CliRunner().invoke(cli, ["demo", "--no-serve", "--dir", str(again), "--size", "400"], catch_exceptions=False)
    second = json.loads((again / "agentrank-export.json").read_text())
    assert [a["full_name"] for a in second["agents"]] == [a["full_name"] for a in document["agents"]]


def test_demo_serves_datasette_on_the_printed_url(tmp_path: Path):
    port = free_port("127.0.0.1", 0)
    process = subprocess.Popen(
        [sys.executable, "-m", "agentrank.cli", "demo", "--dir", str(tmp_path), "--size", "300", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        url = None
        for line in process.stdout:
            match = re.search(r"Datasette: (http://\S+)", line)
            if match:
                url = match.group(1)
                break
        assert url is not None, "the demo never printed its URL"
        deadline = time.monotonic() + 60
        while True:
            try:
                response = httpx.get(url + ".json?_shape=array&_size=5", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "Datasette never answered"
                time.sleep(0.3)
        assert response.status_code == 200
        rows = response.json()
        assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
