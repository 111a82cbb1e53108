"""The list-price cost of an attempt from its tokens (seed 001's "count tokens, then price them").

``agentrank import-prices FILE`` reads TOML ``[[price]]`` tables: ``model``, ``from`` (a date),
``input``, ``cached_input``, ``cache_write``, ``output`` in US dollars per million tokens. An
attempt with tokens and no ``cost_usd`` is priced with the price in force on its date (the latest
``from`` on or before it). ``input`` includes cached reads and cache writes, ``output`` includes
reasoning, so::

    cost = (input − cached − cache_write) · input + cached · cached_input
           + cache_write · cache_write_rate + output · output          (per million tokens)

No price for the model, or no input and output token counts: the cost stays null ("price
unknown"), never 0.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from leaderboard.fairness import money
from leaderboard.toml_files import read_toml

LIST_PRICE = "api-list-price"
PER = 1_000_000
# Past these a price is a typo, not a price: USD per million tokens, and the dates a price can start.
MAX_RATE = 10_000.0
EARLIEST, LATEST = dt.date(2000, 1, 1), dt.date(2100, 12, 31)


class PriceFileError(ValueError):
    """The price file cannot be used; the message names the file and the problem."""


class Price(BaseModel):
    # Strict, as attempts are: `input = true` or `output = "3"` is an error, not 1.0 or 3.0. The
    # date alone may also be written as a string ("2026-10-01").
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)

    model: str = Field(min_length=1, max_length=200)
    from_date: dt.date = Field(alias="from", strict=False)
    input: float = Field(ge=0, le=MAX_RATE, allow_inf_nan=False)
    cached_input: float | None = Field(None, ge=0, le=MAX_RATE, allow_inf_nan=False)
    cache_write: float | None = Field(None, ge=0, le=MAX_RATE, allow_inf_nan=False)
    output: float = Field(ge=0, le=MAX_RATE, allow_inf_nan=False)

    @field_validator("from_date", mode="before")
    @classmethod
    def _a_date(cls, value: Any) -> Any:
        # A TOML date (from = 2026-10-01) or its text; a number is not read as a Unix time, and a
        # date-time is not cut to its day.
        written = isinstance(value, dt.date | str) and not isinstance(value, dt.datetime)
        if not written or (isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)):
            shown = value.isoformat() if isinstance(value, dt.date) else repr(value)
            raise ValueError(f"a date is written 2026-10-01 (got {shown})")
        return value

    @field_validator("from_date")
    @classmethod
    def _plausible(cls, value: dt.date) -> dt.date:
        if not EARLIEST <= value <= LATEST:
            raise ValueError(f"a price's date must be between {EARLIEST} and {LATEST} (got {value})")
        return value

    def row(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "from_date": self.from_date.isoformat(),
            "input": self.input,
            "cached_input": self.cached_input,
            "cache_write": self.cache_write,
            "output": self.output,
        }


class _PriceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    price: list[Price] = Field(min_length=1)


def read_prices(path: str | Path) -> list[Price]:
    path = Path(path)
    data = read_toml(path, PriceFileError)
    try:
        prices = _PriceFile.model_validate(data).price
    except ValidationError as e:
        first = e.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = {"extra_forbidden": "unknown key", "missing": "required"}.get(first["type"], first["msg"])
        raise PriceFileError(f"{path}: {where}: {message.removeprefix('Value error, ')}") from None
    keys = [(p.model, p.from_date) for p in prices]
    if len(set(keys)) != len(keys):
        raise PriceFileError(f"{path}: a model has two prices from the same date")
    return prices


def price_on(prices: Sequence[Mapping[str, Any]], model: str, date: str) -> Mapping[str, Any] | None:
    """The price of ``model`` in force on ``date`` (ISO date or timestamp), or None."""
    day = date[:10]
    found = [p for p in prices if p["model"] == model and p["from_date"] <= day]
    return max(found, key=lambda p: p["from_date"]) if found else None


def list_price_cost(row: Mapping[str, Any], prices: Sequence[Mapping[str, Any]]) -> float | None:
    """The attempt's cost at list price (see the module's docstring); None when it cannot be priced."""
    price = price_on(prices, row["model"], row["date"])
    tokens_in, tokens_out = row.get("tokens_input"), row.get("tokens_output")
    if price is None or tokens_in is None or tokens_out is None:
        return None
    cached = row.get("tokens_cached") or 0
    written = row.get("tokens_cache_write") or 0
    cached_rate = price["cached_input"] if price["cached_input"] is not None else price["input"]
    write_rate = price["cache_write"] if price["cache_write"] is not None else price["input"]
    uncached = max(tokens_in - cached - written, 0)
    return money(
        (uncached * price["input"] + cached * cached_rate + written * write_rate + tokens_out * price["output"]) / PER
    )


def priced(rows: Sequence[dict[str, Any]], prices: Sequence[Mapping[str, Any]]) -> None:
    """Set ``list_cost_usd`` on each row, and fill ``cost_usd`` from it where the attempt gave none."""
    by_model: dict[str, list[Mapping[str, Any]]] = {}
    for price in prices:
        by_model.setdefault(price["model"], []).append(price)
    for row in rows:
        cost = list_price_cost(row, by_model.get(row["model"], ()))
        row["list_cost_usd"] = cost
        if row.get("cost_usd") is None and cost is not None:
            row["cost_usd"] = cost
            row["cost_source"] = LIST_PRICE
