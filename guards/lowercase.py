"""Names as chat writes them, in lower case: `ping marco`, `kenji & mei are pairing`, `i'm in lisbon till friday`.

guards/names.py reads capitalised words. People typing in chat often write
no capitals at all, and a name in lower case looks like any other word. Here
a lower-case word is a person's only when it is a given name on sight (many
people carry it), no English word more than a name, no product's name nor a
large place's, and what is said around it is said of a person (`ping`, `cc`, `thanks`,
`said`, `is out`, `moved to`, another name in `X & Y`, a stand-up line's
`marco on the ledger bug`); and a place only when it is a large place's name
(a country, or a city of 100,000 people or more) that is no English word and
no given name, after a place's cue (`in`, `from`, `moved to`) and not where a
system runs (guards/deployments.py). Words in code or glued to an identifier
(`priya_test`, `@marco`, `/home/priya`) are never read.
"""

from __future__ import annotations

import re

from . import cues, deployments
from . import systems as said
from .kinds import Kinds
from .lexicons import fold

Span = tuple[str, int, int]
_LOWER = re.compile(r"(?<![\w\-'’])[^\W\d_]+(?![\w\-])")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
# a stand-up line names a person at its start, or after a comma: `hamid on ledger bug, sana on ios crash`
_STANDUP_AFTER = re.compile(r"\s+(?:on|out|off|back|oof|ooo|wfh|pto|away|sick)\b")
_ABSENT_AFTER = re.compile(r"\s+(?:is\s+|['’]s\s+)?(?:ooo|oof|wfh|afk|pto|out\s+sick|off\s+sick)\b")
_LIST_START = re.compile(r"(?:\A|\n|[,;:]\s*|[-*•]\s+)\Z")
_PEOPLE_BEFORE = frozenset({"w", "with", "ping", "cc", "thanks", "thx", "ty", "hi", "hey", "yo", "tell", "ask"})
BIG_PLACE = 100_000


def lower_names(kinds: Kinds, text: str, taken: list[Span]) -> list[Span]:
    """The people and places written in lower case in `text`, apart from those `taken` already overlaps."""
    if not any(c.islower() for c in text):
        return []
    code = [m.span() for m in _CODE.finditer(text)] if "`" in text else []
    out: list[Span] = []
    words = list(_LOWER.finditer(text))
    for i, m in enumerate(words):
        a, b = m.span()
        if not m.group().islower():
            continue
        if any(s < b and a < e for _, s, e in taken) or any(s <= a < e for s, e in code):
            continue
        if cues._glued(text, a, b):
            continue
        pair = words[i + 1] if i + 1 < len(words) and text[b : words[i + 1].start()] == " " else None
        if pair is not None and _place(kinds, text, a, pair.end()):
            out.append(("LOCATION", a, pair.end()))
            continue
        if _place(kinds, text, a, b):
            out.append(("LOCATION", a, b))
        elif _person(kinds, text, a, b):
            out.append(("PERSON", a, b))
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
    if _ABSENT_AFTER.match(text, b):
        return True
    other = cues.pair(text, a, b, lower=True)  # `kenji & mei`
    return other is not None and kinds.given(other) == 2 and not kinds.product(other) and other not in kinds.lex.words


def _place(kinds: Kinds, text: str, a: int, b: int) -> bool:
    key = " ".join(fold(text[a:b]).split())
    lex = kinds.lex
    place = lex.places.get(key)
    if place is None or (place.kind == "city" and place.population < BIG_PLACE):
        return False
    if any(w in lex.words for w in key.split()) or kinds.given(key) or kinds.product(key):
        return False
    if not cues.place_before(text, a) or cues.word_before(text, a) == "on":
        return False
    return not deployments.deployment(text, a, b, lex.products)
