"""The crawler's settings: how to talk to GitHub (``[github]``) and what to search (``[crawl]``).

``agentrank.config`` composes these sections into the whole configuration; every key is optional
and an unknown key is an error that names it.
"""

from __future__ import annotations

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


class _Section(BaseModel):
    # Strict: "5" is not a number and true is not 1; a float setting still takes an integer.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, strict=True)


class GitHubConfig(_Section):
    api_url: str = "https://api.github.com"
    min_interval_s: float = Field(2.0, ge=0)
    secondary_wait_s: float = Field(60, ge=0)
    max_retries: int = Field(5, ge=0)
    timeout_s: float = Field(30, gt=0)
    # A rate-limit wait longer than this stops the crawl cleanly (resumable) instead of sleeping.
    max_wait_s: float = Field(900, ge=0)
    user_agent: str = "agentrank-crawler (+https://github.com/agentrank/agentrank)"

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # Checked with the rest of the file, so a typo fails every command, not only the next crawl.
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("expected an http(s) URL such as https://api.github.com")
        return value


class CrawlConfig(_Section):
    topics: list[str] = Field(default_factory=lambda: list(DEFAULT_TOPICS))
    keywords: list[str] = Field(default_factory=lambda: ["autonomous agent"])
    min_stars: int = Field(200, ge=0)
    # A complete crawl that would delist more than this share of the listed repos stops instead
    # (a broken query list or a GitHub outage, not a real change).
    max_delist_share: float = Field(0.2, ge=0, le=1)

    @model_validator(mode="after")
    def _can_list_something(self) -> CrawlConfig:
        if not any(t.strip() for t in self.topics) and not any(k.strip() for k in self.keywords):
            raise ValueError("topics and keywords are both empty: the crawl could not list anything")
        return self
