"""Is a file still being written? Sealing one that is would vouch for half a policy.

An editor or a deploy job that is still writing a policy file may have stopped
at a row boundary, so the rows parse: a seal then makes that cut the policy
taskgate serves. `seal` therefore refuses a file that is not stable for a
moment (its size, modification time and inode change while it is watched), or
that a process holds open for writing (Linux: `/proc/PID/fd` and its
`fdinfo` flags; elsewhere only the stability check runs). The atomic way to
replace a policy needs neither: write it aside, seal it there, rename it into
place (docs/authz.md).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .errors import PolicyError

SETTLE_S = 1.0  # the file must not change for this long before it is sealed
_PROC = Path("/proc")


def signature(path: Path) -> tuple[int, int, int]:
    stat = path.stat()
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def writers(path: Path) -> list[int]:
    """The ids of processes that hold `path` open for writing (empty where /proc cannot say)."""
    target = os.path.realpath(path)
    found = []
    for proc in _PROC.glob("[0-9]*"):
        try:
            fds = list((proc / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) != target:
                    continue
                flags = (proc / "fdinfo" / fd.name).read_text().split("flags:", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if int(flags, 8) & 0o3:  # O_WRONLY or O_RDWR
                found.append(int(proc.name))
                break
    return found


def check_settled(path: Path, settle_s: float = SETTLE_S) -> tuple[int, int, int]:
    """Refuse a file still being written: open for writing, or changing while watched for `settle_s`."""
    try:
        before = signature(path)
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read the policy: {exc}") from None
    fix = (
        "wait until its writer has finished; to replace a policy atomically, write it aside, seal it there and "
        f"rename it into place (`taskgate policy seal new.csv && mv new.csv {path}`)"
    )
    busy = writers(path)
    if busy:
        raise PolicyError(f"{path}: not sealed: process {', '.join(map(str, busy))} has it open for writing: {fix}")
    time.sleep(settle_s)
    after = signature(path)
    if after != before:
        raise PolicyError(f"{path}: not sealed: it changed while taskgate watched it for {settle_s:g} s: {fix}")
    return after
