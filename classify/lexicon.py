"""What the project knows about categories before any training: settling topics and keywords.

Two kinds of knowledge enter the classifier from here:

- **Settling topics.** A maker who tags a repo ``awesome-list`` or ``coding-agent`` has told us
  what it is. Such a topic multiplies the probability of its category by ``TOPIC_BOOST`` once
  the model has spoken, so it wins unless the text argues hard against it (a memory layer *for*
  coding agents tagged ``coding-agent`` can still be ``memory``). Resources topics and an ``awesome-`` name are
  final: a list of links is ``resources`` whatever its subject.
- **Keywords.** Per category, phrases that point to it (``text-to-sql``, ``pentest``,
  ``drag and drop``). The classifier gets, per category, how many of its phrases the name,
  description and topics contain, and one feature per phrase: it generalises to wording its
  training data lacks, while the training data decides how much each phrase counts.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from classify.categories import CATEGORY_IDS
from classify.text import CJK_CHARACTERS, MAX_DESCRIPTION, RepoText, rule_text

# Topic → category. Only topics that say on their own what a repo is belong here. Not here: speech
# topics (`tts`, `speech-recognition`, …: speech models and toolkits are `other`, voice I/O for
# agents `voice`) and `data-science` / `data-visualization` (mostly libraries and courses).
TOPIC_LEXICON: dict[str, str] = {
    "awesome": "resources",
    "awesome-list": "resources",
    "awesome-lists": "resources",
    "tutorial": "resources",
    "tutorials": "resources",
    "course": "resources",
    "courses": "resources",
    "cookbook": "resources",
    "examples": "resources",
    "curated-list": "resources",
    "prompt-collection": "resources",
    "paper-list": "resources",
    "survey": "resources",
    "learning-resources": "resources",
    "roadmap": "resources",
    "coding-agent": "coding",
    "coding-agents": "coding",
    "code-generation": "coding",
    "ai-coding": "coding",
    "coding-assistant": "coding",
    "code-review": "coding",
    "software-engineering-agent": "coding",
    "ai-coding-assistant": "coding",
    "vibe-coding": "coding",
    "code-assistant": "coding",
    "ai-ide": "coding",
    "agent-simulation": "multi-agent",
    "role-playing": "multi-agent",
    "agent-collaboration": "multi-agent",
    "computer-use": "computer-use",
    "browser-automation": "computer-use",
    "browser-use": "computer-use",
    "gui-agent": "computer-use",
    "web-agent": "computer-use",
    "mobile-agent": "computer-use",
    "computer-use-agent": "computer-use",
    "browser-agent": "computer-use",
    "desktop-automation": "computer-use",
    "deep-research": "research",
    "research-agent": "research",
    "research-assistant": "research",
    "ai-research-assistant": "research",
    "ai-scientist": "research",
    "personal-assistant": "assistant",
    "autogpt": "assistant",
    "auto-gpt": "assistant",
    "babyagi": "assistant",
    "personal-ai": "assistant",
    "general-agent": "assistant",
    "manus": "assistant",
    "workflow-automation": "workflow",
    "no-code": "workflow",
    "low-code": "workflow",
    "nocode": "workflow",
    "lowcode": "workflow",
    "visual-programming": "workflow",
    "workflow-engine": "workflow",
    "text-to-sql": "data",
    "text2sql": "data",
    "nl2sql": "data",
    "data-analysis": "data",
    "business-intelligence": "data",
    "data-analytics": "data",
    "chatbot": "chat",
    "chat-ui": "chat",
    "customer-support": "chat",
    "chatbot-ui": "chat",
    "chatgpt-clone": "chat",
    "customer-service": "chat",
    "live-chat": "chat",
    "chat-with-pdf": "chat",
    "voice-agent": "voice",
    "voice-assistant": "voice",
    "voice-ai": "voice",
    "voice": "voice",
    "telephony": "voice",
    "voice-agents": "voice",
    "long-term-memory": "memory",
    "vector-database": "memory",
    "agent-memory": "memory",
    "memory-layer": "memory",
    "vector-search": "memory",
    "graphrag": "memory",
    "vector-db": "memory",
    "mcp-server": "infrastructure",
    "mcp-servers": "infrastructure",
    "sandbox": "infrastructure",
    "guardrails": "infrastructure",
    "ai-gateway": "infrastructure",
    "llm-gateway": "infrastructure",
    "structured-output": "infrastructure",
    "benchmark": "evaluation",
    "evaluation": "evaluation",
    "observability": "evaluation",
    "llm-evaluation": "evaluation",
    "llm-observability": "evaluation",
    "evals": "evaluation",
    "tracing": "evaluation",
    "benchmarks": "evaluation",
    "red-teaming": "evaluation",
    "penetration-testing": "other",
    "robotics": "other",
    "ros": "other",
    "ros2": "other",
    "minecraft": "other",
    "autonomous-driving": "other",
    "self-driving": "other",
    "pentesting": "other",
}

# Categories whose settling topic is final rather than a strong hint.
FINAL_CATEGORIES = frozenset({"resources"})
TOPIC_BOOST = 8.0
FINAL_BOOST = 1e4
_AWESOME_NAME = re.compile(r"^awesome(?:$|[-_ .]|[A-Z])", re.I)

# Category → phrases (regular expressions, matched case-insensitively in lower-case text) that point to it.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "coding": (
        r"\bcod(?:ing|er|ers)\b",
        r"\bcodebases?\b",
        r"\bpull requests?\b",
        r"\bide\b|\bvs ?code\b|\bneovim\b|\bjetbrains\b",
        r"\bcode (?:editor|generation|review|completion|assistant|changes|agent)",
        r"\bsoftware (?:engineer|development|developer)",
        r"\bpair[- ]programm",
        r"\bcopilot\b",
        r"\bdebug(?:s|ging)?\b",
        r"\brefactor",
        r"\bunit tests?\b|\btdd\b|\btest[- ]driven\b|\b(?:fix|fixes|fixing|repairs?|repairing) (?:\w+ ){0,2}tests\b",
        r"\b(?:software |code )?development tasks\b|\bgitlab\b|\bmerge requests?\b",
        r"\bgithub issues?\b",
        r"\bdevin\b|\bcursor\b|\bclaude code\b|\bcodex\b",
        r"\bfull[- ]stack\b|\bweb apps?\b",
        r"\bwrites? (?:the )?code\b|\bcode for you\b|\bgenerates? code\b"
        r"|\b(?:writes?|writing|generates?|generating) (?:\w+ ){1,3}code\b",
        # what an app developer works on: "React Native apps", "Next.js pages", "a Rails app",
        # designs turned into code, docstrings
        r"\b(?:react(?: native)?|next\.?js|vue(?:\.?js)?|svelte|angular|flutter|django|rails|laravel|spring boot)"
        r" (?:apps?|applications?|pages?|components?|projects?|codebases?)\b",
        r"\bfigma\b|\b(?:designs?|mockups?|screenshots?|ui) (?:in)?to code\b|\bdocstrings?\b",
        r"\bdevelopers?\b",
        r"\bprogrammer\b",
        # (not "programming LLMs", "programming, not prompting, foundation models": a framework's)
        r"\bswe\b|\bprogramming\b(?! (?:not \w+ )?(?:llms?|language models?|foundation models?|models?)\b)",
        r"\bterminal\b|\btui\b",
        r"\bcode interpreters?\b",
        r"\bdevops\b|\bsre\b",
        r"\bgit\b|\bworktrees?\b|\bcommits?\b|\b(?:your|working|whole|entire|full) (?:code ?)?(?:repos?|repositor(?:y|ies))\b|\brepo[- ]level\b",
        r"\bsmart contracts?\b|\bsolidity\b",
        r"\bgemini cli\b|\baider\b|\bopencode\b|\bcline\b",
    ),
    "framework": (
        r"\bframeworks?\b",
        r"\bsdks?\b",
        r"\blibrar(?:y|ies)\b",
        r"\btoolkit\b",
        r"\bbuild(?:ing)? (?:\w+ ){0,2}agents\b",
        r"\bagent (?:framework|sdk|development)",
        r"\bfew lines of code\b",
        r"\bpython (?:library|framework|sdk)|\btypescript (?:library|framework|sdk)|\bjava (?:library|framework|sdk)"
        r"|\bgolang (?:library|framework|sdk)|\brust (?:library|framework|sdk)|\bc# (?:library|framework|sdk)",
        r"\bagentic (?:apps|applications)\b",
        r"\bllm (?:apps|applications|powered applications)\b",
        r"\bproduction[- ]ready\b",
        r"\bcomposable\b|\bmodular\b",
        r"\bdevelopers? to build\b",
        r"\bprogrammatic",
        r"\btype[- ]safe\b",
    ),
    "multi-agent": (
        r"\bmulti[- ]?agents?\b",
        r"\bswarms?\b",
        r"\bcrews?\b",
        r"\brole[- ]?playing\b",
        r"\bagent (?:teams?|societ(?:y|ies)|collaboration|networks?)\b",
        r"\bteams? of (?:\w+ )?agents\b",
        r"\bcollaborat",
        r"\bsimulat(?:ion|e|es|or|ing)\b",
        r"\bsociet(?:y|ies)\b|\bsocial\b",
        r"\bmultiple (?:\w+ )?agents\b|\bseveral (?:\w+ )?agents\b|\bmany (?:\w+ )?agents\b"
        r"|\bspeciali[sz]\w* (?:\w+ )?agents\b|\bhundreds of (?:\w+ )?agents\b|\bthousands of (?:\w+ )?agents\b",
        r"\bagents? (?:that )?(?:debate|converse|communicate|cooperate)\b",
        r"\bhand ?offs?\b|\bdelegat",
        r"\bhierarch",
        r"\bcommunicative\b|\bpersonas?\b",
        r"\bsub[- ]?agents?\b|\bsupervisor\b",
        r"\bcharacters?\b|\bresidents?\b|\bcitizens?\b|\bvillagers?\b|\btowns?\b|\bvillages?\b|\bcivili[sz]ations?\b",
        r"\bworkforce\b|\bemployees?\b|\bvirtual compan(?:y|ies)\b",
        r"\bconsensus\b|\bvot(?:e|es|ing)\b",
    ),
    "computer-use": (
        r"\bbrowsers?\b",
        r"\bweb (?:automation|(?:ai |llm )?agents?|browsing|navigation|interaction|pages?)\b",
        r"\bcomputer[- ]use\b|\bcomputer control\b"
        r"|\b(?:operat\w*|uses?|using|control\w*) (?:a |the |your )?(?:computers?|desktops?|phones?|smartphones?|os)\b",
        # OpenAI's Operator is a browser agent; "an open-source Operator" names the category.
        r"\bopenai(?:'s)? operator\b|\boperator (?:alternative|clone)\b",
        r"\bgui\b|\bui automation\b|\bscreens?(?:hots?)?\b",
        r"\bmouse\b|\bkeyboard\b|\bclicks?\b",
        r"\bplaywright\b|\bpuppeteer\b|\bselenium\b|\bchrome\b|\bcdp\b|\bdom\b|\bheadless\b",
        r"\bandroid\b|\bios\b|\bsmartphones?\b|\bmobile (?:apps?|devices?|agents?|phones?)\b",
        r"\brpa\b",
        r"\bwebsites?\b",
        r"\bvision[- ](?:based|driven|first|language)\b",
        r"\bdesktop (?:apps?|automation|agents?)\b|\b(?:mac|macos|windows) (?:apps?|applications)\b",
    ),
    "research": (
        r"\bdeep[- ]?research\b",
        r"\bresearch(?:er|es|ing)?\b",
        r"\breports?\b",
        r"\bcit(?:ations?|ed|es)\b",
        r"\bsearch engines?\b|\bweb search\b|\bperplexity\b|\banswer(?:ing)? engine",
        r"\bscien(?:ce|tific|tists?)\b",
        r"\bpapers?\b|\barxiv\b|\bliterature\b",
        r"\binformation[- ]seeking\b",
        r"\bknowledge curation\b",
        r"\binvestigat",
        r"\bsynthes",
        r"\bnotebooklm\b",
        r"\bdiscovery\b",
    ),
    "assistant": (
        r"\bpersonal (?:ai )?(?:assistant|agent|ai)\b",
        r"\bassistants?\b",
        r"\bautonomous(?:ly)?\b",
        r"\bgeneral[- ]purpose\b|\bgeneralist\b",
        r"\bauto-?gpt\b|\bbabyagi\b|\bagi\b|\bmanus\b|\bjarvis\b",
        r"\btasks? (?:for you|on your behalf)\b|\bcomplet\w* tasks?\b|\bexecut\w* (?:your |complex )?tasks?\b",
        r"\bsecond brain\b",
        r"\bemails?\b|\bcalendars?\b",
        r"\btelegram\b|\bwhatsapp\b|\bimessage\b",
        r"\bdaemon\b|\balways[- ]on\b",
        r"\bgoals?\b",
        r"\bfor you\b|\byour own\b|\bgrows? with you\b",
        r"\bself[- ]improving\b|\bself[- ]evolving\b",
    ),
    "workflow": (
        r"\bworkflows?\b",
        r"\bno[- ]?code\b|\blow[- ]?code\b",
        r"\bvisual(?:ly)?\b|\bdrag[- ](?:and|&|n)[- ]drop\b|\bcanvas\b",
        r"\bautomation platform\b|\bprocess automation\b|\bzapier\b|\bifttt\b",
        r"\bintegrations\b",
        r"\bbuilder\b",
        r"\borchestrat\w* (?:platform|engine)\b",
        r"\bpipelines?\b",
        r"\bflows?\b",
        r"\bplatform\b",
        r"\bwithout cod(?:e|ing)\b",
        r"\bbusiness process",
        r"\bdeploy\w* (?:ai )?agents\b",
    ),
    "data": (
        r"\bdata (?:analysis|analytics|science|scientists?|exploration|visuali[sz]ation|analyst|discovery|tasks?)\b",
        r"\btext[- ]?(?:to|2)[- ]?sql\b|\bnl2sql\b|\bsql\b",
        r"\bdatabases?\b|\bdata warehouse\b",
        r"\bpandas\b|\bdataframes?\b|\bspreadsheets?\b|\bcsvs?\b|\bexcel\b",
        r"\bbi\b|\bbusiness intelligence\b|\bdashboards?\b",
        r"\bcharts?\b|\bvisuali[sz]ations?\b",
        r"\bmachine learning engineer|\bkaggle\b|\bml engineering\b|\bautoml\b",
        r"\byour data\b|\bstructured data\b",
        r"\banalytics?\b|\banaly[sz]e\b|\binsights?\b",
        r"\bquer(?:y|ies)\b",
    ),
    "chat": (
        r"\bchat(?:bots?|s)?\b",
        r"\bchat (?:ui|interface|app|client|front[- ]?end)\b|\bchatgpt (?:clone|alternative)\b",
        r"\bcustomer (?:support|service|engagement|experience)\b|\bhelp ?desk\b|\bsupport (?:agent|bot)s?\b",
        r"\bconversational\b|\bconversations?\b",
        r"\bchat with (?:your )?(?:docs|documents|pdfs?|files|notes|knowledge)\b",
        r"\bfront[- ]?end\b|\bweb ?ui\b|\binterface\b|\bclients?\b",
        r"\bwechat\b|\bfeishu\b|\bdingtalk\b|\bqq\b|\bdiscord\b|\bslack\b",
        r"\bhr\b|\bsales\b|\bcrm\b",
        r"\bquestions?\b|\bq ?& ?a\b|\banswers? questions\b",
        r"\bself[- ]hosted\b",
        r"\bollama\b|\blocal (?:llms?|models?)\b",
        r"\broleplay\b|\bcompanion\b",
    ),
    "voice": (
        r"\bvoices?\b",
        r"\bspeech\b|\bspoken\b|\bspeak(?:s|ing)?\b|\btalk(?:s|ing)?\b",
        r"\bstt\b|\btts\b|\basr\b",
        r"\btext[- ]to[- ]speech\b|\bspeech[- ]to[- ](?:text|speech)\b|\btranscri",
        r"\bphones?\b|\bcalls?\b|\btelephony\b|\btwilio\b|\bsip\b",
        r"\baudio\b|\bmicrophone\b",
        r"\breal[- ]?time\b|\blow[- ]latency\b",
        r"\bwebrtc\b",
        r"\bdictation\b|\bbarge[- ]in\b|\bvad\b",
        r"\bfull[- ]duplex\b|\bturn[- ]taking\b",
        r"\bhear\b|\blisten",
        r"\bsmart speaker\b|\bwake word\b",
    ),
    "memory": (
        # memory as what agents remember, not a computer's (usage, efficiency, leaks, GPU memory)
        r"(?<!gpu )(?<!cpu )\bmemor(?:y|ies)\b(?![- ](?:usage|efficient|efficiency|footprint|leaks?|profil"
        r"|safe|safety|bandwidth|allocat|consumption|limits?\b|bound|intensive|mapped|pressure))|\bremember",
        r"\bknowledge (?:graphs?|bases?)\b",
        r"\brag\b|\bretrieval\b|\bgraphrag\b",
        r"\bvector (?:database|db|store|search|index)\b|\bembeddings?\b|\bsemantic search\b|\bsimilarity search\b",
        r"\bcontext (?:engine|layer|management|engineering)\b",
        r"\blong[- ]term\b|\bpersistent\b|\bstateful\b",
        r"\brecall\b",
        r"\bpersonali[sz]",
        r"\bindex(?:ing|es)?\b",
        r"\bcontext windows?\b",
    ),
    "infrastructure": (
        r"\bmcp\b|\bmodel context protocol\b",
        r"\bsandbox(?:es|ed)?\b|\bisolat\w*\b|\bmicro-?vms?\b|\bcontainers?\b",
        r"\bguardrails?\b|\bsecurity\b|\bpolic(?:y|ies)\b|\bgovernance\b"
        r"|\bpermissions?\b|\bauthori[sz]ation\b|\bidentity\b",
        r"\bprompt injection\b",
        r"\bgateway\b|\bproxy\b|\brout(?:er|ing)\b|\bcontrol plane\b",
        r"\bprotocols?\b",
        r"\btools?\b|\bfunction[- ]calling\b|\btool[- ]calling\b|\btool use\b",
        r"\bscrap(?:e|er|ers|ing)\b|\bcrawl",
        r"\bdeploy(?:ment|ing)?\b|\bruntimes?\b|\binfrastructure\b|\bkubernetes\b|\bserverless\b|\bhosting\b",
        r"\bstructured (?:outputs?|generation|data extraction)\b",
        r"\bpdfs?\b|\bdocuments? pars|\bmarkdown\b|\bocr\b",
        r"\bapis?\b",
        r"\bserver\b",
        r"\bexecut\w* (?:ai[- ]generated |untrusted )?code\b",
        r"\bsafe(?:ly|ty)?\b",
        r"\bauth\b|\boauth\b|\bcredentials?\b|\bsecrets?\b",
        r"\bschemas?\b|\bjson\b",
        r"\baudit\w*\b|\bsigned\b|\bsignatures?\b|\bencrypt\w*\b|\btamper",
        r"\bmarketplace\b|\bpayments?\b|\bescrow\b|\bbilling\b",
        r"\bregistry\b",
        r"\bassistants api\b",
    ),
    "evaluation": (
        r"\bbenchmark\w*\b|\bbench\b",
        r"\beval(?:s|uat\w*)?\b",
        r"\bobservability\b|\bmonitor\w*\b|\btrac(?:e|es|ing)\b",
        r"\btelemetry\b|\bopentelemetry\b|\blogging\b",
        r"\btest(?:s|ing)?\b|\bqa\b|\bred[- ]team",
        r"\bgym\b|\benvironments?\b|\barena\b",
        r"\bleaderboard\b",
        r"\bcosts?\b|\blatency\b|\btokens?\b|\bmetrics\b",
        r"\bdebug(?:ging)?\b|\bllmops\b",
        r"\bmeasur\w*\b|\bscor(?:e|es|ing)\b|\bassess",
        r"\bregression\b|\bexperiments?\b|\breplay\b",
        r"\brl\b|\breinforcement learning\b|\brewards?\b",
        # a benchmark named as one word: "AgentBench", "SWEBench" (a workbench is a tool, not one)
        r"\b(?!work)[a-z]{2,}bench\b",
    ),
    "resources": (
        r"\bawesome\b",
        r"\bcurated\b|\blists?\b|\bcollection of\b|\bcollected\b|\bcompilation\b",
        r"\btutorials?\b|\bcourses?\b|\blessons?\b|\bcurriculum\b|\bguides?\b|\bhandbook\b",
        r"\bbooks?\b|\bcookbooks?\b|\brecipes?\b|\bexamples?\b|\bnotebooks?\b",
        r"\bsurvey\b|\breading list\b|\bpaper list\b",
        r"\bprompts\b|\bsystem prompts?\b|\bprompt (?:collection|library|engineering)\b",
        r"\blearn(?:ing)?\b|\bbeginners?\b|\beducational\b",
        r"\bresources\b|\broadmaps?\b|\bcheat ?sheets?\b",
        r"\bprinciples\b|\bbest practices\b|\bpatterns\b",
        r"\bfrom scratch\b|\bstep by step\b",
        r"\buse cases\b|\bprojects\b|\bideas\b",
        r"\bbootcamps?\b|\b(?:course|teaching|learning|study) (?:materials?|notes)\b|\binterview questions\b"
        r"|\bquestions and answers\b|\breference implementations?\b|^\W*(?:my |our )?experiments (?:with|on|in)\b",
    ),
    "other": (
        r"\bfinanc\w*\b|\btrad(?:ing|ers?)\b|\bstocks?\b|\bhedge fund\b|\bportfolio (?:manag\w*|optimi[sz]\w*|rebalanc\w*)\b|\binvest(?:ing|ors?|ments?|s|ed)?\b|\bquants?\b",
        r"\bcrypto(?:s|currenc(?:y|ies))?\b|\bbitcoin\b|\bblockchain\b|\bweb3\b|\bdefi\b"
        r"|\bsolana\b|\bethereum\b|\bwallets?\b|\bon-?chain\b",
        r"\bpenetration\b|\bpentest\w*\b|\bcybersecurity\b|\bhack(?!toberfest|athon|able|er ?news)\w*\b|\bvulnerabilit\w*\b|\bvulnerable\b|\boffensive\b|\bctf\b",
        r"\bgames?\b(?![- ]chang)|\bgaming\b|\bgameplay\b|\bminecraft\b|\bpok[eé]mon\b|(?<!multi-)(?<!multi )\bplayers?\b|\bunity\b"
        # games named by title, without the word "game" ("an agent for Street Fighter II")
        r"|\bstreet ?fighter\b|\bmario\b|\btetris\b|\bchess\b|\bpoker\b|\bstarcraft\b|\bdota\b|\batari\b"
        r"|\bzelda\b|\bfortnite\b|\bcounter-?strike\b|\bgta ?(?:v|5|iv)?\b|\bsokoban\b|\bmahjong\b",
        r"\beducation\w*\b|\btutor(?:s|ing|ed)?\b|\bstudents?\b|\bteach(?:ers?|ing)\b",
        r"\bmedic\w*\b|\bhealth(?:care|y)?\b(?![- ]?checks?)|\bclinic\w*\b|\btherap\w*\b|\bdoctors?\b|\bpatients?\b",
        r"\bjob[- ](?:search\w*|hunt\w*|seekers?|applications?|applier|postings?|boards?|offers?|market|listings?|agents?|matching)\b"
        r"|\bfind (?:\w+ )?jobs?\b|\bappl(?:y|ies|ying) (?:to|for) (?:\w+ )?jobs?\b|\bsearch(?:ing)? for (?:\w+ )?jobs?\b"
        r"|\bresumes?\b(?= (?:and|&) cover|[- ](?:builder|writer|parser|screen|review|optimi|tailor|match))"
        r"|\b(?:your|tailor\w*|optimi[sz]\w*|pars\w*|screen\w*|build\w*|craft\w*|rewrit\w*) resumes?\b|\bcareers?\b|\brecruit\w*\b"
        r"|\bhuman resources?\b|\bhr (?:teams?|departments?|processes|tasks|professionals|agents?|assistants?|tools?)\b",
        r"\bcv\b|\bcover letters?\b|\binterviews?\b",
        r"\bvideos?\b|\byoutube\b|\bshorts\b|\btiktok\b|\bpodcasts?\b",
        r"\bnovels?\b|(?<!user )\bstor(?:y|ies|ytelling)\b|\bmusic\b|(?<!the )(?<!the-)\bart\b|\b(?:graphic|ui|ux|interior|logo|fashion|visual|poster|brand) design\b|\bdesigners?\b|\bfigma\b|\bcreative\b|\bwriting\b(?! (?:code|tests?|software|programs?|sql|queries|scripts?|functions?|docs|documentation|commits?))",
        r"\blegal\b|(?<!scaling )\blaw\b|\breal estate\b|\btravel\b|(?<!round )(?<!round-)\btrips?\b|\bmarketing\b|\bseo\b|\b(?:generative|answer) engine optimi[sz]ation\b|\bcopywrit\w*\b|\bsocial media\b|\binstagram\b|\btwitter\b|\bfacebook\b|\becommerce\b|\be-commerce\b",
        r"\brecommender\b|\brecommendation (?:system|engine|model)s?\b|\bbiolog\w*\b|\bchemi\w*\b|\bgene\b|\bdrug\b",
        # the industries a domain's agents work in ("an autonomous agent for chip design", "a crew
        # that processes insurance claims"): rule 8 as for finance or games. (Not the sciences
        # beyond the chemistry and biology above: the taxonomy's `research` holds science agents.)
        r"\bpharma\w*\b|\bsemiconductors?\b|\bchip design\b|\belectronic design automation\b|\bverilog\b|\bfpgas?\b"
        r"|\b(?:hardware|circuit) design\b"
        r"|\bagricultur\w*\b|\bfarm(?:ers?|ing)\b|\bcrops?\b|\bmanufactur\w*\b|\bsupply chains?\b|\blogistics\b"
        r"|\binsurance\b|\btax (?:returns?|filing)\b|\bbookkeeping\b|\baccountants?\b"
        r"|\bsports?\b|\bfitness\b|\bworkouts?\b|\bnutrition\b|\bcooking\b|\bmeal plan\w*\b",
    ),
}


def alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` branches of a regular expression."""
    branches, current, depth, in_class, i = [], "", 0, False, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            current, i = current + pattern[i : i + 2], i + 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            branches.append(current)
            current, i = "", i + 1
            continue
        current, i = current + c, i + 1
    return [*branches, current]


# Category → the same kind of phrases in Chinese, as plain text (no expressions): Chinese has no
# spaces between words, so these are found inside a run of Chinese characters, and they feed the
# same per-category counts as the phrases above — what the model learned from English phrases
# carries over to a description written in Chinese. Only Chinese characters (a run is what the
# feature pass reads as one "word").
# fmt: off
CJK_KEYWORDS: dict[str, tuple[str, ...]] = {
    "coding": ("编程", "写代码", "代码生成", "代码审查", "程序员", "软件开发", "编码助手", "代码助手", "代码库"),
    "framework": ("框架", "开发库", "工具包", "快速构建", "构建智能体", "搭建智能体", "智能体开发"),
    "multi-agent": ("多智能体", "多代理", "多个智能体", "多角色", "多个角色", "协作"),
    "computer-use": ("浏览器", "操作电脑", "操作手机", "电脑操作", "手机操作", "自动操作", "网页自动化", "图形界面",
                     "鼠标", "键盘", "截图", "屏幕", "桌面"),
    "research": ("深度研究", "研究报告", "文献", "联网搜索", "学术"),
    "assistant": ("个人助理", "个人助手", "私人助理", "全能助手", "管家", "日程"),
    "workflow": ("工作流", "低代码", "零代码", "无代码", "编排", "拖拽"),
    "data": ("数据分析", "问数", "数据库", "表格", "图表", "商业智能"),
    "chat": ("聊天", "对话", "客服", "问答"),
    "voice": ("语音", "电话", "语音识别", "语音合成"),
    "memory": ("记忆", "知识库", "知识图谱", "向量数据库", "检索增强"),
    "infrastructure": ("工具调用", "沙箱", "网关", "中转", "接口", "部署", "协议"),
    "evaluation": ("评测", "测评", "基准", "评估", "排行榜", "可观测", "监控"),
    "resources": ("教程", "资源", "合集", "列表", "指南", "入门", "课程", "面试", "笔记", "学习"),
    "other": ("股票", "量化", "交易", "金融", "游戏", "教育", "医疗", "法律", "渗透", "小说", "绘画", "视频", "播客", "翻译"),
}
# fmt: on
_CJK_ONLY = re.compile("[" + CJK_CHARACTERS + "]+")
assert all(_CJK_ONLY.fullmatch(p) for phrases in CJK_KEYWORDS.values() for p in phrases)
assert set(CJK_KEYWORDS) == set(CATEGORY_IDS)


# Taxonomy rule 9 read from the name: a repo named for a survey, a course, tutorials, a cookbook, a
# handbook, a paper or reading list, a workshop, lessons, examples or a roadmap is such a thing (an
# app that makes courses says it is an app first: see ``software_first``).
_RESOURCES_NAME = re.compile(
    r"(?:^|[-_. ])(?:surveys?|tutorials?|courses?|masterclass|cookbooks?|handbooks?|papers|paper-?lists?"
    r"|reading-?lists?|workshops?|lessons|for-beginners|101|guides?|books?|examples|samples|roadmaps?"
    r"|cheat-?sheets?|from-scratch|interview-questions|blogs?|articles|best-?practices?|system-?prompts|prompts|timelines?)(?:$|[-_. ])"
    # a name that ends in a series ("rag-deep-dive-series"), not a time series
    r"|(?<!time)[-_.]series$"
    r"|^learn[-_]"
    # a product's documentation site ("x-docs"), not a tool for docs ("docs-agent")
    r"|[-_.](?:docs|documentation)$",
    re.I,
)
# ... and from the description's first words: "A curated list of …", "Collection of papers …".
_LIST_OPENING = re.compile(
    r"^\W*(?:(?:an?|the|my|our)\s+)?(?:(?:curated|comprehensive|hand-?picked|growing|awesome|public|big"
    r"|living|community|open)[- ]?\s*)*(?:list|directory|index|catalog(?:ue)?|(?:collection|compilation) of"
    r"(?:\s+[\w+.-]+){0,3}?\s+(?:links|resources|papers|prompts|tools|agents|apps|applications|projects"
    r"|servers|clients|datasets|examples|tutorials|notebooks|repos|repositories|models|gpts|frameworks"
    r"|libraries|courses|blogs|articles|skills|plugins|extensions|products|demos))\b",
    re.I,
)
# What presents software (an app, engine, server, CLI, platform, self-hosted, "generates …", a
# framework, SDK or library) before any list, course or tutorial word is not a list or a course, even
# if it speaks of them: an app that builds courses is software, its subject is courses.
_SOFTWARE = re.compile(
    r"\bself[- ]host\w*|\bengines?\b|\bgenerates\b|\bapp\b|\bapplication\b|\bserver\b|\bdaemon\b"
    r"|\bplugin\b|\bextension\b|\bdashboard\b|\bcli\b|\bplatform\b|\bframework\b|\bsdk\b|\blibrary\b"
)
_LISTISH = re.compile(
    r"\b(?:awesome|curated|lists?|collection|collected|compilation|tutorials?|courses?|lessons?|curriculum"
    r"|guides?|handbook|books?|cookbooks?|recipes?|examples?|notebooks?|survey|reading|prompts|learn\w*"
    r"|beginners?|educational|resources|roadmaps?|cheat ?sheets?|workshops?|class|documentation"
    r"|demos|samples?|labs|exercises|chapters?|walkthroughs?|cursos?|cours|kurs)\b"
)


def software_first(repo: RepoText) -> bool:
    """Does the name and description present software before any list, course or tutorial word?"""
    text = (repo.name + " " + repo.description[:MAX_DESCRIPTION]).lower()
    software = _SOFTWARE.search(text)
    if software is None:
        return False
    return _LISTISH.search(text, 0, software.start()) is None


# A description that presents one thing (an agent, a bot, a tool, an app, …) before any list, course
# or tutorial word is that thing, whatever its name says ("papers-reader: an agent that digests papers").
_ONE_THING = re.compile(r"\b(?:agent|bot|chatbot|assistant|copilot|tool)\b")


# ... or anywhere in it, words that present a walkthrough or a collection of projects: "resources
# for …", "a resource repository", "this repo contains … examples", "shows how to build", "guidance
# on setting up".
_GUIDE_WORDS = re.compile(
    r"^\W*(?:(?:an?|the|my|our)\s+)?resources? (?:(?:and|&) (?:experiments|examples|notes|code|exercises) )?(?:for|on|about|repo(?:sitory)?|hub|list|collection|page)\b"
    r"|\b(?:this|the|my|our) (?:repo|repository|project) contains (?:\S+ ){0,3}?(?:examples|notebooks|projects"
    r"|tutorials|materials|exercises|demos|lessons|recipes|series)\b"
    r"|\ba series of (?:\S+ ){0,2}?(?:tutorials|notebooks|lessons|videos|articles|blog posts|posts|examples|workshops)\b"
    r"|\b(?:repo|repository|project|code|notebooks?)(?: that)? (?:shows?|demonstrates?|teach(?:es)?) (?:you )?how to\b"
    r"|\bprovides? guidance\b|\bstep[- ]by[- ]step guide\b"
    r"|^\W*(?:(?:an?|the|my|our)\s+)?(?:\S+\s+){0,2}?(?:repo|repository) (?:of|for) (?:\S+ ){0,3}?(?:articles|papers"
    r"|notes|links|blog posts|posts|tutorials|resources)\b"
    r"|(?:项目|博客|资源|工具|论文|网站|文章|教程)(?:列表|清单|合集|大全|导航|汇总)"
    r"|在线阅读|(?:全栈|入门|学习|实战)(?:指南|教程)|手把手(?:教|带)"
    # an introduction, example or sample code for something, papers on something; tutorials, lessons
    # or notebooks on something ("Tutorials on implementing seq2seq models with PyTorch")
    r"|^\W*(?:an?\s+)?(?:(?:simple|gentle|quick|brief|practical|hands-on|short)\s+)?introduction to\b"
    r"|^\W*(?:\d+\+?\s+)?(?:(?:free|short|simple|practical|hands-on|step-by-step|interactive|jupyter|colab|python"
    r"|beginner-friendly|minimal)\s+){0,2}(?:tutorials|lessons|guides|notebooks|walkthroughs|exercises|labs|workshops)\s+"
    r"(?:on|for|about|to|covering|teaching|explaining|showing|that)\b"
    r"|^\W*(?:\w+\s+)?(?:examples?|samples?|demos?)(?: (?:scripts?|code|apps?|projects?|notebooks?))? (?:for|of|using|showing|showcasing|demonstrating|built (?:with|on))\b"
    # a book or a course told as a build-along ("build a coding agent from scratch, one chapter at a time")
    r"|\bone (?:chapter|lesson|step|episode) at a time\b"
    r"|^\W*(?:(?!(?:agent|bot|tool|assistant|app)s?\b|that\b|which\b|who\b)\S+\s+){0,4}?(?:research )?papers"
    r" (?:on|about|related to|in)\b"
    r"|\bpapers?\b[^.]{0,40}\.\s*updated (?:daily|weekly|regularly)\b"
    # leaked or extracted system prompts (a prompt collection, taxonomy rule 9)
    r"|^\W*(?:\S+\s+){0,2}?(?:leaked|extracted|collected)\s+(?:\S+\s+){0,2}?prompts\b"
    # a course (in a few languages) or the code that goes with a book
    r"|^\W*(?:\S+\s+){0,2}?(?:course|curso|cours|kurs|bootcamp)s?(?: (?:pr[aá]ctico|complet[oa]|gratuito|pratique|gratuit|praktischer))? (?:to|on|for|about|in|para|de|sur|zu|über)\b"
    r"|^\W*(?:course|curso|cours|kurs|bootcamp)s?\s*[:\"“«]"
    r"|\b(?:code|notebooks?|examples?|exercises|materials?) (?:for|from|of|accompanying|to accompany)"
    r" (?:the |my |our |a )?(?:\S+ ){0,6}?book\b"
    r"|\bcompanion (?:code|repo(?:sitory)?|notebooks?) (?:for|to|of)\b"
    r"|^\W*code (?:for|from|of|accompanying) [^.]{0,80}\b(?:o'reilly|manning|packt|apress|\d(?:st|nd|rd|th) edition|second edition)\b"
    # a jailbreak prompt collection; a walk through a project's source code (Chinese); a compilation
    r"|\bjailbreak\w* prompts?\b"
    r"|^\W*(?:the )?(?:official )?(?:docs|documentation) (?:of|for)\b"
    r"|源码(?:解读|解析|分析|剖析|阅读|导读)|(?:汇总|彙整|匯總)(?:了|那些|各种|各类|常见|主流|开源|整理)"
    r"|^\W*(?:(?:an?|the)\s+)?(?:essential |ultimate |complete )?checklists? (?:for|of)\b"
    # a book (Chinese): its full text, its companion code, an e-book, reading notes
    r"|全书|随书(?:代码|源码)|(?:按章|章节)?配套(?:代码|源码)|电子书|读书笔记"
)


def _presents_a_thing(description: str) -> bool:
    text = description[:MAX_DESCRIPTION].lower()
    found = [m.start() for m in (_SOFTWARE.search(text), _ONE_THING.search(text)) if m is not None]
    return bool(found) and _LISTISH.search(text, 0, min(found)) is None


def resources_by_name(repo: RepoText) -> str | None:
    """Why the name or the description's opening make the repo a resource ("name", "description"), or
    None: an ``awesome-`` name always, a course/survey/tutorial name unless the description presents
    one thing (software, an agent, a tool) first, a "list of …" opening unless the repo presents
    software first. (Asked several times per repo while classifying: answered once.)"""
    return _resources_by_name(repo.name, repo.description[:MAX_DESCRIPTION])


# "GenerativeAIExamples", "LLMCookbook": a camel-case name's words are read like hyphenated ones.
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@functools.lru_cache(maxsize=1 << 16)
def _resources_by_name(name: str, description: str) -> str | None:
    if _AWESOME_NAME.match(name):
        return "name"
    if _RESOURCES_NAME.search(_CAMEL_HUMP.sub("-", name)) and not _presents_a_thing(description):
        return "name"
    if _LIST_OPENING.match(description) or _GUIDE_WORDS.search(description.lower()):
        return None if software_first(RepoText(name, description)) else "description"
    return None


def settling_categories(repo: RepoText) -> tuple[str, ...]:
    """The categories the repo's topics (and a resources name or list opening) settle, in order of
    first mention."""
    found = [TOPIC_LEXICON[t] for t in repo.topics if t in TOPIC_LEXICON]
    if resources_by_name(repo):
        found.insert(0, "resources")
    return tuple(dict.fromkeys(found))


# ... or presents an agent that does something ("An autonomous coding agent that edits code",
# "pr-bot is an AI agent that reviews pull requests"), not a list about agents ("Agents: a curated
# list", "LLM agents reading list").
_AGENT_OPENING = re.compile(
    r"^\W*(?:[\w.-]+\s+(?:is|:|-|—)\s+)?(?:(?:an?|the|your|our)\s+)?"
    r"(?:(?!list|collection|papers|resources|tutorials?|courses?|guides?)[\w/+.-]+\s+){0,4}?"
    r"(?:agent|bot|chatbot|assistant|copilot)\s+(?:that|which|who)\b",
    re.I,
)


def _final(repo: RepoText, category: str) -> bool:
    """A resources topic is final (a list of links is a resource whatever its subject) unless the
    description presents software first ("X is a multi-agent framework" tagged `awesome`) or opens
    by presenting an agent that does something: then it settles nothing (see ``boosts``). A
    resources name or list opening is always final."""
    if category not in FINAL_CATEGORIES:
        return False
    if resources_by_name(repo) is not None:
        return True
    return not software_first(repo) and _AGENT_OPENING.match(repo.description[:MAX_DESCRIPTION]) is None


# A repo whose artefact is a model (weights, a checkpoint, "a 7B code model", "X: a foundation model
# for …") is `other` whatever its topics say it is good at (grey zone: model weights and training
# are left out of the taxonomy): a code model tagged `code-generation` is not a coding agent, a
# text-to-SQL model is not a data agent. Anywhere in the text: a size ("7B", "1.5B", "82M"), open
# weights (not "any open-weight model"), model weights or checkpoints, "fine-tuned from/on" …
_MODEL_SIZE = re.compile(r"(?:^|[\s(])\d+(?:\.\d+)?[bm]\b(?! ?(?:stars|users|downloads|rows|records|cap))")
# ... but a size named as what an app is built with or runs ("built with Llama 3.1 405B", "powered by
# a 7B model", "runs Qwen 32B locally") is the model it uses, not its artefact.
_USES_A_MODEL = re.compile(
    r"\b(?:built (?:with|on)|powered by|using|uses|based on|runs?|running|via|supports?)(?:\s+\S+){0,3}\s*$"
)
_MODEL_ANYWHERE = re.compile(
    r"(?<!any )(?<!with )(?<!for )(?<!of )(?<!local )\bopen[- ]weights?\b"
    r"|\b(?:model|pretrained|pre-trained) (?:weights|checkpoints)\b|\bweights (?:and|&) (?:inference|training|code|tokenizer)"
    r"|\bmodels? (?:trained|fine-?tuned|pre-?trained|distilled) (?:on|from)\b|\bfine-?tuned (?:from|version of)\b"
)
# ... or a description that opens by presenting a model ("Chat language model that …", "[CVPR 2025]
# Lumen: A Foundation Model for …"), not one that uses models ("Evaluate language models …",
# "A large language model powered agent …").
_MODEL_OPENING = re.compile(
    r"^\W*(?:\[[^\]]*\]\s*)?(?:[\w.-]+(?::| -| —)\s+)?(?:an? |the |our )?"
    r"(?:(?:new|open|open-source|small|lightweight|family of|series of|collection of)\s+)*"
    r"(?:(?!evaluat|serv|run|train|fine|quantiz|deploy|build|empower|use |call|connect|chat with|compar|benchmark|test"
    r"|power|lightweight|let |lets |make|help|enabl|give|allow|teach|turn|orchestrat|driv|control|operat|with |for )"
    r"\(?[\w-]+\)?,? ){0,5}?"
    r"(?:language|foundation|multimodal|vision[- ]language(?:[- ]action)?|code|coding|speech|speech-text|embedding"
    r"|reward|chat|instruct|reasoning|action|tool[- ]calling|function[- ]calling|agent|agentic|gui|omni|base) models?\b"
    r"(?! ?(?:powered|based|-based|driven|automation|agents?|apps?|applications?|framework|evaluation|gateway|router"
    r"|serving|inference|api))"
)

# ... or a repo named only by a model family and its variants ("deepseek-coder-v2", "qwen2.5-coder",
# "glm-4.5", "deepseek-vl2"): the model's own repo, often with a description that names no model
# ("Let the Code Write Itself"). A family alone ("llama") or with a word that is not a variant
# ("qwen-agent", "deepseek-harness", "llamacoder", "deepseek-chat") is not enough, nor is such a name
# on software that runs a model ("llama-coder: a self-hosted Copilot replacement for VS Code").
_MODEL_FAMILY_NAME = re.compile(
    r"^(?:deepseek|qwen|llama|codellama|mistral|mixtral|gemma|phi|chatglm|glm|baichuan|internlm|starcoder"
    r"|wizardcoder|wizardlm|kimi|minimax|falcon|vicuna|olmo|smollm)"
    r"(?=[\d.]*[-_.]|\d)(?:[\d.]+|[-_.](?:v?\d+(?:\.\d+)*[a-z]?|\d+(?:\.\d+)?[bmk]|coder|llm|instruct|math|vl\d*"
    r"|[kmr]\d+|moe|base|prover|ocr|omni|audio|vision|lite))+$"
)
_RUNS_A_MODEL = re.compile(
    _SOFTWARE.pattern + r"|\b(?:replacement|alternative|vs ?code|copilot|ui|client|wrapper|bot|assistant|agent|tool)\b"
)

_DIGIT = re.compile(r"\d")


def presents_a_model(repo: RepoText) -> bool:
    """Is the repo's artefact a model (weights, a checkpoint, a model family)? (Asked twice per repo
    while classifying: answered once.)"""
    return _presents_a_model(repo)


@functools.lru_cache(maxsize=1 << 16)
def _presents_a_model(repo: RepoText) -> bool:
    if _MODEL_FAMILY_NAME.match(repo.name.lower()) is not None and not _RUNS_A_MODEL.search(
        repo.description[:MAX_DESCRIPTION].lower()
    ):
        return True
    text = rule_text(repo)
    # Every match of _MODEL_ANYWHERE contains one of these words, every match of _MODEL_OPENING
    # "model", every size a digit: most repos are answered by these substring checks.
    if any(word in text for word in ("model", "weight", "checkpoint", "fine")) and _MODEL_ANYWHERE.search(text):
        return True
    opening = repo.description[:MAX_DESCRIPTION].lower()
    if "model" in opening and _MODEL_OPENING.search(opening) is not None:
        return True
    if _DIGIT.search(text) is None:
        return False
    return any(
        _USES_A_MODEL.search(text, max(0, m.start() - 60), m.start()) is None for m in _MODEL_SIZE.finditer(text)
    )


def boosts(repo: RepoText) -> np.ndarray | None:
    """Factors (in ``CATEGORY_IDS`` order) that multiply the model's probabilities, or None when
    no topic or name settles anything. A model's topics say what it is good at, not what it is: for
    a repo that presents a model only a resources topic or name counts."""
    settled = settling_categories(repo)
    if settled and presents_a_model(repo):
        settled = tuple(c for c in settled if c in FINAL_CATEGORIES)
    if not settled:
        return None
    factors = np.ones(len(CATEGORY_IDS))
    for category in settled:
        if _final(repo, category):
            factors[CATEGORY_IDS.index(category)] = FINAL_BOOST
        elif category not in FINAL_CATEGORIES:
            factors[CATEGORY_IDS.index(category)] = TOPIC_BOOST
        # else: a resources topic on a repo that presents software first ("X is a multi-agent
        # framework" tagged `awesome`) settles nothing: the grey zone says such a repo goes by its
        # description (the topic is still one of the model's features).
    return factors


def lexicon_fingerprint() -> str:
    """Everything above that changes predictions, as text, for the model version."""
    parts = [
        repr(sorted(TOPIC_LEXICON.items())),
        repr(sorted(FINAL_CATEGORIES)),
        repr((TOPIC_BOOST, FINAL_BOOST)),
        repr(_AWESOME_NAME.pattern),
        repr(
            (
                _RESOURCES_NAME.pattern,
                _LIST_OPENING.pattern,
                _SOFTWARE.pattern,
                _LISTISH.pattern,
                _ONE_THING.pattern,
                _GUIDE_WORDS.pattern,
                _MODEL_SIZE.pattern,
                _USES_A_MODEL.pattern,
                _MODEL_ANYWHERE.pattern,
                _MODEL_OPENING.pattern,
                _MODEL_FAMILY_NAME.pattern,
                _RUNS_A_MODEL.pattern,
                _AGENT_OPENING.pattern,
            )
        ),
        repr(sorted(KEYWORDS.items())),
        repr(sorted(CJK_KEYWORDS.items())),
    ]
    return "\n".join(parts)
