"""Further readings of a normalised text: digit groups joined up, and encoded runs decoded.

A card written `4111.1111.1111.1111` or `4 1 1 1 ...`, or an IBAN in dotted
groups, is one value to a reader but not to presidio's patterns. `joined`
removes the separators inside such runs (the same separator throughout, a
number of digits a card or an SSN can have), and the spaces of a value
spelled out character by character (`5 3 6 - 9 0 - 4 3 9 9`). Nine digits
in groups of 3, 2 and 4 are written `536-90-4399`, the shape presidio's SSN
pattern knows, and so are nine digits the client wrote with invisible
characters between them; other runs lose their separators. `decoded` puts the text of
bounded base64 and hex runs (also `%41` and `\\x41` escapes) in place of the
runs. Each reading is a `splice` of the normalised text, so what is found in
it maps back to the run it came from; presidio's own recognizers then decide,
with their checksums (Luhn, IBAN mod 97, SSN rules).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .normalize import Edit, Mapped, normalize, splice

_SEPARATOR = r"(?:[ .\-_/]{1,3}|\s{1,3})"
# One separator throughout (the backreference), as in `4111 1111 1111` or `536.22.1234`: not a list of numbers.
_DIGIT_RUN = re.compile(
    rf"(?<![0-9A-Za-z])[0-9]{{1,6}}(?P<sep>{_SEPARATOR})[0-9]{{1,6}}(?:(?P=sep)[0-9]{{1,6}})*(?![0-9A-Za-z])", re.ASCII
)
_IBAN_RUN = re.compile(
    rf"(?<![0-9A-Za-z])[A-Za-z]{{2}}[0-9]{{2}}[0-9A-Za-z]{{0,4}}(?P<sep>{_SEPARATOR})[0-9A-Za-z]{{1,4}}"
    rf"(?:(?P=sep)[0-9A-Za-z]{{1,4}}){{1,8}}(?![0-9A-Za-z])",
    re.ASCII,
)
# single characters of a number, each followed by one space: `5 3 6 - 9 0 - 4 3 9 9`
_SPACED_RUN = re.compile(r"(?<!\S)(?:[0-9.\-/] ){8,}[0-9](?!\S)", re.ASCII)
_NINE = re.compile(r"(?<![0-9A-Za-z])[0-9]{9}(?![0-9A-Za-z])", re.ASCII)
_GROUP = re.compile(r"[0-9A-Za-z]+", re.ASCII)
# Cheap first looks (a leading character class lets `re` skip ahead): most texts have no run at all.
_MAY_JOIN = re.compile(rf"[0-9]{_SEPARATOR}[0-9]|[0-9]{{9}}", re.ASCII)
_MAY_ENCODE = re.compile(r"[A-Za-z0-9+/_-]{12}", re.ASCII)
RUN_DIGITS = frozenset({9, *range(12, 20)})  # an SSN; a card number

_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{12,}={0,2}(?![A-Za-z0-9+/=_-])", re.ASCII)
_HEX = re.compile(r"(?:0[xX])?((?:[0-9A-Fa-f]{2}){6,})", re.ASCII)
_ESCAPED_RUN = re.compile(r"(?:(?:\\x|%)[0-9A-Fa-f]{2}){6,}", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")

Regions = list[tuple[int, int, str]]  # (start, end, how the text there was read) in the view


def joined(text: Mapped, found: Sequence[tuple[int, int]] = ()) -> tuple[Mapped, Regions] | None:
    """`text` with the separators inside digit and IBAN-shaped runs removed; None if it has no such run.

    Runs that touch `found` (spans of the original already recognised) are left alone.
    """
    if not _MAY_JOIN.search(text.text):
        return None
    edits: list[Edit] = []
    taken: list[tuple[int, int]] = []
    for match in _IBAN_RUN.finditer(text.text):
        taken.append(match.span())
        if not _inside(text.span(*match.span()), found):
            edits.append((match.start(), match.end(), "".join(_GROUP.findall(match.group()))))
    for match in _SPACED_RUN.finditer(text.text):
        span = match.span()
        if sum(c.isdigit() for c in match.group()) in RUN_DIGITS and not _inside(text.span(*span), found):
            taken.append(span)
            edits.append((*span, _ssn_shaped(match.group().replace(" ", ""))))
    for match in _DIGIT_RUN.finditer(text.text):
        run, span = match.group(), match.span()
        fits = sum(c.isdigit() for c in run) in RUN_DIGITS
        if fits and not _inside(span, taken) and not _inside(text.span(*span), found):
            edits.append((match.start(), match.end(), _ssn_shaped("".join(_GROUP.findall(run)), run)))
    for match in _NINE.finditer(text.text):  # nine digits written with invisible characters between them
        span = match.span()
        origin = text.span(*span)
        if origin[1] - origin[0] > 9 and not _inside(span, taken) and not _inside(origin, found):
            edits.append((*span, _ssn_shaped(match.group(), "-".join((match[0][:3], match[0][3:5], match[0][5:])))))
    return _view(text, sorted(edits), "separators")


_SSN_GROUPS = re.compile(r"[0-9]{3}[^0-9]+[0-9]{2}[^0-9]+[0-9]{4}", re.ASCII)


def _ssn_shaped(digits: str, written: str | None = None) -> str:
    """A run's reading: nine digits written in groups of 3, 2 and 4 as `ddd-dd-dddd`, anything else as it is."""
    written = digits if written is None else written
    bare = "".join(c for c in digits if c.isdigit())
    if len(bare) == 9 and _SSN_GROUPS.fullmatch(written):
        return f"{bare[:3]}-{bare[3:5]}-{bare[5:]}"
    return digits


def _inside(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in taken)


@dataclass(frozen=True, slots=True)
class Decoding:
    """Which entity types to look for in decoded runs, and how much decoding one text may cost."""

    entities: tuple[str, ...]
    runs: int  # the most runs decoded in one text
    chars: int  # the most encoded characters decoded in one text


def decoded(text: Mapped, limits: Decoding) -> tuple[Mapped, Regions] | None:
    """`text` with base64, hex and escaped runs replaced by their text; None if none decodes to text."""
    edits: list[tuple[int, int, str, str]] = []
    budget = limits.chars
    for start, end, how in _encoded_runs(text.text, limits.runs):
        if budget <= 0:
            break
        run = text.text[start : min(end, start + budget)]
        budget -= len(run)
        plain = _decode(run, how)
        if plain is not None:
            edits.append((start, end, reading(plain), how))
    if not edits:
        return None
    view, landed = splice(text, [(a, b, new) for a, b, new, _ in edits])
    return view, [(a, b, how) for (a, b), (*_, how) in zip(landed, edits, strict=True)]


def reading(plain: str) -> str:
    """Decoded text as recognizers should read it: normalised, digit groups joined."""
    folded = normalize(plain)
    view = joined(folded)
    return view[0].text if view is not None else folded.text


def _encoded_runs(text: str, most: int) -> list[tuple[int, int, str]]:
    if "%" not in text and "\\" not in text and not _MAY_ENCODE.search(text):
        return []
    runs = [(m.start(), m.end(), "escaped") for m in _ESCAPED_RUN.finditer(text)]
    escaped = [(a, b) for a, b, _ in runs]
    for match in _B64_RUN.finditer(text):
        run = match.group()
        hexed = _HEX.fullmatch(run) is not None
        if (hexed or not run.isdigit()) and not _inside(match.span(), escaped):  # a plain number is not base64
            runs.append((match.start(), match.end(), "hex" if hexed else "base64"))
    return sorted(runs)[:most]


def _decode(run: str, how: str) -> str | None:
    """The text a run encodes, or None if it is not an encoding of text."""
    if how == "escaped":
        return _from_hex(run.replace("\\x", "").replace("%", ""))
    hexed = _HEX.fullmatch(run) if how == "hex" else None
    plain = _from_hex(hexed.group(1)) if hexed is not None else None
    if plain is not None or run.isdigit():
        return plain
    standard = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(standard) % 4 == 1:
        standard = standard[:-1]  # a cut run: its last character holds no whole byte
    try:
        raw = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _text(raw)


def _from_hex(digits: str) -> str | None:
    return _text(bytes.fromhex(digits[: len(digits) // 2 * 2]))


def _text(raw: bytes) -> str | None:
    try:
        plain = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return plain if len(plain) >= 4 and not _CONTROL.search(plain) else None


def _view(text: Mapped, edits: list[Edit], how: str) -> tuple[Mapped, Regions] | None:
    if not edits:
        return None
    view, landed = splice(text, edits)
    return view, [(a, b, how) for a, b in landed]
