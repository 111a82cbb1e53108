"""What a crawl with topics returns next to agents: surveys, walkthroughs and lists named or worded as
such, frameworks that tag themselves `awesome`, paper code, robots and voice assistants."""

from __future__ import annotations

import pytest

from classify.features import featurize
from classify.lexicon import settling_categories
from classify.text import RepoText
from tests.classify_helpers import predict


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        # Named for what it is (taxonomy rule 9), whatever the topics say of its subject.
        ("planning-agents-survey", "Planning with language model agents: methods, benchmarks, open problems", ()),
        ("tool-agents-survey", "", ()),
        (
            "retrieval-agents-survey",
            "Where planning meets retrieval: methods and open problems for agents that search",
            ("agentic-framework",),
        ),
        ("mcp-masterclass", "Video course on building agents with MCP: the code for every episode", ()),
        ("mcp-cookbook", "Build MCP servers and clients, one folder per recipe", ("mcp", "ai-agents")),
        # Opens as a list, or says it is a walkthrough or a study collection.
        (
            "agent-picks",
            "A list of agent products worth trying",
            ("ai-agents", "ai-agents-framework", "chatbot", "rag"),
        ),
        ("hub-agents", "Curated directory of AI agent startups", ("ai-agents", "llm")),
        ("forecasting-hub", "A resource repository on time-series forecasting", ("forecasting", "machine-learning")),
        ("agent-weekends", "This repository contains weekend projects with small agents, one per folder", ()),
        ("support-tools-nb", "Notebook that shows how to add tool calls to a support agent", ("ai",)),
        ("ticket-agent-iac", "Provides guidance on wiring a hosted agent to a ticketing system, with sample IaC", ()),
    ],
)
def test_surveys_walkthroughs_and_lists_are_resources(model, name, description, topics):
    repo = RepoText(name, description, topics)
    assert "resources" in settling_categories(repo)
    assert model.predict([repo])[0].category == "resources"


@pytest.mark.parametrize(
    ("name", "description"),
    [
        # An agent, a tool or software presented first is that thing, whatever its name says.
        ("papers-digest", "AI agent that emails you a weekly digest of new research papers"),
        ("course-forge", "Self-hosted app that turns your notes into a course"),
        ("optim-pack", "A collection of optimizers for PyTorch: adaptive and schedule-free"),
        ("guide-bot", "Chatbot that answers questions about your product guide"),
    ],
)
def test_what_presents_a_thing_first_is_not_settled_as_a_resource(name, description):
    assert "resources" not in settling_categories(RepoText(name, description))


def test_a_framework_tagged_awesome_stays_a_framework(model):
    # Topic spam: the maker tags a framework `awesome`; its description says what it is.
    prediction = predict(
        model,
        "nimbus",
        "A framework for teams of Python agents with roles and shared state",
        ("agent", "ai", "awesome", "awesome-list", "llm", "multi-agent", "python"),
    )
    assert prediction.category in {"framework", "multi-agent"}, prediction
    # A list tagged `awesome` is still settled outright.
    assert predict(model, "agent-links", "Links to agent frameworks", ("awesome",)).category == "resources"


def test_the_word_repo_is_not_coding_evidence(model):
    # "This repo is the official implementation of …" is how papers' code reads, not a coding agent.
    feats, _ = featurize(RepoText("x", "This repo is the official implementation of our planning paper"))
    assert "kc:coding:1" not in feats
    feats, _ = featurize(RepoText("x", "Agent that opens pull requests against your repo"))
    assert "kc:coding:1" in feats
    prediction = predict(
        model, "reflect-plan", "Official repository of the EMNLP 2024 paper on reflective planning for LLM agents"
    )
    assert prediction.category != "coding", prediction


@pytest.mark.parametrize(
    ("topics", "description"),
    [
        (
            ("robotics", "ros2", "llm"),
            "An AI agent that answers questions about a robot's sensors and sends it move commands",
        ),
        (("autonomous-driving", "llm"), "Driving agent that plans and controls a car in simulation"),
        (("minecraft", "ai-agent"), "AI agents that build villages together"),
    ],
)
def test_robots_cars_and_minecraft_are_domain_agents(model, topics, description):
    assert "other" in settling_categories(RepoText("x", description, topics))
    assert predict(model, "x", description, topics).category == "other"


def test_a_voice_assistant_with_speech_topics_is_voice(model):
    prediction = predict(
        model,
        "desk-voice",
        "Desk companion you talk to: hears you through Whisper, answers aloud and can run your scripts",
        ("ai", "ai-assistant", "assistant", "whisper", "coqui-tts", "llm", "ollama"),
    )
    assert prediction.category == "voice", prediction
