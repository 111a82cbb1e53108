"""The category model: named binary features (:mod:`classify.features`) in four blocks, each scaled
to unit length and weighted, fed to a multinomial logistic regression. Settling topics then
reweigh its scores, and one temperature, fitted on cross-validated scores of the training set,
turns them into calibrated probabilities: a predicted probability of 0.6 is right about 60 % of
the time on repos like the training examples.

Trained from the bundled data (plus corrections) when no process has trained the same model
before: a trained model is kept on disk under its version (:mod:`classify.cache`), so later
processes load it. Same examples in, same model and same predictions out. scikit-learn is imported
only to train; a loaded model predicts with NumPy and SciPy alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import math
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import chain, repeat

import numpy as np
from scipy import sparse
from scipy.special import log_softmax, softmax

from classify import cache
from classify.categories import CATEGORY_IDS
from classify.examples import Example
from classify.features import BLOCKS, block_of, describe, featurize
from classify.lexicon import (
    TOPIC_LEXICON,
    lexicon_fingerprint,
    resources_by_name,
    settling_categories,
)
from classify.rules import (
    agent_framework_statement,
    presents_a_chat_app,
    presents_a_provider_client,
    presents_a_research_agent,
    rule_offsets,
    speech_mcp_text,
    topic_boosts,
)
from classify.settings import Settings
from classify.text import RepoText, rule_text

# Bump when the code changes predictions in a way the fingerprints below do not see.
CODE_VERSION = "23"  # 23: the rules' reasons in words (classify.reasons); predictions as 22
CALIBRATION_FOLDS = 3
CALIBRATION_SEED = 20261130
REASONS = 3  # at most this many features in a reason
NAME_ONLY_FLATTEN = 3.0  # a repo with only a name: its scores are divided by three times the temperature
# Big batches are classified in several processes at once (forked, so nothing is copied in): one per
# CPU, at most this many, and only with at least PARALLEL_MIN repos each (forking costs a few ms).
MAX_WORKERS = 4
PARALLEL_MIN = 3_000


@dataclass(frozen=True)
class Prediction:
    category: str
    probability: float
    runner_up: str | None
    runner_up_probability: float | None
    # What decided it over the runner-up: (kind, text) pairs, strongest first; kind is word, words,
    # name, topic, phrase, text or rule.
    because: tuple[tuple[str, str], ...] = field(default=(), compare=False)


class _Encoder:
    """Feature names → columns (learnt from the training documents) and rows → a scaled sparse matrix."""

    def __init__(self, docs: Sequence[list[str]], settings: Settings):
        vocabulary: dict[str, int] = {}
        for feats in docs:
            for f in feats:
                if f not in vocabulary:
                    vocabulary[f] = len(vocabulary)
        self.vocabulary = vocabulary
        self.names = list(vocabulary)
        self.block = np.array([block_of(f) for f in self.names], dtype=np.int64)
        weights = {
            "words": settings.word_weight,
            "name": settings.name_weight,
            "topics": settings.topic_weight,
            "keywords": settings.keyword_weight,
        }
        self.weight = np.array([weights[b] for b in BLOCKS])[self.block] if self.names else np.zeros(0)

    def encode(self, docs: Sequence[list[str]]) -> sparse.csr_matrix:
        lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
        found = np.fromiter(
            map(self.vocabulary.get, chain.from_iterable(docs), repeat(-1)), dtype=np.int64, count=int(lengths.sum())
        )
        rows = np.repeat(np.arange(len(docs)), lengths)
        known = found >= 0
        cols, rows = found[known], rows[known]
        # Each block of each row scaled to unit length (the features are 0/1), then weighted.
        key = rows * len(BLOCKS) + self.block[cols]
        counts = np.bincount(key, minlength=len(docs) * len(BLOCKS))
        data = self.weight[cols] / np.sqrt(counts[key]) if len(cols) else np.zeros(0)
        pointers = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(docs)))])
        return sparse.csr_matrix((data, cols, pointers), shape=(len(docs), len(self.names)))


def _log_boosts(repos: Sequence[RepoText]) -> np.ndarray:
    out = np.zeros((len(repos), len(CATEGORY_IDS)))
    rows, factors = [], []
    for row, repo in enumerate(repos):
        found = topic_boosts(repo)
        if found is not None:
            rows.append(row)
            factors.append(found)
    if rows:
        out[rows] = np.log(np.array(factors))
    return out


@dataclass(frozen=True)
class _Linear:
    """What prediction needs of a fitted logistic regression (no scikit-learn object to load)."""

    coef_: np.ndarray
    intercept_: np.ndarray
    classes_: tuple[str, ...]


def _fit(X: sparse.csr_matrix, labels: Sequence[str], settings: Settings) -> _Linear:
    from sklearn.linear_model import LogisticRegression  # only to train: importing it is slow
    from threadpoolctl import threadpool_limits

    # One BLAS thread: the problem is small, and on a shared machine extra threads only spin
    # (ten times slower on the 2-core development machine). Newton-CG reaches the same optimum
    # (the loss is strictly convex) in a few steps, four times faster than L-BFGS here: with about
    # 240,000 coefficients L-BFGS spent most of its time in its own bookkeeping, not the loss.
    with threadpool_limits(limits=1):
        fitted = LogisticRegression(C=settings.C, max_iter=2000, solver="newton-cg").fit(X, labels)
    coef, intercept = fitted.coef_, fitted.intercept_
    if settings.nb_weight:
        from sklearn.naive_bayes import ComplementNB

        nb = ComplementNB(alpha=settings.nb_alpha).fit(X, labels)
        assert list(nb.classes_) == list(fitted.classes_)
        log_prob = nb.feature_log_prob_ - nb.feature_log_prob_.mean(axis=0)
        coef = coef + settings.nb_weight * log_prob
    return _Linear(coef, intercept, tuple(str(c) for c in fitted.classes_))


def sklearn_version() -> str:
    """The installed scikit-learn's version, without importing it."""
    try:
        return importlib.metadata.version("scikit-learn")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a dependency
        return "unknown"


def _scores(model: _Linear, X: sparse.csr_matrix) -> np.ndarray:
    """Decision scores over ``CATEGORY_IDS`` (categories without examples get a very low score)."""
    raw = X @ model.coef_.T + model.intercept_
    out = np.full((X.shape[0], len(CATEGORY_IDS)), -1e3)
    for j, c in enumerate(model.classes_):
        out[:, CATEGORY_IDS.index(c)] = raw[:, j]
    return out


def _temperature(scores: np.ndarray, labels: Sequence[str]) -> float:
    """The temperature that makes softmax(scores / T) best predict the labels (least log loss)."""
    from scipy.optimize import minimize_scalar

    truth = np.array([CATEGORY_IDS.index(c) for c in labels])

    def loss(log_t: float) -> float:
        return float(-log_softmax(scores / math.exp(log_t), axis=1)[np.arange(len(truth)), truth].mean())

    return math.exp(minimize_scalar(loss, bounds=(-3.0, 3.0), method="bounded").x)


def model_version(examples: Sequence[Example], settings: Settings) -> str:
    """A short hash of everything that decides the predictions: examples, lexicon, settings, code."""
    digest = hashlib.sha256()
    for part in (CODE_VERSION, sklearn_version(), repr(asdict(settings)), lexicon_fingerprint()):
        digest.update(part.encode("utf-8") + b"\0")
    for e in examples:
        digest.update(
            "\x1f".join([e.full_name, e.repo.name, e.repo.description, " ".join(e.repo.topics), e.category]).encode(
                "utf-8", "surrogatepass"
            )
            + b"\0"
        )
    return f"clf{CODE_VERSION}-{digest.hexdigest()[:12]}"


_Columns = tuple[list[str], list[float], list[str], list[float], list[tuple[tuple[str, str], ...]]]

# Forked processes share the parent's memory (the model, the repos) for free; elsewhere (or where
# forking is unsafe, as on macOS) everything runs in one process.
CAN_FORK = hasattr(os, "fork") and sys.platform.startswith("linux")


def default_workers() -> int:
    """Processes for a big batch: the CPUs this process may use, at most ``MAX_WORKERS``."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_WORKERS))


def _forked(work: Callable[[Sequence[RepoText]], _Columns], chunks: list[Sequence[RepoText]]) -> list[_Columns]:
    """``work`` of every chunk, in order: the first in this process while each of the others runs in
    a forked child at the same time, which sends its answer back through a pipe and exits. A child
    that fails (or cannot be started) has its chunk redone here; no child outlives the call."""
    children: list[tuple[int, int] | None] = []
    try:
        for chunk in chunks[1:]:
            try:
                read, write = os.pipe()
            except OSError:
                children.append(None)
                continue
            try:
                pid = os.fork()
            except OSError:
                os.close(read)
                os.close(write)
                children.append(None)
                continue
            if pid == 0:  # the child: answer, then leave at once (no cleanup meant for the parent)
                status = 1
                try:
                    os.close(read)
                    with open(write, "wb") as out:
                        pickle.dump(work(chunk), out, protocol=pickle.HIGHEST_PROTOCOL)
                    status = 0
                finally:
                    os._exit(status)
            os.close(write)
            children.append((pid, read))
        results = [work(chunks[0])]
        for index, chunk in enumerate(chunks[1:]):
            child, children[index] = children[index], None
            answer = _answer(*child) if child else None
            results.append(work(chunk) if answer is None else answer)
        return results
    finally:
        for child in children:  # only after an exception here: stop the children still running
            if child:
                os.close(child[1])
                os.kill(child[0], signal.SIGKILL)
                _reap(child[0])


def _answer(pid: int, read: int) -> _Columns | None:
    finished = False
    try:
        with open(read, "rb") as pipe:
            data = pipe.read()
        finished = True
    finally:
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _reap(pid)
    try:
        return pickle.loads(data)
    except Exception:  # the child failed before sending all of it
        return None


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # already reaped (a SIGCHLD handler of the host program)
        os.waitpid(pid, 0)


class CategoryModel:
    """A trained classifier. Build one with :func:`train`."""

    def __init__(
        self,
        encoder: _Encoder,
        model: _Linear,
        temperature: float,
        version: str,
        examples: int,
        train_seconds: float,
        settings: Settings,
        prior_offset: np.ndarray,
    ):
        self._encoder = encoder
        self.settings = settings
        # Added to the calibrated log-probabilities: log(crawl prior / training mix) per category.
        self._prior_offset = prior_offset
        self._model = model
        self.temperature = temperature
        self.version = version
        self.examples = examples
        self.train_seconds = train_seconds
        self.loaded = False  # True when read from the disk cache instead of trained here
        self._coef = np.zeros((len(CATEGORY_IDS), len(encoder.names)))
        for j, c in enumerate(model.classes_):
            self._coef[CATEGORY_IDS.index(c)] = model.coef_[j]
        # What each column shows a maker (describe's answer), or its name when the answer depends on
        # the repo's own text (a phrase): worked out once, not for every row.
        self._shown: list[tuple[str, str] | str | None] = []
        for name in encoder.names:
            alone = describe(name, {})
            self._shown.append(alone if describe(name, {name: "\0"}) == alone else name)

    def _scores(self, repos: Sequence[RepoText]) -> tuple[np.ndarray, sparse.csr_matrix, list]:
        featurized = [featurize(r) for r in repos]
        docs = [f for f, _ in featurized]
        X = self._encoder.encode(docs)
        return _scores(self._model, X) + _log_boosts(repos) + rule_offsets(docs, repos, self.settings), X, featurized

    def _temperatures(self, repos: Sequence[RepoText]) -> np.ndarray:
        """Per row: the temperature, times ``NAME_ONLY_FLATTEN`` for a repo with neither a description
        nor topics (its name alone is weak evidence, so its probabilities are flattened)."""
        out = np.full((len(repos), 1), self.temperature)
        for row, repo in enumerate(repos):
            if not repo.topics and not repo.description.strip():
                out[row] *= NAME_ONLY_FLATTEN
        return out

    def probabilities(self, repos: Sequence[RepoText]) -> np.ndarray:
        """Rows of calibrated probabilities over ``CATEGORY_IDS``, settling topics applied."""
        scores, _, _ = self._scores(repos)
        return softmax(scores / self._temperatures(repos) + self._prior_offset, axis=1)

    def predict(
        self, repos: Sequence[RepoText], *, reasons: bool = True, workers: int | None = None
    ) -> list[Prediction]:
        """The most likely category of each repo and the runner-up; with ``reasons`` also the few
        features (and settling rule) that put the first ahead of the second.

        A big batch is split over ``workers`` processes (default: one per CPU, see ``MAX_WORKERS``
        and ``PARALLEL_MIN``); the predictions are the same, in the same order."""
        parts = min(default_workers() if workers is None else workers, len(repos) // PARALLEL_MIN)
        if parts > 1 and CAN_FORK:
            size = -(-len(repos) // parts)
            chunks = [repos[i : i + size] for i in range(0, len(repos), size)]
            columns = _forked(lambda chunk: self._columns(chunk, reasons), chunks)
            first, first_p, second, second_p, because = (
                list(chain.from_iterable(c)) for c in zip(*columns, strict=True)
            )
        else:
            first, first_p, second, second_p, because = self._columns(repos, reasons)
        if not reasons:
            return list(map(Prediction, first, first_p, second, second_p))
        return list(map(Prediction, first, first_p, second, second_p, because))

    def _columns(self, repos: Sequence[RepoText], reasons: bool) -> _Columns:
        """The predictions as columns: category, probability, runner-up, its probability, reasons
        (cheap to send from one process to another)."""
        scores, X, featurized = self._scores(repos)
        probs = softmax(scores / self._temperatures(repos) + self._prior_offset, axis=1)
        # Stable sort: equal probabilities fall back to the category order, so ties never flip.
        order = np.argsort(-probs, axis=1, kind="stable")
        first, second = order[:, 0], order[:, 1]
        every = np.arange(len(repos))
        names = CATEGORY_IDS
        first_names, second_names = [names[a] for a in first.tolist()], [names[b] for b in second.tolist()]
        because: list[tuple[tuple[str, str], ...]] = []
        if reasons:
            top = self._top_columns(X, first, second).tolist()
            because = list(
                map(self._because, repos, top, [surfaces for _, surfaces in featurized], first_names, second_names)
            )
        return first_names, probs[every, first].tolist(), second_names, probs[every, second].tolist(), because

    def _top_columns(self, X: sparse.csr_matrix, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Per row, the columns of its features that favour the first category over the second most,
        strongest first (a feature earlier in the row first among equals), padded with -1: at most a
        few per row, all rows at once."""
        top = np.full((X.shape[0], REASONS + 2), -1, dtype=np.int64)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        margins = X.data * (self._coef[first[rows], X.indices] - self._coef[second[rows], X.indices])
        # Only features in favour count; take each row's strongest, then the next, a few times over.
        candidates = np.flatnonzero(margins > 0)
        if not len(candidates):
            return top
        left, rows = margins[candidates], rows[candidates]
        starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        sizes = np.diff(np.append(starts, len(rows)))
        segment_rows = rows[starts]
        for k in range(REASONS + 2):
            best = np.maximum.reduceat(left, starts)
            hits = np.flatnonzero(left == np.repeat(best, sizes))
            earliest = hits[np.concatenate([[True], rows[hits[1:]] != rows[hits[:-1]]])]
            taken = earliest[best > -np.inf]
            if not len(taken):
                break
            top[segment_rows[best > -np.inf], k] = X.indices[candidates[taken]]
            left[taken] = -np.inf
        return top

    def _because(
        self, repo: RepoText, columns: Sequence[int], surfaces: dict[str, str], first: str, second: str
    ) -> tuple[tuple[str, str], ...]:
        found: list[tuple[str, str]] = []
        # What the topics or the name boosted settled it (a resources topic on a repo that presents
        # software first is among the settling categories but boosts nothing: it is no reason).
        factors = topic_boosts(repo)
        if factors is not None and factors[CATEGORY_IDS.index(first)] > 1 and second not in settling_categories(repo):
            topic = next((t for t in repo.topics if TOPIC_LEXICON.get(t) == first), None)
            if topic:
                found.append(("rule", f"topic `{topic}` settles {first}"))
            elif resources_by_name(repo) == "description":
                found.append(("rule", f"the description opens as a list: settles {first}"))
            else:
                found.append(("rule", f"the name settles {first}"))
        if self.settings.agent_framework_boost and agent_framework_statement(repo) == first:
            kind = "a multi-agent" if first == "multi-agent" else "an agent"
            found.append(("rule", f"the description calls it {kind} framework"))
        if self.settings.chat_statement_boost and first == "chat" and presents_a_chat_app(repo):
            found.append(("rule", "the description calls it a chatbot or a chat app"))
        if self.settings.research_statement_boost and first == "research" and presents_a_research_agent(repo):
            found.append(("rule", "the description calls it a research agent (over its domain)"))
        if self.settings.speech_mcp_voice_boost and first == "voice" and speech_mcp_text(rule_text(repo)):
            found.append(("rule", "a speech MCP server: voice I/O for agents"))
        if self.settings.provider_client_boost and first == "framework" and presents_a_provider_client(repo):
            found.append(("rule", "the description calls it a client or SDK for a model provider's API"))
        shown, texts = self._shown, [text for _, text in found]
        for column in columns:
            if column < 0:
                break
            described = shown[column]
            if described.__class__ is str:  # depends on the matched text: a phrase
                described = describe(described, surfaces)
            if described and described[1] and described[1] not in texts:
                found.append(described)  # type: ignore[arg-type]
                if len(found) >= REASONS:
                    break
                texts.append(described[1])
        return tuple(found)


def training_set(examples: Iterable[Example], settings: Settings) -> tuple[list[RepoText], list[str]]:
    """Repos and labels; with topic dropout every example with topics also appears without them,
    because many repos (and list blurbs) carry no topics and the text alone must still decide."""
    repos, labels = [], []
    for e in examples:
        repos.append(e.repo)
        labels.append(e.category)
        if settings.topic_dropout and e.repo.topics:
            repos.append(RepoText(e.repo.name, e.repo.description, ()))
            labels.append(e.category)
    return repos, labels


def _calibrate(docs: list[list[str]], repos: list[RepoText], labels: list[str], settings: Settings) -> float:
    """The temperature fitted on out-of-fold scores (each example scored by a model that did not see
    it; an example and its topic-less copy always fall in the same fold)."""
    if not settings.calibrate or min(labels.count(c) for c in set(labels)) < 2:
        return 1.0
    groups: dict[str, int] = {}
    group = [groups.setdefault(r.name + "\x1f" + r.description, len(groups)) for r in repos]
    first_label = {g: labels[i] for i, g in reversed(list(enumerate(group)))}
    keys = sorted(first_label)
    folds = min(CALIBRATION_FOLDS, min(list(first_label.values()).count(c) for c in set(labels)))
    if folds < 2:
        return 1.0
    from sklearn.model_selection import StratifiedKFold

    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=CALIBRATION_SEED)
    scores = np.zeros((len(repos), len(CATEGORY_IDS)))
    index = np.array(group)
    for train_keys, _ in splitter.split(np.zeros(len(keys)), [first_label[k] for k in keys]):
        inside = np.isin(index, np.array(keys)[train_keys])
        encoder = _Encoder([docs[i] for i in np.flatnonzero(inside)], settings)
        model = _fit(
            encoder.encode([docs[i] for i in np.flatnonzero(inside)]),
            [labels[i] for i in np.flatnonzero(inside)],
            settings,
        )
        outside = np.flatnonzero(~inside)
        outside_docs = [docs[i] for i in outside]
        outside_repos = [repos[i] for i in outside]
        scores[outside] = (
            _scores(model, encoder.encode(outside_docs))
            + _log_boosts(outside_repos)
            + rule_offsets(outside_docs, outside_repos, settings)
        )
    return _temperature(scores, labels)


def train(examples: Sequence[Example], settings: Settings | None = None) -> CategoryModel:
    settings = settings or Settings()
    started = time.perf_counter()
    repos, labels = training_set(examples, settings)
    docs = [featurize(r)[0] for r in repos]
    encoder = _Encoder(docs, settings)
    model = _fit(encoder.encode(docs), labels, settings)
    temperature = _calibrate(docs, repos, labels, settings)
    return CategoryModel(
        encoder,
        model,
        temperature,
        model_version(examples, settings),
        len(examples),
        time.perf_counter() - started,
        settings,
        _prior_offset(labels, settings),
    )


# Share of each category among the repos a weekly crawl returns (search for agent topics and
# keywords), estimated without labels: EM on the calibrated probabilities of the model trained
# with the training file's mix (Saerens, Latinne and Decaestecker 2002) over a saved crawl of 572
# repos, rounded, no category below 1 %. See docs/classifier-history.md (the first round on the crawl population).
CRAWL_PRIOR: dict[str, float] = {
    "coding": 0.02,
    "framework": 0.26,
    "multi-agent": 0.09,
    "computer-use": 0.02,
    "research": 0.012,
    "assistant": 0.22,
    "workflow": 0.07,
    "data": 0.01,
    "chat": 0.03,
    "voice": 0.013,
    "memory": 0.028,
    "infrastructure": 0.02,
    "evaluation": 0.03,
    "resources": 0.126,
    "other": 0.047,
}


def _prior_offset(labels: Sequence[str], settings: Settings) -> np.ndarray:
    """log(crawl share / training share) per category (0 without the crawl prior)."""
    out = np.zeros(len(CATEGORY_IDS))
    if not settings.crawl_prior:
        return out
    counts = np.array([labels.count(c) for c in CATEGORY_IDS], dtype=float)
    target = np.array([CRAWL_PRIOR.get(c, 0.0) for c in CATEGORY_IDS])
    known = (counts > 0) & (target > 0)
    out[known] = np.log(target[known] / target[known].sum()) - np.log(counts[known] / counts[known].sum())
    return settings.crawl_prior * out


_last: list[CategoryModel] = []


def trained(examples: Sequence[Example], settings: Settings | None = None) -> CategoryModel:
    """:func:`train`, reusing a model of the same version (a hash of every input): the last one in
    this process (the scheduler, the tests), else the one on disk (:mod:`classify.cache`), which a
    new model is written to. ``loaded`` on the model says whether it came from disk."""
    version = model_version(examples, settings or Settings())
    if _last and _last[0].version == version:
        return _last[0]
    model = _from_disk(version)
    if model is None:
        with cache.building(version):
            model = _from_disk(version)  # trained meanwhile by the process this one waited for
            if model is None:
                model = train(examples, settings)
                cache.save(version, model)
    _last[:] = [model]
    return model


def _from_disk(version: str) -> CategoryModel | None:
    model = cache.load(version, CategoryModel)
    if model is not None:
        model.loaded = True
    return model
