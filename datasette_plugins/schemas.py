"""The JSON Schemas, served at the paths their ``$id``s name: ``/schemas/export-v4.schema.json``
(the export, ``agentrank export``) and ``/schemas/attempt-v1.schema.json`` (one benchmark attempt,
``agentrank import-attempts``).

The shipped files' ``$id``s are on the project's site (``https://agentrank.dev/schemas/…``); a
served copy names its own address instead (``public_url`` + the same path), so its ``$id``
resolves wherever the directory is served.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from datasette import Response

from datasette_plugins.limits import limits
from scoring.components import with_components

SHIPPED = {"agentrank": "export.schema.json", "leaderboard": "attempt.schema.json"}


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """The shipped schemas by the path of their ``$id`` (``/schemas/NAME``)."""
    found = {}
    for package, name in SHIPPED.items():
        schema = json.loads(files(package).joinpath(name).read_text(encoding="utf-8"))
        if package == "agentrank":  # (as agentrank.exporter.export_schema reads it)
            with_components(schema)
        found[urlsplit(schema["$id"]).path] = schema
    return found


async def schema(datasette: Any, request: Any) -> Response:
    shipped = schemas().get(request.path)
    if shipped is None:
        names = ", ".join(sorted(schemas()))
        return Response.text(f"No such schema: the schemas are {names}", status=404)
    served = {**shipped, "$id": limits(datasette).public_url.rstrip("/") + request.path}
    return Response(
        json.dumps(served, indent=2, ensure_ascii=False),
        content_type="application/schema+json; charset=utf-8",
        headers={"Cache-Control": "public, max-age=86400"},
    )


ROUTES = [(r"^/schemas/[a-z0-9-]+\.schema\.json$", schema)]
