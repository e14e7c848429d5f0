"""`taskgate demo` runs end to end on embedded defaults and shows each guard's decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taskgate.proxy.demo import _demo


def read(path: Path) -> str:
    return path.read_text()


async def test_the_demo_answers_everything_or_refuses_cleanly_and_writes_evidence(capsys: Any) -> None:
    assert await _demo() == 0
    out = capsys.readouterr().out
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
    text = read(Path(out.rsplit("Evidence, one JSON record per request: ", 1)[1].strip()))
    records = [json.loads(line) for line in text.splitlines()]
    assert len([r for r in records if r["path"].startswith("/v1/")]) == 10
    assert {r["model"] for r in records if r["path"] == "/mcp"} >= {"initialize", "tools/list", "tools/call"}
    assert "jane.porter@example.com" not in text
