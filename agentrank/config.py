"""The configuration model: a TOML file where every key is optional.

Unknown keys are an error that names the key, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

# Each stage owns its settings; they are composed into Config here.
from crawler.settings import CrawlConfig as CrawlConfig
from crawler.settings import GitHubConfig as GitHubConfig
from crawler.settings import error_in_words, without_userinfo
from datasette_plugins.settings import ServeConfig as ServeConfig
from leaderboard.settings import BenchmarkConfig as BenchmarkConfig


class ConfigError(Exception):
    """The configuration file cannot be used; the message names the file and the key."""


def names_a_folder(path: str) -> bool:
    """Does ``path`` end in a folder, not a file: ``sub/``, ``.``, ``..``, ``sub/.``? ``Path`` drops a
    trailing slash, so ``Path("sub/")`` would write a regular file named ``sub``."""
    return os.path.basename(path) in ("", ".", "..")


class _Section(BaseModel):
    # Strict: "5" is not a number and true is not 1; a float setting still takes an integer.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True, allow_inf_nan=False)


class ClassifyConfig(_Section):
    # Below this probability a model prediction is shown as uncertain.
    uncertain_below: float = Field(0.55, ge=0, le=1)
    # Measure the model's 5-fold cross-validated accuracy on every classify run (some seconds for a
    # new model version, read back from the model cache while the model is unchanged): the run
    # records it and the validation block publishes it.
    cross_validate: bool = False


def file_path(value: str, example: str) -> str:
    """``value`` when it names a file: a blank path was read as "." (the current folder) and "sub/"
    wrote a file named sub; else ValueError saying which, with ``example``."""
    if not value.strip():
        raise ValueError(f"is empty; give a file, e.g. {example}")
    if names_a_folder(value):
        raise ValueError(f"names a folder; give a file in it, e.g. {example}")
    return value


class ExportConfig(_Section):
    path: str = Field("agentrank-export.json", max_length=4096)

    @field_validator("path")
    @classmethod
    def _a_file(cls, value: str) -> str:
        return file_path(value, "site/agentrank-export.json")


class ScheduleConfig(_Section):
    day_of_week: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"] = "mon"
    hour: int = Field(6, ge=0, le=23)
    minute: int = Field(0, ge=0, le=59)
    misfire_grace_s: int = Field(6 * 24 * 3600, ge=1, le=366 * 24 * 3600)
    # A scheduled refresh that failed or was skipped (GitHub down, rate-limited, the lock held) is tried
    # again this much later, until one succeeds or the weekly slot comes first; 0 waits for the slot.
    retry_after_s: int = Field(6 * 3600, ge=0, le=7 * 24 * 3600)


class CorrectionsConfig(_Section):
    path: str = "corrections.toml"

    @field_validator("path")
    @classmethod
    def _a_file(cls, value: str) -> str:
        return file_path(value, "corrections.toml")


class Config(_Section):
    github: GitHubConfig = Field(default_factory=GitHubConfig)
    crawl: CrawlConfig = Field(default_factory=CrawlConfig)
    classify: ClassifyConfig = Field(default_factory=ClassifyConfig)
    export: ExportConfig = Field(default_factory=ExportConfig)
    schedule: ScheduleConfig = Field(default_factory=ScheduleConfig)
    corrections: CorrectionsConfig = Field(default_factory=CorrectionsConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)
    benchmark: BenchmarkConfig = Field(default_factory=BenchmarkConfig)


def _describe(error: ValidationError, path: Path | None, prefix: str = "") -> str:
    first = error.errors()[0]
    key = prefix + ".".join(str(part) for part in first["loc"]) or "(top level)"
    where = f"{path}: " if path else ""
    if first["type"] == "extra_forbidden":
        return f"{where}unknown key '{key}'"
    return f"{where}bad value for '{key}': {error_in_words(first)}"


def load_config(path: str | os.PathLike[str] | None = None, environ: dict[str, str] | None = None) -> Config:
    """Read the TOML file (if any) and apply environment overrides.

    ``path`` None means no file: every setting takes its default. ``GITHUB_API_URL`` in the
    environment overrides ``github.api_url`` (a bad one is a ConfigError; the command line reads
    it with :func:`github_api_url` instead, in the commands that contact GitHub).
    """
    environ = dict(os.environ if environ is None else environ)
    data: dict = {}
    file_path = Path(path) if path else None
    if file_path is not None:
        try:
            # a BOM (some Windows editors write one) is no TOML error
            data = tomllib.loads(file_path.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            raise ConfigError(f"{file_path}: config file not found") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{file_path}: not valid TOML: {e}") from None
        except RecursionError:
            raise ConfigError(f"{file_path}: not valid TOML: nested too deeply") from None
        except OSError as e:
            raise ConfigError(f"{file_path}: cannot read: {e.strerror or e}") from None
    try:
        config = Config.model_validate(data, strict=True)
    except ValidationError as e:
        raise ConfigError(_describe(e, file_path)) from None
    if environ.get("GITHUB_API_URL"):
        config.github.api_url = github_api_url(config, environ=environ)
    return config


def place_export_beside(config: Config, db_path: str | os.PathLike[str]) -> Config:
    """``config`` with the export beside the database unless the file names it: ``agentrank.db`` →
    ``agentrank-export.json``, ``data/x.db`` → ``data/x-export.json``. Every command that exports
    (``export``, ``refresh``, each run of ``schedule``) places it so, never in the current folder."""
    if "path" not in config.export.model_fields_set:
        db = Path(db_path)
        config.export.path = str(db.with_name(f"{db.stem}-export.json"))
    return config


def github_api_url(config: Config, given: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The GitHub API base URL a command contacts: ``given`` (``--api-url``), else ``GITHUB_API_URL``
    in the environment, else ``github.api_url``.

    Only the one used is checked: a bad ``GITHUB_API_URL`` is a ConfigError naming it, and neither
    blocks an ``--api-url`` nor a command that never contacts GitHub (``given`` is checked where it
    is used, as the client's own refusal).
    """
    if given is not None:
        return given
    value = (os.environ if environ is None else environ).get("GITHUB_API_URL")
    if not value:
        return config.github.api_url
    try:
        return GitHubConfig(api_url=value).api_url
    except ValidationError as e:
        message = e.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise ConfigError(f"GITHUB_API_URL {without_userinfo(value)!r}: {message}") from None
