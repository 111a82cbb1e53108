"""A deterministic, realistic synthetic population of agent repositories.

The demo, the GitHub emulator, the tests and the benchmarks all draw from this. Nothing here is
copied from real repositories; the *shapes* of the distributions were calibrated on the real
samples the team studied (the figures below; the real samples are not shipped):

- stars above the floor follow a Pareto tail (α ≈ 1.0, the usual GitHub star tail);
- forks/stars is log-normal around 0.10 (real sample quartiles 0.074 / 0.103 / 0.147);
- repo age is log-normal around 500 days with a few weeks-old repos;
- days since the last push: about half within a week, 15 % stale for over a year;
- licences: MIT ≈ 41 %, Apache-2.0 ≈ 22 %, none ≈ 16 %, NOASSERTION ≈ 7 %, copyleft and others;
- about a quarter of repos carry no topics; the rest 3–15.

Same seed and reference time, same population, on every machine.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

# Category → (share of the population, name parts, description templates, topics).
_CATEGORY_SPECS: dict[str, dict[str, Any]] = {
    "coding": {
        "share": 0.14,
        "parts": ["code", "dev", "pilot", "coder", "patch", "refactor", "commit", "pair", "forge", "byte", "lint"],
        "descriptions": [
            "An autonomous coding agent that turns {thing} into pull requests",
            "AI pair programmer for the terminal: edits {thing} across your repository",
            "Open-source coding agent that plans, writes and tests code for {thing}",
            "A CLI coding assistant that reviews and refactors {thing} with LLMs",
        ],
        "topics": ["coding-agent", "code-generation", "developer-tools", "cli", "ai-coding", "software-engineering"],
    },
    "framework": {
        "share": 0.15,
        "parts": ["agent", "kit", "core", "flow", "chain", "sdk", "lang", "mind", "spark", "loom"],
        "descriptions": [
            "A lightweight framework for building LLM agents with tools and {thing}",
            "Python SDK to build, run and deploy AI agents for {thing}",
            "Type-safe agent framework: compose tools, memory and {thing} in code",
            "Build production-ready agentic applications around {thing}",
        ],
        "topics": ["agent-framework", "llm", "sdk", "python", "function-calling", "ai-agents-framework"],
    },
    "multi-agent": {
        "share": 0.08,
        "parts": ["crew", "swarm", "hive", "team", "society", "colony", "council", "squad"],
        "descriptions": [
            "Orchestrate a crew of role-playing agents that collaborate on {thing}",
            "Multi-agent framework where agent teams debate and solve {thing}",
            "Simulate a society of LLM agents working together on {thing}",
        ],
        "topics": ["multi-agent", "multi-agent-systems", "orchestration", "swarm", "agent-collaboration"],
    },
    "computer-use": {
        "share": 0.06,
        "parts": ["browser", "click", "surf", "screen", "web", "desk", "operator", "cursor"],
        "descriptions": [
            "Let AI agents operate the browser: fill forms, click and read {thing}",
            "Computer-use agent that controls desktop apps from screenshots for {thing}",
            "Browser automation for LLM agents with DOM and vision for {thing}",
        ],
        "topics": ["browser-automation", "computer-use", "playwright", "gui-agent", "web-agent"],
    },
    "research": {
        "share": 0.06,
        "parts": ["scout", "scholar", "research", "sage", "quest", "probe", "lens"],
        "descriptions": [
            "Deep research agent that searches the web and writes cited reports on {thing}",
            "An AI research assistant that reads papers and summarises {thing}",
        ],
        "topics": ["deep-research", "research-assistant", "web-search", "summarization"],
    },
    "assistant": {
        "share": 0.10,
        "parts": ["jarvis", "buddy", "friday", "helper", "aide", "butler", "genie", "mate"],
        "descriptions": [
            "Your personal AI assistant that runs tasks on {thing} for you",
            "An autonomous agent that breaks goals into steps and completes {thing}",
            "General-purpose AI agent for everyday tasks like {thing}",
        ],
        "topics": ["personal-assistant", "autonomous-agent", "autogpt", "gpt-4", "assistant"],
    },
    "workflow": {
        "share": 0.07,
        "parts": ["flow", "pipe", "automate", "builder", "canvas", "node", "studio"],
        "descriptions": [
            "Low-code platform to design and run agentic workflows for {thing}",
            "Visual builder for AI workflows: drag, drop and deploy agents for {thing}",
        ],
        "topics": ["workflow-automation", "low-code", "no-code", "workflow", "automation"],
    },
    "data": {
        "share": 0.04,
        "parts": ["sql", "query", "insight", "table", "chart", "analyst", "metric"],
        "descriptions": [
            "Talk to your database: a text-to-SQL agent for {thing}",
            "Data analysis agent that writes pandas code and charts for {thing}",
        ],
        "topics": ["text-to-sql", "data-analysis", "data-science", "pandas", "bi"],
    },
    "chat": {
        "share": 0.07,
        "parts": ["chat", "talk", "bot", "support", "desk", "converse"],
        "descriptions": [
            "Self-hosted chat UI for LLMs with plugins for {thing}",
            "Customer support chatbot that answers questions about {thing}",
        ],
        "topics": ["chatbot", "chat-ui", "customer-support", "nextjs", "chatgpt"],
    },
    "voice": {
        "share": 0.03,
        "parts": ["voice", "speak", "call", "echo", "vox", "audio"],
        "descriptions": [
            "Real-time voice agent framework with speech-to-text and TTS for {thing}",
            "Build phone-calling AI agents that talk about {thing}",
        ],
        "topics": ["voice-agent", "speech", "text-to-speech", "webrtc", "realtime"],
    },
    "memory": {
        "share": 0.05,
        "parts": ["memo", "recall", "graph", "vault", "context", "mem"],
        "descriptions": [
            "Long-term memory layer for AI agents that remembers {thing}",
            "RAG engine and knowledge graph used as agent memory for {thing}",
        ],
        "topics": ["memory", "rag", "knowledge-graph", "vector-database", "embeddings"],
    },
    "infrastructure": {
        "share": 0.07,
        "parts": ["mcp", "sandbox", "gate", "guard", "runtime", "bridge", "tool"],
        "descriptions": [
            "MCP server that gives agents access to {thing}",
            "Secure sandbox runtime to execute agent-generated code for {thing}",
            "Guardrails and policy layer for tool-calling agents in {thing}",
        ],
        "topics": ["mcp", "mcp-server", "sandbox", "guardrails", "tools"],
    },
    "evaluation": {
        "share": 0.03,
        "parts": ["bench", "eval", "trace", "gym", "arena", "watch"],
        "descriptions": [
            "Benchmark and evaluation harness for LLM agents on {thing}",
            "Tracing and observability for agent runs: cost, latency and {thing}",
        ],
        "topics": ["benchmark", "evaluation", "observability", "llmops", "tracing"],
    },
    "resources": {
        "share": 0.03,
        "parts": ["awesome", "guide", "course", "cookbook", "notes", "lessons"],
        "descriptions": [
            "A curated list of resources, papers and tools about {thing}",
            "Free course with lessons and notebooks on building agents for {thing}",
        ],
        "topics": ["awesome-list", "awesome", "tutorial", "course", "resources"],
    },
    "other": {
        "share": 0.02,
        "parts": ["trade", "quest", "pixel", "tutor", "shield", "story"],
        "descriptions": [
            "An AI agent for {thing} in finance, games and education",
            "LLM agent that plays and narrates {thing}",
        ],
        "topics": ["finance", "game", "education", "cybersecurity", "trading"],
    },
}
_THINGS = [
    "issues",
    "spreadsheets",
    "emails",
    "tickets",
    "APIs",
    "documents",
    "notebooks",
    "invoices",
    "recipes",
    "travel plans",
    "meetings",
    "logs",
    "dashboards",
    "contracts",
    "support queues",
    "research papers",
    "pull requests",
    "calendars",
    "news",
    "code reviews",
    "SQL warehouses",
    "web apps",
    "CRMs",
]
_SUFFIXES = ["", "", "", "-ai", "-agent", "-gpt", "-x", "-lab", "-js", "-py", "hq", "-os", "-studio"]
_GENERIC_TOPICS = [
    "ai",
    "llm",
    "python",
    "openai",
    "agents",
    "agent",
    "typescript",
    "generative-ai",
    "large-language-models",
    "langchain",
    "anthropic",
    "ollama",
    "gpt",
    "machine-learning",
]
_LICENCES = [  # (spdx id or None for "no licence", key, name, share)
    ("MIT", "mit", "MIT License", 0.41),
    ("Apache-2.0", "apache-2.0", "Apache License 2.0", 0.22),
    (None, None, None, 0.16),
    ("NOASSERTION", "other", "Other", 0.07),
    ("AGPL-3.0", "agpl-3.0", "GNU Affero General Public License v3.0", 0.035),
    ("GPL-3.0", "gpl-3.0", "GNU General Public License v3.0", 0.025),
    ("BSD-3-Clause", "bsd-3-clause", 'BSD 3-Clause "New" or "Revised" License', 0.02),
    ("CC0-1.0", "cc0-1.0", "Creative Commons Zero v1.0 Universal", 0.015),
    ("MPL-2.0", "mpl-2.0", "Mozilla Public License 2.0", 0.01),
    ("CC-BY-4.0", "cc-by-4.0", "Creative Commons Attribution 4.0 International", 0.01),
    ("Unlicense", "unlicense", "The Unlicense", 0.005),
]
_LANGUAGES = [
    ("Python", 0.46),
    ("TypeScript", 0.19),
    (None, 0.12),
    ("Jupyter Notebook", 0.05),
    ("JavaScript", 0.05),
    ("Go", 0.04),
    ("Rust", 0.03),
    ("Java", 0.02),
    ("C#", 0.015),
    ("Shell", 0.015),
    ("Kotlin", 0.01),
]
# Share of repos whose last push falls in each recency band (days), calibrated on the real sample.
_PUSH_BANDS = [
    ((0, 7), 0.45),
    ((7, 30), 0.15),
    ((30, 90), 0.12),
    ((90, 180), 0.09),
    ((180, 365), 0.09),
    ((365, 1500), 0.10),
]
# Probability that a repo of any category carries each configured crawl topic.
_CRAWL_TOPICS = {"ai-agent": 0.30, "ai-agents": 0.40, "llm-agent": 0.10, "agentic-ai": 0.12, "autonomous-agents": 0.08}

DEFAULT_REFERENCE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


@dataclass
class SyntheticRepo:
    id: int
    full_name: str
    owner_login: str
    owner_id: int
    owner_type: str
    description: str | None
    homepage: str | None
    language: str | None
    topics: list[str]
    license_spdx: str | None
    license_key: str | None
    license_name: str | None
    stars: int
    forks: int
    open_issues: int
    size: int
    created_at: datetime
    pushed_at: datetime
    updated_at: datetime
    category: str  # the truth the generator used, for evaluating the classifier
    archived: bool = False
    fork: bool = False
    default_branch: str = "main"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]


def _choice(rng: np.random.Generator, options: list[Any], weights: list[float] | None = None) -> Any:
    if weights is None:
        return options[int(rng.integers(len(options)))]
    p = np.asarray(weights, dtype=float)
    return options[int(rng.choice(len(options), p=p / p.sum()))]


def generate_population(
    n: int = 4000,
    *,
    seed: int = 2026,
    reference: datetime = DEFAULT_REFERENCE,
    star_floor: int = 100,
    fork_share: float = 0.01,
    archived_share: float = 0.015,
) -> list[SyntheticRepo]:
    """``n`` repos as GitHub would hold them on ``reference`` (stars from ``star_floor`` up).

    Forks and archived repos are included at the given shares, and so are repos under 200 stars,
    so that every listing rule has something to bite on.
    """
    rng = np.random.default_rng(seed)
    categories = list(_CATEGORY_SPECS)
    shares = [_CATEGORY_SPECS[c]["share"] for c in categories]
    n_owners = max(1, int(n * 0.7))
    owners = []
    for i in range(n_owners):
        stem = _choice(
            rng,
            [
                "ai",
                "open",
                "neo",
                "deep",
                "meta",
                "hyper",
                "co",
                "auto",
                "nova",
                "astra",
                "lumen",
                "quant",
                "zen",
                "octo",
                "blue",
                "iron",
                "sky",
                "red",
                "moss",
                "vela",
            ],
        )
        tail = _choice(rng, ["labs", "dev", "hq", "ai", "works", "io", "team", "org", "x", "research", "", "hub"])
        login = f"{stem}{tail}{i}" if tail else f"{stem}-{i}"
        owners.append((login, 10_000 + i * 7, "Organization" if rng.random() < 0.55 else "User"))
    repos: list[SyntheticRepo] = []
    used_names: set[str] = set()
    ids = rng.choice(np.arange(500_000_000, 500_000_000 + n * 50), size=n, replace=False)
    for i in range(n):
        category = _choice(rng, categories, shares)
        spec = _CATEGORY_SPECS[category]
        owner_login, owner_id, owner_type = owners[int(rng.integers(n_owners)) if i >= n_owners else i]
        base = _choice(rng, spec["parts"]) + _choice(
            rng,
            [
                "",
                "",
                _choice(rng, spec["parts"]),
                "-" + _choice(rng, ["agent", "ai", "gpt", "bot", "kit", "hub", "os", "lab"]),
            ],
        )
        name = base + _choice(rng, _SUFFIXES)
        if category == "resources" and rng.random() < 0.6:
            name = "awesome-" + name
        full_name = f"{owner_login}/{name}"
        while full_name.lower() in used_names:
            full_name = f"{owner_login}/{name}-{int(rng.integers(2, 99))}"
        used_names.add(full_name.lower())

        # Pareto tail of stars above the floor, capped at a plausible maximum.
        stars = int(min(star_floor / (1.0 - rng.random()) ** (1 / 1.0), 250_000))
        forks = int(stars * float(np.exp(rng.normal(np.log(0.10), 0.75))))
        age_days = float(np.clip(np.exp(rng.normal(np.log(500), 0.9)), 1, 5500))
        if rng.random() < 0.04:
            age_days = float(rng.uniform(2, 29))  # a few weeks-old repos, which momentum counts as 30 days
        band = _choice(rng, [b for b, _ in _PUSH_BANDS], [w for _, w in _PUSH_BANDS])
        push_days = min(float(rng.uniform(*band)), age_days)
        created_at = reference - timedelta(seconds=int(age_days * 86400))
        pushed_at = reference - timedelta(seconds=int(push_days * 86400))
        updated_at = max(pushed_at, reference - timedelta(seconds=int(rng.uniform(0, 3) * 86400)))

        topics: list[str] = []
        if rng.random() >= 0.25:
            k = int(rng.integers(3, 16))
            pool = list(spec["topics"]) + _GENERIC_TOPICS
            picked = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
            topics = [pool[j] for j in sorted(picked)]
            for topic, probability in _CRAWL_TOPICS.items():
                if rng.random() < probability and topic not in topics:
                    topics.append(topic)
            if category == "coding" and rng.random() < 0.5 and "coding-agent" not in topics:
                topics.append("coding-agent")
            if category == "multi-agent" and rng.random() < 0.6 and "multi-agent" not in topics:
                topics.append("multi-agent")
        text: str = _choice(rng, spec["descriptions"]).format(thing=_choice(rng, _THINGS))
        if rng.random() < 0.06:
            text = text.rstrip(".") + " (an autonomous agent)"
        description: str | None = text
        if rng.random() < 0.01:
            description = None
        spdx, key, lname = _choice(rng, [lic[:3] for lic in _LICENCES], [lic[3] for lic in _LICENCES])
        repos.append(
            SyntheticRepo(
                id=int(ids[i]),
                full_name=full_name,
                owner_login=owner_login,
                owner_id=owner_id,
                owner_type=owner_type,
                description=description,
                homepage=f"https://{name.replace('_', '-')}.example.dev" if rng.random() < 0.4 else None,
                language=_choice(rng, [lang for lang, _ in _LANGUAGES], [w for _, w in _LANGUAGES]),
                topics=topics,
                license_spdx=spdx,
                license_key=key,
                license_name=lname,
                stars=stars,
                forks=forks,
                open_issues=int(stars * rng.uniform(0, 0.05)),
                size=int(rng.integers(50, 200_000)),
                created_at=created_at,
                pushed_at=pushed_at,
                updated_at=updated_at,
                category=category,
                archived=bool(rng.random() < archived_share),
                fork=bool(rng.random() < fork_share),
            )
        )
    return repos


def _ts(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def to_search_item(repo: SyntheticRepo, api: str = "https://api.github.com") -> dict[str, Any]:
    """The repo as one ``/search/repositories`` item, with the keys and key order GitHub sends."""
    full = repo.full_name
    r = f"{api}/repos/{full}"
    u = f"{api}/users/{repo.owner_login}"
    licence = None
    if repo.license_key:
        licence = {
            "key": repo.license_key,
            "name": repo.license_name,
            "spdx_id": repo.license_spdx,
            "url": None if repo.license_key == "other" else f"{api}/licenses/{repo.license_key}",
            "node_id": f"MDc6TGljZW5zZ{zlib.crc32(repo.license_key.encode()) % 97}",
        }
    item: dict[str, Any] = {
        "id": repo.id,
        "node_id": f"R_kgDO{repo.id:x}",
        "name": repo.name,
        "full_name": full,
        "private": False,
        "owner": {
            "login": repo.owner_login,
            "id": repo.owner_id,
            "node_id": f"O_kgDO{repo.owner_id:x}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{repo.owner_id}?v=4",
            "gravatar_id": "",
            "url": u,
            "html_url": f"https://github.com/{repo.owner_login}",
            "followers_url": f"{u}/followers",
            "following_url": f"{u}/following{{/other_user}}",
            "gists_url": f"{u}/gists{{/gist_id}}",
            "starred_url": f"{u}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{u}/subscriptions",
            "organizations_url": f"{u}/orgs",
            "repos_url": f"{u}/repos",
            "events_url": f"{u}/events{{/privacy}}",
            "received_events_url": f"{u}/received_events",
            "type": repo.owner_type,
            "user_view_type": "public",
            "site_admin": False,
        },
        "html_url": f"https://github.com/{full}",
        "description": repo.description,
        "fork": repo.fork,
        "url": r,
    }
    for key in (
        "forks",
        "keys",
        "collaborators",
        "teams",
        "hooks",
        "issue_events",
        "events",
        "assignees",
        "branches",
        "tags",
        "blobs",
        "git_tags",
        "git_refs",
        "trees",
        "statuses",
        "languages",
        "stargazers",
        "contributors",
        "subscribers",
        "subscription",
        "commits",
        "git_commits",
        "comments",
        "issue_comment",
        "contents",
        "compare",
        "merges",
        "archive",
        "downloads",
        "issues",
        "pulls",
        "milestones",
        "notifications",
        "labels",
        "releases",
        "deployments",
    ):
        item[f"{key}_url"] = f"{r}/{key.replace('_', '/')}"
    item.update(
        {
            "created_at": _ts(repo.created_at),
            "updated_at": _ts(repo.updated_at),
            "pushed_at": _ts(repo.pushed_at),
            "git_url": f"git://github.com/{full}.git",
            "ssh_url": f"git@github.com:{full}.git",
            "clone_url": f"https://github.com/{full}.git",
            "svn_url": f"https://github.com/{full}",
            "homepage": repo.homepage,
            "size": repo.size,
            "stargazers_count": repo.stars,
            "watchers_count": repo.stars,
            "language": repo.language,
            "has_issues": True,
            "has_projects": True,
            "has_downloads": True,
            "has_wiki": False,
            "has_pages": False,
            "has_discussions": repo.stars > 1000,
            "forks_count": repo.forks,
            "mirror_url": None,
            "archived": repo.archived,
            "disabled": False,
            "open_issues_count": repo.open_issues,
            "license": licence,
            "allow_forking": True,
            "is_template": False,
            "web_commit_signoff_required": False,
            "topics": list(repo.topics),
            "visibility": "public",
            "forks": repo.forks,
            "open_issues": repo.open_issues,
            "watchers": repo.stars,
            "default_branch": repo.default_branch,
            "score": 1.0,
        }
    )
    item.update(repo.extra)
    return item


def pile_on_stars(repos: list[SyntheticRepo], *, stars: int, count: int, topic: str) -> list[SyntheticRepo]:
    """A copy of ``repos`` where ``count`` of them (evenly spaced, so deterministic) have exactly
    ``stars`` stars and carry ``topic``: one star value holding more repos than a search can
    return, which only ``created:`` windows can split. The others are unchanged."""
    if not 0 <= count <= len(repos):
        raise ValueError(f"count must be between 0 and {len(repos)}")
    step = len(repos) / count if count else 0
    chosen = {int(i * step) for i in range(count)}
    piled = []
    for index, repo in enumerate(repos):
        if index in chosen:
            topics = repo.topics if topic in repo.topics else [*repo.topics, topic]
            repo = replace(repo, stars=stars, topics=topics, extra=dict(repo.extra))
        piled.append(repo)
    return piled
