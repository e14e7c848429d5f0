"""Argument constraints: policy `p2` rows, compiled once per policy generation, checked per call in microseconds.

    p2, TOOLS, PROFILE, ARGUMENT, KIND, VALUE, ID
    p2, TOOLS, PROFILE, ARGUMENT, KIND, VALUE, EFFECT, ID      EFFECT: deny (the default) or hold

Rows with the same ID are one rule whose rows are alternatives (any of them
holds: the rule holds); a call must meet every rule. ARGUMENT is a path into
the call's arguments: `to`, `a.b`, `attachments[].file_id` (that field of
every element of the list), `participants[]`; a trailing `?` makes the rule
apply only when the argument is present (`cc?`: a missing, null or empty `cc`
meets it). VALUE is the kind's value, then `; key=value` options. docs/authz.md
has the table of kinds, with an example of each.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .labels import (
    CLAIMS,
    INSTRUCTION,
    NUMBER,
    UNTRUSTED,
    Seen,
    Where,
    emails_in,
    hosts_match,
    number_of,
    url_key,
    urls_in,
)

KINDS = ("prefix", "regex", "min", "max", "in", "provenance", "amount", "links", "addresses")
EFFECTS = ("deny", "hold")
BUILT_IN_LABELS = (INSTRUCTION, CLAIMS)
OPTIONS = {"prefix": ("base",), "amount": ("tolerance",), "links": ("allow",), "addresses": ("allow",)}
LABELLED = ("provenance", "amount", "links", "addresses")
MAX_VALUES = 256  # of one argument path, checked one by one; more fail the rule
_PART = re.compile(r"[^.\[\]]+(?:\[\])*|(?:\[\])+")
_EACH = None


class ConstraintError(ValueError):
    """A p2 row that cannot be compiled; the message says which part and why."""


@dataclass(frozen=True, slots=True)
class Match:
    """A value a provenance-kind row accepted or refused, and where it had been seen (None: nowhere)."""

    value: Any
    where: Where | None

    def evidence(self) -> dict[str, Any]:
        shown = self.value if not isinstance(self.value, str) else self.value[:200]
        return {"value": shown, "seen": self.where.evidence() if self.where is not None else None}


@dataclass(frozen=True, slots=True)
class Unmet:
    reason: str
    match: Match | None = None  # the value that failed, and where else it was seen


@dataclass(frozen=True)
class Constraint:
    """One compiled p2 row."""

    tools: str
    profile: str
    argument: str
    kind: str
    value: str
    id: str
    effect: str = "deny"
    path: tuple[str | None, ...] = ()
    optional: bool = False
    labels: frozenset[str] = frozenset()
    allow: tuple[str, ...] = ()
    base: str | None = None
    tolerance: float = 0.0
    relative: bool = False
    pattern: re.Pattern[str] | None = field(default=None, compare=False)
    bound: float = math.nan
    choices: frozenset[str] = frozenset()

    @property
    def label_text(self) -> str:
        return "|".join(sorted(self.labels)) or "none"

    def judge(self, arguments: Any, seen: Seen | None, matches: list[Match]) -> Unmet | None:
        """Why `arguments` fail this row, or None; provenance-kind rows append the values they accepted."""
        unmet, _ = self.judge_present(arguments, seen, matches)
        return unmet

    def judge_present(self, arguments: Any, seen: Seen | None, matches: list[Match]) -> tuple[Unmet | None, bool]:
        """(why the row fails or None, whether it had anything to check): an optional row whose argument is
        absent holds without checking anything."""
        read = values_at(arguments, self.path)
        if isinstance(read, str):
            return Unmet(read), True
        found, missing = read
        if missing and not self.optional:
            return Unmet("is missing"), True
        if not found:
            return (None, False) if self.optional or missing else (Unmet("is empty"), True)
        return self._judge_values(found, seen, matches), True

    def _judge_values(self, found: list[Any], seen: Seen | None, matches: list[Match]) -> Unmet | None:
        if len(found) > MAX_VALUES:  # a call with a hundred thousand recipients is not checked one by one
            return Unmet(f"has more than {MAX_VALUES} values to check")
        if self.kind in LABELLED and seen is None:
            return Unmet("cannot be checked: the data the task has seen is unknown")
        for item in found:
            unmet = self._item(item, seen, matches)
            if unmet is not None:
                return unmet
        return None

    def _item(self, item: Any, seen: Seen | None, matches: list[Match]) -> Unmet | None:
        kind = self.kind
        if kind == "prefix":
            return (
                None
                if isinstance(item, str) and _under(item, self.value, self.base)
                else Unmet("is outside the allowed path")
            )
        if kind == "regex":
            ok = isinstance(item, str) and self.pattern is not None and self.pattern.fullmatch(item) is not None
            return None if ok else Unmet("does not have the allowed form")
        if kind in ("min", "max"):
            number = number_of(item)
            if number is None:
                return Unmet("is not a number")
            low = kind == "min" and number < self.bound
            return Unmet("is out of the allowed range") if low or (kind == "max" and number > self.bound) else None
        if kind == "in":
            return (
                None
                if isinstance(item, str | int) and str(item) in self.choices
                else Unmet("is not one of the allowed values")
            )
        assert seen is not None
        if kind == "provenance":
            return self._provenance(item, seen, matches)
        if kind == "amount":
            return self._amount(item, seen, matches)
        return self._content(item, seen, matches)

    def _provenance(self, item: Any, seen: Seen, matches: list[Match]) -> Unmet | None:
        if not isinstance(item, str) and number_of(item) is None:
            return Unmet("is neither a string nor a number")
        where = seen.find(item, self.labels)
        if where is None:
            return Unmet(f"was not seen in data labelled {self.label_text}", Match(item, seen.anywhere(item)))
        matches.append(Match(item, where))
        return None

    def _amount(self, item: Any, seen: Seen, matches: list[Match]) -> Unmet | None:
        number = number_of(item)
        if number is None and isinstance(item, str) and NUMBER.fullmatch(item.strip()):
            number = float(item.strip().replace(",", ""))
        if number is None:
            return Unmet("is not an amount")
        where = seen.find_number(number, self.labels, self.tolerance, self.relative)
        if where is None:
            elsewhere = seen.find_number(number, frozenset(seen.labels), self.tolerance, self.relative)
            elsewhere = elsewhere or seen.untrusted_number(number, self.tolerance, self.relative)
            return Unmet(f"is not an amount seen in data labelled {self.label_text}", Match(item, elsewhere))
        matches.append(Match(item, where))
        return None

    def _content(self, item: Any, seen: Seen, matches: list[Match]) -> Unmet | None:
        """Every link (or address) inside the text: on an allowed host (domain), or seen under the labels."""
        if not isinstance(item, str):
            return Unmet("is not text")
        for value, host, named in self._inside(item):
            if host is None:
                return Unmet(f"carries a link taskgate cannot read as an http(s) URL ({value[:60]!r})")
            if hosts_match(host, self.allow):
                continue
            find = seen.find_url if self.kind == "links" else seen.find
            where = find(value, self.labels) if self.labels else None
            if where is None:
                return Unmet(f"carries {named} that is neither allowed nor seen in data labelled {self.label_text}",
                             Match(value, seen.anywhere(value)))  # fmt: skip
            matches.append(Match(value, where))
        return None

    def _inside(self, text: str) -> Iterator[tuple[str, str | None, str]]:
        """(value, its host or domain, how a refusal names it) for each link or address in `text`."""
        if self.kind == "links":
            for url in urls_in(text):
                key = url_key(url, bare=True)
                yield url, key[1] if key is not None else None, f"a link to {key[1] if key is not None else url}"
        else:
            for email in emails_in(text):
                yield email, email.rpartition("@")[2].lower(), f"the address {email}"


@dataclass(frozen=True)
class ArgumentRule:
    """The p2 rows of one id: alternatives; the rule holds when one of them does."""

    id: str
    tools: str
    profile: str
    effect: str
    rows: tuple[Constraint, ...]

    @property
    def condition(self) -> str:
        return " or ".join(f"{r.kind} {r.argument}" for r in self.rows)

    def judge(self, arguments: Any, seen: Seen | None) -> tuple[Unmet | None, list[Match]]:
        """(None, the matches of the row that held) or (why the first row failed, its refused value)."""
        first: Unmet | None = None
        vacuous = 0
        for row in self.rows:
            matches: list[Match] = []
            unmet, checked = row.judge_present(arguments, seen, matches)
            if unmet is None and checked:
                return None, matches
            if unmet is None:  # an optional row with nothing to check admits nothing on its own
                vacuous += 1
            elif first is None:
                first = Unmet(f"argument {row.argument.rstrip('?')!r} {unmet.reason}", unmet.match)
        if first is None and vacuous:
            return None, []  # nothing any row could check was there
        if len(self.rows) > 1 and first is not None:
            first = Unmet(f"{first.reason} (nor does any other alternative of the rule hold)", first.match)
        return first, []

    def needs_data(self) -> bool:
        return any(r.kind in LABELLED for r in self.rows)


def compile_row(row: Sequence[str], labels: Iterable[str]) -> Constraint:
    """One p2 row, checked; a ConstraintError says what is wrong with it."""
    if len(row) == 6:
        tools, profile, argument, kind, value, rule_id = row
        effect = "deny"
    elif len(row) == 7:
        tools, profile, argument, kind, value, effect, rule_id = row
    else:
        raise ConstraintError(f"has {len(row)} fields, not 6 or 7 (obj, profile, arg, kind, value, [effect,] id)")
    if kind not in KINDS:
        raise ConstraintError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    if effect not in EFFECTS:
        raise ConstraintError(f"unknown effect {effect!r}; it is deny or hold")
    path, optional = parse_path(argument)
    main, options = _options(kind, value)
    spec: dict[str, Any] = {}
    if kind == "regex":
        try:
            spec["pattern"] = re.compile(main)
        except re.error as exc:
            raise ConstraintError(f"bad regular expression: {exc}") from None
    elif kind in ("min", "max"):
        spec["bound"] = _number(kind, main)
    elif kind == "in":
        spec["choices"] = frozenset(main.split("|"))
    elif kind == "prefix":
        base = options.get("base")
        if base is not None and not base.startswith("/"):
            raise ConstraintError(f"base {base!r} must be an absolute path")
        if base is None and not main.startswith("/"):
            raise ConstraintError(f"prefix {main!r} is relative: give an absolute one, or `; base=/ABSOLUTE`")
        spec["base"] = base
        main = posixpath.join(base, main) if base is not None else main
    if kind in LABELLED:
        spec["labels"] = _labels(main, set(labels), kind)
    if "allow" in options:
        spec["allow"] = tuple(h.strip().lower() for h in options["allow"].split("|") if h.strip())
    if kind == "amount":
        tolerance = options.get("tolerance", "0")
        spec["relative"] = tolerance.endswith("%")
        number = _number("tolerance", tolerance.rstrip("%"))
        if number < 0:
            raise ConstraintError("tolerance must not be negative")
        spec["tolerance"] = number / 100.0 if spec["relative"] else number
    return Constraint(tools, profile, argument, kind, main, rule_id, effect, path, optional, **spec)


def group(rows: Sequence[Constraint]) -> list[ArgumentRule]:
    """The rows of each id as one rule, in policy order; the rows of one id must agree on tools, profile, effect."""
    by_id: dict[str, list[Constraint]] = {}
    for row in rows:
        by_id.setdefault(row.id, []).append(row)
    rules = []
    for rule_id, members in by_id.items():
        first = members[0]
        for other in members[1:]:
            if (other.tools, other.profile, other.effect) != (first.tools, first.profile, first.effect):
                raise ConstraintError(
                    f"rule {rule_id}: its rows are alternatives of one rule, so they must name the same tools, "
                    f"profile and effect ({first.tools}, {first.profile}, {first.effect} vs "
                    f"{other.tools}, {other.profile}, {other.effect})"
                )
        rules.append(ArgumentRule(rule_id, first.tools, first.profile, first.effect, tuple(members)))
    return rules


def parse_path(argument: str) -> tuple[tuple[str | None, ...], bool]:
    """`attachments[].file_id?` as (("attachments", EACH, "file_id"), optional)."""
    text = argument.strip()
    optional = text.endswith("?")
    text = text.removesuffix("?")
    if not text:
        raise ConstraintError("the argument path is empty")
    path: list[str | None] = []
    for part in text.split("."):
        if not part or _PART.fullmatch(part) is None:
            raise ConstraintError(f"bad argument path {argument!r}: parts are names, each optionally followed by []")
        name = part.split("[", 1)[0]
        if name:
            path.append(name)
        path.extend([_EACH] * part.count("[]"))
    return tuple(path), optional


def values_at(arguments: Any, path: Sequence[str | None]) -> tuple[list[Any], bool] | str:
    """The values at `path` (a final list's elements) and whether it was missing anywhere (a list's element
    without the field counts), or the reason the arguments cannot be read along it."""
    current, missing = [arguments], False
    for step in path:
        following: list[Any] = []
        for value in current:
            if step is _EACH:
                if not isinstance(value, list):
                    return "is not a list"
                following.extend(value)
            elif isinstance(value, Mapping):
                found = value.get(step)
                if found is None or found == "" or found == []:
                    missing = True
                else:
                    following.append(found)
            else:
                return "is not an object"
        current = following
    if path and path[-1] is not _EACH and len(current) == 1 and isinstance(current[0], list):
        current = current[0]
    return current, missing


def _options(kind: str, value: str) -> tuple[str, dict[str, str]]:
    main, *rest = value.split(";") if kind != "regex" else [value]
    options: dict[str, str] = {}
    for item in rest:
        key, equals, setting = item.partition("=")
        key = key.strip()
        if not equals or key not in OPTIONS.get(kind, ()):
            allowed = ", ".join(OPTIONS.get(kind, ())) or "none"
            raise ConstraintError(f"unknown option {item.strip()!r} for kind {kind} (its options: {allowed})")
        options[key] = setting.strip()
    return main.strip(), options


def _labels(main: str, declared: set[str], kind: str) -> frozenset[str]:
    labels = frozenset(label.strip() for label in main.split("|") if label.strip())
    if not labels and kind in ("provenance", "amount"):
        raise ConstraintError(f"{kind} needs the labels it accepts, e.g. instruction|trusted")
    if UNTRUSTED in labels:
        raise ConstraintError("untrusted data never satisfies a constraint: leave the label out")
    known = {*BUILT_IN_LABELS, *declared}
    unknown = sorted(labels - known)
    if unknown:
        hint = "; a provenance `trusted` once meant the user's instruction: write `instruction`" if (
            "trusted" in unknown) else ""  # fmt: skip
        raise ConstraintError(
            f"unknown label(s) {', '.join(unknown)}; known: {', '.join(sorted(known))} (p3 rows declare labels)" + hint
        )
    return labels


def _number(what: str, text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise ConstraintError(f"{what} needs a number, got {text!r}") from None
    if not math.isfinite(number):
        raise ConstraintError(f"{what} needs a finite number, got {text!r}")
    return number


def _under(path: str, prefix: str, base: str | None) -> bool:
    """Whether `path`, normalised (no `..` escapes; relative ones against `base`), lies under `prefix`.

    Backslashes, percent-escapes and NUL bytes are refused: the tool, not
    taskgate, would decide what they mean; so is a relative path with no base.
    """
    if any(c in path for c in ("\x00", "\\", "%")):
        return False
    if not path.startswith("/"):
        if base is None:
            return False
        path = posixpath.join(base, path)
    normal = posixpath.normpath(path)
    root = prefix.rstrip("/") or "/"
    return normal == root or normal.startswith(root if root.endswith("/") else root + "/")
