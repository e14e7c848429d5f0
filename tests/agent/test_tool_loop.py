"""The server-side tool loop, driven with the official openai SDK; tools are real SDK MCP servers behind /mcp."""

from __future__ import annotations

import time
from typing import Any

import openai
import pytest
from aiohttp import web

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim.script import Rule, Script, ToolCall
from tests.authz.conftest import Keys
from tests.proxy.agents import ANSWER, FILES_S, MAIL_S, RECOVERED, SUMMARISE, script


def sdk(client: Any, keys: Keys) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=str(client.make_url("/v1")), api_key=keys.token(roles=[]), max_retries=0, timeout=30
    )


async def ask(client: Any, keys: Keys, extra: dict[str, Any], stream: bool = False) -> tuple[Any, Any]:
    """One loop request through the SDK: (response headers, the completion or the list of stream chunks)."""
    async with sdk(client, keys) as api:
        raw = await api.chat.completions.with_raw_response.create(
            model="m", max_tokens=200, messages=[{"role": "user", "content": SUMMARISE}], stream=stream,
            extra_body=extra,
        )  # fmt: skip
        parsed: Any = raw.parse()
        return raw.headers, [chunk async for chunk in parsed] if stream else parsed


def text_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def trace_of(client: Any, request_id: str) -> dict[str, Any]:
    record = client.server.app[GATEWAY].evidence.find(request_id)
    assert record is not None, "the loop's evidence record was not written"
    return dict(record["task"])


LOOP = {"tool_loop": {"servers": ["mail", "files"]}}


async def test_two_independent_tool_calls_run_in_parallel_and_the_final_answer_streams(start: Any, keys: Keys) -> None:
    calls = (ToolCall("mail__read", {"folder": "inbox"}), ToolCall("files__read", {"path": "/home/alice/notes.txt"}))
    client = await start(script(*calls))
    began = time.perf_counter()
    headers, chunks = await ask(client, keys, LOOP, stream=True)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    elapsed = time.perf_counter() - began
    assert "".join(pieces) == ANSWER
    assert len(pieces) > 3  # it arrived in pieces, as the engine streamed it
    task = trace_of(client, headers["x-taskgate-request-id"])
    tools = [e for e in task["trace"] if e["kind"] == "tool_call"]
    assert sorted(e["tool"] for e in tools) == ["files__read", "mail__read"]
    assert all(e["status"] == 200 and e["allowed"] for e in tools)
    (round_,) = task["rounds"]
    # together they took about the slower call, not the sum of both
    assert round_["wall_ms"] < round_["sum_ms"] - 300, round_  # against the measured sum: load slows both calls
    assert round_["wall_ms"] >= FILES_S * 1000
    assert round_["sum_ms"] >= (MAIL_S + FILES_S) * 1000
    starts = sorted(e["started_ms"] for e in tools)
    assert starts[1] - starts[0] < MAIL_S * 1000 / 2  # the second began before the first could have ended
    assert elapsed < MAIL_S + FILES_S + 1.0
    assert [e["kind"] for e in task["trace"]].count("model_turn") == 2
    assert task["turns"] == 2
    assert task["tool_calls"] == 2
    assert task["stopped"] is None
    second_turn = task["trace"][-1]
    assert second_turn["kind"] == "model_turn"
    assert second_turn["status"] == 200
    mail = next(e for e in tools if e["tool"] == "mail__read")
    # the address, in the result's text and its structured copy, was redacted before the model read it
    assert mail["decisions"]["pii"]["output"]["counts"] == {"EMAIL_ADDRESS": 2}


async def test_the_model_reads_the_tool_results_and_each_turn_is_placed_and_authorized(start: Any, keys: Keys) -> None:
    calls = (ToolCall("mail__read", {"folder": "inbox"}),)
    client = await start(script(*calls))
    headers, answer = await ask(client, keys, LOOP)
    assert answer.choices[0].message.content == ANSWER
    assert answer.choices[0].finish_reason == "stop"
    assert answer.usage is not None
    assert answer.usage.prompt_tokens > 0
    task = trace_of(client, headers["x-taskgate-request-id"])
    turns = [e for e in task["trace"] if e["kind"] == "model_turn"]
    assert [t["decisions"]["placement"]["endpoint"] for t in turns] == ["up", "up"]
    grants = [t["decisions"]["grant"] for t in turns]
    assert grants[0]["new_task"] is True
    assert grants[1]["new_task"] is False  # the second turn continued the task with its token
    assert grants[0]["task"] == grants[1]["task"] == task["task"] == headers["x-taskgate-task"]
    (tool,) = [e for e in task["trace"] if e["kind"] == "tool_call"]
    assert tool["decisions"]["grant"]["task"] == task["task"]  # the tool call ran under the same task
    assert tool["decisions"]["grant"]["decisions"][0]["outcome"] == "allow"
    assert headers["x-taskgate-loop"] == "turns=2; tool_calls=1; denied=0"


async def test_a_call_outside_the_grant_is_denied_the_model_hears_why_and_the_loop_goes_on(
    start: Any, keys: Keys
) -> None:
    calls = (
        ToolCall("mail__read", {"folder": "inbox"}),
        ToolCall("mail__delete", {"message_id": "42", "older_than_days": 90}),
    )
    # the model answers RECOVERED only if its last message, the delete's result, is taskgate's refusal
    heard = Rule(match=r"^taskgate refused this tool call: tool 'mail__delete' denied", role="tool", reply=RECOVERED)
    model = Script([Rule(match="summarise", role="user", tool_calls=calls), heard, Rule(match=".", reply=ANSWER)])
    client = await start(model)
    headers, chunks = await ask(client, keys, LOOP, stream=True)
    assert text_of(chunks) == RECOVERED  # the model heard why, and the loop went on to its answer
    task = trace_of(client, headers["x-taskgate-request-id"])
    assert task["denied"] == 1
    denied = next(e for e in task["trace"] if e["kind"] == "tool_call" and e["tool"] == "mail__delete")
    assert denied["allowed"] is False
    assert denied["status"] == 403
    assert denied["error"]["code"] == "tool_denied"
    assert "mail__delete" in denied["error"]["message"]
    allowed = next(e for e in task["trace"] if e["kind"] == "tool_call" and e["tool"] == "mail__read")
    assert allowed["status"] == 200


async def test_the_loop_stops_at_max_turns_with_a_clear_result(start: Any, keys: Keys) -> None:
    forever = Script([Rule(match=".", tool_calls=(ToolCall("mail__read", {"folder": "inbox"}),))])
    client = await start(forever, tool_loop={"max_turns": 3})
    began = time.perf_counter()
    headers, answer = await ask(client, keys, LOOP)
    assert time.perf_counter() - began < 10
    assert answer.choices[0].finish_reason == "length"
    assert "stopped at its bound (max_turns: 3)" in (answer.choices[0].message.content or "")
    task = trace_of(client, headers["x-taskgate-request-id"])
    assert task["stopped"] == "max_turns"
    assert task["turns"] == 3
    assert task["tool_calls"] == 2  # the third turn's calls were not run: no turn was left to read them


async def test_a_request_can_lower_the_bounds_but_not_raise_them(start: Any, keys: Keys) -> None:
    forever = Script([Rule(match=".", tool_calls=(ToolCall("mail__read", {"folder": "inbox"}),))])
    client = await start(forever, tool_loop={"max_turns": 4, "max_tool_calls": 10})
    lowered = {"tool_loop": {"servers": ["mail"], "max_tool_calls": 1, "max_turns": 50}}
    headers, chunks = await ask(client, keys, lowered, stream=True)
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish == ["length"]
    assert "max_tool_calls: 1" in text_of(chunks)
    task = trace_of(client, headers["x-taskgate-request-id"])
    assert (task["stopped"], task["turns"], task["tool_calls"]) == ("max_tool_calls", 2, 1)


async def test_the_loop_stops_at_its_wall_time(start: Any, keys: Keys) -> None:
    slow = Script([Rule(match=".", tool_calls=(ToolCall("files__read", {"path": "/home/alice/a"}),))])
    client = await start(slow, tool_loop={"timeout_s": 1.0})
    began = time.perf_counter()
    headers, answer = await ask(client, keys, LOOP)
    assert time.perf_counter() - began < 3
    assert answer.choices[0].finish_reason == "length"
    assert trace_of(client, headers["x-taskgate-request-id"])["stopped"] == "timeout"


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ({"tool_loop": {}}, "invalid_tool_loop"),
        ({"tool_loop": {"servers": ["nope"]}}, "unknown_mcp_server"),
        ({"tool_loop": {"tools": ["mail__nope"]}}, "unknown_tool"),
        ({"tool_loop": {"servers": ["mail"], "max_turns": 0}}, "invalid_tool_loop"),
        (
            {"tool_loop": {"servers": ["mail"]}, "tools": [{"type": "function", "function": {"name": "x"}}]},
            "invalid_tool_loop",
        ),
        ({"tool_loop": ["mail"]}, "invalid_tool_loop"),
    ],
)
async def test_a_bad_loop_request_gets_an_openai_error(
    start: Any, keys: Keys, extra: dict[str, Any], code: str
) -> None:
    client = await start(script(ToolCall("mail__read")))
    with pytest.raises(openai.BadRequestError) as caught:
        await ask(client, keys, extra)
    assert caught.value.code == code


async def test_parallel_tool_calls_false_runs_the_calls_one_at_a_time(start: Any, keys: Keys) -> None:
    calls = (ToolCall("mail__read", {"folder": "inbox"}), ToolCall("files__read", {"path": "/home/alice/notes.txt"}))
    client = await start(script(*calls))
    headers, answer = await ask(client, keys, {**LOOP, "parallel_tool_calls": False})
    assert answer.choices[0].message.content == ANSWER
    (round_,) = trace_of(client, headers["x-taskgate-request-id"])["rounds"]
    assert round_["wall_ms"] >= (MAIL_S + FILES_S) * 1000


async def test_an_unauthenticated_loop_is_refused_before_it_learns_any_tool_name(start: Any) -> None:
    client = await start(script(ToolCall("mail__read")))
    for loop in (LOOP, {"tool_loop": {"servers": ["nope"]}}, {"tool_loop": {"tools": ["mail__nope"]}}):
        body = {"model": "m", "messages": [{"role": "user", "content": SUMMARISE}], **loop}
        resp = await client.post("/v1/chat/completions", json=body)
        assert resp.status == 401, loop
        error = (await resp.json())["error"]
        assert error["type"] == "authentication_error"
        assert "mail" not in error["message"]


async def test_timed_out_loops_do_not_count_against_the_model_endpoint(start: Any, keys: Keys) -> None:
    slow = Script([Rule(match=".", tool_calls=(ToolCall("files__read", {"path": "/home/alice/a"}),), delay_s=0.5)])
    client = await start(slow, tool_loop={"timeout_s": 0.3})
    for _ in range(4):  # each ends while its model turn is still running
        headers, _answer = await ask(client, keys, LOOP)
        assert trace_of(client, headers["x-taskgate-request-id"])["stopped"] == "timeout"
    resp = await client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": SUMMARISE}]},
        headers={"Authorization": f"Bearer {keys.token(roles=[])}"},
    )
    assert resp.status == 200  # the endpoint's breaker never opened


async def test_the_task_token_is_carried_whatever_the_case_of_its_configured_header(start: Any, keys: Keys) -> None:
    def shout(config: dict[str, Any]) -> None:
        config["authz"]["tasks"] = {"token_header": "X-Taskgate-Task-Token", "header": "X-Taskgate-Task"}

    client = await start(script(ToolCall("mail__read", {"folder": "inbox"})), tweak=shout)
    headers, answer = await ask(client, keys, LOOP)
    assert answer.choices[0].message.content == ANSWER
    task = trace_of(client, headers["x-taskgate-request-id"])
    grants = [e["decisions"]["grant"] for e in task["trace"]]
    assert {g["task"] for g in grants} == {task["task"]}
    assert [g["new_task"] for g in grants] == [True, False, False]


async def test_a_streamed_loop_without_content_still_names_its_task(start: Any, keys: Keys) -> None:
    silent = Script([Rule(match=".", tool_calls=(ToolCall("mail__read", {"folder": "inbox"}),))])
    client = await start(silent, tool_loop={"max_turns": 2})
    headers, chunks = await ask(client, keys, LOOP, stream=True)
    assert headers["x-taskgate-task"]
    assert headers["x-taskgate-task-token"]
    assert headers["x-taskgate-loop"].startswith("turns=2")
    assert "max_turns: 2" in text_of(chunks)


async def test_a_turn_that_fails_after_the_stream_began_ends_it_with_an_error_event(start: Any, keys: Keys) -> None:
    first = Rule(match="summarise", role="user", reply="Let me look. ", tool_calls=(ToolCall("mail__read"),))
    client = await start(Script([first, Rule(match=".", role="tool", reply=ANSWER)]))
    seen: list[str] = []
    async with sdk(client, keys) as api:
        stream = await api.chat.completions.create(
            model="m", max_tokens=200, messages=[{"role": "user", "content": SUMMARISE}], stream=True,
            extra_body=LOOP,
        )  # fmt: skip
        with pytest.raises(openai.APIError) as caught:
            await read_then_stop_the_model(stream, seen, client.engine)
    assert "".join(seen) == "Let me look. "
    records = client.server.app[GATEWAY].evidence.records()
    task = records[-1]["task"]
    assert [e["kind"] for e in task["trace"]] == ["model_turn", "tool_call", "model_turn"]
    assert task["trace"][-1]["status"] >= 500
    assert records[-1]["error"]["code"] in ("upstream_unavailable", "no_endpoint", "no_placement")
    assert caught.value.code == records[-1]["error"]["code"]  # the client heard why, in the stream


async def read_then_stop_the_model(stream: Any, seen: list[str], engine: Any) -> None:
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            seen.append(chunk.choices[0].delta.content)
            if engine is not None:
                await engine.close()  # the model goes away while the tool runs


def garbled_engine(first: bytes, then: bytes) -> web.Application:
    """An engine that streams one good content event, then one taskgate cannot read."""

    async def chat(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in (first, then, b"data: [DONE]\n\n"):
            await response.write(event)
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


GOOD = b'data: {"choices":[{"index":0,"delta":{"content":"Looking. "},"finish_reason":null}]}\n\n'
GARBLED = b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":"first"}]},"finish_reason":null}]}\n\n'


async def test_a_garbled_answer_is_a_clean_error_whole_or_mid_stream(start: Any, keys: Keys) -> None:
    client = await start(garbled_engine(GOOD, GARBLED))
    with pytest.raises(openai.APIStatusError) as whole:
        await ask(client, keys, LOOP)
    assert whole.value.status_code == 502
    assert whole.value.code == "upstream_malformed"
    async with sdk(client, keys) as api:
        stream = await api.chat.completions.create(
            model="m", max_tokens=200, messages=[{"role": "user", "content": SUMMARISE}], stream=True,
            extra_body=LOOP,
        )  # fmt: skip
        seen: list[str] = []
        with pytest.raises(openai.APIError) as streamed:
            await read_then_stop_the_model(stream, seen, None)
    assert seen == ["Looking. "]  # what was checked arrived; then an error event, not an error page in the stream
    assert streamed.value.code == "upstream_malformed"
