"""The Datasette plugin that publishes AgentRank (registered through the ``datasette`` entry point).

Datasette finds ``templates/`` and ``static/`` next to this package, which is why the entry point
names the package and not a submodule. The hooks themselves are in :mod:`datasette_plugins.plugin`;
the ones here only forward to it. Why: the command line reads ``datasette_plugins.settings`` (the
``[serve]`` settings) on every command, and importing a package runs its ``__init__`` first, so an
``__init__`` that imported Datasette would cost every command, even ``agentrank --help``, a second.
The marker is pluggy's own, the one ``datasette.hookimpl`` is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from pluggy import HookimplMarker

hookimpl = HookimplMarker("datasette")


def _plugin() -> Any:
    from datasette_plugins import plugin

    return plugin


@hookimpl
def asgi_wrapper(datasette: Any) -> Callable[[Any], Any]:
    return _plugin().asgi_wrapper(datasette)


@hookimpl
def register_routes() -> Any:
    return _plugin().register_routes()


@hookimpl
def extra_css_urls(datasette: Any) -> list[str]:
    return _plugin().extra_css_urls(datasette)


@hookimpl
def extra_js_urls(datasette: Any) -> list[dict[str, Any]]:
    return _plugin().extra_js_urls(datasette)


@hookimpl
def extra_body_script(datasette: Any) -> str:
    return _plugin().extra_body_script(datasette)


@hookimpl
def extra_template_vars(
    template: str, database: str | None, table: str | None, view_name: str, request: Any, datasette: Any
) -> Any:
    return _plugin().extra_template_vars(template, database, table, view_name, request, datasette)


@hookimpl
def handle_exception(datasette: Any, request: Any, exception: BaseException) -> Any:
    return _plugin().handle_exception(datasette, request, exception)


@hookimpl
def prepare_connection(conn: sqlite3.Connection, database: str, datasette: Any) -> None:
    _plugin().prepare_connection(conn, database, datasette)


@hookimpl
def prepare_jinja2_environment(env: Any, datasette: Any) -> None:
    _plugin().prepare_jinja2_environment(env, datasette)


@hookimpl
def render_cell(row: Any, value: Any, column: str, table: str | None, database: str, datasette: Any) -> Any:
    return _plugin().render_cell(row, value, column, table, database, datasette)
