"""Requests no page can answer, refused with ``400`` before Datasette sees them.

A NUL byte in a query string (``?%00``, ``?_facet=%00``, ``?_where=%00``, a column filter named
``a%00b``) reaches Datasette's SQL text as a column name or a clause, and Python's ``sqlite3``
refuses any SQL holding one ("the query contains a null character"), which Datasette answered
with a ``500`` on every table page. No column, value or search of this directory holds a NUL, so
the whole query string is refused with one clear line instead.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote_to_bytes

NUL_IN_QUERY = "bad request: the query string contains a NUL byte (%00), which no page accepts"


def has_nul(query_string: bytes) -> bool:
    """Does the query string hold a NUL byte, written as ``%00`` or raw?"""
    return b"\x00" in query_string or b"\x00" in unquote_to_bytes(query_string.replace(b"+", b" "))


async def send_bad_request(send: Any, path: str, message: str) -> None:
    """``400`` with ``message``: JSON for a ``.json`` path, one line of plain text otherwise."""
    if path.endswith(".json"):
        body = json.dumps({"ok": False, "error": message, "status": 400}).encode()
        content_type = b"application/json; charset=utf-8"
    else:
        body = (message + "\n").encode()
        content_type = b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def refuse_bad_requests(app: Any) -> Any:
    """The ASGI app with requests no page can answer refused with ``400``."""

    async def checked(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and has_nul(scope.get("query_string", b"")):
            await send_bad_request(send, scope.get("path", ""), NUL_IN_QUERY)
            return
        await app(scope, receive, send)

    return checked
