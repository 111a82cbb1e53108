"""The ledger's settings: ``[[benchmark.index]]`` tables of the configuration (composed into Config)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class IndexConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The index's name, as its page and the export show it.
    name: str = Field(min_length=1, max_length=200)
    # Its version, printed with every value (a new component set is a new version).
    version: str = Field(min_length=1, max_length=50)
    # The suites whose per-suite mean scores are averaged with equal weights.
    suites: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> IndexConfig:
        if len(set(self.suites)) != len(self.suites):
            raise ValueError("a suite is listed twice")
        return self


class BenchmarkConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: list[IndexConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _names(self) -> BenchmarkConfig:
        names = [i.name for i in self.index]
        if len(set(names)) != len(names):
            raise ValueError("two indexes have the same name")
        return self
