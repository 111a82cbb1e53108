"""CORS on the public read-only answers: ``Access-Control-Allow-Origin: *`` on JSON (the tables'
and queries' ``.json``, ``/-/agent/OWNER/REPO.json``, ``shields.json``, the schemas), CSV, the
feeds and the badges, so a page on another site can read them with ``fetch()``.

It is the plugin's own wrapper (not Datasette's ``--cors``), so ``agentrank serve`` and a snapshot
served by plain ``datasette serve -m`` or ``datasette publish`` answer the same; the ``cors``
setting (``[serve]``, on by default) turns it off. Nothing here accepts credentials, and the
site takes no writes, so ``*`` gives another origin nothing a ``curl`` could not read.
"""

from __future__ import annotations

from typing import Any

READ_ONLY_SUFFIXES = (".json", ".csv", ".atom", ".svg")
READ_ONLY_TYPES = (
    b"application/json",
    b"application/schema+json",
    b"text/csv",
    b"text/plain",
    b"application/atom+xml",
    b"image/svg+xml",
)
EXPOSED = b"Link, ETag, Retry-After"


def is_read_only_data(path: str, content_type: bytes) -> bool:
    """A machine-readable answer another site may read: by its suffix, or by its content type."""
    return path.endswith(READ_ONLY_SUFFIXES) or content_type.split(b";")[0].strip() in READ_ONLY_TYPES


def cors(app: Any, *, enabled: bool) -> Any:
    """The app with ``Access-Control-Allow-Origin: *`` on every read-only data answer (GET/HEAD)."""
    if not enabled:
        return app

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD"):
            await app(scope, receive, send)
            return
        path = scope.get("path", "")

        async def with_cors(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if is_read_only_data(path, content_type) or message["status"] == 304:
                    headers = [
                        (k, v)
                        for k, v in headers
                        if k.lower() not in (b"access-control-allow-origin", b"access-control-expose-headers")
                    ]
                    headers += [(b"access-control-allow-origin", b"*"), (b"access-control-expose-headers", EXPOSED)]
                    message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, with_cors)

    return wrapped
