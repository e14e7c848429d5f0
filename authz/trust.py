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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casbin.util import key_match

from .flow import SECRET
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
    keys: bool = False  # the keys of the map at `field` are the values (`keys:shared_with`)
    yaml: bool = False  # the tool answers YAML text: `field` is a path into the parsed document

    @property
    def secret(self) -> bool:
        return self.label.startswith(SECRET)


PREFIXES = ("text:", "keys:", "yaml:")


def field_form(raw: str) -> tuple[str, set[str]]:
    """A declaration's FIELD in its compared form and its prefixes: `*` is the whole result, `$.a[*].b` is
    `a[].b`, `text:body` the free text at `body`, `keys:shared_with` the keys of that map, `yaml:refund.iban`
    a field of a YAML answer."""
    field, prefixes = raw.strip(), set()
    while field.startswith(PREFIXES):
        prefixes.add(field[:5])
        field = field[5:].strip()
    if field in ("*", "$", ""):
        return "", prefixes
    return field.removeprefix("$.").removeprefix("$").replace("[*]", "[]"), prefixes


def field_of(raw: str) -> tuple[str, bool]:
    """A declaration's FIELD in its compared form, and whether it is free text (see field_form)."""
    field, prefixes = field_form(raw)
    return field, "text:" in prefixes


class ToolTrust:
    """The declarations that cover one tool, most specific first (`untrusted` first among equals)."""

    def __init__(self, rules: Sequence[TrustRule]):
        secrets = [r for r in rules if r.secret]
        rules = [r for r in rules if not r.secret]
        carved = any(r.label == UNTRUSTED for r in rules)
        kept = [r for r in rules if r.field or not carved]  # a tool with carve-outs: only declared fields
        self._rules = sorted(kept, key=lambda r: (len(r.field), r.label == UNTRUSTED), reverse=True)
        self._secrets = tuple(secrets)
        self.declared = bool(self._rules)
        self.labels = frozenset(r.label for r in self._rules) - {UNTRUSTED}
        self.key_fields = frozenset(r.field for r in (*self._rules, *secrets) if r.keys)
        self.yaml = any(r.yaml for r in (*self._rules, *secrets))
        self.fields = tuple(r for r in (*self._rules, *secrets) if r.field)  # what must be there to read

    def label(self, path: str) -> tuple[str, str | None]:
        """The label of the value at `path` (`messages[3].sender`) and the id of the row that gave it."""
        rule = self._rule(path)
        return (rule.label, rule.id) if rule is not None else (UNTRUSTED, None)

    def _rule(self, path: str) -> TrustRule | None:
        generic = _INDEX.sub("[]", path)
        return next((rule for rule in self._rules if _covers(rule, generic)), None)

    def secret_rules(self, path: str) -> list[TrustRule]:
        generic = _INDEX.sub("[]", path)
        return [rule for rule in self._secrets if _covers(rule, generic)]

    def declares(self, path: str) -> bool:
        """Whether a field declaration (not the whole result's) gives the value at `path` a trusted label."""
        rule = self._rule(path)
        return rule is not None and bool(rule.field) and rule.label != UNTRUSTED

    def is_text(self, path: str) -> bool:
        rule = self._rule(path)
        return rule is not None and rule.text

    def reads(self, pairs: Sequence[tuple[str, Any]]) -> bool:
        """Whether any field declaration of the tool covers a value of the result (a tool with none: True)."""
        if not self.fields:
            return True
        generics = {_INDEX.sub("[]", path) for path, _ in pairs}
        return any(_covers(rule, g) for rule in self.fields for g in generics)


def _covers(rule: TrustRule, generic: str) -> bool:
    """Whether `rule` declares the value at the generic path (`messages[].sender`; a map's keys end in `{}`)."""
    if generic.endswith("{}"):  # a key is a value only where a `keys:` declaration names its map
        return rule.keys and generic == rule.field + "{}"
    if rule.keys:
        return False
    field = rule.field
    return not field or generic == field or generic.startswith((field + ".", field + "["))


class TrustMap:
    """Every trust declaration of one policy generation; a tool's view is computed once."""

    def __init__(self, rules: Sequence[TrustRule]):
        self.rules = tuple(rules)
        self._tools: dict[str, ToolTrust] = {}
        self.secret_labels = frozenset(r.label.removeprefix(SECRET) for r in self.rules if r.secret)

    def for_tool(self, tool: str) -> ToolTrust:
        found = self._tools.get(tool)
        if found is None:
            found = ToolTrust([r for r in self.rules if key_match(tool, r.tools)])
            if len(self._tools) < 4096:
                self._tools[tool] = found
        return found

    def label_leaves(self, seen: Seen, tool: str, call: str | None, pairs: Iterable[tuple[str, Any]]) -> None:
        """Add a tool result's values (path, value) to `seen`, each under the label its field is declared with,
        and those a `secret:` declaration covers to its confidential values."""
        trust = self.for_tool(tool)
        source = f"tool {tool}"
        kept = list(pairs)
        seen.results.append((tool, call, kept))
        for path, value in kept:
            label = trust.label(path)[0] if trust.declared else UNTRUSTED
            where = Where(label, source, call, path or None)
            if isinstance(value, str) and label != UNTRUSTED and (not path or trust.is_text(path)):
                seen.add_text(value, where)  # a plain-text result, or a field declared text
            else:
                seen.add_value(value, where)
            for rule in trust.secret_rules(path) if trust._secrets else ():
                _secret(seen, rule, path, value, Where(rule.label, source, call, path or None))

    def label_record(self, seen: Seen, record: Mapping[str, Any]) -> None:
        """A kept result (provenance.result_record): its YAML reading where the tool declares one, else its
        leaves; a result no field declaration of the tool can read is noted in `seen.unread`."""
        tool, call = str(record["tool"]), record.get("call")
        trust = self.for_tool(tool)
        pairs = _pairs(record.get("leaves"))
        parsed = _pairs(record.get("yaml")) if "yaml" in record else None
        if trust.yaml and parsed is not None:
            pairs = parsed
        why = self.unreadable(record)
        if why is not None and len(seen.unread) < 64:
            seen.unread.append({"tool": tool, "call": call, "reason": UNREAD[why]})
        self.label_leaves(seen, tool, call if isinstance(call, str) else None, pairs)

    def unreadable(self, record: Mapping[str, Any]) -> str | None:
        """Why the tool's field declarations cannot read a kept result (`text`, `yaml`, `shape`), or None."""
        trust = self.for_tool(str(record.get("tool")))
        if not trust.fields:
            return None
        pairs = _pairs(record.get("leaves"))
        parsed = _pairs(record.get("yaml")) if "yaml" in record else None
        if trust.yaml and parsed is not None:
            pairs = parsed
        if trust.reads(pairs):
            return None
        if trust.yaml:
            return "yaml"
        return "text" if record.get("format") == "text" or [p for p, _ in pairs] == [""] else "shape"


UNREAD = {
    "yaml": "the tool's declarations are YAML fields (yaml:), and this result is not a YAML document",
    "text": "the result is text, not the structured fields the declarations name (declare yaml: or text:)",
    "shape": "none of the declared fields is in the result",
}


def _pairs(raw: Any) -> list[tuple[str, Any]]:
    return [(str(p[0]), p[1]) for p in raw or () if isinstance(p, list) and len(p) == 2]


def _secret(seen: Seen, rule: TrustRule, path: str, value: Any, where: Where) -> None:
    label = rule.label.removeprefix(SECRET)
    if isinstance(value, str):
        if rule.text or not path:
            seen.secrets.add_text(value, label, where)
        else:
            seen.secrets.add(value, label, where)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        seen.secrets.add(value, label, where)


def key_leaves(data: Any, fields: frozenset[str]) -> list[tuple[str, Any]]:
    """The keys of the maps at `fields` (generic paths), as values at `PATH{}`: `shared_with{}`."""
    if not fields:
        return []
    out: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("", data)]
    while stack and len(out) < MAX_LEAVES:
        here, value = stack.pop()
        if isinstance(value, Mapping):
            if _INDEX.sub("[]", here) in fields:
                out += [(f"{here}{{}}", str(k)) for k in value]
            stack += [(f"{here}.{k}" if here else str(k), v) for k, v in value.items() if isinstance(v, Mapping | list)]
        elif isinstance(value, list):
            stack += [(f"{here}[{i}]", v) for i, v in enumerate(value) if isinstance(v, Mapping | list)]
    return out[:MAX_LEAVES]


def result_leaves(data: Any) -> list[tuple[str, Any]]:
    """The leaves of a result, at most MAX_LEAVES of them."""
    return list(itertools.islice(leaves(data), MAX_LEAVES))
