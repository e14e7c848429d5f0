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
  `exp`, `iat`): a timestamp.

A number written as a phone number (`+1 (312) 847-2290`, `617.555.0159`,
`0161 496 0032`) is never dropped here.
"""

from __future__ import annotations

import re

_DECIMAL = re.compile(r"\(?\d+\.\d+")
_BARE = re.compile(r"\(?\d+")
_CONTINUED = re.compile(r"[.:]\d")
_BEGUN = re.compile(r"\d[.:]\Z")
_TIME_KEY = re.compile(
    r"(?:\b|_)(?:ts|time|timestamp|epoch|iat|exp|nbf|date|created|updated|modified|started|ended|since|until|"
    r"expires|seen|mtime|ctime)(?:_at|_ts|_time|_ms|_s)?[\"']?\s*[:=]\s*[\"']?\Z",
    re.IGNORECASE,
)


def implausible(text: str, start: int, end: int) -> bool:
    """Whether the phone number found at text[start:end] is a log's number: a decimal or a timestamp."""
    value = text[start:end]
    if _DECIMAL.fullmatch(value):
        return True
    if not _BARE.fullmatch(value):
        return False
    if _CONTINUED.match(text, end) or _BEGUN.search(text, max(0, start - 2), start):
        return True
    digits = start + (value[0] == "(")
    return _TIME_KEY.search(text, max(0, digits - 30), digits) is not None
