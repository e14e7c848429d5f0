"""The real processes: `taskgate sim` and `taskgate serve`, with JSON logs on stderr."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from ..conftest import closed_port


def wait_ready(url: str, proc: subprocess.Popen[str], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"process exited early: {proc.stderr.read() if proc.stderr else ''}"
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    raise AssertionError(f"{url} never became ready")


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def spawn(*args: str, log: Path | None = None) -> subprocess.Popen[str]:
    """A `taskgate` process; its stderr in a pipe, or in `log` (a pipe nobody reads fills, and its writer waits)."""
    cmd = [sys.executable, "-m", "taskgate", *args]
    if log is None:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with log.open("w") as stderr:  # the child keeps its own descriptor
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True)


def stop(proc: subprocess.Popen[str], log: Path | None = None) -> str:
    proc.terminate()
    _, err = proc.communicate(timeout=15)
    return err if log is None else log.read_text()


@pytest.fixture
def sim() -> Iterator[str]:
    port = closed_port()
    proc = spawn("sim", "instant", "--port", str(port), "--model", "cli-model")
    wait_ready(f"http://127.0.0.1:{port}/health", proc)
    yield f"http://127.0.0.1:{port}"
    stop(proc)


_SERVED: dict[str, subprocess.Popen[str]] = {}


def served_process(url: str) -> subprocess.Popen[str]:
    """The `taskgate serve` process behind a URL `served` yielded."""
    return _SERVED[url]


@contextmanager
def served(sim: str, tmp_path: Path, header: str = "") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """`taskgate serve` in front of the sim; after the block, the list holds its JSON log lines."""
    port = closed_port()
    config = tmp_path / "taskgate.yaml"
    pool = f"{{name: p, endpoints: [{{name: sim, url: '{sim}'}}], models: [{{name: cli-model}}]}}"
    config.write_text(f"{header}routing:\n  pools:\n    - {pool}\n")
    log = tmp_path / "serve.log"
    proc = spawn("serve", "-c", str(config), "--port", str(port), log=log)
    lines: list[dict[str, Any]] = []
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    _SERVED[url] = proc
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", proc)
        yield url, lines
    finally:
        _SERVED.pop(url, None)
        stderr = stop(proc, log)
        assert "Traceback" not in stderr
        lines.extend(json.loads(line) for line in stderr.splitlines() if line.startswith("{"))


HELLO = {"model": "cli-model", "messages": [{"role": "user", "content": "hi"}]}


def test_sim_and_serve_processes_answer_and_log_json_evidence(sim: str, tmp_path: Path) -> None:
    with served(sim, tmp_path) as (url, lines):
        status, headers, body = post(url, HELLO)
        assert status == 200
        assert body["choices"][0]["message"]["content"]
        bad_status, _, bad = post(url, {"model": "other"})
        assert bad_status == 404
        assert bad["error"]["code"] == "model_not_found"
    evidence = [line for line in lines if line["event"] == "evidence"]
    assert [e["status"] for e in evidence] == [200, 404]
    assert evidence[0]["request_id"] == headers["x-taskgate-request-id"]
    assert evidence[0]["level"] == "info"
    assert "timestamp" in evidence[0]


def test_evidence_is_logged_even_when_the_level_is_warning(sim: str, tmp_path: Path) -> None:
    with served(sim, tmp_path, "logging: {level: warning, evidence: true}\n") as (url, lines):
        assert post(url, HELLO)[0] == 200
    assert [line["event"] for line in lines] == ["evidence"], "info lines are filtered, evidence is not"


def test_sim_flags_override_the_profile_and_bad_values_are_one_line_errors() -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "taskgate", "sim", "l4", "--kv-blocks", "0"], capture_output=True, text=True, timeout=30
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("taskgate: error:")
    assert "Traceback" not in bad.stderr
    port = closed_port()
    proc = spawn("sim", "l4", "--port", str(port), "--model", "x", "--max-num-seqs", "3", "--time-scale", "0")
    try:
        wait_ready(f"http://127.0.0.1:{port}/health", proc)
        status, headers, _ = post(f"http://127.0.0.1:{port}/v1/chat/completions", {**HELLO, "model": "x"})
        assert status == 200
        assert headers["x-sim-engine"] == "l4"
    finally:
        stop(proc)


def raw_http(url: str, request: bytes) -> bytes:
    """Send `request` as is and read the whole answer (the server closes after an unreadable request)."""
    parsed = urllib.parse.urlsplit(url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Big: " + b"SECRET" * 12_000 + b"\r\n\r\n",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-%d: 1\r\n" % i for i in range(200))
        + b"\r\n",
        b"\x16\x03\x01\x02\x00SECRET-TLS-HELLO\r\n\r\n",
        b"GET /SECRET\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
)
def test_what_cannot_be_read_as_http_gets_a_json_error_that_echoes_nothing(
    sim: str, tmp_path: Path, request_bytes: bytes
) -> None:
    """Beyond what the front door reads (64 KiB a header), aiohttp answered in plain text quoting the bytes."""
    with served(sim, tmp_path) as (url, lines):
        answer = raw_http(url, request_bytes)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == b"400"
    assert b"SECRET" not in answer
    assert json.loads(body)["error"]["code"] == "bad_http_request"
    assert [line["event"] for line in lines if line.get("level") == "warning"] == ["unreadable_http_request"]


async def test_a_graceful_stop_under_load_answers_what_it_took_and_loses_no_evidence(tmp_path: Path) -> None:
    """SIGTERM mid-load: requests in flight are answered, and every answered request has its evidence line (records
    are written just after their answers go out, the last ones as the gateway stops)."""
    port = closed_port()
    slow = spawn("sim", "instant", "--port", str(port), "--model", "cli-model", "--tpot-ms", "20", "--time-scale", "1")
    wait_ready(f"http://127.0.0.1:{port}/health", slow)
    answered: list[tuple[str, float]] = []
    signalled = float("inf")
    try:
        with served(f"http://127.0.0.1:{port}", tmp_path) as (url, lines):
            loaded, stopping = asyncio.Event(), asyncio.Event()

            async def client(session: aiohttp.ClientSession) -> None:
                while not stopping.is_set():
                    try:
                        async with session.post(url, json={**HELLO, "max_tokens": 8}) as resp:
                            await resp.read()
                    except aiohttp.ClientError:
                        return  # the server stopped taking requests
                    answered.append((resp.headers["x-taskgate-request-id"], time.monotonic()))
                    if len(answered) >= 64:
                        loaded.set()

            async with aiohttp.ClientSession() as session:
                clients = [asyncio.create_task(client(session)) for _ in range(16)]
                await loaded.wait()
                proc = served_process(url)
                signalled = time.monotonic()
                proc.send_signal(signal.SIGTERM)  # under load: 16 requests in flight, each ~160 ms at the engine
                await asyncio.to_thread(proc.wait, 20)
                stopping.set()
                await asyncio.gather(*clients)
    finally:
        stop(slow)
    logged = {line["request_id"] for line in lines if line["event"] == "evidence"}
    after = [request for request, at in answered if at > signalled + 0.05]  # an answer takes ~160 ms at the engine
    assert after, "requests in flight when the signal came were answered"
    missing = {request for request, _ in answered} - logged
    assert not missing, f"{len(missing)} of {len(answered)} answered requests have no evidence line"
