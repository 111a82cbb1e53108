"""The taxonomy's tie-break rules as a category's reason names them: in words a maker can follow.

``classify.features.RULES`` takes its texts from here. Reasons stored before the rules were put in
words cite a bare rule number ("calls itself a coding agent (rule 2)"); :func:`in_words` reads
those as the words, so every page, ``agentrank explain`` and the export say the same thing
whichever classifier version stored the reason. A light module: the server imports it, not the
classifier.
"""

from __future__ import annotations

from typing import Any

# The rule features' texts, by feature name.
RULE_WORDS: dict[str, str] = {
    "coding-agent": "calls itself a coding agent",
    "for-coding-agents": "a component for coding agents (it goes under what the component does)",
    "for-agents": "a component for agents, not an agent (it goes under what the component does)",
    "multi-agent-first": "several agents working together is its core identity",
    "framework-first": "presents itself as a library or SDK",
    "list-of-links": "a list of links, tutorials or examples (a resource, whatever its subject)",
}

# What reasons stored by earlier classifiers say for the same rules, and the words now said instead.
EARLIER: dict[str, str] = {
    earlier: RULE_WORDS[rule]
    for earlier, rule in (
        ("calls itself a coding agent (rule 2)", "coding-agent"),
        ("a component for coding agents (rule 2)", "for-coding-agents"),
        ("a component for agents, not an agent (rules 4-6)", "for-agents"),
        ("multi-agent is its core identity (rule 3)", "multi-agent-first"),
        ("a list of links, tutorials or examples (rule 9)", "list-of-links"),
    )
}


def in_words(text: str) -> str:
    """A stored reason (its text, or one rule's text) with each rule cited by number said in words."""
    for earlier, words in EARLIER.items():
        text = text.replace(earlier, words)
    return text


def category_reason_in_words(reason: dict[str, Any]) -> dict[str, Any]:
    """A stored category reason (``text``, ``because`` pairs, ``runner_up``) with its rules in words."""
    found = dict(reason)
    if isinstance(found.get("text"), str):
        found["text"] = in_words(found["text"])
    if isinstance(found.get("because"), list):
        found["because"] = [
            [pair[0], in_words(pair[1])]
            if isinstance(pair, list | tuple) and len(pair) == 2 and isinstance(pair[1], str)
            else pair
            for pair in found["because"]
        ]
    return found
