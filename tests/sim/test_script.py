"""Scripted replies: exact text in 4-character pieces, finish_reason stop, and a checked script file."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import openai
import pytest

from taskgate.errors import TaskgateError
from taskgate.sim import PROFILES, create_app
from taskgate.sim.cli import load_script
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


async def test_a_rule_can_emit_tool_calls_and_another_answer_the_tool_results(aiohttp_server: Any) -> None:

    from taskgate.sim.script import ToolCall

    script = Script(
        [
            Rule("weather", tool_calls=(ToolCall("weather", {"city": "Paris"}), ToolCall("weather", {"city": "Rome"}))),
            Rule("°C", "Paris 18 °C, Rome 24 °C.", role="tool"),
        ]
    )
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    server = await aiohttp_server(create_app(profile, "s", script))
    client = openai.AsyncOpenAI(base_url=str(server.make_url("/v1")), api_key="x")
    ask: Any = [{"role": "user", "content": "weather in Paris and Rome?"}]
    whole = await client.chat.completions.create(model="m", messages=ask, max_tokens=100)
    calls = whole.choices[0].message.tool_calls or []
    assert [
        (c.model_dump()["function"]["name"], json.loads(c.model_dump()["function"]["arguments"])) for c in calls
    ] == [
        ("weather", {"city": "Paris"}),
        ("weather", {"city": "Rome"}),
    ]
    assert whole.choices[0].finish_reason == "tool_calls"
    stream = await client.chat.completions.create(model="m", messages=ask, max_tokens=100, stream=True)
    chunks = [c async for c in stream]
    arguments: dict[int, str] = {}
    for chunk in chunks:
        for call in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            arguments[call.index] = arguments.get(call.index, "") + (
                (call.function.arguments or "") if call.function else ""
            )
    assert {i: json.loads(a) for i, a in arguments.items()} == {0: {"city": "Paris"}, 1: {"city": "Rome"}}
    answered: Any = [*ask, whole.choices[0].message.model_dump(exclude_none=True),
                     {"role": "tool", "tool_call_id": "call_0", "content": "18 °C"}]  # fmt: skip
    final = await client.chat.completions.create(model="m", messages=answered, max_tokens=100)
    assert final.choices[0].message.content == "Paris 18 °C, Rome 24 °C."
    await client.close()


async def test_a_rule_s_groups_fill_its_tool_call_and_the_responses_api_answers_with_unique_call_ids(
    aiohttp_server: Any,
) -> None:
    from openai.types.responses import ResponseFunctionToolCall

    from taskgate.sim.script import ToolCall

    rules = [
        Rule(r"weather in (\w+)", tool_calls=(ToolCall("get_weather", {"city": r"\1"}),), role="user"),
        Rule(r"(\w+): sunny", r"It is sunny in \1.", role="tool"),
    ]
    profile = dataclasses.replace(PROFILES["instant"], models=("m",), default_max_tokens=64)
    server = await aiohttp_server(create_app(profile, "s", Script(rules)))
    client = openai.AsyncOpenAI(base_url=str(server.make_url("/v1")), api_key="x")
    first = await client.responses.create(model="m", input="the weather in Lyon, please")
    again = await client.responses.create(model="m", input="the weather in Lyon, please")
    call, repeated = first.output[0], again.output[0]
    assert isinstance(call, ResponseFunctionToolCall)
    assert isinstance(repeated, ResponseFunctionToolCall)
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Lyon"})
    assert call.call_id != repeated.call_id  # never call_0 twice
    done = await client.responses.create(model="m", instructions="be brief", input=[
        {"role": "user", "content": "the weather in Lyon, please"},
        {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id, "output": "Lyon: sunny"},
    ])  # fmt: skip
    assert done.output_text == "It is sunny in Lyon."
    await client.close()
