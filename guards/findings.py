"""What the PII step finds in a text, and what it does with it: a Finding, overlaps resolved, spans redacted.

Plain data and string work only: the output guard, the boundaries between
texts and the step itself use these without loading the analyzer.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def resolve_overlaps(found: Sequence[Finding]) -> tuple[Finding, ...]:
    """Where findings overlap, keep the most confident (then the longest); in text order."""
    kept: list[Finding] = []
    for f in sorted(found, key=lambda f: (-f.score, f.start - f.end, f.start)):
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
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
