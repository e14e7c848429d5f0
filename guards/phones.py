"""Numbers in logs that the phone recognizer takes for phone numbers: timestamps, durations, counters.

presidio's phone recognizer asks `phonenumbers` whether a run of digits is a
valid number in one of several regions, and a ten-digit Unix timestamp or a
seven-digit fraction is one somewhere. In log lines they are not anyone's
phone: `"ts":1717000112.41`, `audit(1712345678.123:912)`, `0.2214530 secs`.
A phone number is written as one, in groups or with its `+`; these shapes say
a number is something else:

- a decimal: digits, one `.`, digits, and nothing else (`0.2214530`), or a run
  of bare digits that a `.` or `:` and a digit continue (`1717000112.41`,
  `1712345678.123:912`) or that a digit and a `.` begin;
- a bare run of digits after a time's key (`"ts":`, `time=`, `created_at: `,
  `exp`, `iat`): a timestamp;
- a bare run of digits, no `+`, no group, with no phone's word before it on
  its line (`phone`, `call`, `mobile`, `number`, ...): a counter, a limit or a run's id
  (`NO_TIMEOUT = 2147483647`, `(run 12088341772)`); every phone number in the
  labelled sets is written in groups or with its `+`;
- part of an identifier: a letter or a digit, or one joined by `-`, `_` or
  `.`, right before or after it (`ip-172-31-18-204`, `ORD-2024-881734`);
- a date or a bracket inside it (`0] - 2024-12-02` in a changelog);
- after a web server's request and its status on the line, with only numbers
  or dashes between (`"GET /v1/gems HTTP/1.1" 200 - 0 4412 23 21`): the
  log's sizes and timings;
- an id's word among the four words before it on its line, and no phone's
  word there (`the ticket id 0161-555-0192`, `BUILD_ID = "415-555-0139"`,
  `Order IDs like 0800-4471-9932`): an id written in a phone number's shape;
  before a number written with its `+`, the word right before it only (`if
  the shipment slips: +234 807 134 8873` is a phone number);
- four groups of four digits (a card's shape, `4916 8869 5956 7528`, one
  that failed its checksum), or an IBAN's country, check digits and bank
  code right before it (`NL91 ABNA 0417 1643 01`);
- a country's code before it that the match left out, with which it is no
  valid number (`+1 (555) 010-7788`, no area code of North America's,
  read as a Brazilian number);
- the seconds of a clock time before it (`14:03:51 2024 -0300` in a commit's
  date): a timestamp's tail, whatever its digits read as;
- a group of three zeros or more before the last (`1-800-000-0000`: no
  area or exchange is all zeros);
- led by a country's code without its `+` and grouped unlike the number it
  would be: no separator where that country writes one (`44-2079-460018` is
  `+44 20 7946 0018`), nor where the regions presidio reads write it; or a
  North American `1-NXX-NXX-XXXX` that is no valid number there. People write
  their numbers in their country's groups, at least one boundary of them, or
  with a `+`; a key formatted in a phone number's shape is grouped by its
  own scheme. A national number (`0712 128452`) is left alone: its country
  may be one presidio does not read.

A number written as a phone number (`+1 (312) 847-2290`, `617.555.0159`,
`0161 496 0032`) is dropped only by what is glued to it or said of it.
"""

from __future__ import annotations

import re

import phonenumbers
from phonenumbers import PhoneNumberFormat

from .lexicons import words as _words

_DECIMAL = re.compile(r"\(?\d+\.\d+")
# a timing's range (`18.221..18.222`), a package's version and its revision (`12.2.0-14)`); not a phone's dots
# (`646.283.1957`, `01.23.45.67.89`)
_VERSIONED = re.compile(r"\d\.\.\d|\d\.\d+\.\d+-\d+\)")
_BARE = re.compile(r"\(?\d+")
_ZEROED = re.compile(r"0{4}[ \-.]?0{3,}\s*\Z")  # seven zeros or more last: no subscriber's number
_CONTINUED = re.compile(r"[.:]\d")
_BEGUN = re.compile(r"\d[.:]\Z")
_TIME_KEY = re.compile(
    r"(?:\b|_)(?:ts|time|timestamp|epoch|iat|exp|nbf|date|created|updated|modified|started|ended|since|until|"
    r"expires|seen|mtime|ctime)(?:_at|_ts|_time|_ms|_s)?[\"']?\s*[:=]\s*[\"']?\Z",
    re.IGNORECASE,
)


# what is said before a phone number: `call me on`, `mobile:`, `his number is`, `"msisdn": "`
_PHONE_WORDS = _words(
    "phone phones telephone tel tele mobile mob cell cellphone sms mms whatsapp signal msisdn fax call calls called "
    "calling callback text texted reach reached reachable contact dial ring rang voicemail landline hotline "
    "emergency number numbers"
)
# what names an id: `ticket id`, `BUILD_ID`, `order.id`, `Order IDs like`, `(run 12088341772)`
_ID_WORDS = _words(
    "id ids identifier uuid order orders build builds ticket tickets run runs trace traces span job jobs ref refs "
    "reference invoice invoices serial sku case request req txn transaction transactions batch issue issues commit "
    "tracking shipment parcel booking pipeline workflow attempt sequence seq offset counter sentinel"
)
_WORDS = re.compile(r"[A-Za-z]+")
# a letter or a bracket of code inside: no phone number (any dash or space may join its groups: `212–555–0147`)
_NOT_PHONE = re.compile(r"[^\W\d_]|[\[\]{}<>=:;,|]")
# `2024-05-13`, `2024.05.13`, `13.05.2024`, a customs code's dotted groups (`0306.17.00`); not a Belgian mobile's
# four groups (`0475.12.34.56`)
_DATE = re.compile(r"\d{4}-\d\d-\d\d|\d{4}([./])\d\d\1\d\d(?!\1\d)|\d\d([./])\d\d\2\d{4}")
_EXTENSION = re.compile(r"\s*(?:ext\.?|extension|x)\s*\d{1,6}\Z", re.IGNORECASE)  # `+1 312 847 2290 ext. 12`
_GLUE = "-_."
_CLOCK_BEFORE = re.compile(r"\d:\Z")
_UNIT_AFTER = re.compile(r"(?:/(?:s|sec|min|h)|ms|µs)\b|%")  # a rate or a duration: `54309  452.57/s` (k6)
_GROUPS = re.compile(r"\d+")
# the regions presidio's phone recognizer reads numbers in (PhoneRecognizer.supported_regions)
_REGIONS = ("US", "GB", "DE", "FR", "IL", "IN", "CA", "BR")


def implausible(text: str, start: int, end: int) -> bool:
    """Whether the phone number found at text[start:end] is something else: a log's number (a decimal, a
    timestamp), a bare counter, part of an identifier, or an id by what is said before it."""
    value = text[start:end]
    if _ZEROED.search(value):
        return True  # a placeholder's number: `+5511900000000`, `03-0000-0000`
    if _DECIMAL.fullmatch(value) or _VERSIONED.search(value):
        return True  # (and a version, `12.2.0-14) 12.2.0`, or a timing's range, `18.221..18.222`)
    if _NOT_PHONE.search(_EXTENSION.sub("", value)) or _DATE.search(value) or _glued(text, start, end):
        return True
    if _CLOCK_BEFORE.search(text, max(0, start - 2), start) or misgrouped(value) or _miscoded(text, start, value):
        return True
    if _POSTAL_BEFORE.search(text, max(0, start - 24), start):
        return True  # a postal code after its word: `郵便番号 060-0001`, `PLZ 80331`
    if "." in value and _UNIT_AFTER.match(text, end):
        return True  # a rate, a share or a duration's number: `http_reqs: 54309  452.57/s`
    if _CARD_GROUPS.fullmatch(value) or _IBAN_BEFORE.search(text, max(0, start - 12), start):
        return True  # a card's groups (`4916 8869 5956 7528`), an IBAN's tail (`NL91 ABNA 0417 1643 01`)
    if _STATUS_BEFORE.search(text, max(0, start - 60), start):
        return True  # a web server's fields after a request's status: `"GET /v1/gems HTTP/1.1" 200 - 0 4412 23 21`
    slashed = _SLASHED_AROUND.match(text, end) or _SLASHED_BEFORE.search(text, max(0, start - 2), start)
    if value.count("/") > 1 or slashed:
        return True  # HAProxy's timers and counters: `0/0/1/2/3 200 512`, `410/410/12/6/0`
    before = _words_before(text, start)
    if _BARE.fullmatch(value):
        if _CONTINUED.match(text, end) or _BEGUN.search(text, max(0, start - 2), start):
            return True
        digits = start + (value[0] == "(")
        if _TIME_KEY.search(text, max(0, digits - 30), digits) is not None:
            return True
        if not _words_before(text, start, 100, 0) & _PHONE_WORDS:
            return True  # `NO_TIMEOUT = 2147483647`, `(run 12088341772)`; not `call 617.555.0159 or 4155550123`
    # written with its country's code: an id's word right before it only
    named = _words_before(text, start, last=1) if value.startswith("+") else before
    return bool(named & _ID_WORDS) and not before & _PHONE_WORDS


# a postal code's word just before a number, in several languages (`郵便番号 060-0001`, `zip code: 94107`); not
# Turkish's `cep` (a mobile's), nor chat's `plz` (please)
_POSTAL_BEFORE = re.compile(
    r"(?:郵便番号|〒|邮编|邮政编码|郵遞區號|우편번호|\bPLZ|(?i:\bzip(?:[ \t]?code)?|\bpost[ \t]?code|\bpostal[ \t]code"
    r"|c[óo]digo[ \t]postal|code[ \t]postal|kod[ \t]pocztowy|postnummer|postinumero|postleitzahl))"
    r"[ \t]*[:：=]?[ \t]*[\"']?(?:は|が|を)?[ \t]*\Z"
)
_WIDE = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u4e00-\u9fff\uac00-\ud7af]")


# an access log's request, its status and the numeric fields after it (sizes, timings): no phone's
_STATUS_BEFORE = re.compile(r'HTTP/\d(?:\.\d)?"[ \t]+\d{3}(?:[ \t]+(?:-|\d+))*[ \t]+\Z')
_HEBREW_PREFIXES = frozenset("בהוכלמש")
_SLASHED_AROUND = re.compile(r"/\d")
_SLASHED_BEFORE = re.compile(r"\d/\Z")
_CODE_BEFORE = re.compile(r"\+(\d{1,3})[ \t]*\Z")
_CARD_GROUPS = re.compile(r"\d{4}([ \-])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?")
_IBAN_BEFORE = re.compile(r"(?<![\w])[A-Z]{2}\d{2}[ ]?[A-Z0-9]{4}[ ]?\Z")


def _miscoded(text: str, start: int, value: str) -> bool:
    """A country's code written before the number and left out of it, with which it is no valid number:
    `+1 (555) 010-7788` (no North American area code is 555) read as a Brazilian `(555) 010-7788`."""
    code = _CODE_BEFORE.search(text, max(0, start - 5), start)
    if code is None or value.lstrip("( ").startswith("+"):
        return False
    try:
        number = phonenumbers.parse(f"+{code.group(1)} {value}", None)
    except phonenumbers.NumberParseException:
        return True
    return not phonenumbers.is_valid_number(number)


def _glued(text: str, start: int, end: int) -> bool:
    """Part of an identifier: `ip-172-31-18-204`, `ORD-2024-881734`, `build_20240511`."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    # Korean, Japanese and Chinese write their particles on the number: `010-4827-3915입니다` is a phone number
    before, after = (" " if _WIDE.match(c) else c for c in (before, after))
    if before in _HEBREW_PREFIXES and (start < 2 or not text[start - 2].isalpha()):
        before = " "  # Hebrew's one-letter preposition written onto the number: `ל050-520-1129` (to 050-...)
    if before.isalnum() or (after.isalpha() and end + 1 < len(text) and text[end + 1].isalnum()):
        return True
    # `Tel.0161 496 0032` is a phone number, `build.20240511` part of an id; Hebrew writes a number after a
    # preposition's letter and a hyphen (`ל-+972 55-870-9119`, to +972...), and the Nguni languages a number with
    # its `+` after a prefix's hyphen (`ngishayele ku-+27 71 032 3494`, call me on)
    prefixed = before == "-" and start > 1 and "\u05d0" <= text[start - 2] <= "\u05ea"
    prefixed = prefixed and (start < 3 or not text[start - 3].isalnum())
    prefixed = prefixed or (
        before == "-" and text[start] == "+" and _PREFIX_BEFORE.search(text, max(0, start - 6), start - 1) is not None
    )
    if (
        not prefixed
        and before in _GLUE
        and start > 1
        and text[start - 2].isalnum()
        and not _words_before(text, start - 1, 12, 1) & _PHONE_WORDS
    ):
        return True
    return after in _GLUE and end + 1 < len(text) and text[end + 1].isalnum()


_PREFIX_BEFORE = re.compile(r"(?<![\w\-])[a-z]{1,3}\Z")  # a Nguni language's prefix: `ku-`, `ngu-`


def _words_before(text: str, start: int, chars: int = 48, last: int = 4) -> frozenset[str]:
    """The `last` words (0: all) in the `chars` characters before text[start:] on its line, split at `_`, `.`, `-`
    too, in lower case."""
    line = text.rfind("\n", 0, start) + 1
    words = _WORDS.findall(text, max(line, start - chars), start)
    return frozenset(w.lower() for w in words[-last:])


def misgrouped(value: str) -> bool:
    """A number written without its `+` whose groups are not the number's: a group of zeros before the last
    (`1-800-000-0000`: no area or exchange is all zeros); led by a country's code, no separator where that
    country writes one (`44-2079-460018` is `+44 20 7946 0018`); or a North American `1-NXX-NXX-XXXX` that
    is no valid number there. A number in one group, written with `+` or nationally, is left as it is. With a
    `+` too: its last two groups all zeros, seven digits or more (`+54 9 11 0000-0000`), a number masked."""
    groups = _GROUPS.findall(value)
    if len(groups) > 2 and len("".join(groups[-2:])) >= 7 and not "".join(groups[-2:]).strip("0"):
        return True
    if value.lstrip("( ").startswith("+"):
        return False
    if len(groups) < 2:
        return False
    if any(len(g) >= 3 and not g.strip("0") for g in groups[:-1]):
        return True
    digits = "".join(groups)
    written = _boundaries(groups)  # counted in digits from the end: a country's code or trunk 0 changes the start
    if groups[0][0] == "0" or int(groups[0]) not in phonenumbers.COUNTRY_CODE_TO_REGION_CODE:
        return False  # a national number (`0712 128452`): its country may be one presidio does not read
    readings: list[tuple[str, str | None]] = [("+" + digits, None)]
    if [len(g) for g in groups] == [1, 3, 3, 4] and groups[0] == "1":
        pass  # `1-800-555-0100`: written as a North American number, read as one alone
    else:
        readings.extend((digits, region) for region in _REGIONS)
    valid = False
    for number, region in readings:
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        if not phonenumbers.is_valid_number(parsed):
            continue
        valid = valid or region is None  # the reading its country's code gives
        inside = len(phonenumbers.national_significant_number(parsed))  # not after a country's code or trunk 0
        for style in (PhoneNumberFormat.NATIONAL, PhoneNumberFormat.INTERNATIONAL):
            formatted = _boundaries(_GROUPS.findall(phonenumbers.format_number(parsed, style)))
            if {b for b in written & formatted if b < inside}:
                return False
    return valid or len(readings) == 1


def _boundaries(groups: list[str]) -> frozenset[int]:
    """Where groups of digits meet, as the count of digits after each meeting."""
    out = set()
    after = 0
    for group in reversed(groups[1:]):
        after += len(group)
        out.add(after)
    return frozenset(out)
