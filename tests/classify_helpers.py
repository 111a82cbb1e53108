"""Asking the trained category model about one invented repo (the ``model`` fixture is in conftest)."""

from __future__ import annotations

from typing import Any

from classify.text import RepoText


def predict(model: Any, name: str, description: str, topics: tuple[str, ...] = ()) -> Any:
    """The model's prediction for one repo of that name, description and topics."""
    return model.predict([RepoText(name, description, topics)])[0]


def a_few_of_each(examples: list[Any], per_category: int = 6) -> list[Any]:
    """A small training set, the first ``per_category`` examples of each category: for the tests
    where how many does not matter, since it trains in a blink."""
    by_category: dict[str, list[Any]] = {}
    for e in examples:
        by_category.setdefault(e.category, []).append(e)
    return [e for group in by_category.values() for e in group[:per_category]]
