"""Scripted replies: a rule whose pattern matches the last message answers with a fixed text.

Tests and demos need an engine that says something in particular (a label,
an email address to redact). A rule changes only the text; timing, the KV
cache and metrics behave as for any other request. The reply is emitted in
pieces of at most four characters, so words, and addresses, span chunks.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

PIECE_CHARS = 4


@dataclass(frozen=True)
class Rule:
    """`match` is searched in the last message's text; `delay_s` is added before the prefill (real seconds)."""

    match: str
    reply: str
    delay_s: float = 0.0

    def __post_init__(self) -> None:
        re.compile(self.match)  # a bad pattern fails when the script is built
        if self.delay_s < 0:
            raise ValueError("delay_s must not be negative")


class Script:
    """Rules tried in order; the first match answers."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self._compiled = [(re.compile(rule.match), rule) for rule in self.rules]

    def find(self, text: str) -> Rule | None:
        return next((rule for pattern, rule in self._compiled if pattern.search(text)), None)


def pieces(reply: str) -> list[str]:
    """The reply as output tokens: consecutive slices of at most PIECE_CHARS characters."""
    return [reply[i : i + PIECE_CHARS] for i in range(0, len(reply), PIECE_CHARS)] or [""]
