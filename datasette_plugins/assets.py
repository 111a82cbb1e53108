"""The plugin's stylesheet and script on every page (links, folded column descriptions)."""

from __future__ import annotations

import json
from typing import Any

from datasette import hookimpl


@hookimpl
def extra_css_urls(datasette: Any) -> list[str]:
    return [datasette.urls.static_plugins("agentrank", "agentrank.css")]


@hookimpl
def extra_js_urls(datasette: Any) -> list[dict[str, Any]]:
    # A module script runs once the page is parsed, so it finds the tables it changes.
    return [{"url": datasette.urls.static_plugins("agentrank", "agentrank.js"), "module": True}]


@hookimpl
def extra_body_script(datasette: Any) -> str:
    """On a demo database (built by ``agentrank demo``), a notice at the top of every page."""
    note = (datasette.plugin_config("agentrank") or {}).get("demo_note")
    if not note:
        return ""
    text = json.dumps(str(note)).replace("<", "\\u003c")
    return (
        "(() => { const p = document.createElement('p'); p.className = 'agentrank-demo'; "
        f"p.textContent = {text}; "
        "(document.querySelector('section.content') || document.body).prepend(p); })();"
    )
