"""Provenance: whether an argument's value comes from the task's trusted input (the user's own instruction).

Values are compared exactly, as the user wrote them, never by Unicode case
folding: under folding `ſam@example.com` (long s) would pass for
`sam@example.com` and `Kim` with a Kelvin sign for `kim`. A value that Unicode
compatibility normalisation (NFKC) would change is not in canonical form and
never matches; the trusted text is compared in its canonical composition (NFC),
so a user's decomposed accent still matches its composed spelling. Case is
ignored only where the kind of value says it does not matter: the ASCII domain
of an email address (`bob@Example.COM` is `bob@example.com`; `Bob@` is not `bob@`).
"""

from __future__ import annotations

import re
import unicodedata

MIN_PROVENANCE_CHARS = 3
_TOKEN_CHARS = r"[\w@.+\-]"


def appears_in(value: str, trusted: str) -> bool:
    """Whether `value` appears in `trusted` as a whole token: "bob@example.com" appears in "mail
    bob@example.com today"; "ob@example.com", "@example.com", "4001" (of 40012345), "a", "Bob@example.com"
    and "ſam@example.com" (for "sam@example.com") do not."""
    needle = value.strip()
    if len(needle) < MIN_PROVENANCE_CHARS or not any(c.isalnum() for c in needle):
        return False
    if unicodedata.normalize("NFKC", needle) != needle:
        return False  # not canonical: a compatibility or look-alike spelling of something else
    # not inside a longer token; a sentence's closing full stop may follow, a domain's next label may not
    pattern = f"(?<!{_TOKEN_CHARS}){_literal(needle)}(?![\\w@+\\-])(?!\\.[\\w@+\\-])"
    return re.search(pattern, unicodedata.normalize("NFC", trusted)) is not None


def _literal(needle: str) -> str:
    """`needle` as a pattern: exact, but for an email address's ASCII domain, which matches in any ASCII case."""
    local, at, domain = needle.rpartition("@")
    if not (at and local and domain.isascii()):
        return re.escape(needle)
    letters = (f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in domain)
    return re.escape(local) + "@" + "".join(letters)
