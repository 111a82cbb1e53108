"""The 15 categories of the design, with their display names and one-line definitions."""

from __future__ import annotations

from typing import NamedTuple


class Category(NamedTuple):
    id: str
    name: str
    description: str


CATEGORIES: tuple[Category, ...] = (
    Category(
        "coding",
        "Coding agent",
        "Agents that write, edit, review, test or migrate code, and the CLIs, IDEs and harnesses that run them.",
    ),
    Category(
        "framework", "Agent framework / SDK", "Libraries and SDKs for building LLM agents or agentic apps in code."
    ),
    Category(
        "multi-agent",
        "Multi-agent orchestration",
        "Systems whose core is several agents collaborating: crews, swarms, agent teams, agent societies.",
    ),
    Category(
        "computer-use",
        "Browser / computer-use agent",
        "Agents and toolkits that operate web browsers, desktops or phones.",
    ),
    Category(
        "research", "Research agent", "Agents that search, read and synthesise sources into answers or cited reports."
    ),
    Category(
        "assistant",
        "General / personal assistant",
        "General-purpose autonomous task solvers and personal assistants for end users.",
    ),
    Category(
        "workflow",
        "Workflow / automation platform",
        "Low-code, no-code or declarative platforms for designing and running agentic workflows.",
    ),
    Category("data", "Data / analytics agent", "Agents for data analysis, text-to-SQL, BI and data-science tasks."),
    Category(
        "chat",
        "Chat / customer support",
        "Chatbots and chat front-ends: support bots, chat-with-your-documents apps, self-hosted chat UIs.",
    ),
    Category(
        "voice",
        "Voice agent",
        "Real-time voice and phone agents, the frameworks that build them, and voice I/O for agents.",
    ),
    Category(
        "memory",
        "Memory & knowledge",
        "Long-term memory layers, context engines, knowledge graphs, RAG engines and vector stores.",
    ),
    Category(
        "infrastructure",
        "Tools & infrastructure",
        "What agents run on or call: tools and MCP servers, sandboxes, protocols, deployment, guardrails.",
    ),
    Category(
        "evaluation",
        "Evaluation & observability",
        "Benchmarks, eval harnesses, gym environments, tracing, monitoring and cost observability.",
    ),
    Category(
        "resources",
        "Resources",
        "Awesome lists, curated links, tutorials, courses, books, cookbooks and prompt collections.",
    ),
    Category(
        "other",
        "Other / domain-specific",
        "Domain or creative agents not covered above: security, finance, education, media, games.",
    ),
)

CATEGORY_IDS = tuple(c.id for c in CATEGORIES)
CATEGORY_NAMES = {c.id: c.name for c in CATEGORIES}


def category_id(label: str) -> str | None:
    """The category a person's label names: its id in any case ("Framework"), with spaces or
    underscores for hyphens ("multi agent"), or its display name ("Coding agent"); None otherwise."""
    text = " ".join(label.split()).lower()
    for candidate in (text, text.replace(" ", "-").replace("_", "-")):
        if candidate in CATEGORY_IDS:
            return candidate
    return next((c.id for c in CATEGORIES if c.name.lower() == text), None)
