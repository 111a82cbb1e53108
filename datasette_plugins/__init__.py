"""The Datasette plugin that publishes AgentRank (registered through the ``datasette`` entry point).

Datasette finds ``templates/`` and ``static/`` next to this package, which is why the entry point
names the package and not a submodule; the hooks live in the submodules and are gathered here.
"""

from datasette_plugins.agent_page import register_routes
from datasette_plugins.assets import extra_css_urls, extra_js_urls
from datasette_plugins.cache import asgi_wrapper
from datasette_plugins.cells import render_cell
from datasette_plugins.limits import prepare_connection

__all__ = ["asgi_wrapper", "extra_css_urls", "extra_js_urls", "prepare_connection", "register_routes", "render_cell"]
