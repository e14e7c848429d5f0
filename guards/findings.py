"""What the PII step finds in a text, and what it does with it: a Finding, overlaps resolved, spans redacted.

Plain data and string work only: the output guard, the boundaries between
texts and the step itself use these without loading the analyzer.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """One entity found in one text: its type, span, the analyzer's confidence, and the reading that found it.

    `via` is empty for the text as written (normalised); `separators`, `spaced`,
    `base64`, `hex` or `escaped` for a further reading; `joined` for a piece of
    a value that continues in a neighbouring text.
    """

    entity: str
    start: int
    end: int
    score: float
    via: str = ""


class Overlaps:
    """Spans (`(kind, start, end)`) kept in order of their start, asked which of them overlap a range.

    A question reads only the spans that start within the longest span's length
    before the range, so checking each of a long text's candidates against all
    that was found before it is not quadratic (a table of 200,000 characters
    holds 16,000 names).
    """

    __slots__ = ("_longest", "_spans", "_starts")

    def __init__(self, spans: Iterable[tuple[str, int, int]] = ()):
        self._starts: list[int] = []
        self._spans: list[tuple[str, int, int]] = []
        self._longest = 0
        for span in sorted(spans, key=lambda s: s[1]):
            self._starts.append(span[1])
            self._spans.append(span)
            self._longest = max(self._longest, span[2] - span[1])

    def add(self, span: tuple[str, int, int]) -> None:
        i = bisect.bisect_right(self._starts, span[1])
        self._starts.insert(i, span[1])
        self._spans.insert(i, span)
        self._longest = max(self._longest, span[2] - span[1])

    def over(self, a: int, b: int) -> list[tuple[str, int, int]]:
        """The spans that overlap text[a:b], in order of their start."""
        lo = bisect.bisect_right(self._starts, a - self._longest)
        hi = bisect.bisect_left(self._starts, b)
        return [span for span in self._spans[lo:hi] if span[2] > a]


def resolve_overlaps(found: Sequence[Finding]) -> tuple[Finding, ...]:
    """Where findings overlap, keep the most confident (then the longest); in text order."""
    kept: list[Finding] = []
    index = Overlaps()
    for f in sorted(found, key=lambda f: (-f.score, f.start - f.end, f.start)):
        if not index.over(f.start, f.end):
            kept.append(f)
            index.add((f.entity, f.start, f.end))
    return tuple(sorted(kept, key=lambda f: f.start))


def redact(text: str, findings: Sequence[Finding], replacement: dict[str, str | None]) -> str:
    """`text` with each finding's span replaced: `replacement[entity]`, None to mask with '*', absent: <ENTITY>."""
    parts: list[str] = []
    last = 0
    for f in findings:
        parts.append(text[last : f.start])
        placeholder = replacement.get(f.entity, f"<{f.entity}>")
        parts.append(placeholder if placeholder is not None else "*" * (f.end - f.start))
        last = f.end
    parts.append(text[last:])
    return "".join(parts)
