"""`taskgate demo` runs end to end on embedded defaults and shows each guard's decision."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import pytest

from taskgate.demo.report import dashboard
from taskgate.demo.run import EMAIL, LOOP_ANSWER
from taskgate.demo.tools import SENDER

ROOT = Path(__file__).resolve().parents[2]
SECRET = "the-demo-idp-secret-of-this-test-0123456789"


@dataclass
class Demo:
    out: str  # the summary, up to the dashboard's lines
    url: str  # its dashboard, still served
    token: str  # the operator's, as printed


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    """`taskgate demo --stay`, one run for every test here; Ctrl-C ends it, with status 0 (every call answered or
    cleanly refused) and no traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TASKGATE_DEMO_IDP_SECRET": SECRET}
    cmd = [sys.executable, "-m", "taskgate", "demo", "--stay"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    printed: list[str] = []
    try:
        for line in iter(proc.stdout.readline, ""):
            printed.append(line)
            if line.startswith("  eyJ"):  # the dashboard's token: the last line before it waits
                break
        out = "".join(printed)
        url = next(line.split()[1] for line in printed if line.startswith("Dashboard: http"))
        yield Demo(out, url, printed[-1].strip())
    finally:
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, "".join(printed) + rest
    assert "Traceback" not in rest


@pytest.fixture(scope="module")
def out(demo: Demo) -> str:
    return demo.out


def evidence(out: str) -> list[dict[str, Any]]:
    text = Path(out.rsplit("Evidence, one JSON record per request: ", 1)[1].split("\n", 1)[0].strip()).read_text()
    return [json.loads(line) for line in text.splitlines()]


def loop_section(out: str) -> list[str]:
    return out.split("The tool-loop task (code profile)", 1)[1].split("Evidence, one JSON record", 1)[0].splitlines()


def words(lines: list[str], *start: str) -> list[str]:
    """The first line that begins with these words, split into words."""
    return next(line.split() for line in lines if tuple(line.split()[: len(start)]) == start)


def test_the_demo_answers_everything_or_refuses_cleanly_and_writes_evidence(out: str) -> None:
    rows = {line[:32].strip(): line for line in out.splitlines() if line[:1].isalpha() and " 200 " in line}
    assert "h100" in rows["agent: final answer (stream)"]
    assert "email:redact" in rows["email draft with personal data"]
    assert "l4-0" in rows["IBAN: must stay in eu-west"]  # the only eu-west pool batch work may use
    assert "pii_blocked" in out
    assert "removed: mail__delete, mail__send" in out  # the agent's task narrowed the tools it was offered
    assert "mcp: mail__delete  403" in out
    assert "mcp: mail__read    200" in out
    assert "<EMAIL_ADDRESS>" in out  # the tool result passed the PII guard
    assert "model_not_found" in out
    assert "Dashboard: http://127.0.0.1:" in out  # where these requests can be seen
    records = evidence(out)
    assert len([r for r in records if r["path"].startswith("/v1/")]) == 11
    assert {r["model"] for r in records if r["path"] == "/mcp"} >= {"initialize", "tools/list", "tools/call"}
    text = json.dumps(records)
    assert EMAIL not in text
    assert SENDER not in text  # the mail tool's result was redacted on every path


def test_the_tool_loop_runs_two_calls_in_parallel_denies_one_and_streams_the_answer(out: str) -> None:
    lines = loop_section(out)
    assert any("grant: the model was offered mail__list, mail__read, metrics__latency;" in line for line in lines)
    assert words(lines, "tool", "mail__read")[2] == "200"
    assert words(lines, "tool", "metrics__latency")[2] == "200"
    assert words(lines, "tool", "mail__delete")[2:4] == ["403", "from"]
    assert "email:redact" in " ".join(words(lines, "tool", "mail__read"))  # its result reached the model redacted
    parallel = words(lines, "round")
    assert float(parallel[2]) < float(parallel[5])  # wall < sum: the two calls overlapped
    turns = [line.split() for line in lines if line.split()[:1] == ["turn"]]
    assert len(turns) == 3
    assert len({turn[3] for turn in turns}) == 1  # every turn went where the task's prefix is cached
    assert any(line.strip() == LOOP_ANSWER for line in lines)
    assert any("x-taskgate-loop: turns=3; tool_calls=3; denied=1;" in line for line in lines)


def test_the_tool_loop_leaves_one_evidence_record_with_its_trace(out: str) -> None:
    request_id = words(loop_section(out), "x-taskgate-loop:")[-5]
    task = next(r for r in evidence(out) if r["request_id"] == request_id)["task"]
    assert (task["turns"], task["tool_calls"], task["denied"], task["stopped"]) == (3, 3, 1, None)
    assert [e["kind"] for e in task["trace"]].count("model_turn") == 3
    calls = {e["tool"]: e for e in task["trace"] if e["kind"] == "tool_call"}
    assert calls["mail__delete"]["error"]["code"] == "tool_denied"
    assert [calls[t]["status"] for t in ("mail__read", "metrics__latency")] == [200, 200]
    parallel, denied = task["rounds"]
    assert parallel["tools"] == ["mail__read", "metrics__latency"]
    assert parallel["wall_ms"] < parallel["sum_ms"]
    assert denied["tools"] == ["mail__delete"]


def test_the_demo_stays_up_for_its_dashboard_and_shows_it_only_to_its_operator(demo: Demo) -> None:
    requests = demo.url.replace("/ui", "/ui/api/requests")
    records = get(requests, demo.token)["records"]
    assert any(r.get("task", {}).get("turns") == 3 for r in records)  # the tool-loop task, with its trace
    assert {r["id"] for r in records} >= {r["request_id"] for r in evidence(demo.out)}
    claims = jwt.decode(demo.token, options={"verify_signature": False})
    alice = jwt.encode({**claims, "sub": "alice", "roles": []}, SECRET, algorithm="HS256")
    with pytest.raises(urllib.error.HTTPError) as refused:
        get(requests, alice)
    refused.value.close()
    assert refused.value.code == 403
    assert "`taskgate demo --stay` keeps this gateway up" in dashboard(demo.url, None)  # said when it does not


def get(url: str, token: str) -> dict[str, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as resp:
        body: dict[str, Any] = json.loads(resp.read())
        return body
