"""Information flow: confidential values a task has seen, and runs of words it read in untrusted data.

Two indexes that the `flow` and `text` argument kinds read (constraints.py):

- **Secrets.** A `p3` row with the label `secret:NAME` marks a result field as
  confidential (the user's passport, card numbers, credentials, a private
  file). Each value there is kept under NAME; a `text:` field's values inside
  it (addresses, IBANs, long numbers, links) and its runs of words too. A
  value carries a secret when it contains one: an identifier with digits
  (a card or passport number, an IBAN, a phone number) is found whatever
  separators are written between its characters (`4111 1111-1111 1111` is
  `4111111111111111`), other values as whole phrases.
- **Runs.** The words of texts read in untrusted data (a mail body, a web
  page), so agent-written text that copies a long run of them is recognised
  (an event titled after an injected instruction).

Both are built as the task's data arrives and extended, never rebuilt; a
question costs a pass over the argument's text and a set lookup per run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .labels import IBAN, INSTRUCTION, Where, emails_in, urls_in, value_key

if TYPE_CHECKING:
    from .labels import Seen

SECRET = "secret:"  # the p3 label prefix of a confidentiality declaration
MIN_SECRET = 6  # shorter values are too common to call a secret's copy
MAX_SECRETS = 4_096
MAX_RUN_TEXTS = 4_096
RUN_WORDS = 6  # the default run length a `text` rule refuses (words copied in a row)
SECRET_RUN = 8  # runs of a confidential text: this many words in a row carry it
_WORD = re.compile(r"\w+")
_SEPARATORS = re.compile(r"[\W_]+")
_LONG_NUMBER = re.compile(r"(?<![\w])\d[\d \-./]{4,}\d(?![\w])")
_DATE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}")


def compact(value: str) -> str:
    """An identifier's characters without separators, in capitals: how digits-bearing secrets are compared."""
    return _SEPARATORS.sub("", value).upper()


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def values_inside(text: str, dates: bool = True) -> Iterator[str]:
    """The identifiers inside free text: addresses, links, IBANs and long numbers (phone, card, account; with
    `dates=False`, not a date and at least seven digits)."""
    yield from emails_in(text)
    yield from urls_in(text)
    for match in IBAN.finditer(text):
        yield match.group(0)
    for match in _LONG_NUMBER.finditer(text):
        found = match.group(0)
        if dates or (sum(c.isdigit() for c in found) >= 7 and not _DATE.fullmatch(found)):
            yield found


@dataclass(frozen=True, slots=True)
class Secret:
    label: str
    shown: str
    where: Where


class Secrets:
    """Confidential values by label: identifiers compared without separators, other values as phrases."""

    def __init__(self) -> None:
        self._codes: dict[str, Secret] = {}  # compact form of an identifier with digits
        self._phrases: dict[str, Secret] = {}  # value_key of any other value
        self._runs = Runs()
        self.labels: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self._codes or self._phrases or self._runs)

    def add(self, value: str | int | float, label: str, where: Where) -> None:
        text = value if isinstance(value, str) else str(int(value)) if float(value).is_integer() else str(value)
        if len(self._codes) + len(self._phrases) >= MAX_SECRETS:
            return
        self.labels.add(label)
        code = compact(text)
        secret = Secret(label, text.strip()[:80], where)
        if len(code) >= MIN_SECRET and sum(c.isdigit() for c in code) >= 2:
            self._codes.setdefault(code, secret)
            return
        key = value_key(text)
        if key is not None and len(key) >= MIN_SECRET:
            self._phrases.setdefault(key, secret)

    def add_text(self, text: str, label: str, where: Where) -> None:
        """A confidential text: each identifier inside it, and its runs of SECRET_RUN words."""
        for value in values_inside(text):
            self.add(value, label, where)
        if len(words(text)) >= SECRET_RUN:
            self._runs.add(text, where, tag=label)
        else:
            self.add(text, label, where)

    def carried(self, value: str, allowed: Callable[[Secret], bool]) -> Secret | None:
        """The first secret `value` carries that `allowed` does not let through, or None."""
        if not self:
            return None
        code = compact(value)
        for digits, secret in self._codes.items():
            if digits in code and not allowed(secret):
                return secret
        if self._phrases:
            key = value_key(value)
            if key is not None:
                exact = self._phrases.get(key)
                if exact is not None and not allowed(exact):
                    return exact
            folded = value.casefold()
            for phrase, secret in self._phrases.items():
                if phrase.casefold() in folded and _whole(folded, phrase.casefold()) and not allowed(secret):
                    return secret
        for text, found, tag in self._runs.copies(value, SECRET_RUN):
            secret = Secret(tag or "", text, found)
            if not allowed(secret):
                return secret
        return None


def asked_for(seen: Seen, secret: Secret, phrases: tuple[str, ...] | None) -> Where | None:
    """Where the user's own words ask for `secret` (a flow rule's `asked=`): an instruction that writes its
    value, or names it by one of `phrases`, and copies no run of RUN_WORDS words from a tool's data (an
    instruction an agent relays from what it read is not the user's)."""
    if phrases is None:
        return None
    code = compact(secret.shown) if _is_code(secret.shown) else None
    for text in seen.instruction_texts():
        folded = text.casefold()
        named = next((p for p in phrases if p in folded and _whole(folded, p)), None)
        if named is None and code is not None and code in compact(text):
            named = secret.shown
        if named is not None and seen.runs.copied(text, RUN_WORDS) is None:
            return Where(INSTRUCTION, "instruction", field=f"asks for {named!r}")
    return None


def _is_code(text: str) -> bool:
    code = compact(text)
    return len(code) >= MIN_SECRET and sum(c.isdigit() for c in code) >= 2


def _whole(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w@.+\-]){re.escape(phrase)}(?![\w@+\-])", text) is not None


class Runs:
    """Texts, as words, and their n-word runs per n asked for (built once per n, extended as texts arrive)."""

    def __init__(self) -> None:
        self._texts: list[tuple[list[str], Where, str | None]] = []
        self._index: dict[int, tuple[int, dict[tuple[str, ...], int]]] = {}  # n -> (texts indexed, run -> text)

    def __bool__(self) -> bool:
        return bool(self._texts)

    def add(self, text: str, where: Where, tag: str | None = None) -> None:
        if len(self._texts) < MAX_RUN_TEXTS:
            self._texts.append((words(text), where, tag))

    def _runs(self, n: int) -> dict[tuple[str, ...], int]:
        done, index = self._index.get(n, (0, {}))
        for number in range(done, len(self._texts)):
            said = self._texts[number][0]
            for start in range(len(said) - n + 1):
                index.setdefault(tuple(said[start : start + n]), number)
        self._index[n] = (len(self._texts), index)
        return index

    def copied(
        self, text: str, n: int, keep: Callable[[str | None], bool] | None = None
    ) -> tuple[str, Where, str | None] | None:
        """The first run of `n` words of `text` found in the indexed texts (whose tag `keep` accepts)."""
        return next(self.copies(text, n, keep), None)

    def copies(
        self, text: str, n: int, keep: Callable[[str | None], bool] | None = None
    ) -> Iterator[tuple[str, Where, str | None]]:
        """Each run of `n` words of `text` found in the indexed texts, with where it stood."""
        said = words(text) if self._texts else []
        if len(said) < n:
            return
        index = self._runs(n)
        for start in range(len(said) - n + 1):
            run = tuple(said[start : start + n])
            number = index.get(run)
            if number is not None:
                _, where, tag = self._texts[number]
                if keep is None or keep(tag):
                    yield " ".join(run), where, tag


def contains_run(texts: list[list[str]], run: str) -> bool:
    """Whether the words of `run` stand in a row in one of `texts` (each a word list)."""
    wanted = run.split()
    n = len(wanted)
    return any(said[i : i + n] == wanted for said in texts for i in range(len(said) - n + 1))
