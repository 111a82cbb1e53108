"""Keeping the GitHub token out of every log line, error message and stored text."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from urllib.parse import quote, quote_plus

REDACTED = "[redacted]"
# GitHub token formats: classic/OAuth/app tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained PATs.
TOKEN_PATTERN = re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}")

_secrets: set[str] = set()
_lock = threading.Lock()
_installed = False


def spellings(secret: str) -> set[str]:
    """The secret as written, and as a URL or a JSON string would quote it: a server that echoes a
    request back (in an error message, a query string) may hand it over encoded."""
    return {secret, quote(secret, safe=""), quote_plus(secret, safe=""), json.dumps(secret)[1:-1]}


def register_secret(value: str | None) -> None:
    """Remember a literal secret (the token) so :func:`redact` removes it wherever it appears."""
    if value:
        with _lock:
            _secrets.update(spellings(value))


def redact(text: str, token: str | None = None) -> str:
    """``text`` with the token, any registered secret and anything shaped like a GitHub token removed."""
    if not isinstance(text, str):
        text = str(text)
    secrets = set(_secrets)
    if token:
        secrets.update(spellings(token))
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return TOKEN_PATTERN.sub(REDACTED, text)


class RedactingFilter(logging.Filter):
    """Rewrites a record's message and exception text through :func:`redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return True


def _redact_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:  # a bad format string must not hide the record
        message = str(record.msg)
    record.msg, record.args = redact(message), ()
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


def install_redaction(token: str | None = None) -> None:
    """Redact every log record from now on, whichever logger or handler it goes through.

    A handler-level filter would miss handlers added later (a test's file handler, a library's);
    wrapping the record factory cleans each record once, when it is made.
    """
    global _installed
    register_secret(token)
    with _lock:
        if _installed:
            return
        _installed = True
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _redact_record(record)
        return record

    logging.setLogRecordFactory(factory)


class TokenError(ValueError):
    """GITHUB_TOKEN is set to something that cannot be a token."""


def github_token() -> str | None:
    """The token from GITHUB_TOKEN (optional), registered for redaction before anything can log it."""
    token = os.environ.get("GITHUB_TOKEN", "").strip() or None
    install_redaction(token)
    if token is not None and (not token.isascii() or not token.isprintable() or " " in token):
        # An HTTP header carries ASCII only; say so without ever showing the value.
        raise TokenError("GITHUB_TOKEN is not a usable token: it holds non-ASCII, space or control characters")
    return token
