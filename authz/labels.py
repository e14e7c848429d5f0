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

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from .flow import Runs, Secrets

INSTRUCTION = "instruction"
CLAIMS = "claims"
UNTRUSTED = "untrusted"
MIN_CHARS = 3  # shorter strings are too common to say where they came from
MAX_UNTRUSTED = 8_192  # untrusted values set aside for evidence; past it, a refusal says "seen nowhere"
MAX_TEXT_CHARS = 65_536  # of one text indexed; the rest is not read (a value past it is not found: denied)

_WORD = r"[\w@.+\-]"
_STOP = r"[^\s<>\"'`()\[\]{}]"
# anything with a scheme (`ftp://`, `xhttps://` included: a link the rule must be able to read), a
# protocol-relative `//host`, `www.`, and a bare host followed by a port, path, query or fragment
LINK = re.compile(
    rf"(?i)(?<![A-Za-z0-9+.\-])[a-z][a-z0-9+.\-]*://{_STOP}+"
    rf"|(?<![:\w/])//[a-z0-9\-]+(?:\.[a-z0-9\-]+)+{_STOP}*"
    rf"|(?<![\w@.\-/])www\.{_STOP}+"
    rf"|(?<![\w@.\-/])(?:[a-z0-9\-]+\.)+[a-z]{{2,}}(?=[:/?#]){_STOP}*"
)
# a bare `host.tld` with nothing after it counts as a link for these top-level domains (not file names)
BARE_HOST = re.compile(r"(?i)(?<![\w@.\-/])(?:[a-z0-9\-]+\.)+(com|net|org|io|co|info|biz|xyz|top|app|dev|me|ly|"
                       r"link|site|online|click|ru|cn|tk|ml|ga|cf|gq|us|uk|de|fr|eu)(?![\w.\-])")  # fmt: skip
EMAIL = re.compile(r"(?<![\w.+\-])[\w.+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+")
DISPLAY_ADDRESS = re.compile(r"^[^<>]*<([^<>\s]+@[^<>\s]+)>$")  # `Name <addr>`: only the address is the value
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
NUMBER = re.compile(r"(?<![\w.,])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")
_IBAN_SHAPE = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9]{10,30}")
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?)*")
_TRAILING = ".,;:!?'\")]}>"
_CONTROL = re.compile(r"[\x00-\x20]")
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
    if compact.isascii() and compact.isalnum() and _iban(compact.upper()):
        return compact.upper()
    return text


def _iban(text: str) -> bool:
    """An IBAN by shape and its ISO 13616 check digits (mod 97), so other identifiers keep their case."""
    if not _IBAN_SHAPE.fullmatch(text):
        return False
    digits = "".join(str(int(c, 36)) for c in text[4:] + text[:4])
    return int(digits) % 97 == 1


URLKey = tuple[str, str, int, str, str, str]


def url_key(value: str, bare: bool = False) -> URLKey | None:
    """A URL's parsed parts (scheme, host, port, path, query, fragment); None unless it is a plain http(s) URL.

    A link taskgate cannot read as one (another scheme, userinfo, a backslash,
    a host outside letters, digits, dots and hyphens, a bad port) is None:
    a `links` rule refuses it rather than guess what a browser would do.
    """
    text = value.strip()
    lowered = text.lower()
    if lowered.startswith("//"):
        text = "https:" + text
    elif lowered.startswith("www.") or (bare and "://" not in lowered):
        text = "https://" + text  # `www.x`, and in free text `host.tld/path`: where a browser would go
    if "\\" in text or _CONTROL.search(text) or unicodedata.normalize("NFKC", text) != text:
        return None
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not host or "@" in parts.netloc:
        return None
    host = host.rstrip(".")
    if _HOST.fullmatch(host) is None:
        return None
    default = 443 if scheme == "https" else 80
    return (scheme, host, port or default, parts.path or "/", parts.query, parts.fragment)


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
    """The links inside free text, as written (trailing punctuation, and a glued next sentence, cut off)."""
    for pattern in (LINK, BARE_HOST):
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
            number = float(match.group(0).replace(",", ""))
        except ValueError:
            continue
        if math.isfinite(number):  # 400 nines are not an amount anyone stated
            yield number


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
        self._urls: dict[URLKey, list[Where]] = {}
        self._numbers: list[tuple[float, Where]] = []
        self._number_index: dict[float, list[Where]] = {}
        self._texts: list[tuple[str, Where]] = []
        self.labels: set[str] = set()
        self.limit: frozenset[str] | None = None  # a subtask's: the labels it may count at all
        self._untrusted: list[tuple[Any, Where]] = []
        self._aside: Seen | None = None  # the untrusted values, indexed on first need
        from .flow import Runs, Secrets  # flow.py reads this module's patterns

        self.secrets: Secrets = Secrets()  # confidential values (`secret:` declarations), for `flow` rules
        self.runs: Runs = Runs()  # the words of every text seen, tagged with its label, for `text` rules
        self.results: list[tuple[str, str | None, list[tuple[str, Any]]]] = []  # (tool, call, leaves): listings
        self.unread: list[dict[str, Any]] = []  # results a field declaration could not read (a warning)

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
        if where.label != INSTRUCTION:
            self.runs.add(text, where, tag=where.label)
        for email in emails_in(text):
            self._put(email, where)
        for url in urls_in(text):
            self._put_url(url, where, bare=True)
        for match in IBAN.finditer(text):
            self._put(match.group(0), where)
        for number in numbers_in(text):
            self._put_number(number, where)

    def add_value(self, value: Any, where: Where) -> None:
        """One value of a structured result: a string (as a value, and as text if it is one), or a number.

        Untrusted values satisfy nothing; they are only set aside, indexed if a
        refusal's evidence asks where a value was seen.
        """
        if where.label == UNTRUSTED:
            if len(self._untrusted) < MAX_UNTRUSTED:
                self._untrusted.append((value, where))
                self._aside = None
            if isinstance(value, str) and any(c.isspace() for c in value.strip()):
                self.runs.add(value[:MAX_TEXT_CHARS], where, tag=UNTRUSTED)
            return
        self._add(value, where)

    def _add(self, value: Any, where: Where) -> None:
        """A structured value is one value: a trusted `sender` field is an address, not a text whose every
        phrase counts (its display name is whatever the sender wrote)."""
        number = number_of(value)
        if number is not None:
            self.labels.add(where.label)
            self._put_number(number, where)
            return
        if not isinstance(value, str):
            return
        self.labels.add(where.label)
        self._put(value, where)
        displayed = DISPLAY_ADDRESS.match(value.strip())
        if displayed:
            self._put(displayed.group(1), where)
        if _looks_like_url(value):
            self._put_url(value, where)

    def _put_number(self, number: float, where: Where) -> None:
        self._numbers.append((number, where))
        self._number_index.setdefault(number, []).append(where)

    def add_json(self, data: Any, where: Where, path: str = "") -> None:
        """Every leaf of a JSON value, each labelled with `where`'s label and its own field path."""
        for field, leaf in leaves(data, path):
            self.add_value(leaf, Where(where.label, where.source, where.call, field or where.field))

    def _put(self, value: str, where: Where) -> None:
        key = value_key(value)
        if key is not None:
            self._exact.setdefault(key, []).append(where)

    def _put_url(self, value: str, where: Where, bare: bool = False) -> None:
        key = url_key(value, bare)
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
        if _looks_like_url(value):
            url = url_key(value)
            return _first(self._urls.get(url, ()), labels) if url is not None else None
        key = value_key(value)
        if key is None:
            return None
        found = _first(self._exact.get(key, ()), labels)
        if found is not None:
            return found
        texts = [(text, where) for text, where in self._texts if where.label in labels]
        if texts:
            phrase = re.compile(rf"(?<!{_WORD}){re.escape(key)}(?![\w@+\-])(?!\.[\w@+\-])")
            return next((where for text, where in texts if phrase.search(text)), None)
        return None

    def find_url(self, value: str, labels: frozenset[str]) -> Where | None:
        labels = labels if self.limit is None else labels & self.limit
        url = url_key(value, bare=True)
        return _first(self._urls.get(url, ()), labels) if url is not None else None

    def find_number(self, number: float, labels: frozenset[str], tolerance: float, relative: bool) -> Where | None:
        labels = labels if self.limit is None else labels & self.limit
        if tolerance == 0:
            return _first(self._number_index.get(number, ()), labels)
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
                for item, where in self._untrusted:  # for evidence only: text is read as text here
                    if isinstance(item, str) and any(c.isspace() for c in item.strip()):
                        self._aside.add_text(item, where)
                    else:
                        self._aside._add(item, where)
            found = self._aside.find(value, frozenset({UNTRUSTED}))
        return found

    def instruction_texts(self) -> list[str]:
        """The user's own words: the texts labelled `instruction` (none in a subtask that may not count them)."""
        if self.limit is not None and INSTRUCTION not in self.limit:
            return []
        return [text for text, where in self._texts if where.label == INSTRUCTION]

    def find_host(self, host: str, labels: frozenset[str]) -> Where | None:
        """Where a link on `host` (or the host itself, as a phrase of text) was seen under one of `labels`."""
        labels = labels if self.limit is None else labels & self.limit
        host = host.lower().rstrip(".")
        for key, found in self._urls.items():
            if key[1] == host:
                where = _first(found, labels)
                if where is not None:
                    return where
        return self.find(host, labels)

    def seen_as_digits(self, value: str) -> Where | None:
        """Where an identifier with digits was seen written otherwise (`+44 20 7946 0321` for `44 20 7946 0321`),
        under any label; None if nowhere. Compared without separators and a leading `+`."""
        from .flow import compact

        code = compact(value)
        if not any(c.isdigit() for c in code):
            return None
        for key, found in self._exact.items():
            if found and compact(key) == code:
                return found[0]
        for item, where in self._untrusted:
            if isinstance(item, str) and compact(item) == code:
                return where
        return None

    def trusted_words(self, labels: frozenset[str]) -> list[list[str]]:
        """The words of every text and string value seen under `labels` (for `text` rules)."""
        from .flow import words

        labels = labels if self.limit is None else labels & self.limit
        texts = [words(text) for text, where in self._texts if where.label in labels]
        texts += [words(key) for key, found in self._exact.items() if any(w.label in labels for w in found)]
        return texts

    def outside(self, value: Any, labels: frozenset[str]) -> Where | None:
        """Where `value` was seen, if only in data outside `labels` (untrusted data, or other labels)."""
        if self.find(value, labels) is not None:
            return None
        return self.anywhere(value)

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
                name = str(key)
                if any(c in name for c in ".[]"):  # such a key never matches a declared path
                    name = json.dumps(name)
                    stack.append((f"{here}[{name}]", item))
                else:
                    stack.append((f"{here}.{name}" if here else name, item))
        elif isinstance(value, list):
            for index in range(len(value) - 1, -1, -1):
                stack.append((f"{here}[{index}]", value[index]))
        else:
            yield here, value


def _first(found: Iterable[Where], labels: frozenset[str]) -> Where | None:
    return next((w for w in found if w.label in labels), None)


def _looks_like_url(value: str) -> bool:
    return value.strip()[:8].lower().startswith(("http://", "https://", "//", "www."))
