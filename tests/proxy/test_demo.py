"""`taskgate demo` runs end to end on embedded defaults and shows each guard's decision."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from taskgate.demo.run import LOOP_ANSWER, _demo


@pytest.fixture(scope="module")
def out() -> str:
    """The demo's summary; one run serves every test here."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert asyncio.run(_demo()) == 0
    return printed.getvalue()


def evidence(out: str) -> list[dict[str, Any]]:
    text = Path(out.rsplit("Evidence, one JSON record per request: ", 1)[1].strip()).read_text()
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
    records = evidence(out)
    assert len([r for r in records if r["path"].startswith("/v1/")]) == 11
    assert {r["model"] for r in records if r["path"] == "/mcp"} >= {"initialize", "tools/list", "tools/call"}
    text = json.dumps(records)
    assert "jane.porter@example.com" not in text
    assert "carol@example.org" not in text  # the mail tool's result was redacted on every path


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
