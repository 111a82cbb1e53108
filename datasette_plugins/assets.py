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


STATIC_PREFIXES = ("/-/static/", "/-/static-plugins/")
STATIC_MAX_AGE = 3600  # an hour: the files change only with a new release of Datasette or the plugin


def static_cache_headers(app: Any) -> Any:
    """Datasette's and the plugin's static files with ``Cache-Control: public, max-age=3600``
    (Datasette sends none, so neither a browser nor a proxy would keep them)."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not scope.get("path", "").startswith(STATIC_PREFIXES):
            await app(scope, receive, send)
            return

        async def with_cache_control(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                headers.append((b"cache-control", f"public, max-age={STATIC_MAX_AGE}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, with_cache_control)

    return wrapped
