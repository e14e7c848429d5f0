"""Names written with an initial: `SCHMIDT K.`, `Petrov A.` (a surname, then the given name's initial, as logs,
rosters and payment files write them), `J. Kowalski`, `J. R. Okwu` (initials, then the surname) and `Brenda K.
Holloway` (a middle initial).

The readers of runs of capitalised words see the initial's dot as a sentence's
end, so the surname after it reads as the first word of a sentence and the one
before it as a word alone. Here the shape decides, when the surname is one:

- the surname is no English word, no release codename, no big place's name,
  and no product's name unless a common surname too (`Plan B.`, `Appendix
  A.`, `Berlin A.` are not read; `K. Nakamura` is);
- it is a surname or a given name the lexicons know (`Nattapong S.`), or a
  word no lexicon knows, written as names are, after what introduces a
  person or a record's value (`operator=Dvořáková T.`, `Renter: QURESHI A.`,
  `signed by J. Okwu`) or initials in a sentence's middle (`is J. R. Okwu
  still`): not an outline's heading (`A. Einleitung`), another language's
  noun (`Kategorie C. Fehler`) or a log's acronym (`SIGTERM A.`);
- an initial right after a capitalised word is that word's (`Option A.`,
  `Kowalski A. Nowak B.`: two people, each with their initial), so no
  surname is read after it.

What is found so is a name by its shape: the vetter does not second-guess it.
"""

from __future__ import annotations

import re

from .cues import CAPITAL_AFTER, GREETINGS, SENTENCE_START
from .kinds import Kinds
from .lexicons import fold

Span = tuple[str, int, int]

_SURNAME = r"[A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁІЇЄ][^\W\d_]{2,}(?:[-'’][A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+)?"
_CAPITAL = r"[A-ZА-ЯЁІЇЄ]"  # an initial's letter: Latin's, Cyrillic's (`Кузнецов Д. А.`)
# `Brenda K. Holloway`: a given name, its middle initial and the surname
_MIDDLE = re.compile(rf"(?<![\w\-.@/])({_SURNAME})[ \t]+[A-Z]\.[ \t]+({_SURNAME})(?![\w\-])")
# `SCHMIDT K.`, `Petrov A.`: not after a word's glue (`user.Petrov A.`)
_SURNAME_INITIAL = re.compile(
    rf"(?<![\w\-.@/])({_SURNAME})[ \t]+{_CAPITAL}\.(?:[ \t]?{_CAPITAL}\.)?(?=[\s,;:)\]\"'–—]|\Z)"
)
# `J. Kowalski`, `J. R. Okwu`: not after a letter, a dot or a degree (`U.S. Army`, `e.g. Kafka`, `31°C. Rosa`)
_INITIAL_SURNAME = re.compile(rf"(?<![\w.°]){_CAPITAL}\.[ \t]*(?:{_CAPITAL}\.[ \t]*)?({_SURNAME})(?![\w\-])")
# an initial that belongs to the capitalised word before it: `Option A.`, `Kowalski A.`
_WORD_BEFORE = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]*[ \t]+\Z")
# what introduces a person or a record's value: `operator=`, `Renter: `, `"`, `signed by `, `cc `
_STATE_DOTTED = re.compile(
    r"[ \t]+(?:N\.[CYJMHD]|S\.[CD]|[VW]\.[AV]|O\.[RHK]|D\.C|R\.I|P\.A|T\.[XN]|G\.A|F\.L|C\.[AOT])\."
)
_INTRODUCED = re.compile(
    r"(?:[=:\"'(]|\b(?:by|from|to|cc|with|and|for|signed|contact|owner|user|pilot|skipper|driver|renter|operator|"
    r"customer|patient|holder|member|agent|reporter|assignee))[ \t]*\Z",
    re.IGNORECASE,
)
_INSIDE = re.compile(r"(?:\b[a-z][^\W\d_]*|,)[ \t]+\Z")
_ACRONYM = 5  # an unknown word in capitals this short is an acronym's shape (`SIGTERM` is not, `ENOENT` is)


def initialled(kinds: Kinds, text: str) -> list[Span]:
    """The names in `text` written with an initial, as PERSON spans (the initial included), none overlapping."""
    if "." not in text:
        return []
    out: list[Span] = []
    for m in _MIDDLE.finditer(text):
        if kinds.given(fold(m.group(1))) and _surname(kinds, text, m.start(2), m.group(2), known=True):
            out.append(("PERSON", m.start(), m.end()))
    for m in _SURNAME_INITIAL.finditer(text):
        if _STATE_DOTTED.search(text, m.end(1), m.end()):
            continue  # `Raleigh N.C.`, `Portland O.R.`: a town and its state's letters
        opens = SENTENCE_START.search(text, max(0, m.start() - 8), m.start()) is not None
        if m.group(1).lower() in GREETINGS and (opens or CAPITAL_AFTER.match(text, m.end())):
            continue  # `Bonjour M. Lindström`: a greeting, then a title's letter (not a roster's `Oke A.`, `Sawa H.`)
        if _surname(kinds, text, m.start(), m.group(1)):
            out.append(("PERSON", m.start(), m.end()))
    for m in _INITIAL_SURNAME.finditer(text):
        before = _WORD_BEFORE.search(text, max(0, m.start() - 40), m.start())
        if before is not None and before.group().strip().lower() not in GREETINGS:
            continue  # (not after a greeting: `Bonjour M. Lindström`)
        if text[m.start() + 2 : m.start() + 3].isalpha() and m.group(1).isupper():
            continue  # `P.IVA`, `S.RL`: an abbreviation glued to its initial, not `J. SMITH`
        # in a sentence's middle (`is J. R. Okwu still`), not opening a line (`A. Einleitung`)
        inside = _INSIDE.search(text, max(0, m.start() - 40), m.start()) is not None
        if _surname(kinds, text, m.start(), m.group(1), introduced=inside):
            out.append(("PERSON", m.start(), m.end()))
    kept: list[Span] = []
    for span in sorted(out, key=lambda s: (s[1], -s[2])):
        if not kept or span[1] >= kept[-1][2]:
            kept.append(span)  # the first and longest of overlapping readings
    return kept


def _surname(kinds: Kinds, text: str, at: int, word: str, known: bool = False, introduced: bool = False) -> bool:
    """`word`, read as a name at text[at], is a surname (or a given name) by the lexicons, or, unless only a known
    one will do, a word no lexicon knows written as names are after what introduces a person."""
    key = fold(word)
    lex = kinds.lex
    product = kinds.product(key) and not kinds.common_surname(key)
    if key in lex.words or product or kinds.big_place(key) or key in lex.codenames:
        return False
    if key in lex.surnames or key in lex.people or word in lex.people or kinds.given(key):
        return True  # a surname, or a given name with the surname's initial (`Nattapong S.`)
    if known or lex.knows_place(key) or not (word.isupper() or word[1:].islower()):
        return False
    if word.isupper() and len(word) <= _ACRONYM:
        return False  # `ENOENT B.`, `GDPR B.`: an acronym's shape
    return introduced or _INTRODUCED.search(text, max(0, at - 24), at) is not None
