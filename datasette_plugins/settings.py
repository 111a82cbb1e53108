"""The server's settings: the ``[serve]`` section of the configuration, also read by the plugin.

``agentrank/config.py`` composes this model into the whole configuration; the plugin reads the
few settings it needs from Datasette's ``plugins.agentrank`` metadata block, so a snapshot served
by plain ``datasette`` behaves the same.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from crawler.settings import error_in_words


class SettingError(ValueError):
    """A server setting (``--setting NAME VALUE``) is unknown or out of range."""


# The addresses to suggest when a host cannot be listened on.
LISTEN_EXAMPLES = "e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)"

# Upper bounds: a value SQLite or Datasette hands to C must fit a C int (a larger one loaded fine
# and then broke every page with an OverflowError), and no limit needs more than a year or a terabyte.
C_INT_MAX = 2**31 - 1
YEAR_S = 366 * 24 * 3600


class ServeConfig(BaseModel):
    """How ``agentrank serve`` runs Datasette for the public: every limit an operator may tune."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    host: str = "127.0.0.1"
    # Not 0: that listens on a port chosen at random, while every link names port 0.
    port: int = Field(8001, ge=1, le=65535)
    # Open the file with immutable=1 (a published snapshot nothing writes to) instead of mode=ro.
    immutable: bool = False
    # Connections the server holds open at once (each is a file descriptor; one more is closed
    # at once), and how long a connection may take to send a request's headers before it is
    # closed (slow clients would hold descriptors forever). Behind nginx, nginx bears the crowd.
    max_connections: int = Field(1000, ge=1, le=1_000_000)
    header_timeout_s: float = Field(10.0, gt=0, le=3600)
    # How long a stop (Ctrl-C, SIGTERM from a service manager, SIGHUP) waits for answers still being sent
    # before closing their connections. uvicorn waits forever by default: one client that stopped
    # reading a streamed CSV held every `systemctl stop` and restart until the process was killed.
    stop_timeout_s: int = Field(10, ge=1, le=3600)
    # Datasette settings (names as in `datasette --help-settings`).
    default_allow_sql: bool = True
    sql_time_limit_ms: int = Field(1000, ge=1, le=3_600_000)
    max_returned_rows: int = Field(1000, ge=1, le=10_000_000)
    num_sql_threads: int = Field(3, ge=1, le=64)
    allow_download: bool = False
    allow_csv_stream: bool = True
    max_csv_mb: int = Field(100, ge=0, le=1_000_000)
    facet_time_limit_ms: int = Field(200, ge=1, le=3_600_000)
    suggest_facets: bool = False  # suggestions cost ~20 queries per table page
    default_cache_ttl: int = Field(5, ge=0, le=YEAR_S)
    # SQLite limits the plugin sets on every connection Datasette opens.
    # SQLITE_LIMIT_LENGTH: longest string or blob. At least 100 kB: the longest repos row the import
    # keeps (crawler.items.TEXT_LIMITS) is some 40 kB, and every page must be able to read it.
    max_value_bytes: int = Field(250_000, ge=100_000, le=C_INT_MAX)
    max_sql_bytes: int = Field(100_000, ge=1000, le=C_INT_MAX)  # SQLITE_LIMIT_SQL_LENGTH: longest SQL text
    max_result_bytes: int = Field(20_000_000, ge=1000, le=10**12)  # text and blob bytes one query may return
    heap_limit_mb: int = Field(256, ge=0, le=1_000_000)  # PRAGMA hard_heap_limit for SQLite in the server; 0 = none
    # Server-wide: result bytes all large requests together may hold (SQL, big pages, CSV), and how
    # long one waits for its turn before "503 busy, try again".
    max_inflight_result_bytes: int = Field(20_000_000, ge=1000, le=10**12)
    queue_wait_ms: int = Field(2000, ge=0, le=3_600_000)
    # Where the maker's page sends people to ask for a correction: an http(s) URL, since it becomes a
    # link on every maker's page ("javascript:alert(1)" would run in every visitor's browser).
    source_url: str = Field(
        "https://github.com/agentrank/agentrank", pattern=r"^https?://[^\s/]+(/\S*)?$", max_length=2000
    )
    # Where the directory is served, for absolute links: feeds, badges and the export's page_url and
    # badge_url. Not set: the server's own address, http://HOST:PORT (so `serve --port 8140` links
    # to itself); set it to the public address behind a proxy.
    public_url: str = Field("http://127.0.0.1:8001", pattern=r"^https?://[^\s/]+(/\S*)?$")
    # Pages that follow the published run (datasette_plugins/cache.py): how long a browser, CDN or
    # proxy may keep them before revalidating with their ETag, and the in-process page cache.
    cache_max_age: int = Field(300, ge=0, le=YEAR_S)
    page_cache_mb: int = Field(64, ge=0, le=1_000_000)
    # Access-Control-Allow-Origin: * on the read-only JSON, CSV, feeds and badges (datasette_plugins/cors.py).
    cors: bool = True

    # Which of the fields above are Datasette settings, passed through unchanged.
    DATASETTE_SETTINGS: ClassVar[tuple[str, ...]] = (
        "default_allow_sql",
        "sql_time_limit_ms",
        "max_returned_rows",
        "num_sql_threads",
        "allow_download",
        "allow_csv_stream",
        "max_csv_mb",
        "facet_time_limit_ms",
        "suggest_facets",
        "default_cache_ttl",
    )
    # Which are read by the plugin (from the metadata's plugins.agentrank block).
    PLUGIN_SETTINGS: ClassVar[tuple[str, ...]] = (
        "max_value_bytes",
        "max_sql_bytes",
        "max_result_bytes",
        "heap_limit_mb",
        "max_inflight_result_bytes",
        "queue_wait_ms",
        "source_url",
        "public_url",
        "cache_max_age",
        "page_cache_mb",
        "cors",
    )

    @field_validator("host")
    @classmethod
    def _an_address(cls, value: str) -> str:
        # An empty host listened on every interface without a word (0.0.0.0 says so).
        if not value.strip():
            raise ValueError(f"should be an address to listen on, {LISTEN_EXAMPLES}")
        return value

    @model_validator(mode="after")
    def _public_url_follows_the_address(self) -> ServeConfig:
        if "public_url" not in self.model_fields_set:
            # A wildcard address is not one a browser can use: links then name this machine's loopback.
            host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
            host = f"[{host}]" if ":" in host else host
            object.__setattr__(self, "public_url", f"http://{host}:{self.port}")  # stays "not set"
        return self

    @field_validator("public_url", "source_url")
    @classmethod
    def _no_credentials(cls, value: str) -> str:
        # Both are written into every export, snapshot and page: a user name, password or query
        # (https://user:TOKEN@host, ?token=…) would publish a credential to every visitor.
        parts = urlsplit(value)
        if "@" in parts.netloc:
            raise ValueError("must not carry a user name or password (user:pass@): it is published on every page")
        if "?" in value or "#" in value:
            raise ValueError("must not carry a query or fragment (?… or #…): it is published on every page")
        return value

    def datasette_settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.DATASETTE_SETTINGS}

    def plugin_settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.PLUGIN_SETTINGS}

    def with_overrides(self, overrides: dict[str, Any]) -> ServeConfig:
        """A copy with ``name: value`` pairs applied (``--setting`` on the command line), validated."""
        try:
            return ServeConfig.model_validate({**self.model_dump(exclude_unset=True), **overrides})
        except ValidationError as e:
            first = e.errors()[0]
            key = "serve." + ".".join(str(part) for part in first["loc"])
            if first["type"] == "extra_forbidden":
                raise SettingError(f"unknown key '{key}'") from None
            raise SettingError(f"bad value for '{key}': {error_in_words(first)}") from None


HOW_TO_SET_PUBLIC_URL = (
    'set it with --public-url https://YOUR.SITE (or public_url = "https://YOUR.SITE" under [serve] in the config)'
)


def is_loopback(url: str) -> bool:
    """Does ``url`` name this machine (localhost, 127.x, ::1, or every interface)?"""
    host = (urlsplit(url).hostname or "").lower()
    return (
        host == "localhost"
        or host.endswith(".localhost")
        or host.startswith("127.")
        or host in ("::1", "0.0.0.0", "::")
    )


def public_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be the directory's public address (loopback, or plain http), or None.

    It is the base of the feeds' links, the badge snippets, the export's ``page_url`` and
    ``badge_url`` and the snapshot's metadata; shields.io refuses an endpoint badge that is not https."""
    parts = urlsplit(url)
    if is_loopback(url):
        return (
            f"public_url is {url}, this machine's loopback address: the feeds, badge snippets and "
            "page links would point at whoever reads them"
        )
    if parts.scheme != "https":
        return f"public_url is {url}, plain http: shields.io refuses an endpoint badge that is not https"
    return None
