"""The category model on its own: what it decides for repos a visitor would recognise."""

from __future__ import annotations

import os
import random
import re

import pytest

import classify.model
import classify.rules
import classify.text
from classify.categories import CATEGORY_IDS
from classify.examples import load_held_out_examples, load_training_examples
from classify.features import _RAW, FASTER_RULES, IN_CONTEXT, PHRASES, _needles, featurize, lexicon_category
from classify.lexicon import boosts, presents_a_model, resources_by_name, settling_categories
from classify.model import train
from classify.text import MAX_DESCRIPTION, RepoText, normalise_topics, split_name
from tests.classify_helpers import a_few_of_each, predict


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        ("awesome-agent-tooling", "A hand-picked list of links to agent frameworks, papers and demos", ()),
        ("AwesomeRobotAgents", "Links to embodied agent projects", ("robotics",)),
        ("agent-tutorials", "Step-by-step tutorial notebooks that teach you to build an LLM agent from scratch", ()),
        ("build-agents-course", "Twelve lessons with exercises on tool calling, planning and memory", ("course",)),
        ("gpt-recipes", "Worked examples for calling chat models", ("cookbook", "openai")),
        ("sql-copilot", "Collection of prompts", ("awesome-list", "text-to-sql")),
    ],
)
def test_lists_tutorials_and_courses_are_resources(model, name, description, topics):
    prediction = predict(model, name, description, topics)
    assert prediction.category == "resources", prediction


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        (
            "pr-mender",
            "An autonomous coding agent that edits code and opens pull requests",
            ("awesome-list",),
            "coding",
        ),
        ("tabpilot", "Browser automation agent that drives Chrome from screenshots", ("awesome",), "computer-use"),
        # a list about agents keeps its topic's word
        ("agent-reading", "LLM agents reading list", ("awesome-list",), "resources"),
        ("agents-index", "Agents: a curated list", ("awesome",), "resources"),
    ],
)
def test_an_agent_tagged_as_a_list_is_the_agent(model, name, description, topics, category):
    """A resources topic settled the category even when the description opens by presenting an agent
    that does something (docs/classifier.md: such a topic is not final then)."""
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("es-asistente", "Asistente personal de IA que gestiona tu correo y tu agenda"),
        ("pt-assistente", "Assistente pessoal com IA que organiza seus e-mails e compromissos"),
        ("de-assistent", "Persönlicher KI-Assistent, der E-Mails beantwortet und Termine plant"),
    ],
)
def test_ai_named_in_another_language_is_no_repo_that_names_nothing_of_ai(model, name, description):
    # "IA" and "KI" name AI: such a repo was read as naming nothing of it and called `other` with
    # confidence; the model knows few words of these languages, so its answer is now marked uncertain.
    prediction = predict(model, name, description)
    assert not (prediction.category == "other" and prediction.probability >= 0.55), prediction


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        # Grey zone: a client or SDK for a model provider's API, in any language, is `framework`.
        ("anthro-rs", "Rust client for the Anthropic API", ()),
        ("groq-ruby", "Ruby gem for the Groq API", ("ruby",)),
        ("openai-node-lite", "A tiny TypeScript wrapper around the OpenAI chat completions API", ("openai",)),
        # An adapter, with a few describing words first, or a client for several providers at once.
        ("llm-plug", "Config-driven async LLM adapter for OpenAI, Gemini and Ollama", ("llm",)),
        ("one-client", "A unified, typed Python client for multiple LLM providers", ()),
    ],
)
def test_a_provider_sdk_client_is_a_framework(model, name, description, topics):
    prediction = predict(model, name, description, topics)
    assert prediction.category == "framework", prediction
    assert ("rule", "the description calls it a client or SDK for a model provider's API") in prediction.because


@pytest.mark.parametrize(
    "description",
    [
        "The library for LLM-based multi-agent applications",
        # What the describing words make something else: a server, a tool, a proxy (the gateway grey zone).
        "An MCP server wrapper for the OpenAI API",
        "Agent toolkit library for Anthropic",
        "Drop-in proxy client for OpenAI",
    ],
)
def test_what_is_no_provider_client(description):
    assert not classify.rules.presents_a_provider_client(RepoText("x", description, ()))


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # The taxonomy's `voice` holds "voice I/O (speech MCP servers, dictation) for agents" ...
        ("speechio-mcp", "Speech-to-text MCP server for Claude Desktop and Cursor", ("mcp",), "voice"),
        ("tts-mcp", "An MCP server for ElevenLabs text to speech", ("mcp",), "voice"),
        # ... while an MCP server for anything else, transcripts of videos included, is a tool.
        ("yt-mcp", "MCP server that fetches YouTube video transcripts", ("mcp",), "infrastructure"),
        ("fs-mcp", "MCP server for reading and writing files", ("mcp",), "infrastructure"),
    ],
)
def test_a_speech_mcp_server_is_voice(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # Taxonomy rule 8: a domain agent is `other` unless it is clearly a functional type, "a finance
        # *research* agent is `research`" ...
        (
            "stockresearch",
            "An agent that researches stocks and writes investment memos with sources",
            ("ai-agent",),
            "research",
        ),
        (
            "legalresearch",
            "Legal research agent that finds case law and writes cited briefs",
            ("ai-agent", "legal"),
            "research",
        ),
        # ... while the domain's own agents stay `other`.
        ("hedge-bot", "Autonomous trading agent for crypto markets", ("crypto",), "other"),
        ("legal-drafter", "Agent that drafts contracts for small law firms", ("legal",), "other"),
    ],
)
def test_a_research_agent_in_a_domain_is_research(model, name, description, topics, category):
    prediction = predict(model, name, description, topics)
    assert prediction.category == category
    if category == "research":  # and the maker reads why
        assert ("rule", "the description calls it a research agent (over its domain)") in prediction.because


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        # demos, samples, labs and workshops open a resource like examples do (taxonomy rule 9) ...
        ("helpdesk-agent-demos", "Demos showcasing support agents built with our SDK", ("ai-agents",)),
        ("agent-sample-apps", "Sample apps built with the Contoso agent toolkit", ("agents",)),
        ("agentic-labs", "Hands-on labs for building AI agents on a cloud platform", ("ai-agents", "azure")),
        ("mcp-labs", "Hands-on labs that walk you through writing MCP servers", ("mcp",)),
        # ... so do a build-along book, a step-by-step tutorial in Chinese and a course in Spanish
        ("tiny-coder-book", "Build a coding agent from scratch, one chapter at a time", ("coding-agent",)),
        ("agent-shoujiao", "手把手教你用大模型搭建智能体应用", ("ai-agent",)),
        ("curso-agentes", "Curso práctico para crear agentes de IA con Python", ("ai-agents",)),
    ],
)
def test_demos_labs_and_build_alongs_are_resources_whatever_their_subject(model, name, description, topics):
    prediction = predict(model, name, description, topics)
    assert prediction.category == "resources", prediction


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("lessonsmith", "Self-hosted app that generates course outlines, quizzes and tutorials for teachers"),
        ("quizloom", "Self-hosted engine that turns lecture notes into a course with flashcards and exercises"),
        ("coursewright", "Engine that turns your lecture notes into a course with flashcards and exercises"),
    ],
)
def test_an_app_that_makes_courses_is_not_a_course(model, name, description):
    # Taxonomy rule 9: what it is (software, said first) decides, not what it talks of.
    assert classify.rules._software_first(RepoText(name, description))
    assert predict(model, name, description).category != "resources"


def test_a_course_that_builds_an_app_is_still_a_course():
    assert not classify.rules._software_first(
        RepoText("rag-course", "Tutorial: build a self-hosted RAG app in 8 lessons")
    )


def test_coding_agent_topic_with_a_coding_description_is_coding(model):
    prediction = predict(
        model,
        "patchwright",
        "Terminal agent that reads your repository, edits files and opens a pull request with the fix",
        ("coding-agent", "cli", "llm"),
    )
    assert prediction.category == "coding"
    assert prediction.probability >= 0.45


def test_a_settling_topic_tips_an_ambiguous_description(model):
    vague = "Open-source agent for developers"
    assert predict(model, "helix", vague, ("voice-agent",)).category == "voice"
    assert predict(model, "helix", vague, ("deep-research",)).category == "research"


@pytest.mark.parametrize(
    ("name", "description", "expected"),
    [
        ("talkline", "Build phone-calling voice agents with streaming speech-to-text and TTS", "voice"),
        ("ask-my-warehouse", "Ask questions about your Postgres tables in English; it writes the SQL", "data"),
        ("agent-bench-lite", "Benchmark suite measuring how often LLM agents finish multi-step tasks", "evaluation"),
        ("pagepilot", "Lets an LLM click, type and scroll in a real Chrome browser", "computer-use"),
        ("recallstack", "Long-term memory layer that lets agents remember users across sessions", "memory"),
    ],
)
def test_plain_descriptions_without_topics(model, name, description, expected):
    assert predict(model, name, description).category == expected


def test_every_prediction_names_a_runner_up_with_lower_probability(model):
    predictions = model.predict([RepoText("x", "An agent"), RepoText("crewtopia", "Agents that debate in a crew")])
    for p in predictions:
        assert p.category in CATEGORY_IDS and p.runner_up in CATEGORY_IDS and p.runner_up != p.category
        assert 0 <= p.runner_up_probability <= p.probability <= 1


def test_same_input_same_output_across_trainings(model):
    # `model` was trained by the first test process that asked (maybe another one) and perhaps read
    # back from the model cache: a training here must give the very same model.
    first, second = model, train(load_training_examples())
    repos = [
        RepoText("loom", "Framework for building agents"),
        RepoText("q", ""),
        RepoText("voicebox", "Voice agent", ("speech",)),
    ]
    assert first.version == second.version
    assert first.predict(repos) == second.predict(repos)
    assert (first.probabilities(repos) == second.probabilities(repos)).all()


def test_the_model_version_follows_the_training_data():
    examples = a_few_of_each(load_training_examples())  # how many does not matter; a small set trains fast
    changed = examples[:-1]
    assert train(examples).version != train(changed).version


def test_hostile_text_is_classified_without_error(model):
    repos = [
        RepoText("<script>alert(1)</script>", "'); drop table repos; -- <b>bold</b>\x00\x07\u202e", ("<img>",)),
        RepoText("huge", "agent " * 200_000),
        RepoText("", ""),
        RepoText("\ufffd\ufffd", "\ud800 lone surrogate"),
    ]
    predictions = model.predict(repos)
    assert [p.category in CATEGORY_IDS for p in predictions] == [True] * len(repos)


def test_name_words_split_like_a_reader_would():
    assert split_name("AgentPilot") == "agent pilot"
    assert split_name("awesome-llm_apps") == "awesome llm apps"
    assert split_name("Agent4Rec") == "agent 4 rec"
    assert split_name("GPTSwarm") == "gpt swarm"


def test_topics_are_read_from_the_shapes_files_use():
    assert normalise_topics('["AI-Agent", "mcp"]') == ("ai-agent", "mcp")
    assert normalise_topics("ai-agent mcp, rag") == ("ai-agent", "mcp", "rag")
    assert normalise_topics(None) == normalise_topics("") == ()


def test_the_lexicon_alone_settles_topics_and_awesome_names():
    assert settling_categories(RepoText("awesome-agents", "")) == ("resources",)
    assert settling_categories(RepoText("x", "", ("coding-agent", "mcp-server"))) == ("coding", "infrastructure")
    assert lexicon_category("x", "A text-to-SQL agent for your warehouse", []) == "data"
    assert lexicon_category("x", "", []) is None


def _in_full(predictions):
    return [(p.category, p.probability, p.runner_up, p.runner_up_probability, p.because) for p in predictions]


@pytest.fixture
def forks(monkeypatch):
    """The children forked meanwhile; big batches made small enough to be split."""
    if not classify.model.CAN_FORK:
        pytest.skip("big batches run in one process here")
    monkeypatch.setattr(classify.model, "PARALLEL_MIN", 40)
    started: list[int] = []
    fork = os.fork

    def recorded_fork():
        pid = fork()
        if pid:
            started.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)
    return started


def _none_left(pids):
    for pid in pids:
        with pytest.raises(ChildProcessError):  # reaped: no zombie, no child still running
            os.waitpid(pid, os.WNOHANG)
    return True


def test_a_big_batch_split_over_processes_gets_the_same_predictions_in_order(model, forks):
    repos = [e.repo for e in load_training_examples() + load_held_out_examples()]
    alone = _in_full(model.predict(repos, workers=1))
    assert forks == []
    assert _in_full(model.predict(repos, workers=3)) == alone
    assert len(forks) == 2 and _none_left(forks)
    without = model.predict(repos, workers=2, reasons=False)
    assert [p[:4] for p in _in_full(without)] == [p[:4] for p in alone] and {p.because for p in without} == {()}


def test_a_failing_worker_has_its_share_redone_in_the_calling_process(model, forks, monkeypatch):
    repos = [e.repo for e in load_training_examples()]
    alone = _in_full(model.predict(repos, workers=1))
    parent, columns = os.getpid(), model._columns

    def fails_in_children(chunk, reasons):
        if os.getpid() != parent:
            raise RuntimeError("a worker fails")
        return columns(chunk, reasons)

    monkeypatch.setattr(model, "_columns", fails_in_children)
    assert _in_full(model.predict(repos, workers=4)) == alone
    assert len(forks) == 3 and _none_left(forks)


def test_the_faster_rule_patterns_find_exactly_what_the_rules_find():
    rng = random.Random(2026)
    words = [
        "for",
        "to",
        "ai",
        "llm",
        "your",
        "autonomous",
        "coding",
        "code",
        "swe",
        "programming",
        "software",
        "engineering",
        "dev",
        "agent",
        "agents",
        "xfor",
        "tox",
        "é",
        "_",
        "1",
        "a",
    ]
    words += ["software-engineering", "for ai", "for your", "ai agents", "coding agent", "for coding agents"]
    texts = [
        "".join(rng.choice(words) + rng.choice([" ", " ", "", "-", ", ", "_", "é"]) for _ in range(rng.randint(0, 10)))
        for _ in range(30_000)
    ]
    for source, faster in FASTER_RULES.items():
        original = re.compile(source)
        found = [bool(original.search(t)) for t in texts]
        assert 100 < sum(found) < len(texts) - 100, source  # the texts test both ways
        assert [bool(faster.search(t)) for t in texts] == found, source


def test_framework_needs_positive_evidence():
    # An SDK, a library, "build agents" language or a programming language is evidence; an agent
    # that only says what it does for its user is not.
    evidence = classify.rules._framework_evidence
    for description in (
        "Python SDK for agents",
        "Build reliable LLM agents with typed tools",
        "A TypeScript package for tool calling",
        "Create autonomous agents in a few lines",
    ):
        assert evidence([], RepoText("x", description)), description
    assert not evidence([], RepoText("joybot", "AI agents that spark joy"))


def test_without_framework_evidence_framework_is_less_likely(model):
    plain = RepoText("sparkle", "Autonomous AI agents that spark joy", ("agents", "ai"))
    with_penalty = model
    without = train(load_training_examples(), classify.model.Settings(framework_penalty=0.0))
    index = CATEGORY_IDS.index("framework")
    assert with_penalty.probabilities([plain])[0][index] < without.probabilities([plain])[0][index]
    assert predict(with_penalty, "plotsmith", "Python plotting library for dataframes").category == "other"


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        ("gradbox", "Automatic differentiation and tensors for NumPy users", ("deep-learning",)),
        ("quillplot", "Interactive charts for dataframes in notebooks", ("visualization",)),
        ("moe-gallery", "Fan art gallery for moe anime characters", ("anime",)),
    ],
)
def test_a_repo_that_names_nothing_of_ai_agents_is_other(model, name, description, topics):
    assert not classify.rules._mentions_ai(RepoText(name, description, topics))
    assert predict(model, name, description, topics).category == "other"


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # The grey zones of docs/categories.md, one each.
        ("servelm", "Fast LLM inference server with continuous batching on GPUs", ("inference",), "other"),
        ("llm-relay", "OpenAI-compatible gateway in front of many model providers, with budgets", (), "infrastructure"),
        ("voxkit", "Text-to-speech model with voice cloning", ("tts",), "other"),
        ("vecstore", "Vector database for embeddings with filtering and hybrid search", ("vector-database",), "memory"),
        ("acme-python", "Official Python client library for the Acme generative AI API", ("sdk",), "framework"),
    ],
)
def test_grey_zone_decisions(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


def test_an_agent_without_domain_or_model_evidence_is_less_likely_other(model):
    """Agent lists and crawls are full of agents that say nothing of a domain: `other` needs
    evidence (a domain, models or ML, or naming nothing of AI at all)."""
    agent = RepoText("tasklark", "An autonomous agent that plans your goal and finishes it on its own", ("ai-agent",))
    trader = RepoText("stock-trader-agent", "AI agent that trades stocks from market news", ())
    weights = RepoText("lark-7b", "Open weights of a 7B language model fine-tuned for dialogue", ())
    assert not classify.rules._other_evidence(featurize(agent)[0], agent)
    assert classify.rules._other_evidence(featurize(trader)[0], trader)
    assert classify.rules._other_evidence(featurize(weights)[0], weights)
    without = train(load_training_examples(), classify.model.Settings(other_penalty=0.0))
    index = CATEGORY_IDS.index("other")
    assert model.probabilities([agent])[0][index] < without.probabilities([agent])[0][index]
    assert predict(model, trader.name, trader.description).category == "other"


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("rag-workshop", "Hands-on workshop: build a retrieval chatbot in an afternoon"),
        ("prompting-cheatsheet", "Cheat sheet for prompt engineering with chat models"),
        ("llm-app-links", "大模型应用开发资源列表"),
        ("model-api-notebooks", "Runnable notebooks that show each feature of a hosted model API"),
    ],
)
def test_workshops_cheat_sheets_and_chinese_lists_are_resources(model, name, description):

    assert "r:list-of-links" in featurize(RepoText(name, description))[0]
    assert predict(model, name, description).category == "resources"


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        ("frameplus", "Exploratory data analysis helpers for dataframes", ()),
        ("chartwell", "Data visualization: declarative statistical plots for notebooks", ()),
    ],
)
def test_a_data_library_that_names_nothing_of_ai_is_not_a_data_agent(model, name, description, topics):
    assert predict(model, name, description, topics).category == "other"


def test_an_inference_engine_is_not_infrastructure_unless_for_agents(model):
    local = RepoText("llamaport", "Run open LLMs locally on your laptop with quantized GGUF weights", ())
    for_agents = RepoText("agentserve", "Serve local models to your AI agents with tool-call parsing", ())
    gateway = RepoText("keyrouter", "Gateway that routes LLM calls across providers with fallbacks", ())
    assert classify.rules._inference_only(local)
    assert not classify.rules._inference_only(for_agents)
    assert not classify.rules._inference_only(gateway)
    assert predict(model, local.name, local.description).category == "other"


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        # Code published with a paper: a research prototype, whatever the paper studies.
        (
            "debate-agents",
            "Official implementation of our NAACL 2025 paper: LLM agents that debate to reach consensus",
            (),
        ),
        ("mem-agents-paper", "[ICLR 2025] Episodic memory retrieval makes LLM agents better planners", ()),
        ("collab-study", 'Code for the paper "When do teams of LLM agents beat one agent?"', ()),
        # Agents in the older sense: robots, steering, reinforcement learning in grid worlds.
        (
            "maze-runner-rl",
            "Q-learning and SARSA agents that learn to walk through grid mazes",
            ("reinforcement-learning",),
        ),
        ("swarm-steer", "Autonomous agents that steer, separate and align, rendered with three.js", ()),
        ("robo-patrol", "Goal directed control architecture for autonomous patrol robots", ()),
        # Training agents is not evaluating them.
        ("agent-rl-tune", "Train LLM agents with reinforcement learning on multi-step tool tasks", ("llm-agents",)),
    ],
)
def test_paper_code_classic_agents_and_agent_training_are_other(model, name, description, topics):
    assert predict(model, name, description, topics).category == "other"


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        ("webshop-bench", "[ACL 2024] A benchmark of shopping tasks for web agents with an evaluation harness", ()),
        (
            "agent-gym-suite",
            "Gym environments and a leaderboard for testing LLM agents trained with RL",
            ("benchmark",),
        ),
    ],
)
def test_benchmarks_from_papers_or_for_trained_agents_stay_evaluation(model, name, description, topics):
    assert predict(model, name, description, topics).category == "evaluation"


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("agents-primer", "A gentle introduction to tool-using LLM agents"),
        ("phonebot-scripts", "Example scripts for voice agents built on a hosted voice platform"),
        ("agent-lit", "Papers on memory for LLM agents, sorted by year"),
        ("daily-agent-arxiv", "LLM agent research papers. Updated daily."),
    ],
)
def test_an_introduction_example_scripts_or_papers_on_a_subject_are_resources(model, name, description):

    assert resources_by_name(RepoText(name, description)) == "description"
    assert predict(model, name, description).category == "resources"


def test_an_agent_that_reads_papers_is_not_a_list_of_papers():

    assert (
        resources_by_name(RepoText("paperbot", "Agent that reads arXiv papers on a question and writes a summary"))
        is None
    )
    assert resources_by_name(RepoText("intro-kit", "Introduction to agents: a CLI app that scaffolds one")) is None


def test_which_repos_the_paper_classic_and_training_rules_read_as_such():
    paper, classic, training = (
        classify.rules._paper_code,
        classify.rules._classic_agents,
        classify.rules._training_not_evaluation,
    )
    assert paper(RepoText("x", "Code and data for our paper on tool learning"))
    assert paper(RepoText("x", "Planning with language agents (EMNLP 2024 Findings)"))
    assert paper(RepoText("x", "Agents that plan", ("acl2024",)))
    assert not paper(RepoText("x", "[ACL 2024] A benchmark for LLM agents"))  # a benchmark: evaluation
    assert not paper(RepoText("x", "Agents that read papers and write surveys"))
    assert classic(RepoText("x", "Flocking autonomous agents in Godot"))
    assert not classic(RepoText("x", "Autonomous agents for everyone"))  # nothing places them: could be LLM agents
    assert not classic(RepoText("x", "Autonomous LLM agents in a simulated town"))
    assert not classic(RepoText("agents", "Framework for real-time participants processing audio and video"))
    component = classify.rules._for_coding_agents_text
    assert component("memory layer for claude code sessions")
    assert component("an mcp server that gives coding agents your design files")
    assert not component("desktop gui for claude code sessions")  # runs coding agents: coding
    assert not component("skills for claude code: planning and test-first habits")  # no component named
    assert training(RepoText("x", "Fine-tune LLM agents with online reinforcement learning"))
    assert not training(RepoText("x", "Environments to train and evaluate LLM agents"))


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # Taxonomy rule 2: a component for coding agents takes the component's category ...
        (
            "denylist-hooks",
            "Permission rules for coding agents: which files and commands they may touch",
            (),
            "infrastructure",
        ),
        ("promptbill", "Shows what each Claude Code prompt cost you, per project and per day", (), "evaluation"),
        # ... while what runs or drives coding agents is `coding`.
        ("agentdeck", "Desktop GUI to supervise Claude Code and Codex sessions side by side", (), "coding"),
        ("fleet-cc", "Run many Codex agents on separate worktrees and merge what passes", (), "coding"),
        # ... even when it calls itself multi-agent orchestration.
        (
            "swarm-cc",
            "Multi-agent orchestration for Claude Code: run a team of coding agents in parallel",
            ("claude-code",),
            "coding",
        ),
    ],
)
def test_a_component_for_coding_agents_is_its_component(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


def test_a_model_is_other_whatever_its_topics_say_it_is_good_at(model):

    code_model = RepoText(
        "coder-7b", "Open-weight 7B code model trained on 2T tokens of source code", ("code-generation",)
    )
    sql_model = RepoText("sql-coder", "Text-to-SQL model fine-tuned from an open LLM", ("text-to-sql", "llm"))
    for repo in (code_model, sql_model):
        assert presents_a_model(repo)
        assert boosts(repo) is None  # its functional topic settles nothing
        assert predict(model, repo.name, repo.description, repo.topics).category == "other"
    # Using models is not being one.
    for description in (
        "A coding agent that works with any open-weight model",
        "Evaluate language models on 200 tasks",
        "A large language model powered agent for chip design",
        "Accepting investment at a $135M cap",
        "Let vision models click through your desktop apps",
    ):
        assert not presents_a_model(RepoText("x", description)), description
    assert presents_a_model(RepoText("lumen", "[ICCV 2025] Lumen: A Foundation Model for Embodied Home Robots"))


def test_a_repo_named_by_a_model_family_and_its_variants_is_the_model(model):
    # The model's own repo often names no model in its description.
    for name in ("qwen9-coder-v7", "glm-9.5", "deepseek-vl9", "gemma-9-27b", "kimi-k9"):
        repo = RepoText(name, "Breaking the barriers of closed models in code intelligence", ("code-generation",))
        assert presents_a_model(repo), name
    assert (
        predict(model, "deepseek-coder-v9", "Closing the gap to closed models in code intelligence", ()).category
        == "other"
    )
    # A family with a word that is not a variant, or software that runs the model, is not the model.
    for name, description in (
        ("qwen-agent", "Let the code write itself"),
        ("llamacoder", "Let the code write itself"),
        ("deepseek-chat", "Let there be answers"),
        ("mistral-coder", "Self-hosted Copilot replacement for VS Code running on a local model"),
    ):
        assert not presents_a_model(RepoText(name, description)), name
    assert (
        predict(model, "mistral-coder", "Self-hosted Copilot replacement for VS Code", ("vscode",)).category == "coding"
    )


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # What an engine is good at ("memory-efficient") does not make it an agent category.
        (
            "pagedserve",
            "A memory-efficient inference and serving engine for large language models with paged caching",
            (),
            "other",
        ),
        # "Hackable" is not hacking: no security domain.
        ("chatkit-next", "A hackable Next.js AI chatbot template you can deploy in a minute", (), "chat"),
        # A pack of domain skills for coding agents is the domain's (taxonomy rule 2) ...
        (
            "rankwriter-skills",
            "SEO and copywriting skills for Claude Code and Codex: meta tags, landing-page copy and blog outlines",
            (),
            "other",
        ),
        # ... a pack of coding skills stays `coding`.
        (
            "tidy-diffs",
            "Skills for Claude Code that keep diffs small and run the tests before every commit",
            ("skills",),
            "coding",
        ),
        # A course in another language, the code that goes with a book.
        (
            "aprende-ia",
            "Curso para aprender inteligencia artificial desde cero, con ejercicios y proyectos",
            (),
            "resources",
        ),
        (
            "practical-agents-code",
            "Jupyter notebooks for the Practical Language Agents book, one per chapter",
            (),
            "resources",
        ),
        # A model family presented with a list of what it is good at.
        ("orca-3", "Orca-3: Agentic, Reasoning, and Coding (ARC) Foundation Models", (), "other"),
    ],
)
def test_engines_hackable_apps_domain_skill_packs_courses_and_model_families(
    model, name, description, topics, category
):
    assert predict(model, name, description, topics).category == category


def test_a_model_size_an_app_is_built_with_is_not_its_artefact():
    for description in (
        "Describe an app and get a full-stack codebase, built with Llama 3.1 405B",
        "Chat with your notes, powered by a 7B model on your laptop",
    ):
        assert not presents_a_model(RepoText("x", description)), description
    assert presents_a_model(RepoText("x", "Our 1.5B model beats larger ones at tool calling"))
    assert presents_a_model(RepoText("x", "A code LLM with 7B and 34B variants"))


def _phrases_by_search(repo: RepoText) -> set[str]:
    """Every keyword phrase the plain regular expressions find in the name's and the description's
    words: what the word-by-word index must find too."""
    segments = [
        " ".join(_RAW.findall(split_name(repo.name))),
        " ".join(_RAW.findall(repo.description[:MAX_DESCRIPTION].lower())),
    ]
    return {f"k:{p.id}" for p in PHRASES if any(p.pattern.search(s) for s in segments)}


def test_the_keyword_index_finds_every_phrase_a_plain_search_finds():
    # Phrases that need the words around them (a lookbehind, a lookahead, an alternative with no
    # literal start) exist, and are found in context.
    assert IN_CONTEXT
    edge_cases = [
        "Scaling law for agents, and a law firm assistant",
        "Edits files across your whole repo",
        "Summaries of Hacker News stories, and a hacking CTF agent",
        "Health checks for your agents, and a healthcare triage bot",
        "A state-of-the-art framework; an AI art bot; the art of prompting",
        "Round trips to the API, and a trip planner",
        "Agent that applies to jobs and tailors your resume; resume interrupted runs; background jobs",
        "Scores on MultiAgentBench and SWE-bench, run from a workbench",
        "Multi-player agent swarms, and a player agent for Mario Kart",
    ]
    repos = [RepoText("x", text) for text in edge_cases]
    repos += [e.repo for e in load_training_examples() + load_held_out_examples()]
    for repo in repos:
        feats, _ = featurize(RepoText(repo.name, repo.description))
        assert {f for f in feats if f.startswith("k:")} == _phrases_by_search(repo), repo


def test_a_phrase_after_a_lookbehind_is_looked_for_by_the_word_it_starts_with():
    # A lookbehind may hold an escaped parenthesis; it does not end the lookbehind, so the phrase is
    # still looked for where "memor…" starts a word (it had been looked for nowhere).
    assert _needles(r"(?<!\)-)(?<!gpu )\bmemor(?:y|ies)\b|\bremember") == ("memor", "remember")
    assert _needles(r"(?<!scaling )\blaw\b") == ("law",)


@pytest.mark.parametrize(
    ("description", "domain"),
    [
        ("Automated design of agentic systems", False),
        ("Cryptographic receipts for agent actions", False),
        ("A research agent that runs an investigation", False),
        ("A state-of-the-art agent framework", False),
        ("Host agents with queues and health checks", False),
        ("Pause and resume workflows, run background jobs", False),
        ("An agent for writing code and writing tests", False),
        ("Turns user stories into pull requests", False),
        ("Scaling law experiments for LLM agents", False),
        ("Summaries of Hacker News in your inbox", False),
        ("Graphic design assistant for posters", True),
        ("A crypto trading agent", True),
        ("Tailors your resume to each job posting", True),
        ("Healthcare triage assistant", True),
        ("AI agent that posts to Twitter", True),
        ("Generates bedtime stories and AI art", True),
        ("A legal assistant that knows case law", True),
        ("Agents that rebalance your portfolio management strategy", True),
        ("An assistant for HR teams that screens candidates", True),
        ("A portfolio site template for developers", False),
        ("Turns the day's tech news into a podcast", True),
        ("A deliberately vulnerable LLM agent for security training", True),
        ("Autonomous agents for Human Resource tasks", True),
    ],
)
def test_what_the_domain_phrases_read_as_a_domain(description, domain):
    feats, _ = featurize(RepoText("x", description))
    assert ("kc:other:1" in feats) is domain


def test_models_an_agent_uses_are_not_evidence_that_it_is_other():
    def other_evidence(description: str) -> bool:
        repo = RepoText("x", description)
        return classify.rules._other_evidence(featurize(repo)[0], repo)

    assert not other_evidence("Agents and automations for your back office, model-agnostic")
    assert not other_evidence("An MCP server (Model Context Protocol) that lets agents file tickets")
    assert not other_evidence("A coding agent that works with 100+ models")
    assert other_evidence("Fine-tuned models for tool calling")
    assert other_evidence("A 3B model that plans tool calls")


@pytest.mark.parametrize(
    ("name", "description", "categories"),
    [
        # Security testing of language models and agents is evaluation (or a guardrail), not a
        # security-domain app ...
        (
            "llm-vulnscan",
            "Open-source vulnerability scanner that probes your chatbot for jailbreaks and prompt injection",
            {"evaluation", "infrastructure"},
        ),
        ("jb-arena", "Jailbreak attacks against LLM agents, scored on 300 vulnerability scenarios", {"evaluation"}),
        # ... whatever part of an agent the attack goes through (its memory here) ...
        ("memtrap", "Red-teaming LLM agents by poisoning their memory and knowledge base", {"evaluation"}),
        # ... while an agent that does security work is a domain agent.
        (
            "hexhunter",
            "Autonomous pentest agent that finds vulnerabilities and tests prompt injection in web apps",
            {"other"},
        ),
        # Leaked or extracted system prompts are a prompt collection.
        ("sysprompts", "Extracted system prompts of popular AI coding assistants and chatbots", {"resources"}),
    ],
)
def test_red_teaming_ai_is_not_a_security_app_and_leaked_prompts_are_resources(model, name, description, categories):
    assert predict(model, name, description).category in categories


@pytest.mark.parametrize(
    ("name", "description", "category"),
    [
        # An engine that runs named model families behind an OpenAI-compatible server is `other` ...
        ("localserve", "Run Llama and Qwen locally behind an OpenAI-compatible server", "other"),
        # ... a chat app that runs a local model is `chat` (rule 7), not an engine.
        ("notes-qa", "Ask questions about your notes in a small chat window, with a local model", "chat"),
        # Media generation that speaks of no agent is out of the taxonomy.
        ("imgsaas", "Self-hosted AI image generator web app with Stable Diffusion and Flux", "other"),
    ],
)
def test_engines_for_model_families_chat_apps_with_local_models_and_media_generators(
    model, name, description, category
):
    assert predict(model, name, description).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # Taxonomy rule 4: a scraper is infrastructure even when it drives a headless browser ...
        (
            "pagegrab",
            "Scraping API for AI agents: fetch pages, render JavaScript and return clean text",
            ("web-scraping", "browser-automation"),
            "infrastructure",
        ),
        # ... what operates a browser for an agent is computer-use.
        (
            "clickpilot",
            "An agent that operates your browser: clicks, types and fills forms from a plain-English goal",
            ("browser-automation", "ai-agent"),
            "computer-use",
        ),
        # An agent framework whose subject is using a computer, a web agent written with a hyphen
        # and an open "Operator" clone are computer-use, not a framework or a coding tool.
        ("pilot-z", "An open agentic framework that uses computers the way a person does", (), "computer-use"),
        ("orbit-webagent", "An open suite for VLM-based web-agent applications", (), "computer-use"),
        ("skyhand", "Open source alternative to OpenAI Operator", (), "computer-use"),
        ("macpilot", "Make Mac apps usable by AI agents", (), "computer-use"),
    ],
)
def test_scrapers_are_infrastructure_and_browser_operators_computer_use(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        # An agent that mends failing tests codes, even when tagged `autogpt` (which settles assistant)
        ("greenbar", "Agent which automatically repairs your failing tests. LLM-powered TDD.", ("autogpt", "tdd")),
        ("redgreen", "An autonomous agent that keeps the build green by fixing broken tests", ("llm", "agent")),
    ],
)
def test_an_agent_that_fixes_tests_is_a_coding_agent(model, name, description, topics):
    assert predict(model, name, description, topics).category == "coding"


@pytest.mark.parametrize(
    ("name", "description", "topics"),
    [
        # Agents that do an app developer's work, named by what they work on
        ("rn-maker", "AI agent for building React Native apps", ("agents", "ai", "llm")),
        ("shipit", "An agent that turns Figma designs into working Next.js pages", ("ai-agent",)),
        ("docstringer", "Writes docstrings and API docs for your Python project with an LLM", ("llm", "documentation")),
        ("apimock", "AI agent that writes API integration code from an OpenAPI spec", ("openapi", "codegen")),
    ],
)
def test_agents_that_build_apps_pages_and_docs_from_code_are_coding_agents(model, name, description, topics):
    assert predict(model, name, description, topics).category == "coding"


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("bootcamp", "12-week LLM engineering bootcamp material"),
        (
            "agent-patterns",
            "Reference implementations of common agentic design patterns: reflection, planning, tool use",
        ),
    ],
)
def test_bootcamps_and_reference_implementations_are_resources(model, name, description):
    assert predict(model, name, description).category == "resources"


@pytest.mark.parametrize(
    ("description", "category"),
    [
        # Descriptions written only in Chinese, under names that say nothing
        ("用于快速构建大模型智能体应用的 Python 开发框架", "framework"),
        ("通过截图理解屏幕并模拟鼠标键盘完成任务的桌面智能体", "computer-use"),
        ("让大模型像人一样操作浏览器和手机的智能体", "computer-use"),
        ("大模型智能体能力评测基准", "evaluation"),
        ("一个由多个角色智能体组成的虚拟软件公司", "multi-agent"),
    ],
)
def test_chinese_keyword_phrases_count_like_english_ones(model, description, category):
    assert predict(model, "proj7", description).category == category


def test_the_faster_not_an_agent_test_finds_exactly_what_its_expression_finds():
    rng = random.Random(2027)
    pieces = [
        "model", "models", "modelling", "weights", "inference", "serving", "train", "trains", "trainer",
        "fine-tune", "finetuned", "pre-trained", "dataset", "diffusion", "image", "imagery", "video",
        "speech", "tts", "asr", "transformer", "transformers", "xtransformers", "neural", "deep learning",
        "machine", "learning", "ml", "mlops", "pytorch", "gguf", "quantized", "gpu", "gpus", "cuda",
        "vision", "detection", "segmentation", "embeddings", "tokenizer", "moe", "paper", "papers",
        "agent", "chat", "é", "_", "3", "模型", "a",
    ]  # fmt: skip
    texts = [
        "".join(rng.choice(pieces) + rng.choice([" ", "", "-", ", ", "_", "é", "."]) for _ in range(rng.randint(0, 6)))
        for _ in range(20_000)
    ]
    texts += [classify.text.rule_text(e.repo) for e in load_training_examples()]
    found = [classify.rules._NOT_AGENT_WORDS.search(t) is not None for t in texts]
    assert 1000 < sum(found) < len(texts) - 1000  # the texts test both ways
    assert [classify.rules._names_not_agent_words(t) for t in texts] == found


@pytest.mark.parametrize(
    ("name", "description", "category"),
    [
        # An AI app that names nothing agents are made of or do is `other` (a crawl's general AI apps) ...
        ("notesws", "AI collaborative workspace for docs, wikis and projects", "other"),
        ("slidegen", "AI turns documents into native PowerPoint decks", "other"),
        # ... an app that automates tasks with AI is not.
        ("webtasker-lite", "Automate repetitive browser tasks by describing them in plain English", "computer-use"),
        ("ai-inbox", "AI sorts your inbox, drafts replies and schedules meetings", "assistant"),
        ("prbot-ai", "AI that reviews every pull request and leaves line comments", "coding"),
    ],
)
def test_general_ai_apps_are_other_and_task_automation_is_not(model, name, description, category):
    assert predict(model, name, description).category == category


@pytest.mark.parametrize(
    ("name", "description", "category"),
    [
        # A benchmark named as one word is a benchmark, whatever it measures (rule 1) ...
        ("crewbench", "MultiCrewBench: evaluating collaboration among multiple LLM agents", "evaluation"),
        # ... a workbench is not one.
        ("agent-workbench", "A workbench for building and debugging agents in Python", "framework"),
        # A book's code, a jailbreak prompt collection and a source-code walkthrough are resources (rule 9).
        ("ml-pipelines-code", "Code for Practical Agent Engineering, Manning 2025, Second Edition", "resources"),
        ("dan-prompts", "Jailbreak prompts for chat models, kept up to date", "resources"),
        ("ai-tool-system-prompts", "Full prompts of popular AI coding tools and assistants", "resources"),
        ("torch-agents-deep", "源码解读：一个多智能体框架的实现细节，包含记忆、工具调用和规划", "resources"),
        # Resources and notes on a subject, and a product's documentation, are resources ...
        ("agent-notes", "Resources & notes on agent memory and retrieval", "resources"),
        ("deskmind-docs", "Documentation of DeskMind, the desktop agent app", "resources"),
        # ... an agent for your docs is not.
        ("docs-agent", "An agent that answers questions about your docs", "chat"),
        # A camel-case name is read word by word; a book in Chinese (its full text, its companion code).
        (
            "GenAIExamples",
            "Reference pipelines optimised for accelerated inference and microservice deployment",
            "resources",
        ),
        ("agent-engineering-zh", "《AI 智能体工程》配套代码：多智能体框架、工具调用与记忆模块的实现", "resources"),
        ("agents_timeline", "LLM agents and their releases, 2023 to today", "resources"),
        # A pack of marketing skills for a coding agent is a marketing tool (rule 2, domain skill packs).
        ("geo-skills", "Claude Code skill for generative engine optimization of your landing pages", "other"),
        ("web-checklist", "The essential checklist for modern web development, for humans and AI agents", "resources"),
        ("find-open-llms", "本项目旨在汇总那些开源的大模型平替，包括文本和多模态模型", "resources"),
        ("agentes-curso", 'Curso "De chatbots a agentes com IA" para iniciantes', "resources"),
        (
            "learn-agentic-ai",
            "Learn applied agentic AI engineering using OpenAI, Streamlit, containers and Kubernetes",
            "resources",
        ),
        # An app for prompts is software, not a collection of them.
        ("prompts-cli", "A command-line app to version and test your team's prompts", "evaluation"),
    ],
)
def test_one_word_benchmarks_book_code_prompt_collections_and_docs(model, name, description, category):
    assert predict(model, name, description).category == category


@pytest.mark.parametrize(
    ("name", "description", "category"),
    [
        # A machine-learning framework that names no agent, LLM, prompt or chat is not an agent
        # framework: it is one of the libraries a keyword search also finds ...
        ("tabular-al", "A modular active learning framework for Python", "other"),
        ("graphkit", "A simple framework for state-of-the-art graph neural networks in PyTorch", "other"),
        # ... a framework for LLM apps is one.
        ("promptloom", "A lightweight framework for composing LLM prompts and tools in Python", "framework"),
        # ... even when it speaks of the models it programs (not of training or serving them) ...
        ("progra", "The framework for programming, not prompting, foundation models", "framework"),
        # ... while a framework for tuning models is machine learning.
        ("tunekit", "A framework for fine-tuning large language models on your own data", "other"),
    ],
)
def test_a_framework_that_names_nothing_of_llms_or_agents_is_other(model, name, description, category):
    assert predict(model, name, description).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # A computer's memory (usage, efficiency, leaks) is not what agents remember ...
        ("annx", "Approximate nearest neighbours in C++ optimised for memory usage", (), "other"),
        # ... an agent's memory is, however it is written.
        ("memstore", "Persistent agent-memory and long-term-memory store for chatbots", ("ai-memory",), "memory"),
    ],
)
def test_memory_usage_is_not_agent_memory(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # Home Assistant, the home-automation platform, is not an AI assistant ...
        (
            "thermo-fw",
            "Open source firmware for Wi-Fi thermostats with Home Assistant auto discovery",
            ("esp8266",),
            "other",
        ),
        # ... an LLM agent that works through it is one.
        ("ha-llm", "Let an LLM agent control your lights and heating through Home Assistant", ("llm",), "assistant"),
        # Quants are finance.
        ("quantdesk", "Open data platform for analysts, quants and AI agents", (), "other"),
    ],
)
def test_home_assistant_the_platform_and_quants(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # What says it measures agents or models is a benchmark, whatever it measures them on ...
        (
            "desk-arena",
            "A scalable OS platform for testing and benchmarking multimodal desktop agents",
            ("computer-use", "desktop-agent"),
            "evaluation",
        ),
        ("evalkit", "A library for easily evaluating machine learning models and datasets", (), "evaluation"),
        (
            "probeit",
            "Test your prompts, agents and RAG pipelines. Red teaming and vulnerability scanning for AI apps",
            (),
            "evaluation",
        ),
        (
            "promptcheck",
            "Test your prompts, agents and chatbots. Compare GPT, Claude and Llama side by side in CI",
            (),
            "evaluation",
        ),
        # ... an agent that tests code is not.
        ("testpilot", "An AI agent that writes tests for your code", (), "coding"),
        # ... unless it trains and serves them too.
        ("servebench", "An open platform for training, serving and evaluating large language models", (), "other"),
    ],
)
def test_what_measures_agents_or_models_is_evaluation(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # What a crawl for agent keywords returns beside agent frameworks (twelfth-session examples)
        (
            "kestrel",
            "Open source secure cloud runtime for AI agents and apps",
            ("code-interpreter", "devtools"),
            "infrastructure",
        ),
        ("hatch-node", "Install and run your own AI agent node in one command", (), "infrastructure"),
        (
            "oncallbot",
            "Your 24/7 AI on-call engineer: investigates alerts, reads the logs, proposes the fix",
            ("aiops", "devops"),
            "coding",
        ),
        (
            "flowcheck",
            "Web testing AI agent: describe the flow in plain English, it writes and runs the tests",
            ("qa-automation",),
            "coding",
        ),
        (
            "voc-agent",
            "An AI agent that analyses customer feedback and produces insights and action items",
            ("ai-agent",),
            "data",
        ),
        ("kart-ai", "An AI agent that plays Mario Kart 64", (), "other"),
    ],
)
def test_sandboxes_nodes_ops_agents_qa_agents_and_game_players(model, name, description, topics, category):
    assert predict(model, name, description, topics).category == category


@pytest.mark.parametrize(
    "description",
    [
        "This repository contains a series of chatbots for Q&A built with LLM agents and retrieval on several databases",
        "A series of notebooks on building agents with LangGraph, one pattern per week",
        # tutorials on a subject the model reads as `other` (reinforcement learning, PyTorch models)
        "Tutorials for building reinforcement learning agents in PyTorch",
        "Tutorials on implementing a few sequence-to-sequence models with PyTorch",
    ],
)
def test_a_series_of_tutorials_or_examples_is_a_resource(model, description):
    repo = RepoText("rag-lab", description)
    assert resources_by_name(repo) == "description"
    assert model.predict([repo])[0].category == "resources"


@pytest.mark.parametrize(
    ("description", "game"),
    [
        ("An AI agent for Street Fighter II Champion Edition", True),
        ("LLM that plays Tetris and explains each move", True),
        ("GPT commentary for your chess games", True),
        # a swarm of agents that is "multi-player" plays no game
        ("Multi-player agent swarms for research", False),
    ],
)
def test_a_games_title_is_a_game(description, game):
    feats, _ = featurize(RepoText("x", description))
    assert ("kc:other:1" in feats) is game


def test_a_resources_topic_on_software_settles_nothing_and_is_not_given_as_the_reason(model):
    repo = RepoText(
        "nimbus",
        "A framework for teams of Python agents with roles and shared state",
        ("agent", "awesome", "awesome-list", "llm", "multi-agent"),
    )
    factors = boosts(repo)
    assert factors is None or factors[CATEGORY_IDS.index("resources")] == 1.0
    prediction = model.predict([repo], reasons=True)[0]
    assert prediction.category in {"framework", "multi-agent"}
    assert not any("settles resources" in text for _, text in prediction.because)


def test_a_name_that_ends_in_a_series_is_a_resource_and_a_time_series_is_not():
    assert resources_by_name(RepoText("rag-deep-dive-series", "")) == "name"
    assert resources_by_name(RepoText("AgentPatternsSeries", "")) == "name"
    for name in ("time-series-agent", "llm-time-series", "TimeSeries", "series-runner"):
        assert resources_by_name(RepoText(name, "")) is None, name


@pytest.mark.parametrize(
    ("name", "description", "topics", "workflow"),
    [
        # The taxonomy's workflow platforms: low-code, no-code, visual or declarative
        ("flowdeck", "Drag-and-drop builder for AI agent workflows", (), True),
        ("pipewright", "Define agent pipelines in YAML and run them on a schedule", ("llm",), True),
        ("liuzhuan", "可视化编排大模型应用的平台", (), True),
        ("tasking", "The open platform for AI-native application development", ("agent",), True),
        # ... not whatever says "workflow", "platform" or "pipeline"
        ("taskrail", "Python library to steer your AI agents through agentic workflows", ("agents", "workflow"), False),
        ("gen-hub", "Your friendly open-source generative AI platform", (), False),
        ("devflow", "AI tool that automates development tasks and improves your workflows", (), False),
    ],
)
def test_workflow_needs_positive_evidence(name, description, topics, workflow):
    repo = RepoText(name, description, topics)
    offsets = classify.rules.rule_offsets([featurize(repo)[0]], [repo], classify.model.Settings())
    assert bool(offsets[0, CATEGORY_IDS.index("workflow")] == 0) is workflow


def test_a_platform_that_only_mentions_workflows_is_not_a_workflow_platform(model):
    assert (
        predict(
            model,
            "taskrail",
            "Python library to steer your AI agents through agentic workflows",
            ("agents", "workflow"),
        ).category
        == "framework"
    )
    assert predict(model, "gen-hub", "Your friendly open-source generative AI platform").category != "workflow"
    assert predict(model, "flowdeck", "Drag-and-drop builder for AI agent workflows").category == "workflow"


@pytest.mark.parametrize(
    ("description", "statement"),
    [
        ("The dependable AI agent framework that speaks MCP.", "framework"),
        ("Svelte-friendly framework for autonomous AI agents", "framework"),
        ("Kotlin SDK to create AI agents for your backend services", "framework"),
        ("AI multi-agent framework in Elixir", "multi-agent"),
        ("A small framework for managing multiple AI agents and their hand-offs", "multi-agent"),
        ("A fast framework for orchestrating autonomous agent networks. Typed.", "multi-agent"),
        # what the agents do is named: the model decides
        ("Framework for voice agents that answer the phone", None),
        ("Multi-agent framework of a web search engine", None),
        ("A framework for building agents that drive the browser", None),
        # running or hosting agents is not building them; the statement is the first clause only
        ("Toolkit for running an AI agent service with FastAPI", None),
        ("Weather dashboard. Also an agent framework demo.", None),
        # what it is built on, or agents in the reinforcement-learning sense
        ("Travel planning agent built on an agent framework: finds flights", None),
        # a framework of domain agents is the domain's (rule 8)
        ("Multi-agent framework where agent teams debate and solve travel plans", None),
        ("AI agent framework. Agents trade stocks for you.", None),
        ("Library for training agents in Gym environments with PPO and DQN", None),
    ],
)
def test_a_repo_that_says_it_is_a_framework_for_agents(description, statement):
    assert classify.rules.agent_framework_statement(RepoText("x", description)) == statement


def test_a_framework_for_agents_is_one_whatever_its_topics_add(model):
    steadfast = predict(
        model,
        "steadfast",
        "The most dependable AI agent framework that speaks MCP.",
        ("agent", "computer-use", "mcp", "model-context-protocol", "llms"),
    )
    assert steadfast.category == "framework"
    assert ("rule", "the description calls it an agent framework") in steadfast.because
    bolt = predict(model, "bolt-agents", "AI Multi-Agent Framework in .NET", ("ai-agent", "chatbot"))
    assert bolt.category == "multi-agent"
    assert ("rule", "the description calls it a multi-agent framework") in bolt.because


@pytest.mark.parametrize(
    ("description", "one"),
    [
        ("pkgbump is an AI agent that upgrades npm packages", True),
        ("LLM-powered autonomous agent with hierarchical task management", True),
        ("An autonomous agent for software testing", True),
        ("AI agent framework for Go", False),
        ("An agent that helps you build other agents", False),
        ("Agent memory for long conversations", False),
        ("Agents that talk to each other", False),
    ],
)
def test_a_repo_that_says_it_is_one_agent(description, one):
    assert classify.rules.presents_one_agent(RepoText("x", description)) is one


def test_one_agent_is_not_a_framework_a_team_or_a_workflow_platform(model):
    coder = predict(
        model,
        "tidy-next",
        "AI agent that automates code management and feature integration in Next.js codebases",
        ("ai", "ai-agent", "ai-sdk", "chatbot", "nextjs"),
    )
    assert coder.category == "coding"
    planner = predict(model, "plan-tree", "LLM-powered autonomous agent with hierarchical task management")
    assert planner.category not in {"multi-agent", "framework", "workflow"}


@pytest.mark.parametrize(
    ("description", "chat"),
    [
        ("A web interface for chatting with Vicuna through a local runner. Dockerised, with an API.", True),
        ("Fully private LLM chatbot that runs in your browser with no server needed", True),
        ("Retrieval-augmented chatbot powered by a vector store", True),
        ("An open-source RAG-based tool for chatting with your documents.", True),
        # chat is what it serves, builds, tests or offers beside the thing it is
        ("Long-term memory for chat apps", False),
        ("Visual builder for chatbots and agents", False),
        ("Fast C++ LLM service with an OpenAI-compatible chat interface", False),
        ("Framework for building chatbots in PHP", False),
        ("Automated adversarial testing for chatbots", False),
        ("Vulnerability scanner that probes your chatbot for jailbreaks", False),
        ("Self-hosted scanner: your chatbot against prompt injection", False),
    ],
)
def test_a_repo_that_says_it_is_a_chat_app(description, chat):
    assert classify.rules.presents_a_chat_app(RepoText("x", description)) is chat


def test_a_chat_app_is_chat_whatever_else_it_mentions(model):
    hidden = predict(model, "hush-llm", "Fully private LLM chatbot that runs entirely in the browser, no server needed")
    assert hidden.category == "chat"
    assert ("rule", "the description calls it a chatbot or a chat app") in hidden.because
    assert (
        predict(model, "ragtalk", "Retrieval Augmented Generation (RAG) chatbot powered by Qdrant").category == "chat"
    )


@pytest.mark.parametrize(
    ("description", "domain"),
    [
        ("LLM agents for the pharmaceutical industry's paperwork", True),
        ("Autonomous agent for chip design: writes Verilog and fixes timing", True),
        ("An assistant that advises farmers on crop rotation", True),
        ("Multi-agent system that processes insurance claims", True),
        ("Your fitness coach agent: plans workouts and meals", True),
        # a Kubernetes cost report and a dataset profile name no industry; the sciences are left to
        # the model (the taxonomy puts science agents under `research`, rule 8 under `other`)
        ("Per-namespace cost accounting for Kubernetes clusters", False),
        ("Automated EDA on your dataset with an LLM", False),
        ("An LLM agent that plans protein design experiments", False),
    ],
)
def test_the_industries_are_domains(description, domain):
    feats, _ = featurize(RepoText("x", description))
    assert ("kc:other:1" in feats) is domain


def test_an_industry_agent_is_the_domains(model):
    """Rule 8: an agent for chips, farms or claims is `other`, even when it is a team of agents."""
    assert (
        predict(model, "siliconsmith", "Autonomous agent for chip design: writes Verilog, fixes timing").category
        == "other"
    )
    assert predict(model, "agro-advisor", "An AI agent that advises farmers on crop rotation").category == "other"
    assert predict(model, "claims-crew", "Multi-agent system that processes insurance claims").category == "other"


@pytest.mark.parametrize(
    ("name", "description", "topics", "category"),
    [
        # The first clause says what the repo is; a topic naming one of its built-in features does not
        # make it that feature (rule 1). `observability` settled `evaluation` at 0.97.
        ("kitbag-agents", "A batteries-included agent framework with built-in tracing and evals", ("agents", "observability", "llm"), "framework"),
        ("helm-agents", "Lightweight agent SDK featuring guardrails and structured outputs", ("sdk", "guardrails", "structured-output"), "framework"),
        # ... while a framework *for* evaluating agents is still an evaluation tool.
        ("probe-bench", "A framework for evaluating LLM agents on long tasks", ("evaluation", "agents"), "evaluation"),
    ],
)  # fmt: skip
def test_a_feature_topic_does_not_outrank_what_the_description_calls_the_repo(
    model, name, description, topics, category
):
    prediction = predict(model, name, description, topics)
    assert prediction.category == category, prediction
