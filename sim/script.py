"""Scripted replies: a rule whose pattern matches the last message answers with a fixed text.

Tests and demos need an engine that says something in particular (a label,
an email address to redact, a tool call with what the user asked for: a
pattern's groups fill `\\1` in the reply and in tool calls' arguments). A rule changes only the text; timing, the KV
cache and metrics behave as for any other request. The reply is emitted in
pieces of at most four characters, so words, and addresses, span chunks.
"""

import dataclasses
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

PIECE_CHARS = 4


@dataclass(frozen=True)
class ToolCall:
    """A tool call a scripted reply emits: the function's name and its arguments (a JSON object)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    """`match` is searched in the last message's text (of role `role`, if given); `delay_s` is added
    before the prefill (real seconds). The reply is text, tool calls, or both."""

    match: str
    reply: str = ""
    delay_s: float = 0.0
    tool_calls: tuple[ToolCall, ...] = ()
    role: str | None = None

    def __post_init__(self) -> None:
        re.compile(self.match)  # a bad pattern fails when the script is built
        if self.delay_s < 0:
            raise ValueError("delay_s must not be negative")
        if not self.reply and not self.tool_calls:
            raise ValueError("a rule needs a reply, tool calls, or both")


class Script:
    """Rules tried in order; the first match answers."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self._compiled = [(re.compile(rule.match), rule) for rule in self.rules]

    def find(self, text: str, role: str | None = None) -> Rule | None:
        """The first rule that matches; a pattern with groups fills `\\1` (or `\\g<name>`) in its reply and in
        its tool calls' string arguments with what they matched."""
        for pattern, rule in self._compiled:
            found = pattern.search(text) if rule.role is None or rule.role == role else None
            if found is not None:
                return _expanded(rule, found) if pattern.groups else rule
        return None


def _expanded(rule: Rule, found: re.Match[str]) -> Rule:
    calls = tuple(
        ToolCall(c.name, {k: found.expand(v) if isinstance(v, str) else v for k, v in c.arguments.items()})
        for c in rule.tool_calls
    )
    return dataclasses.replace(rule, reply=found.expand(rule.reply) if rule.reply else "", tool_calls=calls)


@dataclass(frozen=True)
class Piece:
    """One output token of a scripted reply: content text, or a piece of tool call `call`
    (its first piece carries the name; the rest, slices of the arguments)."""

    text: str
    call: int | None = None
    name: str | None = None


def pieces(reply: str) -> list[str]:
    """The reply as output tokens: consecutive slices of at most PIECE_CHARS characters."""
    return [reply[i : i + PIECE_CHARS] for i in range(0, len(reply), PIECE_CHARS)] or [""]


def rule_pieces(rule: Rule) -> list[Piece]:
    """A rule's whole reply as output tokens: its text first, then each tool call (name, then arguments)."""
    out = [Piece(p) for p in pieces(rule.reply)] if rule.reply else []
    for index, call in enumerate(rule.tool_calls):
        out.append(Piece("", index, call.name))
        out += [Piece(p, index) for p in pieces(json.dumps(call.arguments))]
    return out
