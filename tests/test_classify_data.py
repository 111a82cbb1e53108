"""The bundled training and held-out examples stay apart from the team's validation data."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from classify.examples import (
    Example,
    load_held_out_examples,
    load_training_examples,
    read_labelled_csv,
    read_repo_texts,
)
from classify.text import tokens

# The team's data lives beside the repository (a worktree or CI's clone): ../shared/data.
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
VALIDATION = SHARED_DATA / "labelled-agents-train.csv"
POPULATION = SHARED_DATA / "population-labels.csv"  # hand-labelled real repos (names and labels only)
REAL_REPOS = SHARED_DATA / "real-repos.csv"  # their descriptions
SEARCH_ITEMS = SHARED_DATA / "github" / "search-items-2025-03-14.json"  # a saved crawl, unlabelled
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+")


def _shared_names() -> set[str]:
    names: set[str] = set()
    for path in SHARED_DATA.rglob("*"):
        if path.is_file():
            names.update(m.lower() for m in _NAME.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return names


def test_examples_are_unique_by_name():
    training = [e.full_name.lower() for e in load_training_examples()]
    held_out = [e.full_name.lower() for e in load_held_out_examples()]
    assert len(set(training)) == len(training)
    assert len(set(held_out)) == len(held_out)
    assert not set(training) & set(held_out)


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="the team's shared data is not beside this checkout")
def test_no_example_is_a_repo_named_in_the_teams_data():
    named = _shared_names()
    assert len(named) > 100  # the files were read
    # Among them every repo of the ranking-snapshot labels and of the saved crawl.
    for path in (POPULATION, SEARCH_ITEMS):
        if path.is_file():
            assert set(_NAME.findall(path.read_text(encoding="utf-8").lower())) <= named
    clashes = [
        e.full_name for e in [*load_training_examples(), *load_held_out_examples()] if e.full_name.lower() in named
    ]
    assert clashes == []


@pytest.mark.skipif(not VALIDATION.is_file(), reason="the team's validation file is not beside this checkout")
def test_no_example_is_worded_like_a_validation_description():
    validation = read_labelled_csv(VALIDATION)
    with VALIDATION.open(encoding="utf-8") as f:
        assert sum(1 for _ in csv.DictReader(f)) == len(validation)
    from classify.evaluate import seen_in_training  # scikit-learn: imported by the tests that use it

    ours = [*load_training_examples(), *load_held_out_examples()]
    # seen_in_training: same name, or at least half the words in common with one of ours.
    near = [v.full_name for v, seen in zip(validation, seen_in_training(validation, ours), strict=True) if seen]
    # Two short, generic validation descriptions (a document parser, LLM tracing) share half their
    # words with older examples of the same kind; --evaluate reports them apart as seen. No more.
    assert len(near) <= 2, near


def _near(validation) -> list[str]:
    from classify.evaluate import seen_in_training

    ours = [*load_training_examples(), *load_held_out_examples()]
    seen = seen_in_training(validation, ours)
    # Descriptions of three words or fewer (or only Chinese text, which has no such words) share
    # "half their words" with many by chance: only longer ones count.
    return [
        v.full_name for v, s in zip(validation, seen, strict=True) if s and len(set(tokens(v.repo.description))) >= 4
    ]


@pytest.mark.skipif(
    not (POPULATION.is_file() and REAL_REPOS.is_file()),
    reason="the team's population labels are not beside this checkout",
)
def test_no_example_is_worded_like_a_labelled_population_repo():
    population = read_labelled_csv(POPULATION, read_repo_texts(REAL_REPOS))
    assert len(population) > 300
    assert _near(population) == []


@pytest.mark.skipif(not SEARCH_ITEMS.is_file(), reason="the team's saved crawl is not beside this checkout")
def test_no_example_is_worded_like_a_crawled_repo():
    crawl = [
        Example(name, text, "other") for name, text in read_repo_texts(SEARCH_ITEMS).items() if isinstance(name, str)
    ]
    assert len(crawl) > 500
    # Eleven short, generic crawl descriptions ("memory layer for AI agents", "no-code AI agents")
    # share half their words with older examples of the same kind; none with the examples written
    # for the crawl population. No more.
    assert len(_near(crawl)) <= 11, _near(crawl)
