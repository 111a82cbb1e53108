"""Turning a repo's name, description and topics into the text the classifier reads."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

# Long descriptions say nothing more about the category; the cap bounds the work on hostile input.
MAX_DESCRIPTION = 1000

# Japanese kana, Chinese characters and Korean hangul, as a character-class body ("[" + … + "]"):
# text in these scripts has no spaces between words, so the classifier reads it by runs.
CJK_CHARACTERS = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")
_SEPARATORS = re.compile(r"[-_.\s/]+")
_TOKEN = re.compile(r"[a-z0-9]+(?:[+#][a-z0-9+#]*)?")


@dataclass(frozen=True)
class RepoText:
    """What the classifier sees of a repo (the owner is left out: it says little about the category)."""

    name: str
    description: str = ""
    topics: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_full_name(cls, full_name: str, description: str | None, topics) -> RepoText:
        return cls(full_name.rsplit("/", 1)[-1], description or "", normalise_topics(topics))


def normalise_topics(topics) -> tuple[str, ...]:
    """Topics as lower-case strings, from a list, a JSON list, or a space/comma separated string."""
    if topics is None:
        return ()
    if isinstance(topics, str):
        text = topics.strip()
        if text.startswith("["):
            try:
                topics = json.loads(text)
            except (ValueError, RecursionError):  # not a JSON list (or nested past what json can walk)
                topics = re.split(r"[\s,;|]+", text.strip("[]"))
            if not isinstance(topics, list):
                topics = [topics]
        else:
            topics = re.split(r"[\s,;|]+", text)
    return tuple(dict.fromkeys(str(t).strip().strip("\"'").lower() for t in topics if str(t).strip()))


def split_name(name: str) -> str:
    """Name words: ``AgentPilot`` → ``agent pilot``, ``awesome-llm_apps`` → ``awesome llm apps``."""
    return " ".join(part.lower() for part in _SEPARATORS.split(_CAMEL.sub(" ", name)) if part)


def singular(token: str) -> str:
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def tokens(text: str) -> list[str]:
    """Lower-case word tokens with plurals folded (``agents`` and ``agent`` are one feature)."""
    return [singular(t) for t in _TOKEN.findall(text.lower())]


def topic_words(topics: tuple[str, ...]) -> str:
    return " ".join(split_name(t) for t in topics)


def rule_text(repo: RepoText) -> str:
    """Name, description and topics as written, lower-cased: what the evidence rules read."""
    return " ".join((repo.name, repo.description[:MAX_DESCRIPTION], " ".join(repo.topics))).lower()


def full_text(repo: RepoText, *, with_topics: bool = True) -> str:
    """Name words, description and (optionally) topic words as one lower-case string."""
    parts = [split_name(repo.name), repo.description[:MAX_DESCRIPTION].lower()]
    if with_topics:
        parts.append(topic_words(repo.topics))
    return " ".join(p for p in parts if p)
