"""Values split across neighbouring texts: `"4111 1111"` in one content part and `"1111 1111"` in the next.

Each text is scanned on its own (and cached on its own), so a value cut in
two is whole in neither. Around every boundary between consecutive texts of a
request (in document order: content parts, messages, tool arguments), a
window joins the end of the texts before it to the start of the texts after
it, up to REACH characters each side, twice: glued directly (a value cut
inside a group, `jane.d` + `oe@example.com`) and with a space between the
texts (whole groups, so a text after them cannot run into the last one). The
windows are scanned for pattern entities; a finding that crosses a boundary is
split into its pieces, one per text it touches. A boundary is only looked at
when both sides have a digit near it, or either side an '@': every pattern
entity needs one of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .findings import Finding

REACH = 64  # characters taken each side of a boundary
EDGE = 24  # how near the boundary the digit (or '@') must be
_AT = re.compile("[@\uff20\ufe6b]")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class Window:
    """Texts joined around one boundary; `pieces`: (text index, offset in that text, offset here, length)."""

    text: str
    pieces: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True, slots=True)
class Split:
    """A value found across texts: its type, score, and (text index, start, end) of each piece."""

    entity: str
    score: float
    parts: tuple[tuple[int, int, int], ...]

    def pieces(self) -> list[tuple[int, Finding]]:
        return [(i, Finding(self.entity, a, b, self.score, "joined")) for i, a, b in self.parts]


def windows(texts: Sequence[str]) -> list[Window]:
    """A window for each boundary between consecutive non-empty texts that a value could cross."""
    order = [i for i, t in enumerate(texts) if t]
    out: list[Window] = []
    for k in range(len(order) - 1):
        before, after = texts[order[k]], texts[order[k + 1]]
        if len(before) >= EDGE and len(after) >= EDGE and not _may_cross(before[-EDGE:], after[:EDGE]):
            continue  # the usual case, decided without building anything
        left = _side(texts, order[k::-1], from_end=True)
        right = _side(texts, order[k + 1 :], from_end=False)
        if _may_cross("".join(s for _, _, s in left)[-EDGE:], "".join(s for _, _, s in right)[:EDGE]):
            out.extend(_join(left, right, glue) for glue in ("", " "))
    return out


def splits(window: Window, findings: Sequence[Finding]) -> list[Split]:
    """The findings in `window` that cross a boundary, as pieces of the texts they touch."""
    out = []
    for f in findings:
        parts = tuple(
            (index, offset + max(f.start, at) - at, offset + min(f.end, at + size) - at)
            for index, offset, at, size in window.pieces
            if max(f.start, at) < min(f.end, at + size)
        )
        if len(parts) > 1:
            out.append(Split(f.entity, f.score, parts))
    return out


Side = list[tuple[int, int, str]]  # (text index, offset of the slice in that text, the slice)


def _side(texts: Sequence[str], indices: Sequence[int], from_end: bool) -> Side:
    """Up to REACH characters next to the boundary, from as many texts as it takes."""
    out: Side = []
    room = REACH
    for index in indices:
        text = texts[index]
        if not text:
            continue
        take = text[-room:] if from_end else text[:room]
        out.append((index, len(text) - len(take) if from_end else 0, take))
        room -= len(take)
        if room <= 0:
            break
    return out[::-1] if from_end else out


def _may_cross(tail: str, head: str) -> bool:
    """Whether a pattern entity could run from `tail` into `head`: a digit each side, or an '@' on either."""
    return bool(_AT.search(tail) or _AT.search(head) or (_DIGIT.search(tail) and _DIGIT.search(head)))


def _join(left: Side, right: Side, glue: str) -> Window:
    pieces = []
    at = 0
    for index, offset, piece in left + right:
        pieces.append((index, offset, at, len(piece)))
        at += len(piece) + len(glue)
    return Window(glue.join(s for _, _, s in left + right), tuple(pieces))
