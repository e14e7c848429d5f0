"""Names written with an initial: `SCHMIDT K.`, `Petrov A.` (a surname, then the given name's initial, as logs,
rosters and payment files write them) and `J. Kowalski`, `J. R. Okwu` (initials, then the surname).

The readers of runs of capitalised words see the initial's dot as a sentence's
end, so the surname after it reads as the first word of a sentence and the one
before it as a word alone. Here the shape decides, when the surname is one:

- the surname is no English word, no product's or package's name, no large
  place's name and no release codename (`Plan B.`, `Appendix A.`, `Vitamin C.`,
  `Berlin A.` are not read);
- it is a surname or a given name the lexicons know (`Nattapong S.`), or a
  word no lexicon knows at all written as names are (`Dvořáková T.`,
  `QURESHI A.`);
- the initial is one capital letter with its dot, and a word's end after it.

What is found so is a name by its shape: the vetter does not second-guess it.
"""

from __future__ import annotations

import re

from .kinds import Kinds
from .lexicons import fold

Span = tuple[str, int, int]

_SURNAME = r"[A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]{2,}(?:[-'’][A-ZÀ-ÖØ-ÞĀ-ſ][^\W\d_]+)?"
# `SCHMIDT K.`, `Petrov A.`: not after a word's glue (`user.Petrov A.`)
_SURNAME_INITIAL = re.compile(rf"(?<![\w\-.@/])({_SURNAME})[ \t]+[A-Z]\.(?=[\s,;:)\]\"'–—]|\Z)")
# `J. Kowalski`, `J. R. Okwu`: not after a letter, a dot or a degree (`U.S. Army`, `e.g. Kafka`, `31°C. Rosa`)
_INITIAL_SURNAME = re.compile(rf"(?<![\w.°])[A-Z]\.[ \t]*(?:[A-Z]\.[ \t]*)?({_SURNAME})(?![\w\-])")


def initialled(kinds: Kinds, text: str) -> list[Span]:
    """The names in `text` written with an initial, as PERSON spans (the initial included)."""
    if "." not in text:
        return []
    out: list[Span] = []
    for m in _SURNAME_INITIAL.finditer(text):
        if _surname(kinds, m.group(1)):
            out.append(("PERSON", m.start(), m.end()))
    for m in _INITIAL_SURNAME.finditer(text):
        if _surname(kinds, m.group(1)):
            out.append(("PERSON", m.start(), m.end()))
    return sorted(out, key=lambda span: span[1])


def _surname(kinds: Kinds, word: str) -> bool:
    key = fold(word)
    lex = kinds.lex
    if key in lex.words or kinds.product(key) or kinds.big_place(key) or key in lex.codenames:
        return False
    if key in lex.surnames or key in lex.people or kinds.given(key):
        return True  # a surname, or a given name with the surname's initial (`Nattapong S.`)
    # a word no lexicon knows, written as a name is: `Dvořáková`, `QURESHI`
    return not lex.knows_place(key) and (word.isupper() or word[1:].islower())
