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

from casbin.util import key_match

from .flow import RUN_WORDS, SECRET, Secret, asked_for, contains_run, values_inside
from .labels import (
    CLAIMS,
    INSTRUCTION,
    NUMBER,
    UNTRUSTED,
    Seen,
    Where,
    emails_in,
    hosts_match,
    leaves,
    number_of,
    url_key,
    urls_in,
)

KINDS = ("prefix", "regex", "min", "max", "in", "provenance", "amount", "links", "addresses", "flow", "text",
         "choice")  # fmt: skip
EFFECTS = ("deny", "hold")
BUILT_IN_LABELS = (INSTRUCTION, CLAIMS)
OPTIONS = {
    "prefix": ("base",), "amount": ("tolerance", "untrusted", "parts"), "links": ("allow", "untrusted", "hosts"),
    "addresses": ("allow", "untrusted"), "provenance": ("untrusted", "hosts"), "text": ("run", "untrusted", "unseen"),
    "choice": ("list", "pick", "untrusted"), "flow": ("asked",),
}  # fmt: skip
REPEATABLE = ("asked",)  # options a row may give more than once (one per confidential label)
LABELLED = ("provenance", "amount", "links", "addresses", "flow", "text", "choice")
EVERY = "*"  # the argument path of every value of the call (a flow or text rule over all arguments)
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
    run: int = RUN_WORDS  # text: the words in a row copied from untrusted data that fail it
    listing: tuple[str, str] = ("", "")  # choice: the listing tool (pattern) and the field of its items
    picks: tuple[tuple[str, str], ...] = ()  # choice: (property, max|min) an item may be chosen by
    untrusted_deny: bool = False  # a hold rule whose refused value's only source is untrusted data denies
    untrusted_alike: frozenset[str] = frozenset()  # labels whose data counts as untrusted for that
    hosts: frozenset[str] = frozenset()  # links, provenance: a URL on a host seen under these labels passes
    asked: tuple[tuple[str, tuple[str, ...]], ...] = ()  # flow: (secret label, phrases the user asks for it by)
    unseen: bool = False  # text: an identifier the task saw nowhere fails the rule too
    parts: int = 1  # amount: an equal share (a half ... a 1/parts) of a labelled amount passes too

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
        read = every_value(arguments) if self.argument.rstrip("?") == EVERY else values_at(arguments, self.path)
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
        if kind == "flow":
            return self._flow(item, seen, matches)
        if kind == "text":
            return self._text(item, seen)
        if kind == "choice":
            return self._choice(item, seen, matches)
        return self._content(item, seen, matches)

    def _flow(self, item: Any, seen: Seen, matches: list[Match]) -> Unmet | None:
        """No confidential value whose label this argument does not accept, as a value or inside text, unless
        the user's own words ask for it (`asked=`: its value, or a phrase naming its kind)."""
        if number_of(item) is not None:
            item = str(int(item)) if float(item).is_integer() else str(item)
        if not isinstance(item, str):
            return None
        asked: dict[str, Where] = {}

        def allowed(secret: Secret) -> bool:
            if secret.label in self.labels:
                return True
            where = asked.get(secret.shown) or asked_for(seen, secret, dict(self.asked).get(secret.label))
            if where is not None:
                asked[secret.shown] = where
            return where is not None

        secret = seen.secrets.carried(item, allowed)
        matches.extend(Match(shown, where) for shown, where in asked.items())
        if secret is None:
            return None
        return Unmet(
            f"carries a value labelled secret:{secret.label} ({secret.where.source}"
            f"{', field ' + secret.where.field if secret.where.field else ''}), which may not flow here",
            Match(secret.shown, secret.where),
        )

    def _text(self, item: Any, seen: Seen) -> Unmet | None:
        """Agent-written text: no value, and no run of `run` words, that the task saw only outside the rule's
        labels (in untrusted data, or under a label the rule does not accept)."""
        if not isinstance(item, str):
            return Unmet("is not text")
        for value in values_inside(item, dates=False):
            if seen.find(value, self.labels) is not None:
                continue
            where = seen.anywhere(value)
            if where is not None:
                return Unmet(f"carries {value[:60]!r}, seen only in {where.label} data", Match(value, where))
            where = seen.seen_as_digits(value) if self.unseen else None
            if where is not None and where.label not in self.labels:
                return Unmet(f"carries {value[:60]!r}, seen only in {where.label} data", Match(value, where))
            if self.unseen and where is None:
                return Unmet(f"carries {value[:60]!r}, which the task has not seen anywhere", Match(value, None))
        trusted: list[list[str]] | None = None
        for run, where, _ in seen.runs.copies(item, self.run, lambda tag: tag not in self.labels):
            trusted = trusted if trusted is not None else seen.trusted_words(self.labels)
            if not contains_run(trusted, run):
                return Unmet(f"copies {self.run} words in a row from {where.label} data ({run[:80]!r})",
                             Match(run, where))  # fmt: skip
        return None

    def _choice(self, item: Any, seen: Seen, matches: list[Match]) -> Unmet | None:
        """A target the user named (under the labels), or the item of a listing a declared property picks."""
        if not isinstance(item, str) and number_of(item) is None:
            return Unmet("is neither a string nor a number")
        where = seen.find(item, self.labels) if self.labels else None
        if where is not None:
            matches.append(Match(item, where))
            return None
        listed = False
        for tool, call, pairs in seen.results:
            if key_match(tool, self.listing[0]):
                found = picked(pairs, self.listing[1], self.picks, item)
                listed = listed or found is not None
                if found:
                    matches.append(Match(item, Where("listing", f"tool {tool}", call, found)))
                    return None
        if not listed:
            return Unmet(f"was neither named ({self.label_text}) nor listed by {self.listing[0]}",
                         Match(item, seen.anywhere(item)))  # fmt: skip
        how = " or ".join(f"the {'largest' if d == 'max' else 'smallest'} {p}" for p, d in self.picks) or "named"
        return Unmet(f"was not named ({self.label_text}) and is not {how} of its listing",
                     Match(item, seen.anywhere(item)))  # fmt: skip

    def _provenance(self, item: Any, seen: Seen, matches: list[Match]) -> Unmet | None:
        if not isinstance(item, str) and number_of(item) is None:
            return Unmet("is neither a string nor a number")
        where = seen.find(item, self.labels)
        if where is None and self.hosts and isinstance(item, str) and (key := url_key(item)) is not None:
            where = seen.find_host(key[1], self.hosts)
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
        for share in range(2, self.parts + 1):  # an invoice paid in instalments: an equal share of it
            if where is not None:
                break
            tolerance = self.tolerance if self.relative else self.tolerance * share
            whole = seen.find_number(number * share, self.labels, tolerance, self.relative)
            if whole is not None:
                where = Where(whole.label, whole.source, whole.call, f"{whole.field or 'the amount'}, 1/{share}")
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
            if where is None and self.hosts:
                where = seen.find_host(host, self.hosts)
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


def every_value(arguments: Any) -> tuple[list[Any], bool]:
    """Every leaf value of a call's arguments (the `*` argument path)."""
    return [value for _, value in leaves(arguments) if value is not None], False


def picked(pairs: list[tuple[str, Any]], field_path: str, picks: tuple[tuple[str, str], ...], item: Any) -> str | None:
    """In one listing result: None if `item` is not an item's `field_path` value; "" if it is but no pick
    chooses it; else the field that says why (`files[3].size, the largest`)."""
    head, _, tail = field_path.rpartition("[].")
    pattern = re.escape(head).replace(r"\[\]", r"\[\d+\]")
    prefix = re.compile(rf"({pattern}\[\d+\])\.(.+)") if head else None
    items: dict[str, dict[str, Any]] = {}
    for path, value in pairs:
        found = prefix.fullmatch(path) if prefix is not None else None
        if found is not None:
            items.setdefault(found.group(1), {})[found.group(2)] = value
    chosen = [key for key, fields in items.items() if fields.get(tail) == item or str(fields.get(tail)) == str(item)]
    if not chosen:
        return None
    for name, direction in picks:
        ranked = [(fields[name], key) for key, fields in items.items() if _comparable(fields.get(name))]
        if ranked:
            best = (max if direction == "max" else min)(ranked, key=lambda pair: pair[0])[0]
            for key in chosen:
                if items[key].get(name) == best:
                    return f"{key}.{name}, the {'largest' if direction == 'max' else 'smallest'}"
    return ""


def _comparable(value: Any) -> bool:
    return number_of(value) is not None or isinstance(value, str)


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

    @property
    def labels(self) -> frozenset[str]:
        return frozenset(label for row in self.rows if row.kind != "flow" for label in row.labels)

    @property
    def untrusted_deny(self) -> bool:
        return any(r.untrusted_deny for r in self.rows)

    def only_untrusted(self, match: Match, seen: Seen | None) -> bool:
        """Whether the refused value was seen, and only in untrusted data (or data under labels the rule counts
        as such); for a `text` rule, whether the run it copied stood in such data."""
        if seen is None:
            return False
        alike = frozenset({UNTRUSTED}.union(*(r.untrusted_alike for r in self.rows)))
        if all(r.kind == "text" for r in self.rows):
            return match.where is not None and match.where.label in alike
        value = match.value
        if seen.find(value, frozenset(seen.labels) - alike) is not None:
            return False
        return seen.find(value, alike - {UNTRUSTED}) is not None or seen.anywhere(value) is not None


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
    if kind == "flow":
        spec["labels"] = _secret_labels(main, set(labels))
    elif kind in LABELLED:
        spec["labels"] = _labels(main, set(labels), kind)
    if "untrusted" in options:
        setting, _, alike = options["untrusted"].partition(":")
        if setting not in ("deny", "hold"):
            raise ConstraintError(
                "option untrusted is `deny` (a value seen only in untrusted data is denied, not held), "
                "`deny:LABEL|LABEL` (data under those labels counts as untrusted too) or `hold`"
            )
        spec["untrusted_deny"] = setting == "deny"
        spec["untrusted_alike"] = _labels(alike, set(labels), "links") if alike else frozenset()
    if "hosts" in options:
        spec["hosts"] = _labels(options["hosts"], set(labels), "links")
        if not spec["hosts"]:
            raise ConstraintError("hosts names the labels whose hosts count, e.g. hosts=instruction")
    if "asked" in options:
        spec["asked"] = _asked(options["asked"], set(labels))
    if "unseen" in options:
        if options["unseen"] not in ("refuse", "pass"):
            raise ConstraintError("unseen is `refuse` (an identifier the task saw nowhere fails the rule) or `pass`")
        spec["unseen"] = options["unseen"] == "refuse"
    if kind == "text":
        spec["run"] = int(_number("run", options.get("run", str(RUN_WORDS))))
        if spec["run"] < 2:
            raise ConstraintError("run is a number of words, at least 2")
    if kind == "choice":
        spec["listing"], spec["picks"] = _listing(options)
    if "allow" in options:
        spec["allow"] = tuple(h.strip().lower() for h in options["allow"].split("|") if h.strip())
    if kind == "amount":
        tolerance = options.get("tolerance", "0")
        spec["relative"] = tolerance.endswith("%")
        number = _number("tolerance", tolerance.rstrip("%"))
        if number < 0:
            raise ConstraintError("tolerance must not be negative")
        spec["tolerance"] = number / 100.0 if spec["relative"] else number
        spec["parts"] = int(_number("parts", options.get("parts", "1")))
        if not 1 <= spec["parts"] <= 12:
            raise ConstraintError("parts is how many equal shares of an amount pass too, from 1 to 12")
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
        if key in options and key not in REPEATABLE:
            raise ConstraintError(f"option {key} is given twice")
        options[key] = f"{options[key]};{setting.strip()}" if key in options else setting.strip()
    return main.strip(), options


def _asked(settings: str, declared: set[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A flow rule's `asked=LABEL:PHRASE|PHRASE` options (one per confidential label)."""
    out = []
    for setting in settings.split(";"):
        label, colon, phrases = setting.partition(":")
        names = tuple(p.strip().casefold() for p in phrases.split("|") if p.strip())
        if not colon or not label.strip():
            raise ConstraintError("asked is `LABEL:PHRASE|PHRASE` (a confidential label, the words that ask for it)")
        named = _secret_labels(label, declared)
        if len(named) != 1 or not names:
            raise ConstraintError(f"asked={setting.strip()!r}: name one confidential label and at least one phrase")
        out.append((next(iter(named)), names))
    return tuple(out)


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


def _secret_labels(main: str, declared: set[str]) -> frozenset[str]:
    """A flow rule's VALUE: the confidential labels that may flow into the argument (none: `-`)."""
    labels = frozenset(
        label.strip().removeprefix(SECRET) for label in main.split("|") if label.strip() not in ("", "-")
    )
    known = {label.removeprefix(SECRET) for label in declared if label.startswith(SECRET)}
    unknown = sorted(labels - known)
    if unknown:
        raise ConstraintError(
            f"unknown confidential label(s) {', '.join(unknown)}; declared: {', '.join(sorted(known)) or 'none'} "
            "(p3 rows with the label secret:NAME declare them)"
        )
    return labels


def _listing(options: dict[str, str]) -> tuple[tuple[str, str], tuple[tuple[str, str], ...]]:
    """A choice rule's `list=TOOL:FIELD` (the listing and its items' field) and `pick=PROP:max|PROP:min`."""
    tool, colon, field_path = options.get("list", "").partition(":")
    if not colon or not tool.strip() or "[]." not in field_path:
        raise ConstraintError("choice needs `list=TOOL:ITEMS[].FIELD` (the listing the target is chosen from)")
    picks = []
    for pick in (p.strip() for p in options.get("pick", "").split("|") if p.strip()):
        name, _, direction = pick.partition(":")
        if direction not in ("max", "min") or not name:
            raise ConstraintError(f"pick {pick!r}: a property of the listed items and max or min (`size:max`)")
        picks.append((name, direction))
    return (tool.strip(), field_path.strip()), tuple(picks)


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
