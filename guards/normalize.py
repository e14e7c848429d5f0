"""Texts rewritten for recognising, each with a map back to the characters of the original.

Recognizers see one spelling of a value; a client can write it many ways.
`normalize` folds the ways that change nothing for a reader: compatibility
forms (NFKC: fullwidth digits and letters, ligatures), decimal digits of every
script to ASCII, every Unicode space to ' ', every dash to '-'; it drops
invisible characters (zero-width spaces and joiners, soft hyphens, bidi marks,
lone surrogates) and reads JSON `\\uXXXX` escapes as the characters they stand
for. `splice` edits a mapped text further (separators removed, a decoded run
put in place of its encoding). Either way, a span found in the rewritten text
maps back to the original characters, so a redaction replaces exactly what the
client wrote. Plain ASCII without escapes is returned as is, without a map.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_SPECIAL = re.compile(r"[^\x00-\x7f]+|\\u[0-9A-Fa-f]{4}(?:\\u[dD][c-fC-F][0-9A-Fa-f]{2})?")
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u3164\uffa0")  # blank, not Cf
_DOTS = frozenset("\u00b7\u2027\u2219\u22c5\u30fb\uff65\u3002\uff61")
_SLASHES = frozenset("\u2044\u2215\u29f8")
_MINUS = frozenset("\u2212\u2043\u02d7\ufe63")


@dataclass(frozen=True, slots=True)
class Mapped:
    """A rewritten text; `starts[i]`/`ends[i]`: the original span character i came from (None: identity)."""

    text: str
    starts: Sequence[int] | None = None
    ends: Sequence[int] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of text[start:end] (end > start)."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


@functools.lru_cache(maxsize=4096)
def fold(char: str) -> str:
    """One non-ASCII character as recognizers should see it ('' for an invisible one)."""
    category = unicodedata.category(char)
    if (
        category in ("Cf", "Cs")
        or char in _INVISIBLE
        or 0xFE00 <= ord(char) <= 0xFE0F
        or 0xE0100 <= ord(char) <= 0xE01EF
    ):
        return ""
    if char.isdecimal():
        return str(unicodedata.decimal(char))
    if category in ("Zs", "Zl", "Zp") or char == "\u2800":
        return " "
    if category == "Pd" or char in _MINUS:
        return "-"
    if char in _DOTS:
        return "."
    if char in _SLASHES:
        return "/"
    folded = unicodedata.normalize("NFKC", char)
    return "".join(fold(c) if not c.isascii() and c != char else c for c in folded)


class _Folds(dict[int, str]):
    """fold() by code point, for str.translate; remembers what folds to zero or several characters in _UNEVEN."""

    def __missing__(self, point: int) -> str:
        folded = fold(chr(point))
        if len(folded) != 1:
            _UNEVEN.add(chr(point))
        if len(self) < _MAX_FOLDS:  # bounded: a text of every code point cannot grow it without end
            self[point] = folded
        return folded


_MAX_FOLDS = 65_536
_UNEVEN: set[str] = set()
_FOLDS = _Folds({i: chr(i) for i in range(128)})


def normalize(text: str) -> Mapped:
    """`text` folded for recognising; plain ASCII (and text that folds to itself) comes back unmapped.

    JSON's `\\uXXXX` escapes (what `json.dumps` writes for non-ASCII, say inside a
    tool call's arguments) are read as the characters they stand for.
    """
    if text.isascii() and "\\u" not in text:
        return Mapped(text)
    folded = text.translate(_FOLDS)  # at C speed, one lookup per character
    if "\\u" not in text and _UNEVEN.isdisjoint(text):  # each character folded to exactly one
        return Mapped(folded)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    same = True
    last = 0
    for match in _SPECIAL.finditer(text):
        a, b = match.span()
        out.append(text[last:a])
        starts.extend(range(last, a))
        ends.extend(range(last + 1, a + 1))
        if text[a] == "\\":
            char = json.loads(f'"{match.group()}"')
            folded = "".join(fold(c) if not c.isascii() else c for c in char)
            _emit(out, starts, ends, folded, a, b)
            same = False
        else:
            for i in range(a, b):
                folded = fold(text[i])
                _emit(out, starts, ends, folded, i, i + 1)
                same = same and len(folded) == 1
        last = b
    out.append(text[last:])
    starts.extend(range(last, len(text)))
    ends.extend(range(last + 1, len(text) + 1))
    if same:  # one character for one: positions are unchanged
        return Mapped("".join(out))
    return Mapped("".join(out), starts, ends)


def _emit(out: list[str], starts: list[int], ends: list[int], folded: str, a: int, b: int) -> None:
    out.append(folded)
    starts.extend([a] * len(folded))
    ends.extend([b] * len(folded))


Edit = tuple[int, int, str]  # replace mapped.text[start:end] (end > start) by the string


def splice(base: Mapped, edits: Sequence[Edit]) -> tuple[Mapped, list[tuple[int, int]]]:
    """`base` with `edits` applied (sorted, not overlapping), and where each edit landed in the new text.

    Characters of a replacement all map to the whole original span they replace;
    the rest keep their own.
    """
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    regions: list[tuple[int, int]] = []
    last = 0
    size = 0
    for a, b, new in edits:
        _keep(base, last, a, out, starts, ends)
        size += a - last
        if new:
            lo, hi = base.span(a, b)
            out.append(new)
            starts.extend([lo] * len(new))
            ends.extend([hi] * len(new))
        regions.append((size, size + len(new)))
        size += len(new)
        last = b
    _keep(base, last, len(base.text), out, starts, ends)
    return Mapped("".join(out), starts, ends), regions


def _keep(base: Mapped, a: int, b: int, out: list[str], starts: list[int], ends: list[int]) -> None:
    out.append(base.text[a:b])
    if base.starts is None or base.ends is None:
        starts.extend(range(a, b))
        ends.extend(range(a + 1, b + 1))
    else:
        starts.extend(base.starts[a:b])
        ends.extend(base.ends[a:b])
