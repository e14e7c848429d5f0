"""Trust declarations: the label a tool's results carry, per tool and, optionally, per result field.

A policy row `p3, TOOLS, FIELD, LABEL, ID` labels the results of the tools
matching TOOLS (keyMatch). FIELD is `*` (every value of the result) or a path
into its structured content (`messages[].sender`, `contacts[]`, `owner.email`):
the value there and everything under it. The most specific declaration that
covers a value wins, so `p3, mail__read, messages[].body, untrusted, ...` carves
a field back out of a tool declared trusted as a whole. A value no row covers
is `untrusted`.
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


def field_of(raw: str) -> str:
    """A declaration's FIELD in its compared form: `*` is the whole result; `$.a[*].b` is `a[].b`."""
    field = raw.strip()
    if field in ("*", "$", ""):
        return ""
    field = field.removeprefix("$.").removeprefix("$").replace("[*]", "[]")
    return field


class ToolTrust:
    """The declarations that cover one tool, most specific first."""

    def __init__(self, rules: Sequence[TrustRule]):
        self._rules = sorted(rules, key=lambda r: len(r.field), reverse=True)
        self.declared = bool(self._rules)

    def label(self, path: str) -> tuple[str, str | None]:
        """The label of the value at `path` (`messages[3].sender`) and the id of the row that gave it."""
        generic = _INDEX.sub("[]", path)
        for rule in self._rules:
            field = rule.field
            if not field or generic == field or generic.startswith((field + ".", field + "[")):
                return rule.label, rule.id
        return UNTRUSTED, None


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
            seen.add_value(value, Where(label, source, call, path or None))


def result_leaves(data: Any) -> list[tuple[str, Any]]:
    """The leaves of a result, at most MAX_LEAVES of them."""
    return list(itertools.islice(leaves(data), MAX_LEAVES))
