"""Trust declarations: the label a tool's results carry, per tool and, optionally, per result field.

A policy row `p3, TOOLS, FIELD, LABEL, ID` labels the results of the tools
matching TOOLS (keyMatch). FIELD is `*` (every value of the result) or a path
into its structured content (`messages[].sender`, `contacts[]`, `owner.email`):
the value there and everything under it. The most specific declaration that
covers a value wins; between equally specific ones, `untrusted` does.

A structured value counts as one value (an address, an IBAN, a number), not
as text whose phrases count; `text:FIELD` (or `text:*`) declares free text,
whose phrases, addresses, links and numbers count too. A result that is plain
text (not one JSON document) is free text.

Failing closed where the shape is not what was declared: a tool with an
`untrusted` row is trusted only where a field row says so (its `*` rows do
not apply), so a result of another shape (several text items, a prose
preamble, a field the attacker named) is untrusted. A key containing `.`,
`[` or `]` never matches a declared path. A value no row covers is `untrusted`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from casbin.util import key_match

from .labels import UNTRUSTED, Seen, Where, leaves

_INDEX = re.compile(r"\[\d+\]")
MAX_LEAVES = 4_096  # of one result labelled and kept; the rest is not seen (a value past it is not found)


@dataclass(frozen=True, slots=True)
class TrustRule:
    tools: str
    field: str  # "" for the whole result
    label: str
    id: str
    text: bool = False  # free text: its phrases, addresses, links and numbers count


def field_of(raw: str) -> tuple[str, bool]:
    """A declaration's FIELD in its compared form, and whether it is free text: `*` is the whole result,
    `$.a[*].b` is `a[].b`, `text:body` is the free text at `body`."""
    field = raw.strip()
    text = field.startswith("text:")
    field = field.removeprefix("text:").strip()
    if field in ("*", "$", ""):
        return "", text
    return field.removeprefix("$.").removeprefix("$").replace("[*]", "[]"), text


class ToolTrust:
    """The declarations that cover one tool, most specific first (`untrusted` first among equals)."""

    def __init__(self, rules: Sequence[TrustRule]):
        carved = any(r.label == UNTRUSTED for r in rules)
        kept = [r for r in rules if r.field or not carved]  # a tool with carve-outs: only declared fields
        self._rules = sorted(kept, key=lambda r: (len(r.field), r.label == UNTRUSTED), reverse=True)
        self.declared = bool(self._rules)
        self.labels = frozenset(r.label for r in self._rules) - {UNTRUSTED}

    def label(self, path: str) -> tuple[str, str | None]:
        """The label of the value at `path` (`messages[3].sender`) and the id of the row that gave it."""
        rule = self._rule(path)
        return (rule.label, rule.id) if rule is not None else (UNTRUSTED, None)

    def _rule(self, path: str) -> TrustRule | None:
        generic = _INDEX.sub("[]", path)
        for rule in self._rules:
            field = rule.field
            if not field or generic == field or generic.startswith((field + ".", field + "[")):
                return rule
        return None

    def is_text(self, path: str) -> bool:
        rule = self._rule(path)
        return rule is not None and rule.text


class TrustMap:
    """Every trust declaration of one policy generation; a tool's view is computed once."""

    def __init__(self, rules: Sequence[TrustRule]):
        self.rules = tuple(rules)
        self._tools: dict[str, ToolTrust] = {}

    def for_tool(self, tool: str) -> ToolTrust:
        found = self._tools.get(tool)
        if found is None:
            found = ToolTrust([r for r in self.rules if key_match(tool, r.tools)])
            if len(self._tools) < 4096:
                self._tools[tool] = found
        return found

    def label_leaves(self, seen: Seen, tool: str, call: str | None, pairs: Iterable[tuple[str, Any]]) -> None:
        """Add a tool result's values (path, value) to `seen`, each under the label its field is declared with."""
        trust = self.for_tool(tool)
        source = f"tool {tool}"
        for path, value in pairs:
            label = trust.label(path)[0] if trust.declared else UNTRUSTED
            where = Where(label, source, call, path or None)
            if isinstance(value, str) and label != UNTRUSTED and (not path or trust.is_text(path)):
                seen.add_text(value, where)  # a plain-text result, or a field declared text
            else:
                seen.add_value(value, where)


def result_leaves(data: Any) -> list[tuple[str, Any]]:
    """The leaves of a result, at most MAX_LEAVES of them."""
    return list(itertools.islice(leaves(data), MAX_LEAVES))
