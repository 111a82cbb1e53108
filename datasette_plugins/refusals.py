"""Requests no page can answer, refused with ``400`` before Datasette sees them.

A NUL byte in a query string (``?%00``, ``?_facet=%00``, ``?_where=%00``, a column filter named
``a%00b``) reaches Datasette's SQL text as a column name or a clause, and Python's ``sqlite3``
refuses any SQL holding one ("the query contains a null character"), which Datasette answered
with a ``500`` on every table page. No column, value or search of this directory holds a NUL, so
the whole query string is refused with one clear line instead.

Datasette reads two parameters without checking them, and answered ``500`` on any table page:
``_timelimit`` goes through ``int()`` (``?_timelimit=x``) and a negative one interrupts the CSV
stream at once; ``_through`` goes through ``json.loads`` and then indexes ``table``, ``column`` and
``value`` (``?_through=x``, ``?_through={}``). Both are refused unless well formed.

The site is read-only: a ``POST`` (or any method but ``GET``, ``HEAD`` and ``OPTIONS``) reached
Datasette's table and canned-query views, which answered ``500`` with a traceback in the log
("You may only POST to a canned query"). It is answered ``405`` with ``Allow``.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

NUL_IN_QUERY = "bad request: the query string contains a NUL byte (%00), which no page accepts"


def has_nul(query_string: bytes) -> bool:
    """Does the query string hold a NUL byte, written as ``%00`` or raw?"""
    return b"\x00" in query_string or b"\x00" in unquote_to_bytes(query_string.replace(b"+", b" "))


BAD_TIMELIMIT = "bad request: _timelimit is a whole number of milliseconds"
BAD_THROUGH = 'bad request: _through is a JSON object {"table": ..., "column": ..., "value": ...}'


def bad_parameter(query_string: bytes) -> str | None:
    """The refusal for a ``_timelimit`` or ``_through`` Datasette cannot read, else None."""
    if b"_timelimit" not in query_string and b"_through" not in query_string:
        return None
    for name, value in parse_qsl(query_string.decode("utf-8", "replace"), keep_blank_values=True):
        if name == "_timelimit" and not (value.isascii() and value.isdigit() and len(value) <= 9):
            return BAD_TIMELIMIT
        if name == "_through" and not _well_formed_through(value):
            return BAD_THROUGH
    return None


def _well_formed_through(value: str) -> bool:
    try:
        data = json.loads(value)
    except ValueError:
        return False
    return (
        isinstance(data, dict)
        and isinstance(data.get("table"), str)
        and isinstance(data.get("column"), str)
        and isinstance(data.get("value"), str | int | float)
    )


READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
NOT_ALLOWED = "method not allowed: this site is read-only (GET and HEAD)"


async def send_bad_request(
    send: Any, path: str, message: str, *, status: int = 400, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """``status`` (400) with ``message``: JSON for a ``.json`` path, one line of plain text otherwise."""
    if path.endswith(".json"):
        body = json.dumps({"ok": False, "error": message, "status": status}).encode()
        content_type = b"application/json; charset=utf-8"
    else:
        body = (message + "\n").encode()
        content_type = b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def refuse_bad_requests(app: Any) -> Any:
    """The ASGI app with requests no page can answer refused with ``400``."""

    async def checked(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method", "GET") not in READ_METHODS:
            allow = ((b"allow", b"GET, HEAD, OPTIONS"),)
            await send_bad_request(send, scope.get("path", ""), NOT_ALLOWED, status=405, headers=allow)
            return
        if scope.get("type") == "http" and has_nul(scope.get("query_string", b"")):
            await send_bad_request(send, scope.get("path", ""), NUL_IN_QUERY)
            return
        refusal = bad_parameter(scope.get("query_string", b"")) if scope.get("type") == "http" else None
        if refusal is not None:
            await send_bad_request(send, scope.get("path", ""), refusal)
            return
        await app(scope, receive, send)

    return checked
