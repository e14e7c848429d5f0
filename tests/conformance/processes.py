"""Servers the conformance runs start as processes of their own, on free 127.0.0.1 ports."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def free_port() -> int:
    """A 127.0.0.1 port nothing listens on (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def started(
    name: str,
    argv: Sequence[str],
    port: int,
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    wait_s: float = 60.0,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `argv` from the repository root, its output in `log`, until it listens on `port`; stop it after.

    A process that exits before it listens, or does not listen within `wait_s`,
    raises with the tail of its log.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(argv),
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a stop reaches what it started
        )
        try:
            deadline = time.monotonic() + wait_s
            while not _listening(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    what = f"exited with {process.returncode}" if process.returncode is not None else "never listened"
                    tail = log.read_text(errors="replace")[-4000:]
                    raise RuntimeError(f"{name} ({' '.join(argv)}) {what} on 127.0.0.1:{port}; its log:\n{tail}")
                time.sleep(0.05)
            yield process
        finally:
            stop(process)


def stop(process: subprocess.Popen[bytes], grace_s: float = 5.0) -> None:
    """SIGTERM the process group this module started, then SIGKILL it if it lingers."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextlib.contextmanager
def everything_server(logs: Path, port: int | None = None) -> Iterator[str]:
    """Our everything server (tests/conformance/everything.py) as a process; yields its MCP URL."""
    port = port or free_port()
    argv = [PYTHON, "-m", "tests.conformance.everything", "--port", str(port)]
    with started("the everything server", argv, port, logs / "everything.log"):
        yield f"http://127.0.0.1:{port}/mcp"
