"""Canonical tool names: one spelling per tool, so a look-alike cannot slip past rules keyed on the real one.

Grants match tool patterns and constraints key on exact names. A name that
differs from a policy name only by case (`mail__Send`), a compatibility form
(fullwidth `mail__ｓend`) or a confusable letter (Cyrillic `mail__sеnd`) would
match a broad grant (`mail__*`) while missing the constraint on `mail__send`;
a client or dispatcher that folds names would then run the constrained tool
unconstrained. So a tool name must be canonical (MCP's tool-name alphabet:
ASCII letters, digits, `_`, `.`, `-`; 1 to 128 characters), and a canonical
name that folds onto a policy name or pattern it does not itself match is an
imitation. Both are refused, naming what the name imitates.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from casbin.util import key_match

CANONICAL = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
# Latin look-alikes NFKC leaves alone (Cyrillic and Greek letters); used only to name what a refused name imitates
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁһӏԛԝьвкмнтгпαβεικνορτυχωϲϳ",
    "aeopcyxijsdhlqwbbkmhtrnabeikvoptuxwcj",
)


def canonical(name: str) -> bool:
    return CANONICAL.fullmatch(name) is not None


def skeleton(name: str) -> str:
    """What a name looks like: compatibility forms, case, accents, invisible and look-alike letters folded."""
    if name.isascii():
        return name.lower()  # what the folding below does to ASCII, without its cost
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKES)
    decomposed = unicodedata.normalize("NFKD", folded)
    return "".join(c for c in decomposed if not unicodedata.combining(c) and unicodedata.category(c) != "Cf")


class PolicyNames:
    """The tool names and patterns a grant's rules, constraints, scopes and narrowing mention, folded once."""

    def __init__(self, patterns: Iterable[str]):
        unique = sorted(dict.fromkeys(patterns), key=lambda p: "*" in p)  # exact names first: the likelier model
        self._patterns = tuple((p, skeleton(p)) for p in unique)
        self._unfolded = tuple((p, shape) for p, shape in self._patterns if shape != p)

    def imitated(self, name: str) -> str | None:
        """The first name or pattern `name` folds onto without matching it; None if it imitates none."""
        folded, exact = skeleton(name), canonical(name)
        # a canonical name that folding leaves alone can only imitate a pattern that folding changes
        candidates = self._unfolded if exact and folded == name else self._patterns
        for pattern, shape in candidates:
            if key_match(folded, shape) and not (exact and key_match(name, pattern)):
                return pattern
        return None

    def refusal(self, name: str) -> str | None:
        """Why `name` is refused as a tool name, or None if it is canonical and imitates no policy name."""
        copied = self.imitated(name)
        if not canonical(name):
            reason = "its name is not canonical (ASCII letters, digits, '_', '.' and '-'; 1 to 128 characters)"
            return f"{reason}; it imitates {copied!r}" if copied else reason
        if copied is not None:
            return f"its name imitates {copied!r}: it differs only by case, compatibility form or a look-alike letter"
        return None
