"""The category model's settings: block weights, regularisation and the strengths of the evidence
rules (:mod:`classify.rules`). Every field is part of the model's version."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """Hyperparameters (block weights, regularisation), chosen by cross-validation on the training set
    and the held-out file; see docs/classifier.md."""

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
    # `workflow` needs positive evidence too: no-code, low-code, visual, drag and drop, a canvas or a
    # builder, an automation or workflow platform or engine, n8n-like tools, declarative definitions
    # (the taxonomy's "low-code, no-code or declarative platforms"). "Workflow", "platform" and
    # "pipeline" alone are everyone's words (a coding agent "improves workflows", a tool hub is a
    # "platform"): without evidence `workflow`'s score is lowered by this much (log scale).
    workflow_penalty: float = 2.0
    # ... and a framework for agents or LLM apps: a machine-learning, NLP, data or science framework
    # that names no agent, LLM, prompt, chat, RAG, tool use or model vendor has it lowered by this
    # much more (it is `other`, like the libraries a keyword search also finds).
    ml_framework_penalty: float = 2.0
    # A repo that presents itself as a framework, library or SDK for LLM apps (and not for training,
    # tuning or serving models) is not `other` because it speaks of "models": `other` is lowered.
    llm_framework_other_penalty: float = 2.0
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
    # ... and such a repo is `other`: its score is raised by this much, so that what an engine is
    # good at ("memory-efficient", "chat completions") does not make it an agent category.
    inference_other_boost: float = 2.0
    # Code published with a paper (an "official implementation", "code for the paper", a conference
    # tag such as "[ACL 2024]") is a research prototype, `other` by the taxonomy: what the paper
    # studies (memory, collaboration, web agents) is its subject, not what the repo is for. Unless it
    # is a benchmark or an environment (`evaluation`), `other`'s score is raised by this much.
    paper_other_boost: float = 3.5
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
    # A repo whose artefact is a model (weights, a checkpoint, "a 7B code model"; see
    # classify.lexicon.presents_a_model) is `other` (grey zone): `other` is raised by this much, and
    # its functional topics settle nothing.
    model_other_boost: float = 3.0
    # Security testing *of* AI (red-teaming, jailbreaks, prompt injection) is `evaluation` or a
    # guardrail (`infrastructure`), not a security-domain app: without pentest, CTF, exploit or recon
    # words, `other`'s score is lowered by this much.
    ai_security_other_penalty: float = 3.0
    # ... and red-teaming, jailbreaking or prompt-injection attacks on models and agents that offer no
    # guard (filter, firewall, shield, runtime defence) are `evaluation` whatever part of an agent
    # they attack (its memory, its tools, its browser): `evaluation`'s score is raised by this much.
    ai_attack_evaluation_boost: float = 3.0
    # A repo that says it measures agents or models ("a benchmark for …", "for testing and
    # benchmarking …", "evaluating LLM agents on …") is `evaluation` whatever it measures them on:
    # its score is raised by this much.
    benchmark_evaluation_boost: float = 1.5
    # Media generation (images, video, music with diffusion models, their web UIs and node graphs)
    # that speaks of no agent is `other` (out of the taxonomy): its score is raised by this much.
    media_other_boost: float = 2.5
    # Taxonomy rule 4: a scraper, crawler or search API that speaks of no clicking, typing, forms,
    # navigation, screens or desktops is `infrastructure`, even with a browser-automation topic:
    # `computer-use` is lowered by this much.
    scraper_computer_use_penalty: float = 2.0
    # Grey zone "components for coding agents": what runs coding agents as a team (orchestrates
    # several Claude Code or Codex sessions in parallel) is `coding`, not `multi-agent`: a repo that
    # names coding agents and runs or orchestrates them has `multi-agent` lowered by this much.
    coding_team_multi_agent_penalty: float = 3.0
    # A repo whose description's first clause says it is a framework, SDK or library for building
    # agents (and names nothing the agents do: voice, browsers, code, data, a domain, …) has
    # `framework`'s score raised by this much, or `multi-agent`'s when the framework is for several
    # agents (classify.rules.agent_framework_statement).
    agent_framework_boost: float = 3.0
    # A repo whose first clause presents it as one agent doing something ("an AI agent that …") has
    # `framework`, `multi-agent` and `workflow` lowered by this much (classify.rules.presents_one_agent).
    one_agent_penalty: float = 2.0
    # A repo whose first clause says it is a chatbot or a chat front-end has `chat` raised by this
    # much (classify.rules.presents_a_chat_app).
    chat_statement_boost: float = 3.0
    # A repo whose first clause presents a research agent ("a legal research agent", "an agent that
    # researches stocks") has `research` raised by this much, over its domain (taxonomy rule 8;
    # classify.rules.presents_a_research_agent).
    research_statement_boost: float = 2.0
    # An MCP server whose subject is speech (TTS, STT, transcription, dictation, a voice) has `voice`
    # raised by this much (taxonomy: voice I/O such as speech MCP servers; classify.rules.speech_mcp_text).
    speech_mcp_voice_boost: float = 2.0
    # A repo whose first clause says it is a client or SDK for a model provider's API ("Rust client for
    # the Anthropic API") has `framework` raised by this much (grey zone: provider SDK clients;
    # classify.rules.presents_a_provider_client). 5, not 3: a client whose text names Ollama stayed
    # `chat` at 3 (a chat front-end is what "Ollama" most often means), and no real repo moved at 3–5.
    provider_client_boost: float = 5.0
    # How far the class priors move from the training file's mix towards a crawl's (CRAWL_PRIOR):
    # 0 not at all, 1 all the way (log scale).
    crawl_prior: float = 0.0
    # A naive Bayes model on the same features, added to the logistic regression's scores with this
    # weight (both are linear in the features, so the sum is one linear model); 0 turns it off.
    nb_weight: float = 0.5
    nb_alpha: float = 0.1
