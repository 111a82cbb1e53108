"""The configuration model: a TOML file where every key is optional.

Unknown keys are an error that names the key, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# Each stage owns its settings; re-exported here, where they are composed into Config.
from crawler.settings import CrawlConfig as CrawlConfig
from crawler.settings import GitHubConfig as GitHubConfig


class ConfigError(Exception):
    """The configuration file cannot be used; the message names the file and the key."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ClassifyConfig(_Section):
    # Below this probability a model prediction is shown as uncertain.
    uncertain_below: float = Field(0.45, ge=0, le=1)


class ExportConfig(_Section):
    path: str = "agentrank-export.json"


class ScheduleConfig(_Section):
    day_of_week: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"] = "mon"
    hour: int = Field(6, ge=0, le=23)
    minute: int = Field(0, ge=0, le=59)
    misfire_grace_s: int = Field(6 * 24 * 3600, ge=1)


class CorrectionsConfig(_Section):
    path: str = "corrections.toml"


class ServeConfig(_Section):
    """How ``agentrank serve`` runs Datasette for the public: every limit an operator may tune."""

    host: str = "127.0.0.1"
    port: int = Field(8001, ge=0, le=65535)
    # Open the file with immutable=1 (a published snapshot nothing writes to) instead of mode=ro.
    immutable: bool = False
    # Datasette settings (names as in `datasette --help-settings`).
    default_allow_sql: bool = True
    sql_time_limit_ms: int = Field(1000, ge=1)
    max_returned_rows: int = Field(1000, ge=1)
    num_sql_threads: int = Field(3, ge=1)
    allow_download: bool = False
    allow_csv_stream: bool = True
    max_csv_mb: int = Field(100, ge=0)
    facet_time_limit_ms: int = Field(200, ge=1)
    suggest_facets: bool = False  # suggestions cost ~20 queries per table page
    default_cache_ttl: int = Field(5, ge=0)
    # SQLite limits the plugin sets on every connection Datasette opens.
    max_value_bytes: int = Field(250_000, ge=1000)  # SQLITE_LIMIT_LENGTH: longest string or blob
    max_sql_bytes: int = Field(100_000, ge=1000)  # SQLITE_LIMIT_SQL_LENGTH: longest SQL text
    max_result_bytes: int = Field(20_000_000, ge=1000)  # text and blob bytes one query may return
    heap_limit_mb: int = Field(256, ge=0)  # PRAGMA hard_heap_limit for SQLite in the server; 0 = none
    # Where the maker's page sends people to ask for a correction.
    source_url: str = "https://github.com/agentrank/agentrank"

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
        "source_url",
    )

    def datasette_settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.DATASETTE_SETTINGS}

    def plugin_settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.PLUGIN_SETTINGS}

    def with_overrides(self, overrides: dict[str, Any]) -> ServeConfig:
        """A copy with ``name: value`` pairs applied (``--setting`` on the command line), validated."""
        try:
            return ServeConfig.model_validate({**self.model_dump(), **overrides})
        except ValidationError as e:
            raise ConfigError(_describe(e, None, prefix="serve.")) from None


class Config(_Section):
    github: GitHubConfig = Field(default_factory=GitHubConfig)
    crawl: CrawlConfig = Field(default_factory=CrawlConfig)
    classify: ClassifyConfig = Field(default_factory=ClassifyConfig)
    export: ExportConfig = Field(default_factory=ExportConfig)
    schedule: ScheduleConfig = Field(default_factory=ScheduleConfig)
    corrections: CorrectionsConfig = Field(default_factory=CorrectionsConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)


def _describe(error: ValidationError, path: Path | None, prefix: str = "") -> str:
    first = error.errors()[0]
    key = prefix + ".".join(str(part) for part in first["loc"]) or "(top level)"
    where = f"{path}: " if path else ""
    if first["type"] == "extra_forbidden":
        return f"{where}unknown key '{key}'"
    return f"{where}bad value for '{key}': {first['msg']}"


def load_config(path: str | os.PathLike[str] | None = None, environ: dict[str, str] | None = None) -> Config:
    """Read the TOML file (if any) and apply environment overrides.

    ``path`` None means no file: every setting takes its default. ``GITHUB_API_URL`` in the
    environment overrides ``github.api_url``.
    """
    environ = dict(os.environ if environ is None else environ)
    data: dict = {}
    file_path = Path(path) if path else None
    if file_path is not None:
        try:
            data = tomllib.loads(file_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{file_path}: config file not found") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{file_path}: not valid TOML: {e}") from None
    try:
        config = Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_describe(e, file_path)) from None
    if environ.get("GITHUB_API_URL"):
        config.github.api_url = environ["GITHUB_API_URL"]
    return config
