"""Data provenance: every value a task has seen, by the trust label of where it was seen.

A task sees values from the user's instructions (label `instruction`), from
claims the caller's identity provider signed (`claims`), and from tool
results, labelled by the operator's trust declarations (policy `p3` rows; see
trust.py): `trusted`, the operator's own labels (`contacts`), or `untrusted`.
A provenance constraint names the labels it accepts; a value seen only under
other labels never satisfies it.

Values are matched as values, never as substrings:

- strings exactly, after one normalisation per kind of value: an email
  address's ASCII domain in any case, an IBAN without its spaces and in upper
  case; a string that Unicode compatibility normalisation (NFKC) would change
  is not canonical and matches nothing (`ſam@` is not `sam@`);
- in free text (an instruction, a message body) a string matches a whole
  phrase: not inside a longer word (`4001` is not in `40012345`);
- numbers as numbers (`1,200.50` in a text is 1200.5), within a tolerance
  where the constraint gives one;
- URLs by their parsed parts: scheme, host (any case), port, path and query,
  so `https://Shop.example.com:443/a` is `https://shop.example.com/a`, and a
  URL that ends a sentence (`.../deals.They`) still reads as `.../deals`.

The index is built once per request, on the first question; each question is
a dictionary lookup, or a scan of the free texts under the accepted labels.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

INSTRUCTION = "instruction"
CLAIMS = "claims"
TRUSTED = "trusted"
UNTRUSTED = "untrusted"
MIN_CHARS = 3  # shorter strings are too common to say where they came from
MAX_UNTRUSTED = 8_192  # untrusted values set aside for evidence; past it, a refusal says "seen nowhere"
MAX_TEXT_CHARS = 65_536  # of one text indexed; the rest is not read (a value past it is not found: denied)

_WORD = r"[\w@.+\-]"
URL = re.compile(r"(?i)\bhttps?://[^\s<>\"'`()\[\]{}]+|\bwww\.[^\s<>\"'`()\[\]{}]+")
BARE_DOMAIN = re.compile(r"(?i)(?<![\w@.\-/])(?:[a-z0-9-]+\.)+[a-z]{2,}/[^\s<>\"'`()\[\]{}]*")
EMAIL = re.compile(r"(?<![\w.+\-])[\w.+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
NUMBER = re.compile(r"(?<![\w.,])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")
_IBAN_SHAPE = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9]{10,30}")
_TRAILING = ".,;:!?'\")]}>"
_SPACE = re.compile(r"\s")
_SENTENCE = re.compile(r"\.[A-Z][a-z]+$")  # `.../deals.They`: a sentence's next word glued to the URL


@dataclass(frozen=True, slots=True)
class Where:
    """Where a value was seen: its trust label, the source (instruction, a claim, a tool), the call and field."""

    label: str
    source: str
    call: str | None = None
    field: str | None = None

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "source": self.source}
        if self.call is not None:
            out["call"] = self.call
        if self.field:
            out["field"] = self.field
        return out

    def text(self) -> str:
        field = f" field {self.field}" if self.field else ""
        call = f" (call {self.call})" if self.call is not None else ""
        return f"{self.source}{field}{call}, labelled {self.label}"


def value_key(value: str) -> str | None:
    """The normal form a string value is compared in; None for one that is not canonical or too short."""
    text = value.strip()
    if len(text) < MIN_CHARS or not any(c.isalnum() for c in text):
        return None
    if unicodedata.normalize("NFKC", text) != text:
        return None
    text = unicodedata.normalize("NFC", text)
    local, at, domain = text.rpartition("@")
    if at and local and domain.isascii() and "." in domain and " " not in text:
        return f"{local}@{domain.lower()}"
    compact = text.replace(" ", "")
    if compact.isascii() and compact.isalnum() and _IBAN_SHAPE.fullmatch(compact.upper()):
        return compact.upper()
    return text


def url_key(value: str) -> tuple[str, str, int, str, str] | None:
    """A URL's parsed parts (scheme, host, port, path, query); None if `value` is not an http(s) URL."""
    text = value.strip()
    if text.lower().startswith("www."):
        text = "https://" + text
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not host or parts.username or parts.password:
        return None
    if not host.isascii() or unicodedata.normalize("NFKC", text) != text:
        return None
    default = 443 if scheme == "https" else 80
    return ("https" if scheme == "https" else "http", host.lower().rstrip("."), port or default,
            parts.path or "/", parts.query)  # fmt: skip


def number_of(value: Any) -> float | None:
    """A JSON number as a float; booleans, strings and non-finite numbers are not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def urls_in(text: str) -> Iterator[str]:
    """The URLs inside free text, as written (trailing punctuation, and a glued next sentence, cut off)."""
    for pattern in (URL, BARE_DOMAIN):
        for match in pattern.finditer(text):
            found = match.group(0).rstrip(_TRAILING)
            yield found
            glued = _SENTENCE.search(found)
            if glued:
                yield found[: glued.start()]


def emails_in(text: str) -> Iterator[str]:
    for match in EMAIL.finditer(text):
        yield match.group(0).rstrip(".")


def numbers_in(text: str) -> Iterator[float]:
    for match in NUMBER.finditer(text):
        try:
            yield float(match.group(0).replace(",", ""))
        except ValueError:
            continue


def hosts_match(host: str, allowed: Iterable[str]) -> bool:
    """`host` is one of `allowed`: `example.com` exactly, `*.example.com` any of its subdomains."""
    for pattern in allowed:
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]):
                return True
        elif host == pattern:
            return True
    return False


class Seen:
    """The values one task has seen, indexed by normal form; where each was seen, under which label."""

    def __init__(self) -> None:
        self._exact: dict[str, list[Where]] = {}
        self._urls: dict[tuple[str, str, int, str, str], list[Where]] = {}
        self._numbers: list[tuple[float, Where]] = []
        self._texts: list[tuple[str, Where]] = []
        self.labels: set[str] = set()
        self.limit: frozenset[str] | None = None  # a subtask's: the labels it may count at all
        self._untrusted: list[tuple[Any, Where]] = []
        self._aside: Seen | None = None  # the untrusted values, indexed on first need

    @classmethod
    def instruction(cls, text: str) -> Seen:
        """What a task that has seen only its user's instruction `text` has seen."""
        seen = cls()
        seen.add_text(text, Where(INSTRUCTION, "instruction"))
        return seen

    def restrict(self, labels: Iterable[str]) -> None:
        """Count only data under `labels` from now on (a subtask holds no label its parent lacks)."""
        allowed = frozenset(labels)
        self.limit = allowed if self.limit is None else self.limit & allowed

    def add_text(self, text: str, where: Where) -> None:
        """Free text (an instruction, a message body): its phrases, and the addresses, URLs and numbers in it."""
        text = unicodedata.normalize("NFC", text[:MAX_TEXT_CHARS])
        if not text.strip():
            return
        self.labels.add(where.label)
        self._texts.append((text, where))
        for email in emails_in(text):
            self._put(email, where)
        for url in urls_in(text):
            self._put_url(url, where)
        for match in IBAN.finditer(text):
            self._put(match.group(0), where)
        for number in numbers_in(text):
            self._numbers.append((number, where))

    def add_value(self, value: Any, where: Where) -> None:
        """One value of a structured result: a string (as a value, and as text if it is one), or a number.

        Untrusted values satisfy nothing; they are only set aside, indexed if a
        refusal's evidence asks where a value was seen.
        """
        if where.label == UNTRUSTED:
            if len(self._untrusted) < MAX_UNTRUSTED:
                self._untrusted.append((value, where))
                self._aside = None
            return
        self._add(value, where)

    def _add(self, value: Any, where: Where) -> None:
        number = number_of(value)
        if number is not None:
            self.labels.add(where.label)
            self._numbers.append((number, where))
            return
        if not isinstance(value, str):
            return
        self.labels.add(where.label)
        self._put(value, where)
        if value[:4].lower() in ("http", "www."):
            self._put_url(value, where)
        if _SPACE.search(value.strip()):
            self.add_text(value, where)

    def add_json(self, data: Any, where: Where, path: str = "") -> None:
        """Every leaf of a JSON value, each labelled with `where`'s label and its own field path."""
        for field, leaf in leaves(data, path):
            self.add_value(leaf, Where(where.label, where.source, where.call, field or where.field))

    def _put(self, value: str, where: Where) -> None:
        key = value_key(value)
        if key is not None:
            self._exact.setdefault(key, []).append(where)

    def _put_url(self, value: str, where: Where) -> None:
        key = url_key(value)
        if key is not None:
            self._urls.setdefault(key, []).append(where)

    def find(self, value: Any, labels: frozenset[str]) -> Where | None:
        """Where `value` was seen under one of `labels`; None if it never was."""
        labels = labels if self.limit is None else labels & self.limit
        number = number_of(value)
        if number is not None:
            return self.find_number(number, labels, 0.0, False)
        if not isinstance(value, str):
            return None
        url = url_key(value)
        if url is not None:
            return _first(self._urls.get(url, ()), labels)
        key = value_key(value)
        if key is None:
            return None
        found = _first(self._exact.get(key, ()), labels)
        if found is not None:
            return found
        for text, where in self._texts:
            if where.label in labels and _phrase_in(key, text):
                return where
        return None

    def find_url(self, value: str, labels: frozenset[str]) -> Where | None:
        labels = labels if self.limit is None else labels & self.limit
        url = url_key(value)
        return _first(self._urls.get(url, ()), labels) if url is not None else None

    def find_number(self, number: float, labels: frozenset[str], tolerance: float, relative: bool) -> Where | None:
        labels = labels if self.limit is None else labels & self.limit
        for seen, where in self._numbers:
            if where.label in labels:
                margin = tolerance * abs(seen) if relative else tolerance
                if abs(seen - number) <= margin:
                    return where
        return None

    def anywhere(self, value: Any) -> Where | None:
        """Where `value` was seen under any label (for the evidence of a value that satisfied nothing)."""
        found = self.find(value, frozenset(self.labels)) if self.labels else None
        if found is None and self._untrusted:
            if self._aside is None:
                self._aside = Seen()
                for item, where in self._untrusted:
                    self._aside._add(item, where)
            found = self._aside.find(value, frozenset({UNTRUSTED}))
        return found

    def untrusted_number(self, number: float, tolerance: float, relative: bool) -> Where | None:
        return next(
            (w for v, w in self._untrusted if (n := number_of(v)) is not None
             and abs(n - number) <= (tolerance * abs(n) if relative else tolerance)),
            None,
        )  # fmt: skip


def leaves(data: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf of a JSON value with its path: `messages[0].sender`."""
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        here, value = stack.pop()
        if isinstance(value, Mapping):
            for key, item in reversed(list(value.items())):
                stack.append((f"{here}.{key}" if here else str(key), item))
        elif isinstance(value, list):
            for index in range(len(value) - 1, -1, -1):
                stack.append((f"{here}[{index}]", value[index]))
        else:
            yield here, value


def _first(found: Iterable[Where], labels: frozenset[str]) -> Where | None:
    return next((w for w in found if w.label in labels), None)


def _phrase_in(needle: str, text: str) -> bool:
    """`needle` in `text` as a whole phrase: not inside a longer word; a sentence's full stop may follow."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = text[start - 1] if start else " "
        after = text[end : end + 2]
        glued_after = bool(after) and (re.match(r"[\w@+\-]", after[0]) is not None)
        next_label = len(after) == 2 and after[0] == "." and re.match(r"[\w@+\-]", after[1]) is not None
        if re.match(_WORD, before) is None and not glued_after and not next_label:
            return True
        start = text.find(needle, start + 1)
    return False
