"""The shipped JSON Schemas: valid under ajv's strict mode (checked in Python: tests/schema_strict.py),
nearly every property described, and served by the plugin at the URLs their ``$id``s name."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import jsonschema
import pytest

from agentrank.exporter import build_export, export_schema
from agentrank.serve import build_datasette
from datasette_plugins.settings import ServeConfig
from db.store import open_store
from leaderboard.attempt import shipped_schema
from tests.schema_strict import described, strict_errors

SCHEMAS = {"export": export_schema, "attempt": shipped_schema}


@pytest.mark.parametrize("name", SCHEMAS)
def test_each_schema_passes_the_strict_rules(name):
    schema = SCHEMAS[name]()
    assert strict_errors(schema) == []
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_strict_check_finds_what_ajv_strict_refuses():
    assert strict_errors({"type": ["string", "null"]})  # a union type
    assert strict_errors({"type": "object", "required": ["a"], "additionalProperties": {"type": "string"}})
    assert strict_errors({"properties": {"a": {"contains": {"const": 1}}}})  # contains without type
    assert strict_errors({"type": "string", "minimum": 1})
    assert strict_errors({"type": "object", "propertys": {}})  # unknown keyword
    assert strict_errors({"type": "object", "anyOf": [{"required": ["a"]}], "properties": {"a": {}}}) == []


@pytest.mark.parametrize(("name", "share"), [("export", 0.95), ("attempt", 1.0)])
def test_properties_are_described(name, share):
    with_text, total, missing = described(SCHEMAS[name]())
    assert total > 30
    assert with_text / total >= share, missing


@pytest.mark.asyncio
async def test_both_schemas_are_served_where_their_ids_point(published_db):
    datasette = build_datasette(published_db.path, ServeConfig(heap_limit_mb=0, public_url="https://ar.example"))
    served_copies = {}
    for name, load in SCHEMAS.items():
        shipped = load()
        path = urlsplit(shipped["$id"]).path
        assert path.startswith("/schemas/") and name in path
        response = await datasette.client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("application/schema+json")
        assert response.headers["access-control-allow-origin"] == "*"
        served = served_copies[name] = response.json()
        assert served["$id"] == "https://ar.example" + path  # resolves on this site
        assert {k: v for k, v in served.items() if k != "$id"} == {k: v for k, v in shipped.items() if k != "$id"}
    assert (await datasette.client.get("/schemas/nothing.schema.json")).status_code == 404
    # A real export validates against the served schema.
    export = build_export(open_store(published_db.path))
    jsonschema.validate(json.loads(json.dumps(export)), served_copies["export"])


def test_the_shipped_export_schema_file_holds_every_score_component_on_its_own(published_db):
    # The site validates with the file alone: it must name the five components and refuse others,
    # as the schema the exporter uses does (`make docs` writes them in from scoring/components.py).
    from importlib.resources import files

    on_disk = json.loads(files("agentrank").joinpath("export.schema.json").read_text(encoding="utf-8"))
    assert on_disk == export_schema()
    document = json.loads(json.dumps(build_export(open_store(published_db.path))))
    jsonschema.validate(document, on_disk)
    document["agents"][0]["components"] = {"foo": "bar"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, on_disk)
