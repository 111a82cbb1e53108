"""Topics and phrases that settle a category on their own.

A maker who tags a repo ``awesome-list`` or ``coding-agent`` has told us what it is; the model
need not guess. The first matching rule wins, so more specific rules come first.
"""

from __future__ import annotations

import re

# Topic → category. Only topics that are unambiguous on their own belong here.
TOPIC_LEXICON: dict[str, str] = {
    "awesome": "resources", "awesome-list": "resources", "awesome-lists": "resources", "tutorial": "resources",
    "tutorials": "resources", "course": "resources", "courses": "resources", "cookbook": "resources",
    "book": "resources", "prompts": "resources", "prompt-collection": "resources", "curated-list": "resources",
    "coding-agent": "coding", "coding-agents": "coding", "code-generation": "coding", "ai-coding": "coding",
    "coding-assistant": "coding", "code-review": "coding", "software-engineering-agent": "coding",
    "multi-agent": "multi-agent", "multi-agent-systems": "multi-agent", "multi-agent-system": "multi-agent",
    "multiagent": "multi-agent", "agent-swarm": "multi-agent", "swarm": "multi-agent",
    "computer-use": "computer-use", "browser-automation": "computer-use", "browser-use": "computer-use",
    "gui-agent": "computer-use", "web-agent": "computer-use", "mobile-agent": "computer-use",
    "deep-research": "research", "research-agent": "research", "research-assistant": "research",
    "personal-assistant": "assistant", "autogpt": "assistant", "ai-assistant": "assistant",
    "workflow-automation": "workflow", "no-code": "workflow", "low-code": "workflow", "nocode": "workflow",
    "lowcode": "workflow", "workflow": "workflow",
    "text-to-sql": "data", "data-analysis": "data", "data-science": "data", "business-intelligence": "data",
    "chatbot": "chat", "chat-ui": "chat", "customer-support": "chat", "chatbot-ui": "chat",
    "voice-agent": "voice", "voice-assistant": "voice", "speech": "voice", "text-to-speech": "voice",
    "speech-to-text": "voice", "voice": "voice",
    "memory": "memory", "long-term-memory": "memory", "vector-database": "memory", "knowledge-graph": "memory",
    "rag": "memory", "retrieval-augmented-generation": "memory",
    "mcp": "infrastructure", "mcp-server": "infrastructure", "model-context-protocol": "infrastructure",
    "sandbox": "infrastructure", "guardrails": "infrastructure",
    "benchmark": "evaluation", "evaluation": "evaluation", "observability": "evaluation", "llm-evaluation": "evaluation",
    "agent-framework": "framework", "ai-agents-framework": "framework", "agent-sdk": "framework",
}  # fmt: skip

# Phrases in the name or description that settle a category.
PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), category)
    for pattern, category in (
        (r"^awesome[-_ ]|\bawesome list\b|\bcurated list\b|\bcollection of (?:resources|papers|prompts)\b", "resources"),
        (r"\b(?:tutorials?|course|lessons|cookbook|handbook)\b", "resources"),
        (r"\bcoding agent|\bcode (?:generation|review)\b|\bsoftware engineering agent|\bpair programm", "coding"),
        (r"\bmulti[- ]agent\b|\bagent swarm|\bcrew of agents\b", "multi-agent"),
        (r"\bbrowser (?:automation|agent|use)\b|\bcomputer[- ]use\b|\bgui agent\b", "computer-use"),
        (r"\bdeep research\b|\bresearch (?:agent|assistant)\b", "research"),
        (r"\bvoice (?:agent|assistant)\b|\bspeech\b|\bphone call", "voice"),
        (r"\btext[- ]to[- ]sql\b|\bdata analy", "data"),
        (r"\bmemory (?:layer|for)\b|\blong[- ]term memory\b|\bvector (?:database|store)\b", "memory"),
        (r"\bmcp server\b|\bmodel context protocol\b|\bsandbox", "infrastructure"),
        (r"\bbenchmark\b|\bevaluat|\bobservability\b|\btracing\b", "evaluation"),
        (r"\bworkflow\b|\bno[- ]code\b|\blow[- ]code\b", "workflow"),
        (r"\bchatbot\b|\bchat ui\b|\bcustomer (?:support|service)\b", "chat"),
        (r"\bframework\b|\bsdk\b|\blibrary for building\b", "framework"),
        (r"\bpersonal assistant\b|\bautonomous agent\b", "assistant"),
    )
)


def lexicon_category(name: str, description: str | None, topics: list[str]) -> str | None:
    """The category a topic or phrase settles, or None when nothing does."""
    for topic in topics:
        category = TOPIC_LEXICON.get(topic.lower())
        if category:
            return category
    text = f"{name} {description or ''}"
    for pattern, category in PHRASES:
        if pattern.search(text):
            return category
    return None
