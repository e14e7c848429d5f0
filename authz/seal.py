"""The policy seal: a last line that declares how many rows precede it and their sha256.

A policy file is only served once it ends with a seal that matches every row
above it. A writer caught mid-write has not written the seal yet (or only part
of it); a writer that overwrites in place without truncating leaves the old
tail, whose old seal no longer matches the new rows. Either way the file is
refused until it is whole. `taskgate policy seal FILE` writes the seal.

The rows are the lines Casbin reads (not blank, not `#` comments), stripped;
the digest is over them joined by newlines, so comments and blank lines may
change without a new seal, and any change to a row needs one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import PolicyError

MARK = "#! taskgate-seal"
_SEAL = re.compile(rf"{re.escape(MARK)} rows=(\d+) sha256=([0-9a-f]{{64}})")


@dataclass(frozen=True, slots=True)
class Sealed:
    """What a seal vouches for: the rows Casbin is to load (and their count and digest)."""

    rows: tuple[str, ...]
    digest: str
    sealed: bool  # False: the file had no seal (allowed only where seals are not required)

    def text(self) -> str:
        return "".join(row + "\n" for row in self.rows)


def rows_of(lines: list[str]) -> tuple[str, ...]:
    return tuple(row for row in (line.strip() for line in lines) if row and not row.startswith("#"))


def digest_of(rows: tuple[str, ...]) -> str:
    return hashlib.sha256("".join(row + "\n" for row in rows).encode()).hexdigest()


def seal_line(rows: tuple[str, ...]) -> str:
    return f"{MARK} rows={len(rows)} sha256={digest_of(rows)}"


def seal(text: str) -> str:
    """`text` without any seal it had, ending with a seal over its rows."""
    kept = [line for line in text.splitlines() if not line.strip().startswith(MARK)]
    while kept and not kept[-1].strip():
        kept.pop()
    return "".join(line + "\n" for line in kept) + seal_line(rows_of(kept)) + "\n"


def unseal(path: Path, text: str, required: bool = True) -> Sealed:
    """The rows of `text` that its seal vouches for; a PolicyError naming the file, the line and the fix if none."""
    lines = text.splitlines()
    fix = f"write the whole file, then run `taskgate policy seal {path}`"
    marks = [number for number, line in enumerate(lines, 1) if line.strip().startswith(MARK)]
    if not marks:
        rows = rows_of(lines)
        if required:
            raise PolicyError(
                f"{path}: the policy is not sealed (a file without its seal may still be being written): {fix}"
            )
        return Sealed(rows, digest_of(rows), False)
    first = marks[0]
    after = next((n for n, line in enumerate(lines[first:], first + 1) if line.strip()), None)
    if after is not None:
        raise PolicyError(
            f"{path}: line {after} follows the seal on line {first}; the seal must be the last line "
            f"(an old tail left by an overwrite in place?): {fix}"
        )
    found = _SEAL.fullmatch(lines[first - 1].strip())
    if found is None:
        raise PolicyError(f"{path}: line {first}: the seal is incomplete or malformed (still being written?): {fix}")
    rows = rows_of(lines[: first - 1])
    declared, digest = int(found.group(1)), found.group(2)
    if declared != len(rows):
        raise PolicyError(
            f"{path}: the seal on line {first} declares {declared} rows but {len(rows)} precede it "
            f"(still being written, or edited after sealing): {fix}"
        )
    if digest_of(rows) != digest:
        raise PolicyError(
            f"{path}: the rows do not match the sha256 of the seal on line {first} "
            f"(still being written, or edited after sealing): {fix}"
        )
    return Sealed(rows, digest, True)
