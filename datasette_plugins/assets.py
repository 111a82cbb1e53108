"""The plugin's stylesheet and script on every page (links, folded column descriptions)."""

from __future__ import annotations

from typing import Any

from datasette import hookimpl


@hookimpl
def extra_css_urls(datasette: Any) -> list[str]:
    return [datasette.urls.static_plugins("agentrank", "agentrank.css")]


@hookimpl
def extra_js_urls(datasette: Any) -> list[dict[str, Any]]:
    # A module script runs once the page is parsed, so it finds the tables it changes.
    return [{"url": datasette.urls.static_plugins("agentrank", "agentrank.js"), "module": True}]
