"""The category model: TF-IDF words and characters, name words, topic indicators and keyword counts,
fed to a multinomial logistic regression; settling topics then reweigh its probabilities.

Trained from the bundled data (plus corrections) every time it is needed: it takes a few seconds,
so no fitted model is ever stored. Same examples in, same model and same predictions out.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import sklearn
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer

from classify.categories import CATEGORY_IDS
from classify.examples import Example
from classify.lexicon import boosts, keyword_features, lexicon_fingerprint
from classify.text import RepoText, full_text, split_name, tokens

# Bump when the code changes predictions in a way the fingerprints below do not see.
CODE_VERSION = "1"
_BATCH = 5000
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "with",
        "your",
        "you",
        "by",
        "from",
        "as",
        "at",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "or",
        "into",
        "via",
        "using",
        "use",
        "uses",
        "built",
        "based",
        "open",
        "source",
        "opensource",
        "any",
        "all",
        "more",
        "most",
        "one",
        "new",
    ]
)


@dataclass(frozen=True)
class Settings:
    """Hyperparameters (block weights, regularisation), chosen on the validation file and by
    cross-validation on the training set; see the README's Categories section."""

    C: float = 8.0
    word_weight: float = 1.0
    char_weight: float = 1.0
    name_weight: float = 0.5
    topic_weight: float = 0.6
    keyword_weight: float = 0.3
    topic_dropout: bool = True


@dataclass(frozen=True)
class Prediction:
    category: str
    probability: float
    runner_up: str | None
    runner_up_probability: float | None


@dataclass(frozen=True)
class _Doc:
    text: str
    name: str
    topics: tuple[str, ...]


def _doc(repo: RepoText) -> _Doc:
    return _Doc(full_text(repo), split_name(repo.name), repo.topics)


def _texts(docs: Sequence[_Doc]) -> list[str]:
    return [d.text for d in docs]


def _names(docs: Sequence[_Doc]) -> list[str]:
    return [d.name for d in docs]


def _topics(docs: Sequence[_Doc]) -> list[tuple[str, ...]]:
    return [d.topics for d in docs]


def _keywords(docs: Sequence[_Doc]):
    return keyword_features(_texts(docs))


def _words(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in _STOP_WORDS]


def _identity(items):
    return list(items)


def _pipeline(settings: Settings) -> Pipeline:
    features = FeatureUnion(
        [
            (
                "words",
                make_pipeline(
                    FunctionTransformer(_texts),
                    TfidfVectorizer(
                        tokenizer=_words, token_pattern=None, lowercase=False, ngram_range=(1, 2), sublinear_tf=True
                    ),
                ),
            ),
            (
                "chars",
                make_pipeline(
                    FunctionTransformer(_texts),
                    TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2),
                ),
            ),
            (
                "name",
                make_pipeline(
                    FunctionTransformer(_names), TfidfVectorizer(tokenizer=_words, token_pattern=None, lowercase=False)
                ),
            ),
            ("topics", make_pipeline(FunctionTransformer(_topics), CountVectorizer(analyzer=_identity, binary=True))),
            ("keywords", FunctionTransformer(_keywords)),
        ],
        transformer_weights={
            "words": settings.word_weight,
            "chars": settings.char_weight,
            "name": settings.name_weight,
            "topics": settings.topic_weight,
            "keywords": settings.keyword_weight,
        },
    )
    model = LogisticRegression(C=settings.C, solver="newton-cg", max_iter=1000)
    return Pipeline([("features", features), ("model", model)])


def model_version(examples: Sequence[Example], settings: Settings) -> str:
    """A short hash of everything that decides the predictions: examples, lexicon, settings, code."""
    digest = hashlib.sha256()
    for part in (CODE_VERSION, sklearn.__version__, repr(asdict(settings)), lexicon_fingerprint()):
        digest.update(part.encode("utf-8") + b"\0")
    for e in examples:
        digest.update(
            "\x1f".join([e.full_name, e.repo.name, e.repo.description, " ".join(e.repo.topics), e.category]).encode(
                "utf-8", "surrogatepass"
            )
            + b"\0"
        )
    return f"clf{CODE_VERSION}-{digest.hexdigest()[:12]}"


class CategoryModel:
    """A trained classifier. Build one with :func:`train`."""

    def __init__(self, pipeline: Pipeline, version: str, examples: int, train_seconds: float):
        self._pipeline = pipeline
        self.version = version
        self.examples = examples
        self.train_seconds = train_seconds
        known = {c: i for i, c in enumerate(pipeline.classes_)}
        self._columns = [known.get(c) for c in CATEGORY_IDS]

    def probabilities(self, repos: Sequence[RepoText]) -> np.ndarray:
        """Rows of probabilities over ``CATEGORY_IDS``, after settling topics have been applied."""
        out = np.zeros((len(repos), len(CATEGORY_IDS)))
        for start in range(0, len(repos), _BATCH):
            batch = repos[start : start + _BATCH]
            raw = self._pipeline.predict_proba([_doc(r) for r in batch])
            probs = np.column_stack([raw[:, i] if i is not None else np.zeros(len(batch)) for i in self._columns])
            for row, repo in enumerate(batch):
                factors = boosts(repo)
                if factors is not None:
                    probs[row] *= factors
                    probs[row] /= probs[row].sum()
            out[start : start + len(batch)] = probs
        return out

    def predict(self, repos: Sequence[RepoText]) -> list[Prediction]:
        probs = self.probabilities(repos)
        # Stable sort: equal probabilities fall back to the category order, so ties never flip.
        order = np.argsort(-probs, axis=1, kind="stable")
        predictions = []
        for row in range(len(repos)):
            first, second = order[row, 0], order[row, 1]
            predictions.append(
                Prediction(
                    category=CATEGORY_IDS[first],
                    probability=float(probs[row, first]),
                    runner_up=CATEGORY_IDS[second],
                    runner_up_probability=float(probs[row, second]),
                )
            )
        return predictions


def training_set(examples: Iterable[Example], settings: Settings) -> tuple[list[_Doc], list[str]]:
    """Documents and labels; with topic dropout every example with topics also appears without them,
    because many repos (and list blurbs) carry no topics and the text alone must still decide."""
    docs, labels = [], []
    for e in examples:
        docs.append(_doc(e.repo))
        labels.append(e.category)
        if settings.topic_dropout and e.repo.topics:
            docs.append(_doc(RepoText(e.repo.name, e.repo.description, ())))
            labels.append(e.category)
    return docs, labels


def train(examples: Sequence[Example], settings: Settings | None = None) -> CategoryModel:
    settings = settings or Settings()
    started = time.perf_counter()
    docs, labels = training_set(examples, settings)
    pipeline = _pipeline(settings).fit(docs, labels)
    return CategoryModel(pipeline, model_version(examples, settings), len(examples), time.perf_counter() - started)


_last: list[CategoryModel] = []


def trained(examples: Sequence[Example], settings: Settings | None = None) -> CategoryModel:
    """:func:`train`, reusing the last model when the version (a hash of every input) is the same:
    a long-running process (the scheduler, the tests) need not retrain an identical model."""
    version = model_version(examples, settings or Settings())
    if not _last or _last[0].version != version:
        _last[:] = [train(examples, settings)]
    return _last[0]
