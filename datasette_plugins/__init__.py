"""The Datasette plugin that publishes AgentRank (registered through the ``datasette`` entry point).

Datasette finds ``templates/`` and ``static/`` next to this package, which is why the entry point
names the package and not a submodule; the hooks live in the submodules and are gathered here
(pluggy takes one function per hook from a plugin, so the routes of every page module meet here).
"""

from collections.abc import Callable
from typing import Any

from datasette import hookimpl

from datasette_plugins import admission, agent_page, badges, cache, feeds, pages, schemas
from datasette_plugins.admission import handle_exception
from datasette_plugins.assets import extra_body_script, extra_css_urls, extra_js_urls, static_cache_headers
from datasette_plugins.cells import render_cell
from datasette_plugins.cors import cors
from datasette_plugins.facets import dedupe_facets
from datasette_plugins.formatting import prepare_jinja2_environment
from datasette_plugins.limits import limits, prepare_connection
from datasette_plugins.pages import extra_template_vars


@hookimpl
def asgi_wrapper(datasette: Any) -> Callable[[Any], Any]:
    """Pages the published run decides come from the page cache (ETag, 304) before anything else;
    what reaches the server passes the request gate that bounds heavy queries. Outermost: CORS
    on the read-only data answers and ``Cache-Control`` on static files."""
    gate, cached = admission.asgi_wrapper(datasette), cache.asgi_wrapper(datasette)
    return lambda app: cors(
        static_cache_headers(dedupe_facets(cached(gate(app)), datasette)), enabled=limits(datasette).cors
    )


@hookimpl
def register_routes():
    return [*agent_page.register_routes(), *pages.ROUTES, *badges.ROUTES, *feeds.ROUTES, *schemas.ROUTES]


__all__ = [
    "asgi_wrapper",
    "extra_body_script",
    "extra_css_urls",
    "extra_js_urls",
    "extra_template_vars",
    "handle_exception",
    "prepare_connection",
    "prepare_jinja2_environment",
    "register_routes",
    "render_cell",
]
