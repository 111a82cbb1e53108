"""What the classifier reads of a repo, as a short list of named binary features, in one fast pass.

Four blocks, each later scaled to unit length and weighted (see :mod:`classify.model`):

- ``w:`` word unigrams and ``b:`` bigrams of the name and description (plurals folded, stop words
  dropped), plus topic words and ``c:`` character bigrams of Chinese/Japanese/Korean text;
- ``n:`` the name's own words (``AgentPilot`` → ``agent``, ``pilot``);
- ``t:`` one indicator per topic;
- ``k:`` the lexicon's keyword phrases (``k:<phrase id>``), and ``kc:<category>:<n>`` when at least
  n phrases of a category occur.

Keyword phrases are regular expressions; instead of searching every phrase in every text they are
indexed by the literal text they start with and tried only at the words that can start them, and
what each word can start is cached. That keeps the whole pass to about 40 microseconds per repo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from classify.categories import CATEGORY_IDS
from classify.lexicon import CJK_KEYWORDS, KEYWORDS, alternatives, settling_categories
from classify.reasons import RULE_WORDS
from classify.text import CJK_CHARACTERS, MAX_DESCRIPTION, RepoText, singular, split_name

_RAW = re.compile(r"[a-z0-9]+(?:[+#][a-z0-9+#]*)?|[" + CJK_CHARACTERS + "]+")
_CJK_START = CJK_CHARACTERS[0]  # the first character of every run the classifier reads by pairs
WINDOW = 4  # keyword phrases span at most this many words
_CACHE_LIMIT = 200_000

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "with",
        "your",
        "you",
        "by",
        "from",
        "as",
        "at",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "or",
        "into",
        "via",
        "using",
        "use",
        "uses",
        "built",
        "based",
        "open",
        "source",
        "opensource",
        "any",
        "all",
        "more",
        "most",
        "one",
        "new",
    ]
)


@dataclass(frozen=True)
class Phrase:
    id: int
    category: str
    pattern: re.Pattern[str]
    cjk: str = ""  # a Chinese phrase's text: found inside a run of Chinese characters, not indexed


_LATIN_PHRASES: tuple[Phrase, ...] = tuple(
    Phrase(i, category, re.compile(pattern))
    for i, (category, pattern) in enumerate((c, p) for c in CATEGORY_IDS for p in KEYWORDS[c])
)
PHRASES: tuple[Phrase, ...] = _LATIN_PHRASES + tuple(
    Phrase(len(_LATIN_PHRASES) + j, category, re.compile(re.escape(text)), text)
    for j, (category, text) in enumerate((c, t) for c in CATEGORY_IDS for t in CJK_KEYWORDS[c])
)
_CJK_PHRASES = tuple((f"k:{p.id}", p.cjk) for p in PHRASES if p.cjk)


def _prefix(branch: str) -> str:
    """The literal text every match of one alternative starts with ('' when it has none)."""
    branch = re.sub(r"^(?:\\b|\^)+", "", branch)
    literal = ""
    for j, c in enumerate(branch):
        if not re.fullmatch(r"[a-z0-9 #+-]", c) or branch[j + 1 : j + 2] in ("?", "*", "+", "{"):
            break
        literal += c
    return literal.replace("-", " ")


# The word-by-word index below finds a phrase by the literal text an alternative starts with, in a
# window that starts at that word. An alternative that starts with a group of words ("(?:your|whole)
# repo") is indexed under each of them. A phrase that looks around itself ("(?<!scaling )law",
# "health(?! checks)") cannot be found that way: it is searched in the whole text of the name,
# description or topic instead, where one of the literal texts it needs occurs.
_LOOKAROUND = re.compile(r"\(\?<?[!=]")
# (a lookbehind may hold escaped characters, "\)" among them: they do not close it)
_LOOKBEHINDS = re.compile(r"^(?:\\b|\^|\(\?<[!=](?:\\.|[^)\\])*\))+")
_WORD_GROUP = re.compile(r"^(?:\\b)*\(\?:([a-z0-9 |-]+)\)")


def _prefixes(branch: str) -> list[str]:
    """The literal texts a match of one alternative can start with ('' when it has none)."""
    group = _WORD_GROUP.match(branch)
    if group is None:
        return [_prefix(branch)]
    rest = branch[group.end() :]
    return [_prefix(word + rest) for word in group.group(1).split("|")]


_GROUPS = re.compile(r"\([^()]*\)|\[[^\]]*\]|\\.")
_OPTIONAL = re.compile(r"[a-z0-9][?*]|\{[^}]*\}")


def _inner_literal(branch: str) -> str:
    """The longest run of three letters or more after a space that every match of one alternative
    contains (a word's start), outside its groups, classes and optional letters ('' when none)."""
    previous = None
    while previous != branch:
        previous, branch = branch, _GROUPS.sub("\0", branch)
    runs = re.findall(r"(?<= )[a-z0-9]{3,}", _OPTIONAL.sub("\0", branch))
    return max(runs, key=len, default="")


def _needles(pattern: str) -> tuple[str, ...] | None:
    """Literal texts one of which every match contains, or None when some alternative has none."""
    found: list[str] = []
    for branch in alternatives(pattern):
        starts = _prefixes(_LOOKBEHINDS.sub("", branch))
        found += [_inner_literal(branch)] if "" in starts else starts
    return None if "" in found else tuple(dict.fromkeys(found))


def _needs_context(pattern: str) -> bool:
    """Does the phrase look around itself, or has it an alternative the index cannot start?"""
    return _LOOKAROUND.search(pattern) is not None or any("" in _prefixes(b) for b in alternatives(pattern))


# phrase → the literal texts one of which it needs (None: searched in every text)
IN_CONTEXT: dict[int, tuple[str, ...] | None] = {
    p.id: _needles(p.pattern.pattern) for p in _LATIN_PHRASES if _needs_context(p.pattern.pattern)
}
# A phrase searched in context is searched only in a text with a word that starts one of its literal
# texts (every alternative starts a word with one, after the lookbehinds): the word index says so.
_CONTEXT_STARTS: dict[str, tuple[tuple[str, int], ...]] = {}
for _pid, _needles_of in IN_CONTEXT.items():
    for _needle in _needles_of or ():
        _CONTEXT_STARTS[_needle[:1]] = (*_CONTEXT_STARTS.get(_needle[:1], ()), (_needle, _pid))


def _inside_literal(pattern: str) -> str:
    """The longest run of three letters or more that every match of the phrase contains somewhere
    (not only at a word's start), outside groups, classes and optional letters ('' when none)."""
    found = []
    for branch in alternatives(pattern):
        previous = None
        while previous != branch:
            previous, branch = branch, _GROUPS.sub("\0", branch)
        found.append(max(re.findall(r"[a-z0-9]{3,}", _OPTIONAL.sub("\0", branch)), key=len, default=""))
    return "" if "" in found or len(set(found)) > 1 else found[0]


# A phrase no word start can find ("…bench" inside one word) is searched in every text that
# contains its literal core, if it has one (a substring test first: most texts do not).
_SEARCHED_ALWAYS = tuple(
    (pid, _inside_literal(PHRASES[pid].pattern.pattern)) for pid, needles in IN_CONTEXT.items() if needles is None
)

_STARTS: dict[str, tuple[tuple[str, int], ...]] = {}
for _phrase in _LATIN_PHRASES:
    if _phrase.id in IN_CONTEXT:
        continue
    for _branch in alternatives(_phrase.pattern.pattern):
        for _start in _prefixes(_branch):
            _STARTS[_start[:1]] = (*_STARTS.get(_start[:1], ()), (_start, _phrase.id))

# raw word → (its ``w:`` feature and folded form unless a stop word, its ``n:`` feature (as a name
# word), its ``c:`` features (Chinese/Japanese/Korean text), the phrases found in the word alone as
# (feature, text), the phrases that may start at it and need the following words to tell, the
# phrases searched in context that it may start)
_Entry = tuple[
    str | None,
    str | None,
    str | None,
    tuple[str, ...],
    tuple[tuple[str, str], ...],
    tuple[tuple[int, tuple[str, ...]], ...],
    tuple[int, ...],
]
_WORD_CACHE: dict[str, _Entry] = {}


def _word(raw: str) -> _Entry:
    if raw[0] >= _CJK_START:
        cjk = tuple("c:" + raw[j : j + 2] for j in range(max(1, len(raw) - 1)))
        in_run = tuple((key, text) for key, text in _CJK_PHRASES if text in raw)
        found: _Entry = (None, None, None, cjk, in_run, (), ())
    else:
        folded = singular(raw)
        prefixes: dict[int, list[str]] = {}
        for prefix, pid in _STARTS.get(raw[0], ()):
            if raw.startswith(prefix) or (prefix.startswith(raw) and prefix[len(raw)] == " "):
                prefixes.setdefault(pid, []).append(prefix)
        alone = {pid: PHRASES[pid].pattern.match(raw) for pid in sorted(prefixes)}
        hits = tuple((f"k:{pid}", m.group(0)) for pid, m in alone.items() if m)
        # A phrase that needs the following words can only match a window that starts with the
        # literal text of one of its alternatives: that test is far cheaper than the expression.
        longer = tuple((pid, tuple(prefixes[pid])) for pid, m in alone.items() if not m)
        context = tuple(
            sorted(
                {
                    pid
                    for needle, pid in _CONTEXT_STARTS.get(raw[0], ())
                    if raw.startswith(needle) or (needle.startswith(raw) and needle[len(raw)] == " ")
                }
            )
        )
        stop = folded in STOP_WORDS or raw in STOP_WORDS
        found = (
            (None, None, None, (), hits, longer, context)
            if stop
            else ("w:" + folded, folded, "n:" + folded, (), hits, longer, context)
        )
    if len(_WORD_CACHE) >= _CACHE_LIMIT:
        _WORD_CACHE.clear()
    _WORD_CACHE[raw] = found
    return found


_ANY: dict[tuple[tuple[int, tuple[str, ...]], ...], re.Pattern[str]] = {}


def _any_of(longer: tuple[tuple[int, tuple[str, ...]], ...]) -> re.Pattern[str]:
    """One expression that matches where any of these phrases matches (cached per set of phrases)."""
    found = _ANY[longer] = re.compile("|".join(f"(?:{PHRASES[pid].pattern.pattern})" for pid, _ in longer))
    return found


def _segment(raws: list[str], entries: list[_Entry], feats: list[str], surfaces: dict[str, str]) -> list[str]:
    """Adds the words' features to ``feats`` and the phrases found to ``surfaces``; returns the
    folded words (stop words left out), for the bigrams."""
    words: list[str] = []
    add_feature, add_word = feats.append, words.append
    wanted: set[int] = set()
    for i, (feat, folded, _, cjk, hits, longer, context) in enumerate(entries):
        if context:
            wanted.update(context)
        if folded:
            add_feature(feat)  # type: ignore[arg-type]
            add_word(folded)
        elif cjk:
            feats += cjk
        if hits:
            for key, found in hits:
                if key not in surfaces:
                    surfaces[key] = found
        if longer:
            window = " ".join(raws[i : i + WINDOW])
            # Most windows match none of the phrases: one combined expression says so in one call.
            if not (_ANY.get(longer) or _any_of(longer)).match(window):
                continue
            for pid, starts in longer:
                if not window.startswith(starts):
                    continue
                match = PHRASES[pid].pattern.match(window)
                if match:
                    key = _PHRASE_KEY[pid]
                    if key not in surfaces:
                        surfaces[key] = match.group(0).strip()
    joined = " ".join(raws) if raws else ""
    for pid, core in _SEARCHED_ALWAYS:
        if core in joined:
            wanted.add(pid)
    if wanted and raws:
        for pid in wanted:
            match = PHRASES[pid].pattern.search(joined)
            if match:
                key = _PHRASE_KEY[pid]
                if key not in surfaces:
                    surfaces[key] = match.group(0).strip()
    return words


# The taxonomy's tie-break rules that wording can show, as features the model weighs (name: what a
# maker is told, in words (classify.reasons), pattern over the lower-case name and description, how
# far into it to look, and text one of which a match must contain: a cheap test first).
RULES: dict[str, tuple[str, re.Pattern[str], int, tuple[str, ...]]] = {
    "coding-agent": (
        RULE_WORDS["coding-agent"],
        re.compile(r"(?<!for )(?<!for ai )\b(?:coding|code|swe|programming|software[- ]engineering|dev) agents?\b"),
        200,
        (" agent",),
    ),
    "for-coding-agents": (
        RULE_WORDS["for-coding-agents"],
        re.compile(r"\bfor (?:\w+ )?(?:coding|code|swe) agents?\b"),
        1000,
        ("for ",),
    ),
    "for-agents": (
        RULE_WORDS["for-agents"],
        re.compile(r"\b(?:for|to) (?:ai |llm |your |autonomous )?agents\b"),
        1000,
        ("agents",),
    ),
    "multi-agent-first": (
        RULE_WORDS["multi-agent-first"],
        re.compile(r"multi[- ]?agents?|\bswarms?\b|\bcrews?\b|agent teams?|teams of agents"),
        60,
        ("multi", "swarm", "crew", "team"),
    ),
    "framework-first": (
        RULE_WORDS["framework-first"],
        re.compile(r"^(?:\S+ ){0,7}(?:framework|sdk|library|toolkit|package)\b"),
        120,
        ("framework", "sdk", "librar", "toolkit", "package"),
    ),
    "list-of-links": (
        RULE_WORDS["list-of-links"],
        re.compile(
            r"\b(?:list of|curated|collection of|tutorials?|courses?|cookbook|examples? of|workshops?|lessons|handbook"
            r"|sample code|notebooks|cheat ?sheets?|demos|explained|best practices)\b"
            r"|教程|指南|资源|大全|合集|清单|列表|课程|电子书|学习路线|面试|笔记|导航|提示词|精选|入门|解读"
        ),
        120,
        (
            "list of",
            "curated",
            "collection",
            "tutorial",
            "course",
            "cookbook",
            "example",
            "workshop",
            "lesson",
            "handbook",
            "sample code",
            "notebook",
            "cheat",
            "demos",
            "explained",
            "best practice",
            *"教指资大合清列课电学面笔导提精入解",
        ),
    ),
}


def _word_first(words: tuple[str, ...], before: tuple[str, ...], rest: str) -> str:
    """``\\b(?:w1|w2…)<rest>`` (``before`` none of the look-behind texts) rewritten so that a match
    starts with a letter: each word first, then its boundary and look-behinds looked back on. The
    regex engine then skips straight to the letters the words start with (two to three times faster)."""
    return "|".join(f"{w}(?<!\\w{w})" + "".join(f"(?<!{b}{w})" for b in before) + rest for w in words)


# The same matches found faster, for the patterns above as they are written today (a rule whose
# pattern changes is searched with its own pattern; tests/test_classify_model.py compares the two).
FASTER_RULES: dict[str, re.Pattern[str]] = {
    r"(?<!for )(?<!for ai )\b(?:coding|code|swe|programming|software[- ]engineering|dev) agents?\b": re.compile(
        _word_first(
            ("coding", "code", "swe", "programming", "software[- ]engineering", "dev"),
            ("for ", "for ai "),
            r" agents?\b",
        )
    ),
    r"\bfor (?:\w+ )?(?:coding|code|swe) agents?\b": re.compile(
        _word_first(("for",), (), r" (?:\w+ )?(?:coding|code|swe) agents?\b")
    ),
    r"\b(?:for|to) (?:ai |llm |your |autonomous )?agents\b": re.compile(
        _word_first(("for", "to"), (), r" (?:ai |llm |your |autonomous )?agents\b")
    ),
}


def _searched_with(pattern: re.Pattern[str]) -> re.Pattern[str]:
    faster = FASTER_RULES.get(pattern.pattern)
    return faster if faster is not None and faster.flags == pattern.flags else pattern


# The rules as the tests run them: (feature, pattern, reach, needs).
_RULE_TESTS = tuple(
    ("r:" + key, _searched_with(pattern), reach, needs) for key, (_, pattern, reach, needs) in RULES.items()
)


def _rules(text: str, feats: list[str]) -> None:
    for feature, pattern, reach, needs in _RULE_TESTS:
        head = text[:reach] if len(text) > reach else text
        for need in needs:
            if need in head:
                if pattern.search(head):
                    feats.append(feature)
                break


_TOPIC_CACHE: dict[str, tuple[list[str], tuple[tuple[str, str], ...]]] = {}


def _topic(topic: str) -> tuple[list[str], tuple[tuple[str, str], ...]]:
    """A topic's indicator, its words and the phrases in them, cached (topics repeat a lot)."""
    feats = ["t:" + topic]
    surfaces: dict[str, str] = {}
    raws = _RAW.findall(split_name(topic))
    _segment(raws, [_WORD_CACHE.get(r) or _word(r) for r in raws], feats, surfaces)
    if len(_TOPIC_CACHE) >= _CACHE_LIMIT:
        _TOPIC_CACHE.clear()
    found = _TOPIC_CACHE[topic] = (feats, tuple(surfaces.items()))
    return found


_PHRASE_KEY = tuple(f"k:{p.id}" for p in PHRASES)
_KEY_CATEGORY = {f"k:{p.id}": p.category for p in PHRASES}
# category → its ``kc:`` features for 1, 2 and 3 phrases
_COUNTED = {c: tuple(f"kc:{c}:{k}" for k in range(1, 4)) for c in CATEGORY_IDS}


def featurize(repo: RepoText) -> tuple[list[str], dict[str, str]]:
    """The repo's features (a word said twice counts twice) and, per keyword feature, the text
    that matched it (for the reasons shown to makers)."""
    feats: list[str] = []
    surfaces: dict[str, str] = {}
    cache = _WORD_CACHE
    name = split_name(repo.name)
    raws = _RAW.findall(name)
    entries = [cache.get(r) or _word(r) for r in raws]
    feats += [entry[2] for entry in entries if entry[2]]
    words = _segment(raws, entries, feats, surfaces)
    if len(words) > 1:
        feats += [f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    description = repo.description[:MAX_DESCRIPTION].lower()
    raws = _RAW.findall(description)
    words = _segment(raws, [cache.get(r) or _word(r) for r in raws], feats, surfaces)
    if len(words) > 1:
        feats += [f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    _rules(name + " " + description, feats)
    topic_cache = _TOPIC_CACHE
    for topic in repo.topics:
        own, hits = topic_cache.get(topic) or _topic(topic)
        feats += own
        for key, text in hits:
            if key not in surfaces:
                surfaces[key] = text
    if surfaces:
        counts: dict[str, int] = {}
        for key in surfaces:
            category = _KEY_CATEGORY[key]
            counts[category] = counts.get(category, 0) + 1
        feats += surfaces
        for category, n in counts.items():
            feats += _COUNTED[category][:n]
    return feats, surfaces


# Feature name prefix → block.
BLOCKS = ("words", "name", "topics", "keywords")
_BLOCK_OF = {"w": 0, "b": 0, "c": 0, "n": 1, "t": 2, "k": 3, "kc": 3, "r": 3}


def block_of(feature: str) -> int:
    return _BLOCK_OF[feature.split(":", 1)[0]]


def describe(feature: str, surfaces: dict[str, str]) -> tuple[str, str] | None:
    """(kind, text) of a feature as a maker would recognise it, or None for the counting features."""
    kind, _, text = feature.partition(":")
    if kind == "k":
        return ("phrase", surfaces.get(feature, ""))
    if kind == "r":
        return ("rule", RULES[text][0])
    return {
        "w": ("word", text),
        "b": ("words", text),
        "c": ("text", text),
        "n": ("name", text),
        "t": ("topic", text),
    }.get(kind)


def lexicon_category(name: str, description: str | None, topics: list[str]) -> str | None:
    """The category settled by topics or name, else the one with the most keyword hits (None if none)."""
    repo = RepoText(name, description or "", tuple(t.lower() for t in topics))
    settled = settling_categories(repo)
    if settled:
        return settled[0]
    _, surfaces = featurize(repo)
    counts = [0] * len(CATEGORY_IDS)
    for key in surfaces:
        counts[CATEGORY_IDS.index(PHRASES[int(key[2:])].category)] += 1
    best = max(range(len(counts)), key=lambda i: (counts[i], -i))
    return CATEGORY_IDS[best] if counts[best] else None
