"""Scripted replies: exact text in 4-character pieces, finish_reason stop, and a checked script file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import openai
import pytest

from taskgate.errors import TaskgateError
from taskgate.proxy.simcli import load_script
from taskgate.sim import PROFILES, create_app
from taskgate.sim.script import Rule, Script


async def test_a_matching_rule_answers_in_pieces_and_others_get_generated_text(
    aiohttp_server: Any,
) -> None:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    server = await aiohttp_server(create_app(profile, "s", Script([Rule("weather", "Sunny, 21 C in Lyon.")])))
    client = openai.AsyncOpenAI(base_url=str(server.make_url("/v1")), api_key="x")
    stream = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "weather today?"}], stream=True, max_tokens=50
    )
    chunks = [c async for c in stream]
    pieces = [c.choices[0].delta.content for c in chunks if c.choices]
    assert "".join(p or "" for p in pieces) == "Sunny, 21 C in Lyon."
    assert all(len(p or "") <= 4 for p in pieces)
    assert chunks[-1].choices[0].finish_reason == "stop"
    whole = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hello"}], max_tokens=5
    )
    assert whole.choices[0].finish_reason == "length"
    assert whole.choices[0].message.content != "Sunny, 21 C in Lyon."
    await client.close()


def test_a_script_file_is_read_and_every_problem_names_the_file_and_rule(tmp_path: Path) -> None:
    good = tmp_path / "ok.yaml"
    good.write_text("- {match: 'label', reply: code}\n- {match: '.', reply: chat, delay_s: 0.5}\n")
    assert [r.reply for r in load_script(str(good)).rules] == ["code", "chat"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {match: '(', reply: x}\n")
    with pytest.raises(TaskgateError, match=r"bad.yaml: rule \[0\]"):
        load_script(str(bad))
    extra = tmp_path / "extra.yaml"
    extra.write_text("- {match: a, reply: b, colour: red}\n")
    with pytest.raises(TaskgateError, match="nothing else"):
        load_script(str(extra))
    with pytest.raises(TaskgateError, match="cannot read"):
        load_script(str(tmp_path / "missing.yaml"))
