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
import re
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
    boosts,
    lexicon_fingerprint,
    resources_by_name,
    settling_categories,
    software_first,
)
from classify.text import MAX_DESCRIPTION, RepoText

# Bump when the code changes predictions in a way the fingerprints below do not see.
CODE_VERSION = "8"
CALIBRATION_FOLDS = 3
CALIBRATION_SEED = 20261130
REASONS = 3  # at most this many features in a reason
NAME_ONLY_FLATTEN = 3.0  # a repo with only a name: its scores are divided by three times the temperature
# Big batches are classified in several processes at once (forked, so nothing is copied in): one per
# CPU, at most this many, and only with at least PARALLEL_MIN repos each (forking costs a few ms).
MAX_WORKERS = 4
PARALLEL_MIN = 3_000


@dataclass(frozen=True)
class Settings:
    """Hyperparameters (block weights, regularisation), chosen by cross-validation on the training set
    and the held-out file; see docs/categories.md."""

    C: float = 8.0
    word_weight: float = 1.0
    name_weight: float = 0.5
    topic_weight: float = 0.6
    keyword_weight: float = 0.7
    topic_dropout: bool = True
    calibrate: bool = True
    # `framework` needs positive evidence (a framework phrase: SDK, library, "build agents", …, or
    # the library-first rule); without it its score is lowered by this much (log scale).
    framework_penalty: float = 2.0
    # A repo that says what it is (three words or more, or topics) but names nothing of AI agents
    # or language models (no "agent", "LLM", "GPT", "AI", "chat", "bot", "MCP", "RAG", …) is, in a
    # crawl, a general library, app or list: `other`'s score is raised by this much (log scale).
    plain_other_boost: float = 2.5
    # `other` needs evidence too: a domain phrase of the lexicon (finance, games, security, …), a
    # repo that names nothing of AI (above), or models, training, inference and other ML that is not
    # an agent. A repo that speaks of agents, LLM apps or MCP without any of it has `other`'s score
    # lowered by this much (log scale): agent lists and crawls are full of them, and they are agents.
    other_penalty: float = 2.0
    # `data` is for data *agents*: data-science and plotting libraries that name nothing of AI are
    # not; for such a repo `data`'s score is lowered by this much (log scale) besides the boost above.
    plain_data_penalty: float = 2.0
    # Inference engines and local model servers are `other` (grey zone, taxonomy rule 1) unless
    # presented for agents or as a gateway/router: without either, `infrastructure` is lowered by this.
    inference_penalty: float = 1.5
    # Code published with a paper (an "official implementation", "code for the paper", a conference
    # tag such as "[ACL 2024]") is a research prototype, `other` by the taxonomy: what the paper
    # studies (memory, collaboration, web agents) is its subject, not what the repo is for. Unless it
    # is a benchmark or an environment (`evaluation`), `other`'s score is raised by this much.
    paper_other_boost: float = 3.0
    # "Autonomous agents" that name nothing of language models or AI (steering behaviours, robots,
    # game characters, agent-based simulations: agents in the older sense a keyword search also
    # finds) are `other`; their `other` score is raised by this much.
    classic_agent_boost: float = 2.0
    # Training or fine-tuning agents (reinforcement learning, tuning on trajectories) is not
    # evaluation unless a benchmark, environment or test is named: `evaluation` is lowered by this.
    training_eval_penalty: float = 2.5
    # Taxonomy rule 2: a component for coding agents (memory, a code graph, a router, guardrails, a
    # sandbox, an MCP server, usage meters, …) and not something that runs them (a GUI, a harness,
    # parallel sessions) has `coding`'s score lowered by this much: it is the component's category.
    coding_component_penalty: float = 3.0
    # Domain agents are `other` even when built as a crew of agents (rule 8 over rule 3): a repo
    # with a domain phrase of the lexicon (finance, trading, games, education, …) has
    # `multi-agent`'s score lowered by this much.
    domain_multi_agent_penalty: float = 1.5
    # Speech models and toolkits that speak of no agent, assistant, bot, call or conversation are
    # `other` (grey zone): `voice` is lowered by this much.
    speech_model_penalty: float = 1.5
    # How far the class priors move from the training file's mix towards a crawl's (CRAWL_PRIOR):
    # 0 not at all, 1 all the way (log scale).
    crawl_prior: float = 0.0
    # A naive Bayes model on the same features, added to the logistic regression's scores with this
    # weight (both are linear in the features, so the sum is one linear model); 0 turns it off.
    nb_weight: float = 0.5
    nb_alpha: float = 0.1


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
        found = boosts(repo)
        if found is not None:
            rows.append(row)
            factors.append(found)
    if rows:
        out[rows] = np.log(np.array(factors))
    return out


# Taxonomy rule 9: `resources` is for repos whose main artefact is a list of links, a course,
# tutorials or notebooks. A single loose word ("prompts", "from scratch", "guide") is not enough
# evidence of that; without the list-of-links rule, two resources phrases, or a settling topic or
# name, its score is cut (in cross-validation such predictions were never right).
_RESOURCES = CATEGORY_IDS.index("resources")
RESOURCES_PENALTY = -3.0  # on the log scale: resources probability times about 0.05
_RESOURCES_EVIDENCE = frozenset({"r:list-of-links", "kc:resources:2"})
# That evidence does not count for a repo that first presents itself as software (an app, engine,
# server, CLI, platform, framework, self-hosted, "generates …") and only then talks of courses or
# tutorials: an app that builds courses or lessons is not a course (its subject, not its artefact).
_software_first = software_first


def _all_text(repo: RepoText) -> str:
    """Name, description and topics, lower-cased: what the evidence rules below read."""
    return " ".join((repo.name, repo.description[:MAX_DESCRIPTION], " ".join(repo.topics))).lower()


_FRAMEWORK = CATEGORY_IDS.index("framework")
_FRAMEWORK_EVIDENCE = frozenset({"kc:framework:1", "r:framework-first"})
# Beyond the lexicon's framework phrases: building or creating agents in code, an abstraction or
# API for them, a programming language or package, or a framework/SDK/library topic.
_FRAMEWORK_WORDS = re.compile(
    r"\b(?:build|building|builds|create|creating|develop|developing|make|making|write|compose|define)\b"
    r"(?:\W+\w+){0,6}?\W+(?:ai |llm |autonomous )?agents?\b|\babstractions?\b|\bapis? for\b"
    r"|\b(?:python|typescript|javascript|node(?:\.?js)?|rust|golang|go|java|kotlin|ruby|php|c#|\.net|swift|elixir)\b"
    r"|\b(?:packages?|modules?|crates?|gems?|pip install|npm)\b|\bsdk|framework|librar(?:y|ies)\b|\btoolkit"
)


def _framework_evidence(feats: Sequence[str], repo: RepoText) -> bool:
    if not _FRAMEWORK_EVIDENCE.isdisjoint(feats):
        return True
    text = _all_text(repo)
    return _FRAMEWORK_WORDS.search(text) is not None


_OTHER = CATEGORY_IDS.index("other")
_DATA = CATEGORY_IDS.index("data")
_AI_WORDS = re.compile(
    r"agent|\bllms?\b|llm|gpt|\bai\b|\bai[-_ ]|[a-z]ai\b|artificial intelligence|language models?|\bchat|bot\b|bots\b"
    r"|assistant|copilot|\bmcp\b|\brag\b|prompt|claude|openai|anthropic|gemini|deepseek|ollama|qwen|llama|mistral"
    r"|model context|autonomous|automat(?:ion|es?|ed|ing)\b|workflow|智能|模型|机器人|助手|代理|エージェント"
)


def _mentions_ai(repo: RepoText) -> bool:
    text = _all_text(repo)
    return _AI_WORDS.search(text) is not None


def _plain(repo: RepoText) -> bool:
    """Says what it is (a description of three words or more, or topics) without naming AI: a repo
    with nothing to read is not evidence of anything."""
    said = len(repo.description[:MAX_DESCRIPTION].split()) >= 3 or bool(repo.topics)
    return said and not _mentions_ai(repo)


_OTHER_EVIDENCE = frozenset({"kc:other:1"})
# Not an agent: models and weights, training, inference and serving, ML libraries, media generation,
# speech, or Chinese, Japanese or Korean text (read by character pairs, with less of the lexicon).
_NOT_AGENT_WORDS = re.compile(
    r"\bmodels?\b|\bweights\b|\binference\b|\bserving\b|fine-?tun|\btrain(?:ing|ed|s)?\b|pre-?train"
    r"|\bdatasets?\b|diffusion|\bimages?\b|\bvideos?\b|\bspeech\b|\btts\b|\basr\b|transformers?\b|neural"
    r"|deep learning|machine learning|\bml\b|pytorch|tensorflow|\bgguf\b|quantiz|\bgpus?\b|\bcuda\b"
    r"|\bvision\b|\bdetection\b|segmentation|\bembeddings?\b|tokeniz|\bmoe\b|\bpaper\b|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
)


def _other_evidence(
    feats: Sequence[str], repo: RepoText, *, paper: bool | None = None, classic: bool | None = None
) -> bool:
    """``paper`` and ``classic``: :func:`_paper_code` and :func:`_classic_agents` of the repo when
    the caller has them already."""
    if not _OTHER_EVIDENCE.isdisjoint(feats) or _plain(repo):
        return True
    text = _all_text(repo)
    if paper is None:
        paper = _paper_code_text(text)
    if classic is None:
        classic = _classic_agents_text(text)
    return paper or classic or _NOT_AGENT_WORDS.search(text) is not None


_INFRASTRUCTURE = CATEGORY_IDS.index("infrastructure")
_INFERENCE = re.compile(
    r"\binference\b|\bserving\b|\bserve[sd]? (?:\w+ )?(?:llms?|models?)\b|\brun\w* (?:\w+ ){0,4}(?:llms?|models?)\b"
    r"|\bgguf\b|quantiz|\blocal (?:llms?|models?)\b|\bopen[- ]weights?\b"
)
_NOT_ONLY_INFERENCE = re.compile(
    r"agent|\bmcp\b|tool[- ]call|sandbox|\bcode\b|gateway|router|routing|\bproxy\b|load[- ]balanc|api keys?\b|fallback"
)


def _inference_only(repo: RepoText) -> bool:
    """Presents model inference or serving, and nothing for agents, no gateway or router."""
    text = _all_text(repo)
    return _INFERENCE.search(text) is not None and _NOT_ONLY_INFERENCE.search(text) is None


_CONFERENCES = r"acl|emnlp|naacl|eacl|coling|neurips|nips|icml|iclr|cvpr|iccv|eccv|aaai|ijcai|iros|icra|kdd|sigir|colm|eswc|www|tmlr"
_PAPER_CODE = re.compile(
    r"\bofficial (?:implementation|code|repo(?:sitory)?|pytorch implementation)\b"
    r"|\b(?:code|implementation|repo(?:sitory)?)(?: and data(?:sets?)?)? (?:for|of) (?:our |the |this )?(?:\w+ ){0,3}paper\b"
    r"|\bcode for [\"“]|\bour paper\b|\bpaper:"
    rf"|[\[(](?:{_CONFERENCES})\W[^\])]{{0,30}}\d{{2,4}}[\])]|[\[(](?:{_CONFERENCES})[ '’]?\d{{2,4}}"
    rf"|\b(?:{_CONFERENCES})(?: findings| main(?: conference)?)? ?'?(?:20)?[12]\d\b"
)
_EVALUATION_WORDS = re.compile(
    r"benchmark|\bevals?\b|evaluat|environments?\b|\bgym\b|\barena\b|leaderboard|\btest(?:s|ing|bed)?\b|red[- ]team"
)


_CONFERENCE_NAMES = tuple(_CONFERENCES.split("|"))


def _paper_code(repo: RepoText) -> bool:
    """Code published with a paper, and not a benchmark or environment."""
    return _paper_code_text(_all_text(repo))


def _paper_code_text(text: str) -> bool:
    # Substring checks first (a few hundred ns): most repos name neither a paper nor a conference.
    if "paper" not in text and "official" not in text and not any(c in text for c in _CONFERENCE_NAMES):
        return False
    return _PAPER_CODE.search(text) is not None and _EVALUATION_WORDS.search(text) is None


_AGENT_WORDS = re.compile(r"\bagents?\b|\bautonomous\b|\bagent-based\b")
# What places an agent in the era of language models (or AI products generally).
_MODERN_WORDS = re.compile(
    r"llm|gpt|language models?|\bai\b|\bai[-_ ]|[a-z]ai\b|artificial intelligence|openai|claude|anthropic|gemini|chat"
    r"|copilot|\bmcp\b|\brag\b|prompt|langchain|langgraph|llama|deepseek|qwen|mistral|ollama|generative|genai|\bagi\b"
    r"|assistant|agentic|autogen|crewai|manus|smolagent|tool[- ]?(?:use|calling)|function[- ]calling|\bvlms?\b|\bapi\b"
    r"|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
)


# ... and of where such agents live: robots and vehicles, simulations and games, steering and
# flocking, evolutionary or reinforcement learning, control architectures.
_CLASSIC_CONTEXT = re.compile(
    r"robot|vehicle|driving|drones?\b|\bros2?\b|carla|simulat|steering|flocking|boids|godot|\bunity\b|unreal|three\.?js|webgl"
    r"|\bp5\b|nature of code|physics|pathfind|genetic|evolutionary|reinforcement|q-learning"
    r"|netlogo|\bmesa\b|agent-based model|game|goal[- ]directed|\bbdi\b|jason|jade"
)


def _classic_agents(repo: RepoText) -> bool:
    """Speaks of (autonomous) agents where they live outside language models (robots, simulations,
    games, steering, evolutionary and reinforcement learning) and of nothing that places them among
    language models or AI products."""
    return _classic_agents_text(_all_text(repo))


def _classic_agents_text(text: str) -> bool:
    # Cheapest test first: most repos name an agent and something modern.
    return (
        ("agent" in text or "autonomous" in text)
        and _MODERN_WORDS.search(text) is None
        and _AGENT_WORDS.search(text) is not None
        and _CLASSIC_CONTEXT.search(text) is not None
    )


_TRAINING = re.compile(
    r"fine-?tun|\btrain(?:s|ing|ed)?\b|\btuning\b|reinforcement learning|\brl\b|imitation learning|\bgrpo\b|\bppo\b"
)


_TRAINING_HINTS = ("tun", "train", "reinforcement", "rl", "imitation", "grpo", "ppo")


def _training_not_evaluation(repo: RepoText) -> bool:
    return _training_not_evaluation_text(_all_text(repo))


def _training_not_evaluation_text(text: str) -> bool:
    if not any(h in text for h in _TRAINING_HINTS):
        return False
    return _TRAINING.search(text) is not None and _EVALUATION_WORDS.search(text) is None


_EVALUATION = CATEGORY_IDS.index("evaluation")
_CODING = CATEGORY_IDS.index("coding")

# Taxonomy rule 2: a component made *for* coding agents (their memory, a code graph, a router or
# proxy, guardrails, a sandbox, an MCP server, usage and cost meters, dictation, a browser, docs)
# takes the component's category; what runs or drives coding agents (a GUI, an IDE, a harness, an
# orchestrator of parallel sessions) is `coding`.
_CODING_AGENTS = re.compile(
    r"\b(?:for|to|into|with|before|lets?|gives?|runs?|helps?) (?:\w+ ){0,3}?(?:ai |cli |your |the )?"
    r"(?:coding agents?|claude code|codex|cursor|gemini cli|copilot|aider|cline|windsurf|opencode)\b"
)
_COMPONENT = re.compile(
    r"memor|context|\bgraph|\bindex|router|\bproxy|gateway|guardrail|\bblock|securit|permission|sandbox|container"
    r"|\bmcp\b|usage|\bcosts?\b|\btokens?\b|statusline|monitor|telemetry|\btrac(?:e|es|ing)\b|dictat|\bvoice|\bspeak"
    r"|browser|documentation|\bdocs\b|benchmark|\bevals?\b|evaluat"
)
_DRIVES_CODING_AGENTS = re.compile(
    r"\bgui\b|desktop|\bide\b|orchestrat|parallel|side by side|harness|\bmanag|\bclient|alternative|worktree"
    r"|kanban|\b(?:many|several|multiple|ten|\d+) (?:\w+ )?(?:sessions|agents)\b|\bsupervis|headless"
)


_MULTI_AGENT = CATEGORY_IDS.index("multi-agent")
_VOICE = CATEGORY_IDS.index("voice")
_DOMAIN_EVIDENCE = frozenset({"kc:other:1"})
# Speech models and toolkits (TTS, ASR, voice cloning, diarisation) are `other` unless they speak of
# agents, assistants, bots, calls or conversations: voice I/O *for agents* is `voice` (grey zone).
_SPEECH = re.compile(
    r"\btts\b|text[- ]to[- ]speech|speech[- ]to[- ]text|speech recognition|speech synthesis|\basr\b|voice[- ]clon"
    r"|diari[sz]|transcri"
)
_SPEECH_FOR_AGENTS = re.compile(
    r"agent|assistant|\bbots?\b|chatbot|\bcalls?\b|phone|telephon|conversation|\bmcp\b|\bllms?\b|voice ai"
    r"|real[- ]?time voice|turn[- ]taking|barge|speak to|talk to"
)


def _speech_model_text(text: str) -> bool:
    return _SPEECH.search(text) is not None and _SPEECH_FOR_AGENTS.search(text) is None


def _for_coding_agents_text(text: str) -> bool:
    """A component for coding agents (rule 2), not something that runs them."""
    if "cod" not in text and "cursor" not in text and "copilot" not in text and "aider" not in text:
        return False
    return (
        _CODING_AGENTS.search(text) is not None
        and _COMPONENT.search(text) is not None
        and _DRIVES_CODING_AGENTS.search(text) is None
    )


def _rule_offsets(docs: Sequence[list[str]], repos: Sequence[RepoText], settings: Settings) -> np.ndarray:
    out = np.zeros((len(repos), len(CATEGORY_IDS)))
    for row, (feats, repo) in enumerate(zip(docs, repos, strict=True)):
        weak = _RESOURCES_EVIDENCE.isdisjoint(feats) or _software_first(repo)
        if weak and "resources" not in settling_categories(repo):
            out[row, _RESOURCES] = RESOURCES_PENALTY
        if settings.framework_penalty and not _framework_evidence(feats, repo):
            out[row, _FRAMEWORK] = -settings.framework_penalty
        if _plain(repo):
            out[row, _OTHER] += settings.plain_other_boost
            out[row, _DATA] -= settings.plain_data_penalty
        if settings.inference_penalty and _inference_only(repo):
            out[row, _INFRASTRUCTURE] -= settings.inference_penalty
        text = _all_text(repo)
        paper, classic = _paper_code_text(text), _classic_agents_text(text)
        if settings.other_penalty and not _other_evidence(feats, repo, paper=paper, classic=classic):
            out[row, _OTHER] -= settings.other_penalty
        if settings.paper_other_boost and paper:
            out[row, _OTHER] += settings.paper_other_boost
        if settings.classic_agent_boost and classic:
            out[row, _OTHER] += settings.classic_agent_boost
        if settings.training_eval_penalty and _training_not_evaluation_text(text):
            out[row, _EVALUATION] -= settings.training_eval_penalty
        if settings.coding_component_penalty and _for_coding_agents_text(text):
            out[row, _CODING] -= settings.coding_component_penalty
        if settings.domain_multi_agent_penalty and not _DOMAIN_EVIDENCE.isdisjoint(feats):
            out[row, _MULTI_AGENT] -= settings.domain_multi_agent_penalty
        if settings.speech_model_penalty and _speech_model_text(text):
            out[row, _VOICE] -= settings.speech_model_penalty
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
    # (ten times slower on the 2-core development machine).
    with threadpool_limits(limits=1):
        fitted = LogisticRegression(C=settings.C, max_iter=2000).fit(X, labels)
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
        return _scores(self._model, X) + _log_boosts(repos) + _rule_offsets(docs, repos, self.settings), X, featurized

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
        settled = settling_categories(repo)
        if first in settled and second not in settled:
            topic = next((t for t in repo.topics if TOPIC_LEXICON.get(t) == first), None)
            if topic:
                found.append(("rule", f"topic `{topic}` settles {first}"))
            elif resources_by_name(repo) == "description":
                found.append(("rule", f"the description opens as a list: settles {first}"))
            else:
                found.append(("rule", f"the name settles {first}"))
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
            + _rule_offsets(outside_docs, outside_repos, settings)
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
# repos, rounded, no category below 1 %. See docs/categories.md.
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
    model = cache.load(version, CategoryModel)
    if model is None:
        model = train(examples, settings)
        cache.save(version, model)
    else:
        model.loaded = True
    _last[:] = [model]
    return model
