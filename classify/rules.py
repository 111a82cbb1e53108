"""Evidence rules: what the taxonomy says about a repo that a linear model over words learns badly
from our examples (a `framework` needs positive evidence, papers' code and agents in the older
sense are `other`, a component for coding agents is its component, …). Each rule reads the repo's
name, description and topics and moves one category's score by a strength set in
:class:`classify.settings.Settings`; docs/classifier.md says why each exists and what it did to
the figures (docs/classifier-history.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from classify.categories import CATEGORY_IDS
from classify.features import featurize
from classify.lexicon import (
    CJK_KEYWORDS,
    FINAL_BOOST,
    KEYWORDS,
    boosts,
    presents_a_model,
    settling_categories,
    software_first,
)
from classify.settings import Settings
from classify.text import CJK_CHARACTERS, MAX_DESCRIPTION, RepoText, rule_text

# Taxonomy rule 9: `resources` is for repos whose main artefact is a list of links, a course,
# tutorials or notebooks. A single loose word ("prompts", "from scratch", "guide") is not enough
# evidence of that; without the list-of-links rule, two resources phrases, or a settling topic or
# name, its score is cut (in cross-validation such predictions were never right).
_RESOURCES = CATEGORY_IDS.index("resources")
RESOURCES_PENALTY = -3.0  # on the log scale: resources probability times about 0.05
_RESOURCES_EVIDENCE = frozenset({"r:list-of-links", "kc:resources:2"})
# That evidence does not count for a repo that first presents itself as software (an app, engine,
# server, CLI, platform, framework, self-hosted, "generates …") and only then talks of courses or
# tutorials: an app that builds courses or lessons is not a course (its subject, not its artefact).
_software_first = software_first


_all_text = rule_text


_FRAMEWORK = CATEGORY_IDS.index("framework")
_FRAMEWORK_EVIDENCE = frozenset({"kc:framework:1", "r:framework-first"})
# Beyond the lexicon's framework phrases: building or creating agents in code, an abstraction or
# API for them, a programming language or package, or a framework/SDK/library topic.
_FRAMEWORK_WORDS = re.compile(
    r"\b(?:build|building|builds|create|creating|develop|developing|make|making|write|compose|define)\b"
    r"(?:\W+\w+){0,6}?\W+(?:ai |llm |autonomous )?agents?\b|\babstractions?\b|\bapis? for\b"
    r"|\b(?:python|typescript|javascript|node(?:\.?js)?|rust|golang|go|java|kotlin|ruby|php|c#|\.net|swift|elixir)\b"
    r"|\b(?:packages?|modules?|crates?|gems?|pip install|npm)\b|\bsdk|framework|librar(?:y|ies)\b|\btoolkit"
)


# What a framework in the taxonomy's sense is for: agents, LLM apps, prompts, chat, RAG, tools for
# models. A machine-learning, NLP, data or scientific framework that names none of these is not one.
# Model vendors and families, read as naming language models by the rules below.
_MODEL_VENDORS = r"claude|openai|anthropic|gemini|deepseek|ollama|qwen|llama|mistral"
_LLM_APP_WORDS = re.compile(
    r"agent|llm|gpt|language models?|foundation models?|generative|genai|prompt|chat|assistant|copilot|\brag\b"
    r"|retrieval[- ]augmented|\bmcp\b|model context|tool[- ]?(?:use|calling)|function[- ]calling"
    r"|langchain|autonomous|\bbots?\b|\bagi\b|conversational|[\u3400-\u9fff]|" + _MODEL_VENDORS
)


# Work on models themselves (training, tuning, serving, weights, sizes): a framework for that is ML.
_TUNING_OR_SERVING = r"fine-?tun|\binference\b|\bserv(?:e|es|ing)\b"
_MODEL_WORK = re.compile(
    r"train|" + _TUNING_OR_SERVING + r"|quantiz|weights|checkpoint|(?:^|[\s(])\d+(?:\.\d+)?[bm]\b"
    r"|pytorch|tensorflow|\bjax\b|neural|deep learning|machine learning|reinforcement learning|computer vision|diffusion"
    r"|\bimages?\b|\bvideos?\b|speech|building transformers|transformer (?:models|architectures?|layers)"
)


def _framework_evidence(feats: Sequence[str], repo: RepoText) -> bool:
    if not _FRAMEWORK_EVIDENCE.isdisjoint(feats):
        return True
    text = _all_text(repo)
    return _FRAMEWORK_WORDS.search(text) is not None


_WORKFLOW = CATEGORY_IDS.index("workflow")
# What makes a platform one for designing workflows rather than any platform that mentions them: the
# lexicon's workflow phrases except everyone's words ("workflow", "platform", "pipeline", "flow",
# "integrations", "deploy agents", 工作流), and what the lexicon leaves to the model (declarative
# definitions, node editors, automations, the well-known builders, a workflow engine or platform).
_EVERYONES_WORKFLOW_WORDS = frozenset(
    (
        r"\bworkflows?\b",
        r"\bintegrations\b",
        r"\bpipelines?\b",
        r"\bflows?\b",
        r"\bplatform\b",
        r"\bdeploy\w* (?:ai )?agents\b",
        "工作流",
    )
)
# (each of them is a phrase of the lexicon: a phrase reworded there must be reworded here)
assert {*KEYWORDS["workflow"], *CJK_KEYWORDS["workflow"]} >= _EVERYONES_WORKFLOW_WORDS
_WORKFLOW_EVIDENCE = re.compile(
    "|".join(p for p in (*KEYWORDS["workflow"], *CJK_KEYWORDS["workflow"]) if p not in _EVERYONES_WORKFLOW_WORDS)
    + r"|\bzero[- ]code\b|\bwithout (?:writing )?(?:any )?cod(?:e|ing)\b|\bdeclarative\b|\byaml\b|\bdsl\b"
    r"|\bnode[- ]based\b|\b(?:node|flow|graph) editor\b|\bgui\b|\bautomations?\b|\brpa\b|\bn8n\b"
    r"|\bactivepieces\b|\bnode-?red\b|\bdify\b|\bflowise\b|\blangflow\b"
    r"|\bworkflow[- ](?:automation|platform|engine|builder|editor|designer|orchestration|studio)\b"
    r"|\b(?:llmops|app development|application development) platform\b"
    r"|\bplatform for (?:\S+ ){0,3}?(?:app|application) development\b|可视化|自动化"
)
_OTHER = CATEGORY_IDS.index("other")
_DATA = CATEGORY_IDS.index("data")
# Words of language models and AI products, read by two rules below (each adds its own).
_LANGUAGE_MODEL_WORDS = (
    r"llm|gpt|\bai\b|\bai[-_ ]|[a-z]ai\b|artificial intelligence|language models?|assistant|copilot|\bmcp\b|\brag\b"
    r"|prompt|" + _MODEL_VENDORS
)
_AI_WORDS = re.compile(
    r"agent|\bchat|bot\b|bots\b|model context|autonomous|automat(?:ion|es?|ed|ing)\b|workflow"
    r"|智能|模型|机器人|助手|代理|エージェント"
    # AI in the languages a crawl meets most after English and Chinese (Spanish, Portuguese, French,
    # German, Italian): "IA", "KI", "asistente", "inteligencia artificial" …
    r"|\bia\b|\bki\b|asistente|assistente|inteligencia artificial|intelig[eê]ncia artificial"
    r"|intelligence artificielle|k[üu]nstliche intelligenz|intelligenza artificiale|" + _LANGUAGE_MODEL_WORDS
)


def _mentions_ai(repo: RepoText) -> bool:
    text = _all_text(repo)
    if "home" in text:
        # Home Assistant, the home-automation platform, is not an AI assistant
        text = _HOME_ASSISTANT.sub(" ", text)
    return _AI_WORDS.search(text) is not None


_HOME_ASSISTANT = re.compile(r"\bhome[- ]?assistant\b")


def _plain(repo: RepoText) -> bool:
    """Says what it is (a description of three words or more, or topics) without naming AI: a repo
    with nothing to read is not evidence of anything."""
    said = len(repo.description[:MAX_DESCRIPTION].split()) >= 3 or bool(repo.topics)
    return said and not _mentions_ai(repo)


_OTHER_EVIDENCE = frozenset({"kc:other:1"})
# Not an agent: models and weights, training, inference and serving, ML libraries, media generation,
# speech, or Chinese, Japanese or Korean text (read by character pairs, with less of the lexicon).
_NOT_AGENT_WORDS = re.compile(
    r"\bmodels?\b|\bweights\b|\binference\b|\bserving\b|fine-?tun|\btrain(?:ing|ed|s)?\b|pre-?train"
    r"|\bdatasets?\b|diffusion|\bimages?\b|\bvideos?\b|\bspeech\b|\btts\b|\basr\b|transformers?\b|neural"
    r"|deep learning|machine learning|\bml\b|pytorch|tensorflow|\bgguf\b|quantiz|\bgpus?\b|\bcuda\b"
    r"|\bvision\b|\bdetection\b|segmentation|\bembeddings?\b|tokeniz|\bmoe\b|\bpaper\b|[" + CJK_CHARACTERS + "]"
)
# The same test, faster (the expression above is its definition; tests/test_classify_model.py
# checks that both agree): whole words looked up in a set, the rest as substrings.
_NOT_AGENT_WHOLE_WORDS = frozenset((
    "model", "models", "weights", "inference", "serving", "train", "training", "trained", "trains", "dataset",
    "datasets", "image", "images", "video", "videos", "speech", "tts", "asr", "ml", "gguf", "gpu", "gpus", "cuda",
    "vision", "detection", "embedding", "embeddings", "moe", "paper",
))  # fmt: skip
_NOT_AGENT_SUBSTRINGS = (
    "fine-tun", "finetun", "pre-train", "pretrain", "diffusion", "neural", "deep learning", "machine learning",
    "pytorch", "tensorflow", "quantiz", "segmentation", "tokeniz",
)  # fmt: skip
_WORD = re.compile(r"\w+")
_TRANSFORMER = re.compile(r"transformers?\b")
_CJK_CHARACTER = re.compile("[" + CJK_CHARACTERS + "]")


def _names_not_agent_words(text: str) -> bool:
    """``_NOT_AGENT_WORDS.search(text) is not None``, about five times faster."""
    if any(part in text for part in _NOT_AGENT_SUBSTRINGS):
        return True
    if "transformer" in text and _TRANSFORMER.search(text):
        return True
    if not _NOT_AGENT_WHOLE_WORDS.isdisjoint(_WORD.findall(text)):
        return True
    return _CJK_CHARACTER.search(text) is not None


# ... but not models an agent or app uses: the Model Context Protocol, "model-agnostic", "any
# model", "100+ models", "multiple LLM models".
_USING_MODELS = re.compile(
    r"\bmodel context protocol\b|\bmodel[- ]agnostic\b|\b(?:any|every|your|all|multiple|many|different|various|\d+\+?)"
    r" (?:\w+ ){0,2}?models?\b"
)


# ... or an AI app that names nothing agents are made of or do (no agent, assistant, bot, chat,
# MCP, RAG, tools, prompts, LLM, workflow, memory, evals, code, …): "an AI workspace for docs".
_AGENTISH = re.compile(
    r"agent|autonom|assistant|copilot|\bbots?\b|chat|\bmcp\b|model context|\brag\b|retriev|tool|function[- ]call"
    r"|prompt|\bllms?\b|gpt|claude|openai|anthropic|gemini|deepseek|ollama|langchain|llama|workflow|memory|sandbox"
    r"|\bevals?\b|evaluat|benchmark|\bcode\b|coding|develop|search|browser|voice|sql|automat(?:ion|es?|ed|ing)\b"
    r"|\btasks?\b|e-?mail|inbox|calendar|meeting|schedul|research|papers?\b|literature|phone|\bcalls?\b|pull request"
    r"|\bcommits?\b|\btests?\b|\brepo|spreadsheet|dashboard|analy|customer|support|knowledge"
)


def _other_evidence(
    feats: Sequence[str], repo: RepoText, *, paper: bool | None = None, classic: bool | None = None
) -> bool:
    """``paper`` and ``classic``: :func:`_paper_code` and :func:`_classic_agents` of the repo when
    the caller has them already."""
    if not _OTHER_EVIDENCE.isdisjoint(feats) or _plain(repo):
        return True
    text = _all_text(repo)
    if paper is None:
        paper = _paper_code_text(text)
    if classic is None:
        classic = _classic_agents_text(text)
    if paper or classic:
        return True
    if _AGENTISH.search(text) is None:
        return True
    if "model" in text:
        text = _USING_MODELS.sub(" ", text)
    return _names_not_agent_words(text)


_INFRASTRUCTURE = CATEGORY_IDS.index("infrastructure")
_INFERENCE = re.compile(
    r"\binference\b|\bserving\b|\bserve[sd]? (?:\w+ )?(?:llms?|models?)\b"
    r"|\brun\w* (?:\w+ ){0,4}(?:llms?|models?|llama\w*|qwen\w*|mistral|gemma\w*|deepseek\w*|phi-?\d\w*)\b"
    r"|\bopenai[- ]compatible (?:api |rest )?(?:server|endpoint)s?\b"
    r"|\bgguf\b|quantiz|\blocal (?:llms?|models?)\b|\bopen[- ]weights?\b"
)
_NOT_ONLY_INFERENCE = re.compile(
    r"agent|\bmcp\b|tool[- ]call|sandbox|\bcode\b|gateway|router|routing|\bproxy\b|load[- ]balanc|api keys?\b|fallback"
    # a chat app or assistant that runs a local model is a chat app (rule 7), not an engine
    r"|\bchat (?:window|app|ui|client)|\bchat with\b|\bask\b|questions|assistant|\bbots?\b|\bweb ?ui\b|\bdesktop app"
)


def _inference_only(repo: RepoText) -> bool:
    """Presents model inference or serving, and nothing for agents, no gateway or router."""
    text = _all_text(repo)
    return _INFERENCE.search(text) is not None and _NOT_ONLY_INFERENCE.search(text) is None


_CONFERENCES = r"acl|emnlp|naacl|eacl|coling|neurips|nips|icml|iclr|cvpr|iccv|eccv|aaai|ijcai|iros|icra|kdd|sigir|colm|eswc|www|tmlr"
_PAPER_CODE = re.compile(
    r"\bofficial (?:implementation|code|repo(?:sitory)?|pytorch implementation)\b"
    r"|\b(?:code|implementation|repo(?:sitory)?)(?: and data(?:sets?)?)? (?:for|of) (?:our |the |this )?(?:\w+ ){0,3}paper\b"
    r"|\bcode for [\"“]|\bour paper\b|\bpaper:"
    rf"|[\[(](?:{_CONFERENCES})\W[^\])]{{0,30}}\d{{2,4}}[\])]|[\[(](?:{_CONFERENCES})[ '’]?\d{{2,4}}"
    rf"|\b(?:{_CONFERENCES})(?: findings| main(?: conference)?)? ?'?(?:20)?[12]\d\b"
)
_EVALUATION_WORDS = re.compile(
    r"benchmark|\bevals?\b|evaluat|environments?\b|\bgym\b|\barena\b|leaderboard|\btest(?:s|ing|bed)?\b|red[- ]team"
)


_CONFERENCE_NAMES = tuple(_CONFERENCES.split("|"))


def _paper_code(repo: RepoText) -> bool:
    """Code published with a paper, and not a benchmark or environment."""
    return _paper_code_text(_all_text(repo))


def _paper_code_text(text: str) -> bool:
    # Substring checks first (a few hundred ns): most repos name neither a paper nor a conference.
    if "paper" not in text and "official" not in text and not any(c in text for c in _CONFERENCE_NAMES):
        return False
    return _PAPER_CODE.search(text) is not None and _EVALUATION_WORDS.search(text) is None


_AGENT_WORDS = re.compile(r"\bagents?\b|\bautonomous\b|\bagent-based\b")
# What places an agent in the era of language models (or AI products generally).
_MODERN_WORDS = re.compile(
    r"chat|langchain|langgraph|generative|genai|\bagi\b|agentic|autogen|crewai|manus|smolagent|tool[- ]?(?:use|calling)"
    r"|function[- ]calling|\bvlms?\b|\bapi\b|[" + CJK_CHARACTERS + "]|" + _LANGUAGE_MODEL_WORDS
)


# ... and of where such agents live: robots and vehicles, simulations and games, steering and
# flocking, evolutionary or reinforcement learning, control architectures.
_CLASSIC_CONTEXT = re.compile(
    r"robot|vehicle|driving|drones?\b|\bros2?\b|carla|simulat|steering|flocking|boids|godot|\bunity\b|unreal|three\.?js|webgl"
    r"|\bp5\b|nature of code|physics|pathfind|genetic|evolutionary|reinforcement|q-learning"
    r"|netlogo|\bmesa\b|agent-based model|game|goal[- ]directed|\bbdi\b|jason|jade"
)


def _classic_agents(repo: RepoText) -> bool:
    """Speaks of (autonomous) agents where they live outside language models (robots, simulations,
    games, steering, evolutionary and reinforcement learning) and of nothing that places them among
    language models or AI products."""
    return _classic_agents_text(_all_text(repo))


def _classic_agents_text(text: str) -> bool:
    # Cheapest test first: most repos name an agent and something modern.
    return (
        ("agent" in text or "autonomous" in text)
        and _MODERN_WORDS.search(text) is None
        and _AGENT_WORDS.search(text) is not None
        and _CLASSIC_CONTEXT.search(text) is not None
    )


_TRAINING = re.compile(
    r"fine-?tun|\btrain(?:s|ing|ed)?\b|\btuning\b|reinforcement learning|\brl\b|imitation learning|\bgrpo\b|\bppo\b"
)


_TRAINING_HINTS = ("tun", "train", "reinforcement", "rl", "imitation", "grpo", "ppo")


def _training_not_evaluation(repo: RepoText) -> bool:
    return _training_not_evaluation_text(_all_text(repo))


def _training_not_evaluation_text(text: str) -> bool:
    if not any(h in text for h in _TRAINING_HINTS):
        return False
    return _TRAINING.search(text) is not None and _EVALUATION_WORDS.search(text) is None


_EVALUATION = CATEGORY_IDS.index("evaluation")
_CODING = CATEGORY_IDS.index("coding")

# Taxonomy rule 2: a component made *for* coding agents (their memory, a code graph, a router or
# proxy, guardrails, a sandbox, an MCP server, usage and cost meters, dictation, a browser, docs)
# takes the component's category; what runs or drives coding agents (a GUI, an IDE, a harness, an
# orchestrator of parallel sessions) is `coding`.
# Coding agents by name, written once for the rules below. "copilot" joins where a text names the
# host of a component or a skill pack; alone it is no coding agent (a copilot for sales is none).
_CODING_AGENT_NAMES = (
    r"coding agents?|claude code|\bcodex\b|\bcursor\b|gemini cli|opencode|windsurf|\bcline\b|\baider\b"
)
_CODING_AGENTS = re.compile(
    r"\b(?:for|to|into|with|before|lets?|gives?|runs?|helps?) (?:\w+ ){0,3}?(?:ai |cli |your |the )?"
    r"(?:" + _CODING_AGENT_NAMES + r"|copilot)\b"
)
_COMPONENT = re.compile(
    r"memor|context|\bgraph|\bindex|router|\bproxy|gateway|guardrail|\bblock|securit|permission|sandbox|container"
    r"|\bmcp\b|usage|\bcosts?\b|\btokens?\b|statusline|monitor|telemetry|\btrac(?:e|es|ing)\b|dictat|\bvoice|\bspeak"
    r"|browser|documentation|\bdocs\b|benchmark|\bevals?\b|evaluat"
)
_DRIVES_CODING_AGENTS = re.compile(
    r"\bgui\b|desktop|\bide\b|orchestrat|parallel|side by side|harness|\bmanag|\bclient|alternative|worktree"
    r"|kanban|\b(?:many|several|multiple|ten|\d+) (?:\w+ )?(?:sessions|agents)\b|\bsupervis|headless"
)


_MULTI_AGENT = CATEGORY_IDS.index("multi-agent")
_VOICE = CATEGORY_IDS.index("voice")
_CHAT = CATEGORY_IDS.index("chat")
_RESEARCH = CATEGORY_IDS.index("research")
_DOMAIN_EVIDENCE = frozenset({"kc:other:1"})
# Speech models and toolkits (TTS, ASR, voice cloning, diarisation) are `other` unless they speak of
# agents, assistants, bots, calls or conversations: voice I/O *for agents* is `voice` (grey zone).
_SPEECH = re.compile(
    r"\btts\b|text[- ]to[- ]speech|speech[- ]to[- ]text|speech recognition|speech synthesis|\basr\b|voice[- ]clon"
    r"|diari[sz]|transcri"
)
_SPEECH_FOR_AGENTS = re.compile(
    r"agent|assistant|\bbots?\b|chatbot|\bcalls?\b|phone|telephon|conversation|\bmcp\b|\bllms?\b|voice ai"
    r"|real[- ]?time voice|turn[- ]taking|barge|speak to|talk to"
)


def _speech_model_text(text: str) -> bool:
    return _SPEECH.search(text) is not None and _SPEECH_FOR_AGENTS.search(text) is None


# The taxonomy's `voice` names "voice I/O (speech MCP servers, dictation) for agents": an MCP server
# whose subject is speech (text to speech, speech to text, transcription, dictation, a voice) is voice,
# not the tool infrastructure every other MCP server is.
_MCP_SERVER = re.compile(r"\bmcp[- ]?(?:server|tool)s?\b|\bmodel context protocol\b")
_SPEECH_SUBJECT = re.compile(r"\btts\b|\bstt\b|text[- ]to[- ]speech|speech|transcrib|transcription|dictat|\bvoices?\b")


def speech_mcp_text(text: str) -> bool:
    found = _MCP_SERVER.search(text)
    return found is not None and _SPEECH_SUBJECT.search(text) is not None


# ... and a pack of skills, plugins or subagents for coding agents that adds a domain's know-how
# (marketing, SEO, security research, finance, job search, academic research, …) is that domain's,
# by the same rule: it makes the agent a marketer or a pentester, not a better coder.
# (every match of _SKILL_PACK contains one of these: a cheap test first)
_SKILL_PACK_WORDS = ("skill", "plugin", "subagent", "sub-agent", "slash commands", "persona")
_SKILL_PACK = re.compile(r"\bskills?\b|\bplugins?\b|\bsub-?agents?\b|\bslash commands\b|\bpersonas?\b")
_SKILL_DOMAIN = re.compile(
    r"marketing|\bseo\b|\bgeo\b|copywrit|\bsales\b|\bgrowth\b|pentest|penetration|security research"
    r"|reverse engineering|\bctf\b|financ|\btrading\b|\blegal\b|\bjob (?:search|application)|\bresumes?\b"
    r"|\bacademic\b|scientific|research papers?"
)
_NAMES_CODING_AGENTS = re.compile(_CODING_AGENT_NAMES + r"|\bcopilot\b")


def _domain_skills_for_coding_agents(text: str) -> bool:
    if not any(word in text for word in _SKILL_PACK_WORDS):
        return False
    return (
        _SKILL_DOMAIN.search(text) is not None
        and _SKILL_PACK.search(text) is not None
        and _NAMES_CODING_AGENTS.search(text) is not None
        and _DRIVES_CODING_AGENTS.search(text) is None
    )


_NAMES_CODING_AGENTS_ONLY = re.compile(_CODING_AGENT_NAMES)


def _runs_coding_agents_text(text: str) -> bool:
    """Runs, orchestrates or manages coding agents (a harness, a GUI, parallel sessions), by name."""
    return _NAMES_CODING_AGENTS_ONLY.search(text) is not None and _DRIVES_CODING_AGENTS.search(text) is not None


def _for_coding_agents_text(text: str) -> bool:
    """A component for coding agents (rule 2), not something that runs them."""
    if "cod" not in text and "cursor" not in text and "copilot" not in text and "aider" not in text:
        return False
    return (
        _CODING_AGENTS.search(text) is not None
        and _COMPONENT.search(text) is not None
        and _DRIVES_CODING_AGENTS.search(text) is None
    )


# Security testing of language models and agents (grey zone: red-teaming kits are `evaluation`,
# runtime guards `infrastructure`), told apart from agents that do security work (pentest agents).
_AI_SECURITY_TESTING = re.compile(r"red[- ]?team|jailbreak|prompt[- ]?injection")
_SECURITY_WORK = re.compile(r"pentest|penetration|\bctf\b|bug bount|exploit|offensive|\brecon\b|\bsoc\b|threat")


# A repo that says it measures agents or models (a benchmark for …, "for testing and benchmarking",
# "evaluating LLM agents on …") is a benchmark whatever it measures them on (rule 1 and the grey
# zone for evaluation harnesses): the web, phones, collaboration, memory.
_MEASURES_AGENTS = re.compile(
    r"\bbenchmarks? (?:for|of|suite|to)\b|\bbenchmark(?:ing)? (?:\w+ ){0,2}(?:agents?|llms?|models?)\b"
    r"|\bfor (?:testing and |the )?(?:benchmarking|evaluating|measuring)\b"
    r"|\bevaluat(?:e|es|ing|ion of) (?:the )?(?:\w+ ){0,3}(?:agents?|llms?|language models?|models?)\b"
    r"|\btest(?:s|ing)? (?:your |the |our )?(?:team'?s |company'?s |app'?s )?(?:\w+, ){0,2}"
    r"(?:prompts?|agents?|llms?|llm apps?|ai apps?|chatbots?)\b"
)

_TRAINS_OR_SERVES = re.compile(r"\btrain|" + _TUNING_OR_SERVING)


def _measures_agents_text(text: str) -> bool:
    """Says it measures agents or models, and does not also train or serve them (a platform that
    trains, serves and evaluates models is a model platform)."""
    return _MEASURES_AGENTS.search(text) is not None and _TRAINS_OR_SERVES.search(text) is None


def _ai_security_testing_text(text: str) -> bool:
    return _AI_SECURITY_TESTING.search(text) is not None and _SECURITY_WORK.search(text) is None


# ... and of those, the ones that test rather than guard: attacks, red-teaming, jailbreaking studied
# or measured, with no guard, firewall, filter, shield or runtime defence offered.
_GUARDS = re.compile(r"guard|firewall|filter|shield|sanitiz|protect|block|detect|runtime|middleware|proxy")


def _ai_attack_testing_text(text: str) -> bool:
    return _ai_security_testing_text(text) and _GUARDS.search(text) is None


# Media generation (images, video, music: diffusion models and their UIs) is out of the taxonomy
# (`other`) unless it speaks of agents.
_MEDIA_GENERATION = re.compile(
    r"stable[- ]diffusion|\bdiffusion models?\b|text[- ]to[- ](?:image|video|music)|\b(?:image|video|music|art) generat"
    r"|\bcomfyui\b|\bflux\b|midjourney|\bsdxl\b|\bupscal"
)
# (every match of _MEDIA_GENERATION contains one of these: a cheap test first)
_MEDIA_WORDS = (
    "diffusion", "to-image", "to image", "to-video", "to video", "to-music", "to music", "generat", "comfyui",
    "flux", "midjourney", "sdxl", "upscal",
)  # fmt: skip


def _media_generation_text(text: str) -> bool:
    if "agent" in text or not any(word in text for word in _MEDIA_WORDS):
        return False
    return _MEDIA_GENERATION.search(text) is not None


_COMPUTER_USE = CATEGORY_IDS.index("computer-use")
# Taxonomy rule 4: scrapers, crawlers and search APIs are `infrastructure`, even when they drive a
# headless browser (and are tagged `browser-automation`); what operates a browser, desktop or phone
# for an agent (clicks, types, fills forms, navigates, reads the screen) is `computer-use`.
_SCRAPER = re.compile(r"\bscrap(?:e|er|ers|es|ing)\b|\bcrawl(?:er|ers|ing|s)?\b|\bsearch api\b")
_OPERATES = re.compile(
    r"\bclick|\btyp(?:e|es|ing)\b|\bfill|\bforms?\b|operat|\bcontrol|navigat|\bmouse\b|keyboard|screenshot|\bgui\b"
    r"|desktop|\bphones?\b|android|\bios\b|computer[- ]use|\bactions?\b|\binteract"
)


def _scraper_text(text: str) -> bool:
    if "scrap" not in text and "crawl" not in text and "search api" not in text:
        return False
    return _SCRAPER.search(text) is not None and _OPERATES.search(text) is None


# A repo whose first words present it as a framework, SDK or library for building agents ("the AI
# agent framework that supports MCP", "React-compatible framework for autonomous agents", "an SDK to
# create AI agents for web apps") is what it says it is, whatever its topics add (MCP, chatbot,
# computer-use): `framework`, or `multi-agent` when the framework is one for several agents. Not
# when the same words name what the agents do (voice, browsers, code, memory, data, a domain):
# then the framework is that category's, and the model reads it.
_FIRST_CLAUSE_END = re.compile(r"[.!?;:|(\n]\s|\s[-\u2013\u2014]\s|[\u3002\uff1a\uff08]")
_AGENT_FRAMEWORK_STATEMENT = re.compile(
    r"\b(?:framework|sdk|library|toolkit|development kit|dev kit)\b"
    r"(?:\W+(?!(?:run|running|deploy\w*|serv\w+|host\w*|monitor\w*|test\w*|evaluat\w+)\b)\w+){0,4}?\W+"
    r"(?:(?:ai|llm|autonomous|agentic|intelligent|generative|smart)\W+){0,2}agents?\b(?: (?:networks?|swarms?|teams?))?"
    r"|\bagents?\W+(?:framework|sdk|development kit)\b"
    r"|\bagentic\W+(?:ai\W+)?(?:framework|sdk)\b"
)
# (before or inside the statement: "a multi-agent framework", "framework for orchestrating agent
# networks"; "an SDK for building agents, swarms of agents and more" is a framework)
_SEVERAL_AGENTS = re.compile(
    r"\bmulti[- ]?(?:ai[- ])?agents?\b|\b(?:multiple|several|many) (?:\w+ )?agents\b|\bswarms?\b|\bcrews?\b|\bteams?\b|\bcollaborat|\bsociet|orchestrat"
    r"|\bagents?\W+networks?\b"
)
_AGENTS_DOING = re.compile(
    r"voice|speech|phone|\bcalls?\b(?! ?tools)|browser|\bweb (?:automation|agents?|browsing)|computer|desktop|mobile|android|\bios\b"
    r"|\bgui\b|cod(?:e|ing)|software|program|\brag\b|retrieval|memory|knowledge|eval|benchmark|test|observab"
    r"|workflow|low[- ]?code|no[- ]?code|\bdata\b|\bsql\b|trad(?:e|ing)|financ|crypto|blockchain|web3|on-?chain|defi"
    r"|\bgames?\b|gaming|robot|embodied|research|search|security|pentest|simulat|\bnpcs?\b|chatbots?|conversational"
    r"|customer|support (?:bots?|agents?|tickets?)|train\w*|reinforcement|\brl\b|\bgym\b"
)
_FEATURE_LIST = re.compile(r"\b(?:with (?:built-in|builtin|native|first-class|integrated)|featuring|including)\b")
# "a travel agent built on an agent framework": the framework is what it uses, not what it is.
_USES_A_FRAMEWORK = re.compile(
    r"\b(?:built|based|running|runs) (?:on|with|upon)\b|\bon top of\b|\busing\b|\bpowered by\b"
)


def _first_clause(repo: RepoText) -> str:
    description = repo.description[:MAX_DESCRIPTION]
    end = _FIRST_CLAUSE_END.search(description)  # (no letters in it: the case does not matter)
    return (description[: end.start()] if end else description).lower()


def names_a_domain(repo: RepoText) -> bool:
    """A domain phrase of the lexicon (travel, finance, games, education, …) anywhere in the repo's
    name, description or topics: what the `kc:other:1` feature says."""
    return "kc:other:1" in featurize(repo)[0]


def agent_framework_statement(repo: RepoText, *, domain: bool | None = None) -> str | None:
    """`framework` or `multi-agent` when the description's first clause says the repo is a framework
    for building (several) agents and names nothing they do, and the repo names no domain (a
    framework of domain agents is the domain's: rule 8 over rule 3); otherwise None. ``domain``
    when the caller already knows it (:func:`names_a_domain`)."""
    clause = _first_clause(repo)
    if "agent" not in clause:  # (every way of saying it names agents: a quick way out)
        return None
    statement = _AGENT_FRAMEWORK_STATEMENT.search(clause)
    if statement is None or _USES_A_FRAMEWORK.search(clause, 0, statement.start()):
        return None
    # A list of built-in features after the statement ("… agent framework with built-in tracing and
    # evals") says what the framework has, not what its agents do.
    features = _FEATURE_LIST.search(clause, statement.end())
    if _AGENTS_DOING.search(clause, 0, features.start() if features else len(clause)) is not None:
        return None
    if names_a_domain(repo) if domain is None else domain:
        return None
    return "multi-agent" if _SEVERAL_AGENTS.search(clause, 0, statement.end()) is not None else "framework"


# ... and a repo whose first words present it as one agent that does something ("an AI agent that
# upgrades npm packages", "LLM-powered autonomous agent with hierarchical task management") is that
# agent: not a framework for building agents, a team of agents or a workflow platform (in the
# training data no such repo is). Its topics and package words (`ai-sdk`, `typescript`) do not
# make it one.
_ONE_AGENT_STATEMENT = re.compile(
    r"^\W*(?:[\w.-]+ (?:is|:) )?(?:(?:an?|the|your|our|my)\s+)?(?:[\w'\u2019.-]+\s+){0,4}?(?:ai |llm |autonomous |agentic )?"
    r"agent\b(?! (?:framework|sdk|library|toolkit|platform|kit|builder|studio|protocol|server|runtime|os"
    r"|infrastructure|memory|gateway|network|marketplace|registry|directory|skills?|tools?|templates?|stack|engine"
    r"|harness|hub)s?\b)"
    r"(?:,|\s+(?:that|which|to|for|who|built|powered|designed|capable|able|using|with|in|on|written|running|based))"
)
# Words of making software for agents or chat (read by the one-agent and the chat statements).
_BUILDING = r"framework|sdk|librar(?:y|ies)|toolkit|build(?:ing)?|creat(?:e|ing)|develop(?:ing)?"
_BUILDS_AGENTS = re.compile(rf"\b(?:{_BUILDING})\b")


def presents_one_agent(repo: RepoText) -> bool:
    """Does the description's first clause present the repo as one agent doing something (and not as
    a framework or a way to build agents)?"""
    clause = _first_clause(repo)
    if "agent" not in clause:
        return False
    return _ONE_AGENT_STATEMENT.search(clause) is not None and _BUILDS_AGENTS.search(clause) is None


# ... and a repo whose first words say it is a chatbot or a chat front-end ("a web interface for
# chatting with Alpaca", "fully private LLM chatbot that runs in the browser", "RAG-based tool for
# chatting with your documents") is `chat` (taxonomy rule 7), whatever else it mentions (an API, a
# server, RAG). Not when the chat words follow "for", "of", "with", … (memory *for* chat apps, a
# builder *for* chatbots, a service *with* a chat interface, a scanner *that* probes *your* chatbot)
# or the clause builds, tests, attacks or measures them.
_CHAT_STATEMENT = re.compile(
    r"\bchat ?bots?\b|\bchat (?:ui|app|client|interface|front-?end|web ?ui|application)s?\b"
    r"|\b(?:interface|ui|app|client|tool|front-?end|way|web ?ui|application)s? (?:\w+ ){0,2}for chatting\b"
    r"|\bchat(?:ting)? with (?:your |any |the |multiple |many |all )?(?:own )?(?:\w+ )?"
    r"(?:documents?|docs|pdfs?|files|knowledge|llms?|models?|websites?|ai|gpt|chatgpt)\b"
)
_NOT_A_CHAT_STATEMENT = re.compile(
    rf"\b(?:{_BUILDING}|benchmark|eval\w*|dataset|test\w*|scan\w*|prob(?:e|es|ing)|attack\w*|jailbreak\w*"
    r"|red[- ]team\w*)\b"
)
_CHAT_AS_A_PURPOSE = re.compile(
    r"\b(?:for|of|through|on|to|builder|examples?|models?|gallery|memory|via|in|into|from|and|or|with|that|which|who"
    r"|your)\b|,"
)


# Taxonomy rule 8: a domain agent is `other` "unless clearly one of the functional types (a finance
# *research* agent is `research`)". A first clause that presents a research agent or assistant, or an
# agent that researches something (and is no benchmark, dataset or list of papers), is research
# whatever its domain.
_RESEARCH_STATEMENT = re.compile(
    r"\b(?:deep[- ])?research (?:agents?|assistants?|copilots?)\b"
    r"|\b(?:agents?|assistants?|copilots?|bots?) (?:that|which|to) (?:\w+ ){0,2}?research(?:es)?\b"
    r"|^\W*(?:an? )?(?:ai |llm |autonomous )?(?:agents? )?(?:that )?researches\b"
)
_NOT_A_RESEARCH_STATEMENT = re.compile(r"\b(?:benchmark|eval\w*|dataset|papers? list|survey|awesome)\b")


def presents_a_research_agent(repo: RepoText) -> bool:
    """Does the description's first clause present a research agent (rule 8's finance example)?"""
    clause = _first_clause(repo)
    if "research" not in clause:
        return False
    return _RESEARCH_STATEMENT.search(clause) is not None and _NOT_A_RESEARCH_STATEMENT.search(clause) is None


# The grey zone "provider SDK clients" (a vendor's or the community's client for a model provider's API,
# in any language) is `framework`: a code-level library for building LLM apps. A first clause that says
# the repo is a client, SDK, library, package, gem, crate, wrapper, bindings or adapter for such an API
# (or for several providers at once: a code-level client, not a gateway one calls over the network).
_PROVIDERS = (
    r"open ?ai|anthropic|claude|gemini|google (?:ai|genai|gen ai)|vertex ai|groq|mistral(?: ai)?|cohere|ollama"
    r"|deepseek|together ai|perplexity|x\.?ai|grok|openrouter|azure openai|bedrock|hugging ?face inference"
    r"|(?:llm|ai|chat ?gpt|gpt)(?:[- ]provider)? apis?"
    r"|(?:multiple|many|several|all major|any) (?:llm |ai |model )?(?:providers|apis)"
)
# Up to three describing words before the noun ("profile-driven async LLM adapter"), none of which
# makes the repo something else: an MCP server, a tool, a proxy or gateway (the gateway grey zone is
# `infrastructure`), a plugin, a bot, an app or an agent.
_NOT_A_CLIENT_WORD = (
    r"(?:mcp|servers?|agents?|agentic|tools?|toolkits?|proxy|gateways?|routers?|plugins?|bots?|cli|apps?)\b"
)
_PROVIDER_CLIENT = re.compile(
    r"^\W*(?:an? |the )?(?:(?!" + _NOT_A_CLIENT_WORD + r")[\w.-]+,? ){0,3}"
    r"(?:client(?: library)?|sdk|library|package|gem|crate|module|wrapper|bindings|api wrapper|adapter)s?"
    r" (?:for|around|of|to) (?:the )?(?:" + _PROVIDERS + r")\b"
)


def presents_a_provider_client(repo: RepoText) -> bool:
    """Does the description's first clause say the repo is a client or SDK for a model provider's API?"""
    return _PROVIDER_CLIENT.search(_first_clause(repo)) is not None


def presents_a_chat_app(repo: RepoText) -> bool:
    """Does the description's first clause say the repo is a chatbot or a chat front-end?"""
    clause = _first_clause(repo)
    if "chat" not in clause:
        return False
    found = _CHAT_STATEMENT.search(clause)
    return (
        found is not None
        and _NOT_A_CHAT_STATEMENT.search(clause) is None
        and _CHAT_AS_A_PURPOSE.search(clause, 0, found.start()) is None
    )


def topic_boosts(repo: RepoText) -> np.ndarray | None:
    """The topics' and name's factors (:func:`classify.lexicon.boosts`), except that a topic naming
    another category than the one the description's first clause calls the repo ("an agent framework
    with built-in tracing" tagged `observability`) is a feature of it and settles nothing (rule 1:
    the primary function). A resources topic or name stays final."""
    factors = boosts(repo)
    if factors is None:
        return None
    said = agent_framework_statement(repo)
    if said is None:
        return factors
    keep = CATEGORY_IDS.index(said)
    for i, factor in enumerate(factors):
        if i != keep and 1 < factor < FINAL_BOOST:
            factors[i] = 1.0
    return factors


def rule_offsets(docs: Sequence[list[str]], repos: Sequence[RepoText], settings: Settings) -> np.ndarray:
    """Per repo and category, what the evidence rules add to the model's scores (log scale)."""
    out = np.zeros((len(repos), len(CATEGORY_IDS)))
    for row, (feats, repo) in enumerate(zip(docs, repos, strict=True)):
        weak = _RESOURCES_EVIDENCE.isdisjoint(feats) or _software_first(repo)
        if weak and "resources" not in settling_categories(repo):
            out[row, _RESOURCES] = RESOURCES_PENALTY
        if settings.framework_penalty and not _framework_evidence(feats, repo):
            out[row, _FRAMEWORK] = -settings.framework_penalty
        text = _all_text(repo)
        if settings.workflow_penalty and _WORKFLOW_EVIDENCE.search(text) is None:
            out[row, _WORKFLOW] -= settings.workflow_penalty
        llm_app = _LLM_APP_WORDS.search(text) is not None
        if settings.ml_framework_penalty and not llm_app:
            out[row, _FRAMEWORK] -= settings.ml_framework_penalty
        if (
            settings.llm_framework_other_penalty
            and llm_app
            and "r:framework-first" in feats
            and _MODEL_WORK.search(text) is None
        ):
            out[row, _OTHER] -= settings.llm_framework_other_penalty
        if _plain(repo):
            out[row, _OTHER] += settings.plain_other_boost
            out[row, _DATA] -= settings.plain_data_penalty
        if _inference_only(repo):
            out[row, _INFRASTRUCTURE] -= settings.inference_penalty
            out[row, _OTHER] += settings.inference_other_boost
        paper, classic = _paper_code_text(text), _classic_agents_text(text)
        if settings.other_penalty and not _other_evidence(feats, repo, paper=paper, classic=classic):
            out[row, _OTHER] -= settings.other_penalty
        if settings.paper_other_boost and paper:
            out[row, _OTHER] += settings.paper_other_boost
        if settings.classic_agent_boost and classic:
            out[row, _OTHER] += settings.classic_agent_boost
        if settings.training_eval_penalty and _training_not_evaluation_text(text):
            out[row, _EVALUATION] -= settings.training_eval_penalty
        if settings.coding_component_penalty and (
            _for_coding_agents_text(text) or _domain_skills_for_coding_agents(text)
        ):
            out[row, _CODING] -= settings.coding_component_penalty
        if settings.coding_team_multi_agent_penalty and _runs_coding_agents_text(text):
            out[row, _MULTI_AGENT] -= settings.coding_team_multi_agent_penalty
        if settings.domain_multi_agent_penalty and not _DOMAIN_EVIDENCE.isdisjoint(feats):
            out[row, _MULTI_AGENT] -= settings.domain_multi_agent_penalty
        if settings.speech_model_penalty and _speech_model_text(text):
            out[row, _VOICE] -= settings.speech_model_penalty
        if settings.speech_mcp_voice_boost and speech_mcp_text(text):
            out[row, _VOICE] += settings.speech_mcp_voice_boost
        if settings.scraper_computer_use_penalty and _scraper_text(text):
            out[row, _COMPUTER_USE] -= settings.scraper_computer_use_penalty
        if settings.media_other_boost and _media_generation_text(text):
            out[row, _OTHER] += settings.media_other_boost
        if settings.ai_security_other_penalty and _ai_security_testing_text(text):
            out[row, _OTHER] -= settings.ai_security_other_penalty
        if settings.benchmark_evaluation_boost and _measures_agents_text(text):
            out[row, _EVALUATION] += settings.benchmark_evaluation_boost
        if settings.ai_attack_evaluation_boost and _ai_attack_testing_text(text):
            out[row, _EVALUATION] += settings.ai_attack_evaluation_boost
        statement = (
            agent_framework_statement(repo, domain=not _DOMAIN_EVIDENCE.isdisjoint(feats))
            if settings.agent_framework_boost
            else None
        )
        if statement == "framework":
            out[row, _FRAMEWORK] += settings.agent_framework_boost
        elif statement == "multi-agent":
            out[row, _MULTI_AGENT] += settings.agent_framework_boost
        if settings.one_agent_penalty and presents_one_agent(repo):
            out[row, [_FRAMEWORK, _MULTI_AGENT, _WORKFLOW]] -= settings.one_agent_penalty
        if settings.chat_statement_boost and presents_a_chat_app(repo):
            out[row, _CHAT] += settings.chat_statement_boost
        if settings.research_statement_boost and presents_a_research_agent(repo):
            out[row, _RESEARCH] += settings.research_statement_boost
        if settings.provider_client_boost and presents_a_provider_client(repo):
            out[row, _FRAMEWORK] += settings.provider_client_boost
        if settings.model_other_boost and presents_a_model(repo):
            out[row, _OTHER] += settings.model_other_boost
    return out
