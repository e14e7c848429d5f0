"""What says a capitalised word names a system: its version, its nouns and states, what is done to it, the
words it is listed with.

Used by guards/names.py beside cues.py (what says a person or a place): after
a system come a version (`Kafka 3.7`), a model's code (`Tesla T4`), a
system's noun (`Cassandra cluster`, `Atlas search indexes`) or state (`Hudson
is still running`, `Luigi can be switched off`); before one a verb done to
systems or an article (`bump Grafana`, `the Aurora`); an aside or an
apposition may say what it is (`Watson (the old IBM chatbot integration)`,
`Hector, the old reporting service,`), and so may quotes after an article
(`the "Marvin" Slack bot`). Names listed together (`Grafana and Loki`, `from
Luigi to Airflow`) are of one kind.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from .cues import ASIDE, HUMAN, LEADING, greeting
from .lexicons import fold
from .lexicons import words as _words

# a date is no version (`(José 2023-11-30`), nor an SSN (`Jamal Robinson 579-32-9042`)
_VERSION_AFTER = re.compile(r"(?!\s+\d{4}-\d\d-\d\d|\s+\d{3}-\d\d-\d{4}\b)[ \t]*(?:v?\d|[-:/][ \t]*\d)")  # on its line

_NEXT_WORD = re.compile(r"[\"'”’]?[ \t\-]*([\w\-]{1,40})")  # on its line: `Daniel Osei\nCard used` is no `Osei card`

_TECH_AFTER = _words(
    "cluster clusters node nodes broker brokers topic topics consumer consumers producer producers server "
    "servers instance instances pod pods job jobs plugin plugins upgrade upgrades version versions dashboard "
    "dashboards panel panels alert alerts rule rules config configs client clients api sdk cli agent agents "
    "deployment deployments db database databases queue queues index indexes keyspace keyspaces compaction "
    "migration migrations chart charts values operator controller box host hosts service services repo repos "
    "image images container containers build builds pipeline pipelines worker workers endpoint endpoints "
    "region regions zone zones datacenter dc proxy gateway mesh install installs setup model models eval "
    "evals notebook notebooks prompt prompts weights checkpoint release releases sink source connector "
    "connectors table tables schema query queries driver drivers library libraries package packages module "
    "modules dependency extension extensions theme themes font fonts integration integrations policies policy "
    "logs metrics traces exporter scraper rollout ingestion retention responses response output outputs "
    "tokens token fine-tune fine-tuning run runs cpu cpus gpu gpus chip chips processor processors family ami "
    "scheduler cloud clouds card cards fleet boxes ci skill skills runner runners topology bundle pool pools "
    "bot bots chatbot kernel kernels bindings binding variant variants port ports implementation implementations "
    "wrapper wrappers engine engines framework frameworks runtime runtimes compiler interpreter toolchain app apps "
    "widget widgets repository repositories harness cron daemon script scripts tool tools "
    # what a business names after places: `the Victoria, Sydney and Brooklyn suites`, `the Paris tier`
    "suites tiers venues"
)
TECH_WORDS = _TECH_AFTER
_STATE_AFTER = re.compile(
    r"\s+(?:(?:is|was|keeps|kept|stopped)\s+(?:still\s+|now\s+)?(?:running|down|up|failing|broken|deployed|"
    r"rebalancing|crashing|restarting|queueing|timing\s+out|green|red|healthy|unhealthy|degraded|responding|"
    r"hallucinating|leaking|ooming|hanging|erroring|retrying|flapping|indexing|scraping)"
    r"|crashed|crashes|segfaulted|segfaults|panicked|panics|hallucinated|hallucinates|deadlocked|timed\s+out|"
    r"times\s+out|errored|oomed|oom-killed|rebalanced|evicted|compacted|reconciled|reconciles"
    r"|(?:threw|throws|raised|raises|returned|returns)\s+(?:an?\s+|the\s+)?\w*(?:exception|error|errors|null|nil)"
    r"|(?:can|could|will|should|must)\s+(?:now\s+)?be\s+(?:switched|turned|shut|swapped)\s+(?:off|out|down)"
    r"|(?:is|was|got|has\s+been|have\s+been)\s+(?:finally\s+)?(?:decommissioned|deprecated|retired|sunset|sunsetted|"
    r"archived|uninstalled|switched\s+off|turned\s+off))\b"
)
_TECH_BEFORE = _words(
    "bump bumped upgrade upgraded upgrading install installed installing deploy deployed deploying run "
    "running restart restarted migrate migrated migrating train training trained fine-tune finetune serve "
    "serving query querying the our a an new old self-hosted managed testing tested trying evaluating evaluated "
    "adopting adopted mascot codename codenamed"
)
# a system's noun and `for` or `of` before a name: `the Helm chart for Loki`, `the upgrade for Athena`
_OF_SYSTEM = re.compile(
    r"\b(?:chart|charts|upgrade|upgrades|release|releases|operator|plugin|plugins|exporter|exporters|datasource|"
    r"sidecar|deployment|migration|rollout|install|installation|image|images|cluster|clusters|instance|instances|"
    r"version|versions|helm|integration|connector|fork|port|bindings|client|sdk)\s+(?:for|of)\s+\Z",
    re.IGNORECASE,
)
# the nouns of those only a system has, or a tool's name before any of them (`the Helm upgrade for Loki`): these
# make a system even of a common given name; `the migration for Sarah`, `the client for John` do not
_OF_SYSTEM_ONLY = re.compile(
    r"\b(?:(?:chart|charts|operator|plugin|plugins|exporter|exporters|datasource|sidecar|helm|connector|sdk|"
    r"bindings)|(?:helm|terraform|docker|kubernetes|k8s|ansible|argo|argocd|flux)\s+[a-z]+)\s+(?:for|of)\s+\Z",
    re.IGNORECASE,
)
# a system said to be called so: `Our GPU cluster in the Paris lab is called "Curie"`
_CALLED = re.compile(
    r"\b(?:" + "|".join(sorted(_TECH_AFTER)) + r")\b[^.!?\n]{0,40}?\b(?:is|was|are|were)\s+"
    r"(?:called|named|nicknamed|codenamed)\s+[\"“'‘]?\Z",
    re.IGNORECASE,
)
_FOR_OF = re.compile(r"\s(?:for|of)\s+\Z", re.IGNORECASE)
_CALLED_TAIL = re.compile(r"(?:called|named)\s+[\"“'‘]?\Z", re.IGNORECASE)
# said outright: `Carmen is the internal name of the geocoding service, not a person`
_NOT_A_PERSON = re.compile(r"\bnot\s+(?:a|an)\s+(?:real\s+|actual\s+)?(?:person|human)\b", re.IGNORECASE)
_SAID_TO_BE = re.compile(r"[\"'`)\]]*\s*(?:is|was|are|were|=|:|-|—|–)\s", re.IGNORECASE)
_CODED = re.compile(r"`([A-Za-z][\w\-]*)`")


def coded(text: str) -> frozenset[str]:
    """Words a text writes as code, alone in backticks (`jackson`): the name of a thing there, folded."""
    return frozenset(fold(m) for m in _CODED.findall(text)) if "`" in text else frozenset()


# a word written as an identifier: a package or a module's name, a string alone, a part of a snake_case or dotted
# name (`athena_query_duration_seconds`, `com.acme.Atlas`), a ticket's project key (`ATLAS-1201`); not in an
# address or a handle (`@atlas`, `atlas.kim@`)
_IDENTIFIER = re.compile(
    r"\b(?:package|import|module|namespace|crate|mod)[ \t]+([a-z][a-z0-9]*)\b"
    r"|[\"'`]([a-z][a-z0-9]*)[\"'`]"
    r"|(?<![\w.@-])([a-z][a-z0-9]*)_[a-z0-9]"
    r"|(?<![@\w])[a-z][a-z0-9]*\.[a-z][a-z0-9]*\.([A-Z][a-z0-9]+)\b(?![@.\w])"
    r"|\b([A-Z]{3,})-\d+\b"
)


def identifiers(text: str) -> frozenset[str]:
    """Words a text also writes as identifiers (`package atlas`, `Athena = "athena"`, `athena_query_seconds`,
    `com.acme.Atlas`, `ATLAS-1201`), folded: there the capitalised word names that system."""
    out = set()
    for match in _IDENTIFIER.finditer(text):
        word = next(g for g in match.groups() if g)
        if "@" not in text[match.end() : match.end() + 1]:
            out.add(fold(word))
    return frozenset(out)


DENIAL_REACH = 300  # characters after a name in which `..., not a person` is looked for


def denied(text: str, b: int) -> bool:
    """The name before text[b:] said to be something, `..., not a person`, later on its line (`Marlowe is the
    routing service, not a person`); not a sentence that only goes on to deny it of something else (`Priya said
    the ticket was opened by a script, not a person`)."""
    reach = min(len(text), b + DENIAL_REACH)  # a line with no end (minified JSON, a long log line) is read this far
    end = text.find("\n", b, reach)
    end = end if end != -1 else reach
    if text.find("not ", b, end) == -1 or _SAID_TO_BE.match(text, b) is None:
        return False
    return _NOT_A_PERSON.search(text, b, end) is not None


# system nouns that are also verbs a person does (`Sunita runs a clinic`); a noun when no object follows
_VERBS = _words(
    "run runs build builds release releases query queries index indexes install installs setup prompt prompts"
)
_OBJECT = re.compile(
    r"\s+(?:a|an|the|our|his|her|their|my|your|this|that|these|those|it|them|us|me|him|some|every|all)\b"
    r"|\s+(?-i:[A-Z])"  # a product as its object: `Yuki runs Ollama`
    # or a plain noun that is no system's: `builds violins`, `runs marathons` (not `builds are failing`)
    r"|\s+(?!(?:are|is|was|were|have|has|had|keep|kept|fail|failed|failing|in|on|for|of|with|from|to|at|and|or|but|"
    r"that|which|will|would|can|should|now|still|take|took|get|got|went|run|ran|pass|passed)\b)(?-i:[a-z]{3,}s)\b",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"[A-Z][a-z]+[A-Z]\w*")

_QUOTE_OPEN = re.compile(r"\b(?:the|a|an|our|their|your|its|this|that)\s+[\"“'‘]\Z", re.IGNORECASE)


def quoted_thing(text: str, a: int, b: int) -> bool:
    """A name in quotes after an article: a thing's (`the "Marvin" Slack bot`, `the "Ask Alexa" deep link`)."""
    return b < len(text) and text[b] in "\"”'’" and _QUOTE_OPEN.search(text, max(0, a - 12), a) is not None


_NEXT_NAME = re.compile(r"[\"'”’]?[ \t]+([A-Z][\w\-]*)")


def next_name(text: str, b: int) -> tuple[int, int] | None:
    """The capitalised word right after text[:b] (past a closing quote), if there is one."""
    match = _NEXT_NAME.match(text, b)
    return match.span(1) if match is not None else None


# `Hector, the old reporting service,`: closed by a comma, a bracket or a dash, its last word a system's noun
_APPOSITION = re.compile(
    r",[ \t]+(?:the|our|an?|its)[ \t]+(?:[\w\-]+[ \t]+){0,3}([\w\-]+)[ \t]*[,)—–]"
    r"|[ \t]+the[ \t]+(\w+bot)\b"  # `Ollie the Slackbot`
    # `Quinn is the QA bot that ...`, `Emma is our LLM eval harness`: the noun before a preposition or a clause
    r"|[ \t]+(?:is|was)[ \t]+(?:the|our|an?|their|its)[ \t]+(?:[\w\-]+[ \t]+){0,3}?([\w\-]+)"
    r"(?=[ \t]*(?:[,.;:)—–]|\Z|[ \t](?:that|which|who|for|of|on|in|at|with|to|from|and|behind|we|it)\b))",
    re.IGNORECASE,
)


def described_as_system(text: str, b: int) -> bool:
    """An aside right after text[:b] that says it is a system: `Watson (the old IBM chatbot integration)`,
    `Hector, the old reporting service,`, `Ollie the Slackbot`; not `Jenkins (the person, not the CI)`."""
    match = ASIDE.match(text, b) or _APPOSITION.match(text, b)
    if match is None:
        return False
    words = set(re.findall(r"[a-z][\w\-]*", (match.group(1) or match.group(2) or match.group(3) or "").lower()))
    return not words & HUMAN and any(w in _TECH_AFTER or w.endswith("bot") for w in words)


def tech_after(text: str, b: int) -> bool:
    """A version number, a system's noun or state after text[:b] (`Kafka 3.7`, `Cassandra cluster`, `Hudson is
    still running`)."""
    if _VERSION_AFTER.match(text, b) or _STATE_AFTER.match(text, b):
        return True
    if _MODEL_AFTER.match(text, b):
        return True  # `Tesla T4`, `Grace Hopper GH200`
    if (compound := _COMPOUND_AFTER.match(text, b)) is not None and not _holders_card(text, compound):
        return True  # `Atlas search indexes`
    match = _NEXT_WORD.match(text, b)
    if match is None or match.group(1).lower() not in _TECH_AFTER or _holders_card(text, match):
        return False
    # `Sunita runs a clinic`, `Priya builds the image`: a verb there, with its object after it
    return not (match.group(1).lower() in _VERBS and _OBJECT.match(text, match.end()))


def _holders_card(text: str, noun: re.Match[str]) -> bool:
    """The system's noun that `noun` ends with is a payment card, its holder's name before it: a payer's word
    before it (`Owen Price corporate card`), or a card's number near (`failed for Dimitra Karali card 4006-...`)."""
    if not noun.group().lower().endswith(("card", "cards")):
        return False
    owned = _OWNED_BY.match(text, noun.start()) is not None  # `Arjun ka card`: a particle says whose
    if not owned and not _FULL_NAME.search(text, max(0, noun.start() - 60), noun.start()):
        return False  # (`Titan card 1234 ...`, `your Santander credit card`: one name, a product's or a bank's)
    if _CARD_BRAND.search(text, max(0, noun.start() - 12), noun.start()):
        return False  # (`a Mir card 2201-...`: the network's, not a holder's)
    return (
        _PAYER_CARD.search(noun.group()) is not None
        or _CARD_NUMBER.search(text, max(0, noun.start() - _CARD_REACH), noun.end() + _CARD_REACH) is not None
    )


# a payment card's words and its number in groups (`corporate card`, `4006-1370-4785-8473`, `6011 4426 0384 4414`)
_PAYER_CARD = re.compile(
    r"(?i)\b(?:corporate|company|credit|debit|bank|business|personal|prepaid|virtual|travel|fuel|expense|payment)"
    r"[ \t]+cards?\Z"
)
_CARD_NUMBER = re.compile(r"(?<![\d\-])\d{4}[ \-]\d{4,6}[ \-]\d{4,5}(?:[ \-]\d{1,4})?(?![\d\-])")
_CARD_REACH = 80
_OWNED_BY = re.compile(r"[ \t]+(?:ka|ki|ke|ko|no|da|de|do|di)[ \t]+", re.IGNORECASE)  # Hindi's, Gujarati's, Punjabi's
# a holder's two names (not `Your Titan`, `The Kingston`)
_FULL_NAME = re.compile(
    r"(?<![\w\-])(?!(?:Your|My|Our|His|Her|Their|The|This|That|New|Old|Its|A|An)\b)"
    r"[A-ZÀ-ÖØ-Þ][\w'’\-]+[ \t]+[A-ZÀ-ÖØ-Þ][\w'’\-]+\Z"
)
_CARD_BRAND = re.compile(
    r"(?i)\b(?:visa|mastercard|amex|maestro|mir|unionpay|rupay|verve|discover|jcb|elo|troy|dankort|diners|"
    r"hipercard|uatp)\Z"
)


# a model's code after a product's name: `Tesla T4`, `Grace Hopper GH200`, `Radeon RX7900`
_MODEL_AFTER = re.compile(r"[ \t]+[A-Z]{1,4}-?\d{1,5}[A-Za-z]{0,3}\b")
# a noun, then a system's noun: `Atlas search indexes`, `Hermes bytecode cache`; not a verb (`Priya fixed builds`,
# `Priya runs jobs`, `Priya is rebuilding indexes`) nor a word that joins (`Priya and ops`, `Priya to deploy`)
_COMPOUND_AFTER = re.compile(
    r"[ \t]+(?!(?:and|or|to|is|was|will|can|also|just|should|must|may|has|had|did|does|not|in|on|at|for|of|"
    r"with|from|by|via|then|now|still|wants|needs|the|a|an|our|my|your|his|her|their|this|that|these|those|"
    r"some|any|every|all|no|its|about|if|when|why|how|what|where|whether|please|great|good|nice|awesome|"
    r"excellent)\b)(?-i:[a-z]+)(?<!ed)(?<!s)(?<!ing)(?<!ly)[ \t]+(?:" + "|".join(sorted(_TECH_AFTER)) + r")\b"
)


_SPACED_BEFORE = re.compile(r"([\w\-]+)[ \t]+\Z")


def tech_before(text: str, a: int) -> bool:
    """A verb done to systems, or an article, right before text[a:]: `bump Grafana`, `the Aurora`; not across
    punctuation (`the Istio upgrade: Zoë does the control plane`)."""
    match = _SPACED_BEFORE.search(text, max(0, a - 40), a)
    return match is not None and match.group(1).lower() in _TECH_BEFORE


def system_named(text: str, a: int, given: bool = False) -> bool:
    """A system's noun and `for` or `of` right before text[a:] (`the Helm chart for Loki`), or a system said to be
    called so (`the GPU cluster is called "Curie"`): the name is the system's, as a product's would be. For a
    common `given` name, only a noun no person has does (`the Helm chart for Athena`, not `the migration for
    Sarah`)."""
    if _FOR_OF.search(text, max(0, a - 6), a) is not None:  # most names have neither tail: the long patterns are spared
        return (_OF_SYSTEM_ONLY if given else _OF_SYSTEM).search(text, max(0, a - 30), a) is not None
    return (
        _CALLED_TAIL.search(text, max(0, a - 14), a) is not None and _CALLED.search(text, max(0, a - 90), a) is not None
    )


def product_next(text: str, a: int, b: int, products: Collection[str]) -> bool:
    """A capitalised product word right before text[a:] or after text[:b] (`EPYC Milan`), or a CamelCase word
    after it (`Phoenix LiveView`)."""
    before = re.search(r"(\S+)\s+\Z", text[max(0, a - 40) : a])
    after = re.match(r"\s+(\S+)", text[b : b + 40])
    if after is not None and _CAMEL.fullmatch(after.group(1).rstrip(".,;:")):
        return True
    words = [fold(m.group(1)) for m in (before, after) if m is not None and not m.group(1).islower()]
    return any(w in products and not greeting(w) and w not in LEADING for w in words)


# a list of names: `A, B and C`, `A or B`, `A/B`; `from A to B`
_LIST_GAP = re.compile(r"\s*(?:,\s*(?:(?:and|or|&)\s+)?|\s(?:and|or|&|nor|vs\.?|versus)\s+|\s*/\s*)")
_FROM_BEFORE = re.compile(r"\bfrom\s+\Z", re.IGNORECASE)
_TO_GAP = re.compile(r"\s+(?:to|into|onto)\s+", re.IGNORECASE)


# a noun that says the names after it are things' names: `AMD's codenames — Naples, Rome, Milan`, `Fonts named
# Geneva, Monaco, Chicago`, `chips are named after lakes: Alder Lake, Raptor Lake`
_NAMING_BEFORE = re.compile(
    r"\b(?:code\s?names?|named\s+after|fonts?|typefaces?)\b"
    r"(?:[^.;!?\n]{0,60}?(?:[:—–]|\s-|\bsuch\s+as|\blike|\bnamed|\bcalled|\bincluding))?\s*\Z",
    re.IGNORECASE,
)


def names_things(text: str, a: int) -> bool:
    """A noun right before text[a:], or before a colon, a dash, `such as`, `named` there, that says the list
    starting there names things: `codenames — Naples`, `fonts named Geneva`; not `codenames were picked by`."""
    return _NAMING_BEFORE.search(text, max(0, a - 120), a) is not None


def listed(text: str, b: int, a: int) -> bool:
    """Whether text[b:a], between two capitalised words, joins them in one list (`, `, ` and `, `/`)."""
    return _LIST_GAP.fullmatch(text, b, a) is not None


def moved(text: str, first: int, b: int, a: int) -> bool:
    """`from A to B`: text[first:b] is A, text[b:a] the gap before B."""
    return (
        _TO_GAP.fullmatch(text, b, a) is not None and _FROM_BEFORE.search(text, max(0, first - 10), first) is not None
    )


# families whose releases have codenames (lexicon codenames.txt), by the words that name the family
FAMILIES = {"macos": _words("macos osx mac xcode"), "ubuntu": _words("ubuntu"), "debian": _words("debian apt")}
_WORDS = re.compile(r"[a-z]+")
# text about GPUs names the family of GPU architectures: `cuda:0`, `sm_89`, `bf16`, `HBM3e`, `L40S`, `GH200`, `H100`
_GPU = re.compile(
    r"\b(?:nvidia|gpus?|cuda|vram|hbm\d?e?|tensorrt|nvlink|nvml|sm_\d+|fp8|bf16|fp16|jetson|geforce|quadro|rtx|"
    r"dgx|hgx|[ABHL]\d{2,3}S?|G[HB]\d{3})\b",
    re.IGNORECASE,
)


def families(text: str) -> frozenset[str]:
    """The codename families a text names (`macOS`, `Ubuntu`, `Debian`, a GPU's words for NVIDIA's)."""
    words = set(_WORDS.findall(text.lower()))
    found = {f for f, names in FAMILIES.items() if words & names}
    if _GPU.search(text):
        found.add("nvidia")
    return frozenset(found)
