"""Names as chat writes them, in lower case: `ping marco`, `kenji & mei are pairing`, `i'm in lisbon till friday`.

guards/names.py reads capitalised words. People typing in chat often write
no capitals at all, and a name in lower case looks like any other word. Here
a lower-case word is a person's only when it is a given name on sight (many
people carry it), no English word more than a name, no product's name nor a
large place's, and what is said around it is said of a person (`ping`, `cc`, `thanks`,
`said`, `is out`, `moved to`, another name in `X & Y`, a stand-up line's
`marco on the ledger bug`); and a place only when it is a large place's name
(a country, or a city of 100,000 people or more) that is no English word and
no common given name, after a place's cue (`in`, `from`, `moved to`) and not where a
system runs (guards/deployments.py). Words in code, on a line of code
(`=`, `;`, braces) or glued to an identifier (`priya_test`, `@marco`,
`/home/priya`) are never read.
"""

from __future__ import annotations

import re

from . import cues, deployments
from . import systems as said
from .kinds import Kinds
from .lexicons import fold

Span = tuple[str, int, int]
_LOWER = re.compile(r"(?<![\w\-'’])[^\W\d_]+(?![\w\-])")
_CODE = re.compile(r"[=;{}]")
_CONTRACTED = re.compile(r"['’](?:d|ll|ve|re|m)\b", re.IGNORECASE)
# a stand-up line names a person at its start, or after a comma: `hamid on ledger bug, sana on ios crash`
_STANDUP_AFTER = re.compile(r"\s+(?:on|out|off|back|oof|ooo|wfh|pto|away|sick)\b")
_ABSENT_AFTER = re.compile(r"\s+(?:is\s+|['’]s\s+)?(?:ooo|oof|wfh|afk|pto|out\s+sick|off\s+sick)\b", re.IGNORECASE)
# what people do, said right after a lower-case given name: `joão has the pager`, `aditi fixed jarvis`
_DOES_AFTER = re.compile(
    r"\s+(?:has|had|is|was|will|can|could|did|does|fixed|pushed|merged|reviewed|approved|owns|covers|covered|wrote|"
    r"said|says|asked|knows|thinks|left|joined|took|shipped|are\s+both|→|->)(?=\s)"
)
_LIST_START = re.compile(r"(?:\A|\n|[,;:]\s*|[-*•]\s+)\Z")
_PEOPLE_BEFORE = frozenset({"w", "with", "ping", "cc", "thanks", "thx", "ty", "hi", "hey", "yo", "tell", "ask"})
BIG_PLACE = 100_000


def lower_names(kinds: Kinds, text: str, taken: list[Span]) -> list[Span]:
    """The people and places written in lower case in `text`, apart from those `taken` already overlaps."""
    if not any(c.islower() for c in text):
        return []
    code = [m.span() for m in cues.CODE_SPANS.finditer(text)] if "`" in text else []
    lines = _code_lines(text) if any(c in text for c in "=;{}") else []
    out: list[Span] = []
    covered = bytearray(len(text))  # the characters a name already found covers
    for _, s, e in taken:
        covered[s:e] = b"\x01" * (e - s)
    words = list(_LOWER.finditer(text))
    for i, m in enumerate(words):
        a, b = m.span()
        if not m.group().islower():
            continue
        if 1 in covered[a:b] or cues.within(code, a):
            continue
        if cues.glued(text, a, b) or cues.within(lines, a) or _CONTRACTED.match(text, b):
            continue  # `cc'd`, `we'll`: a verb's contraction, no one's name
        pair = words[i + 1] if i + 1 < len(words) and text[b : words[i + 1].start()] == " " else None
        if pair is not None and _place(kinds, text, a, pair.end()):
            found: Span | None = ("LOCATION", a, pair.end())  # `buenos aires`; its second word is not read again
        elif _place(kinds, text, a, b):
            found = ("LOCATION", a, b)
        elif _person(kinds, text, a, b):
            found = ("PERSON", a, b)
        else:
            found = None
        if found is not None:
            out.append(found)
            covered[found[1] : found[2]] = b"\x01" * (found[2] - found[1])
    return out


def _code_lines(text: str) -> list[tuple[int, int]]:
    """The lines of code in `text` (`var ean = "...";`, `if (x) {`), by their spans: chat's lines have none of
    `=`, `;` and braces."""
    out = []
    start = 0
    for line in text.split("\n"):
        if _CODE.search(line):
            out.append((start, start + len(line)))
        start += len(line) + 1
    return out


def _person(kinds: Kinds, text: str, a: int, b: int) -> bool:
    key = fold(text[a:b])
    lex = kinds.lex
    if kinds.given(key) < 2 or kinds.product(key) or kinds.big_place(key) or key in lex.codenames:
        return False
    if lex.wordiness(key) >= 0.5 or key in cues.PRONOUNS or key in cues.CALENDAR or key in cues.TITLES:
        return False
    if said.tech_after(text, b) or said.tech_before(text, a) or cues.field_before(text, a):
        return False  # `name: "nile"`, `name = ledger`: a field in lower case holds an identifier
    if cues.word_before(text, a) in _PEOPLE_BEFORE or cues.person(text, a, b, strict=True):
        return True
    if _STANDUP_AFTER.match(text, b) and _LIST_START.search(text, max(0, a - 3), a):
        return True
    if _ABSENT_AFTER.match(text, b) or _DOES_AFTER.match(text, b):
        return True
    other = cues.pair(text, a, b, lower=True)  # `kenji & mei`
    return other is not None and kinds.given(other) == 2 and not kinds.product(other) and other not in kinds.lex.words


def _place(kinds: Kinds, text: str, a: int, b: int) -> bool:
    key = " ".join(fold(text[a:b]).split())
    lex = kinds.lex
    place = lex.places.get(key)
    if place is None or (place.kind == "city" and place.population < BIG_PLACE):
        return False
    if any(w in lex.words for w in key.split()) or kinds.given(key) == 2 or kinds.product(key):
        return False
    if not cues.place_before(text, a) or cues.word_before(text, a) == "on":
        return False
    return not deployments.deployment(text, a, b, lex.products)
