"""The one method registry (issue 24's point): a method added by the recipe in docs/architecture.md
("Add a benchmark method") is computed on every ledger command, stored, exported and shown on a page,
without touching the store, the export, the views or a migration."""

from __future__ import annotations

import json
from typing import Any

import pytest
from datasette.app import Datasette

from agentrank.exporter import validate_export
from datasette_plugins.metadata import build_metadata
from leaderboard import methods as registry
from leaderboard.methods import Context, MethodSpec, register
from tests.benchmark_attempts import attempt
from tests.conftest import make_item, write_json

D1 = "2026-11-01T09:00:00Z"


def fastest(context: Context) -> list[dict[str, Any]]:
    """The throwaway method (step 1): per tier, each agent's fastest counted attempt."""
    best: dict[tuple[str, str], float] = {}
    for a in context.attempts:
        wall = a.row.get("wall_seconds")
        if a.result.counted and wall is not None:
            key = (a.row["tier"], a.row["agent"])
            best[key] = min(best.get(key, wall), wall)
    return [{"tier": t, "agent": agent, "fastest_seconds": s} for (t, agent), s in sorted(best.items())]


@pytest.fixture
def throwaway(monkeypatch):
    monkeypatch.setattr(registry, "METHODS", dict(registry.METHODS))
    # Step 2: register it (its page is the generic one for methods without their own).
    register(
        MethodSpec(
            key="fastest",
            export_name="fastest_attempts",
            page="/-/benchmark/methods/fastest",
            figures=("tier", "agent", "fastest_seconds"),
            compute=fastest,
        )
    )
    return registry.METHODS["fastest"]


def test_a_method_cannot_be_registered_twice(throwaway):
    with pytest.raises(ValueError, match="is registered"):
        register(throwaway)


@pytest.mark.asyncio
async def test_a_registered_method_is_computed_exported_and_shown(throwaway, db_path, run_cli, tmp_path):
    records = [
        attempt("acme/coder", "1", "t1", 1, D1, "verified", 1, 1, 90.0, 1.0),
        attempt("acme/coder", "1", "t2", 1, D1, "verified", 1, 1, 30.0, 1.0),
        attempt("acme/coder", "1", "t1", 1, D1, "community", 1, 1, 5.0, 1.0),
    ]
    run_cli("import", str(write_json(tmp_path / "items.json", [make_item(id=1, full_name="acme/coder", name="coder")])))
    run_cli("score")
    run_cli("import-attempts", "--verified", str(write_json(tmp_path / "a.json", records)))
    out = tmp_path / "export.json"
    run_cli("export", "--out", str(out))
    document = json.loads(out.read_text())
    validate_export(document)
    assert document["methods"]["fastest_attempts"] == [
        {"tier": "community", "agent": "acme/coder", "fastest_seconds": 5.0},
        {"tier": "verified", "agent": "acme/coder", "fastest_seconds": 30.0},
    ]
    ds = Datasette([str(db_path)], metadata=build_metadata(db_path.stem))
    await ds.invoke_startup()
    page = await ds.client.get("/-/benchmark/methods/fastest")
    assert page.status_code == 200
    assert "Verified" in page.text and "Community" in page.text and "fastest seconds" in page.text
    twin = (await ds.client.get("/-/benchmark/methods/fastest.json")).json()
    assert twin["export_name"] == "fastest_attempts" and len(twin["items"]) == 2
    assert (await ds.client.get("/-/benchmark/methods/nothing")).status_code == 404
