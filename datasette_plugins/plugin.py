"""The plugin's hooks, gathered from the submodules (pluggy takes one function per hook from a
plugin, so the routes of every page module meet here). ``datasette_plugins/__init__.py`` forwards
Datasette's calls to them, importing this module (and so Datasette) only when Datasette calls.
"""

from collections.abc import Callable
from typing import Any

from datasette import hookimpl

import datasette_plugins.admission as admission
import datasette_plugins.agent_page as agent_page
import datasette_plugins.badges as badges
import datasette_plugins.cache as cache
import datasette_plugins.feeds as feeds
import datasette_plugins.movers as movers
import datasette_plugins.pages as pages
import datasette_plugins.schemas as schemas
from datasette_plugins.admission import handle_exception
from datasette_plugins.assets import extra_body_script, extra_css_urls, extra_js_urls, static_cache_headers
from datasette_plugins.cells import render_cell
from datasette_plugins.cors import cors
from datasette_plugins.facets import dedupe_facets
from datasette_plugins.formatting import prepare_jinja2_environment
from datasette_plugins.limits import limits, prepare_connection
from datasette_plugins.pages import extra_template_vars
from datasette_plugins.refusals import refuse_bad_requests
from datasette_plugins.search import drop_empty_searches


@hookimpl
def asgi_wrapper(datasette: Any) -> Callable[[Any], Any]:
    """Requests no page can answer (a NUL in the query string) are refused first; pages the published
    run decides come from the page cache (ETag, 304) before anything else;
    what reaches the server passes the request gate that bounds heavy queries. Outermost: CORS
    on the read-only data answers, ``Cache-Control`` on static files, and a request facet that
    repeats a default one dropped, and a search for nothing but quote marks (FTS5 would refuse it)."""
    gate, cached = admission.asgi_wrapper(datasette), cache.asgi_wrapper(datasette)
    return lambda app: refuse_bad_requests(
        cors(
            static_cache_headers(dedupe_facets(drop_empty_searches(cached(gate(app))), datasette)),
            enabled=limits(datasette).cors,
        )
    )


@hookimpl
def register_routes():
    return [
        *agent_page.register_routes(),
        *pages.ROUTES,
        *badges.ROUTES,
        *feeds.ROUTES,
        *movers.ROUTES,
        *schemas.ROUTES,
    ]


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
