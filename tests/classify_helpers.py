"""Asking the trained category model about one invented repo (the ``model`` fixture is in conftest)."""

from __future__ import annotations

from typing import Any

from classify.text import RepoText


def predict(model: Any, name: str, description: str, topics: tuple[str, ...] = ()) -> Any:
    """The model's prediction for one repo of that name, description and topics."""
    return model.predict([RepoText(name, description, topics)])[0]
