"""What the text around a capitalised word says it is: runs of such words outside code, and the cues around them.

Used by guards/names.py. A cue is a word next to a run: before a person
(`Thanks`, `ask`, `her brother`, `Assignee:`, `name=`), after one (`said`,
`asked`, `'s mother`, `is on leave`), before a place (`in`, `from`, `city:`),
or after a system (`cluster`, `upgrade`, a version number) or before one
(`bump`, `deploy`, `the`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from .lexicons import fold

_TOKEN = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_GLUE_BEFORE = frozenset("_./\\@#$%&*+~<>[{|`")
_GLUE_AFTER = frozenset("_/\\@#$%&*+~<>[{(=|`")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_SENTENCE_START = re.compile(r"(?:\A|[.!?:]\s+|\n)[\s\-*#>\"'(\[•]*\Z")
_VERSION_AFTER = re.compile(r"(?!\s+\d{4}-\d\d-\d\d)\s*(?:v?\d|[-:/]\s*\d)")  # a date is no version: `(José 2023-11-30`
_WORD_BEFORE = re.compile(r"([\w'’\-]+)[\s:,=\"'({\[\-.!]*\Z")
_NEXT_WORD = re.compile(r"[\"'”’]?[\s\-]*([\w\-]+)")
_SENTENCE_END = re.compile(r"[.!?](?:\s|\Z)|\n")
_PAIR_BEFORE = re.compile(r"([^\W\d_]+)\s*(?:,\s*|\s+)(?:and|&)\s+\Z")
_PAIR_AFTER = re.compile(r"\s*(?:,\s*|\s+)(?:and|&)\s+([^\W\d_]+)")


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


PARTICLES = _set("van von der den de da di del la le du dos das bin ibn al el ter ten af")
_PEOPLE_NOUNS = (
    "man|woman|girl|boy|guy|lady|gentleman|person|someone|fellow|kid|baby|child|son|daughter|guide|driver|friend|"
    "teacher|doctor|nurse|neighbou?r|host|chef|owner|cousin|student|grandson|granddaughter"
)
_NAMED_BEFORE = re.compile(r"\b(?:" + _PEOPLE_NOUNS + r")\s+(?:named|called)\s+\Z", re.IGNORECASE)
TITLES = _set("dr mr mrs ms mx prof sir dame aunt uncle auntie grandma grandpa lord lady")
MONTHS = _set("january february march april may june july august september october november december")
WEEKDAYS = _set("monday tuesday wednesday thursday friday saturday sunday")  # never a person, nor a place
HOLIDAYS = _set("eid diwali christmas easter hanukkah ramadan thanksgiving passover halloween navratri nowruz")
CALENDAR = MONTHS | WEEKDAYS
# before a person: greetings, family and work roles, record fields; IMPERATIVE: verbs said to people and,
# as often, to assistants and tools ("ask Gemini"); WEAK: words as often before a system ("migrate to")
# SOCIAL: said to or of people only, never to an assistant or a tool ("her brother", "Dear"); the rest of
# _GREETING as often names a bot or a model ("Thanks Claude", "Co-authored-by: Claude", "Reviewer: Renovate")
_SOCIAL = _set(
    "hi hey hello yo dear congrats congratulations welcome bye birthday brother sister mother father mom mum "
    "dad son daughter wife husband partner friend colleague coworker neighbour neighbor boss manager teammate "
    "intern customer client twin cousin nephew niece fiance fiancee boyfriend girlfriend grandmother grandfather"
)
_FIELDS = _set(
    "assignee reporter reviewer author owner maintainer approver signed-off-by co-authored-by name first_name "
    "last_name full_name user_name display_name contact requester requested first last firstname lastname "
    "given_name family_name surname holder account_holder cardholder beneficiary payee recipient employee patient "
    "applicant"
)
_GREETING = _SOCIAL | _FIELDS | _set("thanks thank thx ty cc cheers sorry")
_IMPERATIVE = _set(
    "ask tell ping page call text email message dm remind invite introduce meet pay refund thank loop sync "
    "check talk reach escalate assign hand pairing can could would should did does"
)
_WEAK = _set("from with and to per via for by")
_PLACE_BEFORE = _set(
    "in from to near at across around outside via visiting visit visited toward towards into between of on along "
    "city town country location hometown address moved flying flew drove trip"
)
# after a person: SOCIAL, what only people do or are ("'s mother", "is on leave", "lives in", "from the
# billing team"); SHARED, what models, bots and tools are said to do too ("said", "wrote", "suggested")
# what a language or a product has, after its possessive: `Ada's tooling`, `Ruby's GC` (not a person's cue)
_OWNED_BY_SYSTEMS = sorted(
    _set(
        "tooling toolchain compiler compilers runtime runtimes syntax docs documentation stdlib gc ecosystem bindings "
        "binding interpreter types generics macros scheduler parser linter formatter repl package packages module "
        "modules plugin plugins api apis sdk sdks cli client clients driver drivers cluster clusters node nodes "
        "broker brokers server servers instance instances chart charts release releases version versions config "
        "configs default defaults changelog license codebase maintainers community skill skills"
    )
)
_AFTER_SOCIAL = re.compile(
    r"['’]s?\s+(?!\w+\s+(?:cluster|node|broker|server|instance|api|sdk|plugin|chart|release|version)s?\b)"
    r"(?!(?:" + "|".join(_OWNED_BY_SYSTEMS) + r")\b)"
    r"(?-i:(?=[a-z]|(?:PR|MR|CL)\b))"
    r"|\s+(?:just\s+|also\s+|already\s+|still\s+)?(?:agreed|promised|approved|took|moved|spent|cycled|drove|"
    r"turned|lives|lived|left|joined|called|texted|emailed|messaged|grew|presented|will\s+(?:chair|join|cover)|"
    r"is\s+(?:on\s+(?:leave|call|holiday|vacation|pto)|out|off|away|back|moving|applying|presenting|joining|"
    r"walking|sick|travell?ing|flying)|from\s+(?:the\s+\w+\s+(?:team|office)|accounts|legal|support|finance|sales|"
    r"marketing|hr|it|ops|security|billing)|and\s+(?:her|his|their|I)\s)\b",
    re.IGNORECASE,
)
_AFTER_SHARED = re.compile(
    r"\s*<[\w.+\-]+@|\s+here[,.!:;]|\s+(?:just\s+|also\s+|already\s+|still\s+)?(?:said|says|asked|asks|wrote|writes|thinks|thought|suggested|"
    r"suggests|mentioned|replied|confirmed|pinged|sent|works|worked|reviewed|rotated|reported|noticed|wants|needs|"
    r"runs|can't|cannot|won't|will\s+(?:pick|be|take|run|demo|send|review)|takes|is\s+(?:working|migrating|"
    r"rewriting|pairing|stuck))\b",
    re.IGNORECASE,
)
_VOCATIVE = re.compile(r",\s*(?:can|could|would|will|please|the|thanks|are|do|did|is)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
_TECH_AFTER = _set(
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
    "widget widgets"
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
_TECH_BEFORE = _set(
    "bump bumped upgrade upgraded upgrading install installed installing deploy deployed deploying run "
    "running restart restarted migrate migrated migrating train training trained fine-tune finetune serve "
    "serving query querying the our a an new old self-hosted managed"
)


# capitalised at a sentence's start, never a name's first word: `The Marseille PoP`, `If Priya`
_LEADING = _set(
    "the a an this that these those our my your his her their its some any every each all no both another if "
    "when while after before since as at by for from in into of on to with and but or so then also not please"
)


# system nouns that are also verbs a person does (`Sunita runs a clinic`); a noun when no object follows
_VERBS = _set(
    "run runs build builds release releases query queries index indexes install installs setup prompt prompts"
)
_OBJECT = re.compile(
    r"\s+(?:a|an|the|our|his|her|their|my|your|this|that|these|those|it|them|us|me|him|some|every|all)\b"
    # or a plain noun that is no system's: `builds violins`, `runs marathons` (not `builds are failing`)
    r"|\s+(?!(?:are|is|was|were|have|has|had|keep|kept|fail|failed|failing|in|on|for|of|with|from|to|at|and|or|but|"
    r"that|which|will|would|can|should|now|still|take|took|get|got|went|run|ran|pass|passed)\b)(?-i:[a-z]{3,}s)\b",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"[A-Z][a-z]+[A-Z]\w*")


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int
    key: str  # folded
    initial: bool  # the first word of its sentence


def runs(text: str) -> list[list[Token]]:
    """Runs of capitalised words joined by one space (or a name particle), outside code and identifiers."""
    code = [m.span() for m in _CODE.finditer(text)] if "`" in text else []
    out: list[list[Token]] = []
    last_end = -1
    for m in _TOKEN.finditer(text):
        a, b = m.span()
        word = m.group()
        if word[-2:] in ("'s", "’s"):  # a possessive is not part of the name
            word, b = word[:-2], b - 2
        leading = word.lower() in _LEADING and bool(_SENTENCE_START.search(text, 0, a))
        if not word or leading or not capitalised(word) or _glued(text, a, b) or any(s <= a < e for s, e in code):
            if not (word.lower() in PARTICLES and out and last_end == a - 1):
                last_end = -1
            continue
        token = Token(a, b, fold(word), bool(_SENTENCE_START.search(text, 0, a)))
        if out and last_end >= 0 and _joins(text[last_end:a]):
            out[-1].append(token)
        else:
            out.append([token])
        last_end = b
    return out


def _joins(gap: str) -> bool:
    return gap.startswith(" ") and gap.endswith(" ") and all(w in PARTICLES for w in gap.split())


def capitalised(word: str) -> bool:
    """`Priya`, `O'Brien`, `McAllister`, `Jean-Baptiste`, `Seo-yeon`; not `JSON`, `iPhone`, `GitHub`, `eu`."""
    if len(word) < 2 or not word[0].isupper():
        return False
    for i, part in enumerate(re.split(r"['’\-]", word)):
        if not part or (i == 0 and not part[0].isupper()):
            return False
        skip = 3 if part.startswith("Mac") else 2 if part.startswith("Mc") else 1
        if any(c.isupper() for c in part[skip:]) or not any(c.islower() for c in part):
            return False
    return True


def _glued(text: str, a: int, b: int) -> bool:
    """Part of an identifier, path, handle or call: `query_db`, `kafka.Message`, `@mwebb`, `PathPrefix(`."""
    before = text[a - 1] if a > 0 else " "
    after = text[b] if b < len(text) else " "
    following = text[b + 1] if b + 1 < len(text) else " "
    # `[` before a word that a space or a comma follows opens a list (`[Olamide Fashola, ...]`), not an index
    opens_list = before == "[" and after in " ,"
    if (before in _GLUE_BEFORE and not opens_list) or before.isdigit() or after in _GLUE_AFTER or after.isdigit():
        return True
    return after in ".:" and not (following.isspace() or following in "\"')]},;." or text.startswith("..", b))


def greeting(key: str) -> bool:
    """`hi`, `hey`, `thanks`, `dear`, `tell`, `ask`: said before a name, never part of it."""
    return (key in _GREETING and key not in _FIELDS) or key in _IMPERATIVE


def word_before(text: str, a: int) -> str:
    """The word before text[a:], across punctuation and a flag's dashes (`--author="`, `Assignee: `)."""
    match = _WORD_BEFORE.search(text, max(0, a - 40), a)
    return match.group(1).lower().lstrip("-") if match else ""


_INITIAL_BEFORE = re.compile(r"\b[A-Z]\.\s*\Z")


def field_before(text: str, a: int) -> bool:
    """A record's field for a person's name right before text[a:]: `name: "`, `last_name="`, `--author="`, and
    before an initial (`"holder":"K. Rostami"`)."""
    initial = _INITIAL_BEFORE.search(text, max(0, a - 4), a)
    return word_before(text, initial.start() if initial else a) in _FIELDS


def title_before(text: str, a: int) -> bool:
    return word_before(text, a) in TITLES


def social_before(text: str, a: int) -> bool:
    """Said only to or of a person right before text[a:]: `her brother`, `Dear`, `a man called`."""
    return word_before(text, a) in _SOCIAL or _NAMED_BEFORE.search(text, max(0, a - 40), a) is not None


_QUOTE_OPEN = re.compile(r"\b(?:the|a|an|our|their|your|its|this|that)\s+[\"“'‘]\Z", re.IGNORECASE)


def quoted_thing(text: str, a: int, b: int) -> bool:
    """A name in quotes after an article: a thing's (`the "Marvin" Slack bot`, `the "Ask Alexa" deep link`)."""
    return b < len(text) and text[b] in "\"”'’" and _QUOTE_OPEN.search(text, max(0, a - 12), a) is not None


_NEXT_NAME = re.compile(r"[\"'”’]?[ \t]+([A-Z][\w\-]*)")


def next_name(text: str, b: int) -> tuple[int, int] | None:
    """The capitalised word right after text[:b] (past a closing quote), if there is one."""
    match = _NEXT_NAME.match(text, b)
    return match.span(1) if match is not None else None


_INSIDE = _set("in near inside outside around across throughout")


def inside(text: str, a: int) -> bool:
    """A word where a person is not but a place is: `in`, `near`, `across` right before text[a:]."""
    return word_before(text, a) in _INSIDE and not re.match(r"[\w\-]*['’]s\b", text[a : a + 40])


def place_before(text: str, a: int) -> bool:
    before = word_before(text, a)
    if before in ("the", "our", "their", "her", "his", "my"):  # "in the Kraków office"
        before = word_before(text, text.rfind(before, max(0, a - 40), a))
    return before in _PLACE_BEFORE


def person(
    text: str, a: int, b: int, strict: bool = False, imperative: bool = True, pronoun: bool = False,
    social: bool = False,
) -> bool:  # fmt: skip
    """A cue for a person around text[a:b]. `strict`: not the words as often before a system (`from`, `with`);
    `imperative`: verbs said to assistants as often as to people (`ask`, `tell`) count; `pronoun`: so does a
    `he` or `her` later in the sentence; `social`: only what is said of people alone (for a product's name:
    `Thanks Claude`, `Claude wrote` are said of the model)."""
    before = word_before(text, a)
    if before in (_SOCIAL if social else _GREETING) or _NAMED_BEFORE.search(text, max(0, a - 40), a):
        return True
    if (imperative and before in _IMPERATIVE) or (not strict and before in _WEAK):
        return True
    if _AFTER_SOCIAL.match(text, b) or (not social and _AFTER_SHARED.match(text, b)):
        return True
    if imperative and _VOCATIVE.match(text, b):
        return True
    end = _SENTENCE_END.search(text, b)
    return (pronoun or not strict) and bool(_PRONOUN.search(text, b, end.start() if end else len(text)))


def pair(text: str, a: int, b: int) -> str | None:
    """The other name in `X and Y` around text[a:b], folded, if it is capitalised."""
    before = _PAIR_BEFORE.search(text, max(0, a - 40), a)
    after = _PAIR_AFTER.match(text, b)
    for match in (before, after):
        if match is not None and capitalised(match.group(1)):
            return fold(match.group(1))
    return None


_ASIDE = re.compile(r"\s*\(([^()\n]{1,80})\)")
_HUMAN = _set("person human colleague coworker engineer teammate intern contractor manager he she her him his")


def described_as_system(text: str, b: int) -> bool:
    """An aside right after text[:b] that says it is a system: `Watson (the old IBM chatbot integration)`; not
    `Jenkins (the person, not the CI)`."""
    match = _ASIDE.match(text, b)
    if match is None:
        return False
    words = set(re.findall(r"[a-z][\w\-]*", match.group(1).lower()))
    return not words & _HUMAN and bool(words & _TECH_AFTER)


def tech_after(text: str, b: int) -> bool:
    """A version number, a system's noun or state after text[:b] (`Kafka 3.7`, `Cassandra cluster`, `Hudson is
    still running`)."""
    if _VERSION_AFTER.match(text, b) or _STATE_AFTER.match(text, b):
        return True
    match = _NEXT_WORD.match(text, b)
    if match is None or match.group(1).lower() not in _TECH_AFTER:
        return False
    # `Sunita runs a clinic`, `Priya builds the image`: a verb there, with its object after it
    return not (match.group(1).lower() in _VERBS and _OBJECT.match(text, match.end()))


_SPACED_BEFORE = re.compile(r"([\w\-]+)[ \t]+\Z")


def tech_before(text: str, a: int) -> bool:
    """A verb done to systems, or an article, right before text[a:]: `bump Grafana`, `the Aurora`; not across
    punctuation (`the Istio upgrade: Zoë does the control plane`)."""
    match = _SPACED_BEFORE.search(text, max(0, a - 40), a)
    return match is not None and match.group(1).lower() in _TECH_BEFORE


def product_next(text: str, a: int, b: int, products: Collection[str]) -> bool:
    """A capitalised product word right before text[a:] or after text[:b] (`EPYC Milan`), or a CamelCase word
    after it (`Phoenix LiveView`)."""
    before = re.search(r"(\S+)\s+\Z", text[max(0, a - 40) : a])
    after = re.match(r"\s+(\S+)", text[b : b + 40])
    if after is not None and _CAMEL.fullmatch(after.group(1).rstrip(".,;:")):
        return True
    words = [fold(m.group(1)) for m in (before, after) if m is not None and not m.group(1).islower()]
    return any(w in products and not greeting(w) and w not in _LEADING for w in words)


# a list of names: `A, B and C`, `A or B`, `A/B`; `from A to B`
_LIST_GAP = re.compile(r"\s*(?:,\s*(?:(?:and|or|&)\s+)?|\s(?:and|or|&|nor|vs\.?|versus)\s+|\s*/\s*)")
_FROM_BEFORE = re.compile(r"\bfrom\s+\Z", re.IGNORECASE)
_TO_GAP = re.compile(r"\s+(?:to|into|onto)\s+", re.IGNORECASE)


def listed(text: str, b: int, a: int) -> bool:
    """Whether text[b:a], between two capitalised words, joins them in one list (`, `, ` and `, `/`)."""
    return _LIST_GAP.fullmatch(text, b, a) is not None


def moved(text: str, first: int, b: int, a: int) -> bool:
    """`from A to B`: text[first:b] is A, text[b:a] the gap before B."""
    return (
        _TO_GAP.fullmatch(text, b, a) is not None and _FROM_BEFORE.search(text, max(0, first - 10), first) is not None
    )


# families whose releases have codenames (lexicon codenames.txt), by the words that name the family
FAMILIES = {"macos": _set("macos osx mac xcode"), "ubuntu": _set("ubuntu"), "debian": _set("debian apt")}
_WORDS = re.compile(r"[a-z]+")


def families(text: str) -> frozenset[str]:
    """The codename families a text names (`macOS`, `Ubuntu`, `Debian`)."""
    words = set(_WORDS.findall(text.lower()))
    return frozenset(f for f, names in FAMILIES.items() if words & names)
