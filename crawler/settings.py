"""The crawler's settings: how to talk to GitHub (``[github]``) and what to search (``[crawl]``).

``agentrank.config`` composes these sections into the whole configuration; every key is optional
and an unknown key is an error that names it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_TOPICS = [
    "ai-agent",
    "ai-agents",
    "coding-agent",
    "autonomous-agents",
    "llm-agent",
    "agentic-ai",
    "multi-agent",
]


def without_userinfo(url: str) -> str:
    """``url`` with any ``user:password@``, ``?query`` and ``#fragment`` taken out, for messages
    (either may hold a credential: ``?access_token=...``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.partition("@")[2] or url.partition("?")[0].partition("#")[0]
    url = url.partition("?")[0].partition("#")[0]
    if "@" not in parts.netloc:
        return url
    return urlsplit(url)._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def api_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be the GitHub API's base URL, or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return "expected an http(s) URL such as https://api.github.com"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected an http(s) URL such as https://api.github.com"
    if "@" in parts.netloc:
        # It would be stored with every run and shown at /DB/crawl_state; the token has its own place.
        return "must not carry a user name or password (user:pass@); give the token in GITHUB_TOKEN"
    if parts.query or parts.fragment or "?" in url or "#" in url:
        # A query (``?access_token=...``) would be stored and shown like a password, and the
        # crawler's own query would be appended after it (every request a 404).
        return "must not carry a query or fragment (?...#...); give the token in GITHUB_TOKEN"
    if not url.isprintable() or any(c.isspace() for c in url):
        return "must not contain spaces or control characters"
    return None


class _Section(BaseModel):
    # Strict: "5" is not a number and true is not 1; a float setting still takes an integer.
    # Infinity and NaN are not settings (timeout_s = inf would never time out).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True, allow_inf_nan=False)


class GitHubConfig(_Section):
    # Every number has an upper bound a crawl can live with: a value past it is a typo, and an
    # unbounded one crashes at use (a sleep of 1e308 s, a timeout of inf).
    api_url: str = Field("https://api.github.com", max_length=2000)
    min_interval_s: float = Field(2.0, ge=0, le=3600)
    secondary_wait_s: float = Field(60, ge=0, le=3600)
    max_retries: int = Field(5, ge=0, le=20)
    timeout_s: float = Field(30, gt=0, le=600)
    # A rate-limit wait longer than this stops the crawl cleanly (resumable) instead of sleeping.
    max_wait_s: float = Field(900, ge=0, le=7 * 24 * 3600)
    # Sent in an HTTP header: printable ASCII only.
    user_agent: str = Field("agentrank-crawler (+https://github.com/agentrank/agentrank)", min_length=1, max_length=256)

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # Checked with the rest of the file, so a typo fails every command, not only the next crawl.
        problem = api_url_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("user_agent")
    @classmethod
    def _header_text(cls, value: str) -> str:
        if not value.isascii() or not value.isprintable():
            raise ValueError("expected printable ASCII (it is sent as an HTTP header)")
        return value


# GitHub's topics: lowercase letters, digits and hyphens, at most 50 characters (search ignores case).
_TOPIC = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,49}")


class CrawlConfig(_Section):
    topics: list[str] = Field(default_factory=lambda: list(DEFAULT_TOPICS), max_length=200)
    keywords: list[str] = Field(default_factory=lambda: ["autonomous agent"], max_length=200)
    min_stars: int = Field(200, ge=0, le=10**9)
    # A complete crawl that would delist more than this share of the listed repos stops instead
    # (a broken query list or a GitHub outage, not a real change).
    max_delist_share: float = Field(0.2, ge=0, le=1)
    # The most query parts one configured search may be split into; past it a part over the
    # 1,000-result cap is read to the cap and the crawl is incomplete. A search of N repos needs
    # about N / 800 parts (TARGET) plus the splits that lead to them: some 65-110 for 50,000, so a
    # real crawl stays far under it, and no server (however its counts lie) makes one search
    # unbounded work: at most this many parts of at most 10 pages.
    max_query_parts: int = Field(1000, ge=1, le=100_000)

    @field_validator("topics")
    @classmethod
    def _github_topics(cls, value: list[str]) -> list[str]:
        # A topic is one GitHub topic: "ai agent" would search topic:ai plus the word agent, silently.
        for topic in value:
            if topic.strip() and not _TOPIC.fullmatch(topic.strip()):
                raise ValueError(
                    f"{topic!r} is not a GitHub topic (letters, digits and hyphens, at most 50 characters);"
                    " a phrase belongs in keywords"
                )
        return value

    @model_validator(mode="after")
    def _can_list_something(self) -> CrawlConfig:
        if not any(t.strip() for t in self.topics) and not any(k.strip() for k in self.keywords):
            raise ValueError("topics and keywords are both empty: the crawl could not list anything")
        return self


def error_in_words(error: Any) -> str:
    """A setting's validation error (pydantic's first error) without the words that name Python
    rather than the setting: said the same for the TOML file and for a command-line override."""
    kind = error["type"]
    if kind in ("model_type", "dict_type"):
        return "should be a table (a [section] with its keys)"
    if kind == "string_pattern_mismatch" and str(error.get("ctx", {}).get("pattern", "")).startswith("^https?://"):
        return "should be an http(s) address, such as https://agentrank.example.org"
    if kind == "list_type":
        return 'should be a list, such as ["a", "b"]'
    return str(error["msg"]).removeprefix("Value error, ")
