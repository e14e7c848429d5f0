"""The Responses API through taskgate, driven with the official openai SDK against simulated chat engines.

The engines speak chat completions only; every answer here was translated
both ways, through the same plan, guards and routing as a chat request.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script, ToolCall
from tests.authz.conftest import Keys
from tests.authz.policy import authz_config

from ..conftest import ProxyFactory
from .agents import ANSWER, SUMMARISE, script

HELLO = "Hello! I am the simulated engine, answering in pieces."
SUNNY = "It is sunny in Paris today."
CHAT = Script(
    [
        Rule(match="weather", role="user", tool_calls=(ToolCall("get_weather", {"city": "Paris"}),)),
        Rule(match="25C", role="tool", reply=SUNNY),
        Rule(match=".", reply=HELLO),
    ]
)
WEATHER: Any = [
    {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {}}}}
]


def record_of(client: Any, headers: Any) -> dict[str, Any]:
    record = client.server.app[GATEWAY].evidence.find(headers["x-taskgate-request-id"])
    assert record is not None, "no evidence record for this request"
    return dict(record)


def sdk(client: Any, token: str = "x") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key=token, max_retries=0, timeout=30)


async def two_engines(aiohttp_server: Any, script: Script) -> list[dict[str, str]]:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    endpoints = []
    for name in ("sim-a", "sim-b"):
        server = await aiohttp_server(create_sim(profile, name, script))
        endpoints.append({"name": name, "url": str(server.make_url("")).rstrip("/")})
    return endpoints


@pytest.fixture
async def plain(aiohttp_server: Any, proxy: ProxyFactory) -> AsyncIterator[tuple[Any, openai.AsyncOpenAI]]:
    """A taskgate in front of two scripted engines, routing only."""
    pool = {"name": "p", "endpoints": await two_engines(aiohttp_server, CHAT), "models": [{"name": "m"}]}
    client = await proxy({"routing": {"pools": [pool]}, "logging": {"evidence": False}})
    async with sdk(client) as api:
        yield client, api


async def test_a_whole_response_is_the_engine_s_chat_answer_translated(plain: Any) -> None:
    client, api = plain
    raw = await api.responses.with_raw_response.create(model="m", input="hi", instructions="Be brief.")
    response = raw.parse()
    assert response.object == "response"
    assert response.status == "completed"
    assert response.output_text == HELLO
    assert response.output[0].type == "message"
    assert response.instructions == "Be brief."
    assert response.usage is not None
    assert response.usage.input_tokens > 0
    assert response.usage.output_tokens > 0
    record = record_of(client, raw.headers)
    assert record["surface"] == "responses"
    assert record["decisions"]["responses"]["translated"] == "responses -> chat completions"
    assert record["decisions"]["placement"]["endpoint"] == raw.headers["x-taskgate-endpoint"]


async def test_a_streamed_response_arrives_as_responses_events_in_pieces(plain: Any) -> None:
    _, api = plain
    stream = await api.responses.create(model="m", input="hi", stream=True)
    events = [event async for event in stream]
    kinds = [event.type for event in events]
    assert kinds[:4] == [
        "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"
    ]  # fmt: skip
    assert kinds[-4:] == [
        "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"
    ]  # fmt: skip
    deltas = [event.delta for event in events if event.type == "response.output_text.delta"]
    assert len(deltas) > 3
    assert "".join(deltas) == HELLO
    assert [event.sequence_number for event in events] == list(range(len(events)))
    completed = events[-1].response
    assert completed.output_text == HELLO
    assert completed.usage is not None  # the engine's usage chunk, asked for on the client's behalf


async def test_the_sdk_s_stream_helper_assembles_the_same_response(plain: Any) -> None:
    _, api = plain
    whole = await api.responses.create(model="m", input="hi")
    async with api.responses.stream(model="m", input="hi") as stream:
        texts = [event.delta async for event in stream if event.type == "response.output_text.delta"]
        final = await stream.get_final_response()
    assert "".join(texts) == final.output_text == whole.output_text == HELLO


async def test_a_function_call_round_trip_continues_with_previous_response_id(plain: Any) -> None:
    client, api = plain
    async with api.responses.stream(model="m", input="What is the weather in Paris?", tools=WEATHER) as stream:
        arguments = [event.delta async for event in stream if event.type == "response.function_call_arguments.delta"]
        asked = await stream.get_final_response()
    (call,) = asked.output
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Paris"})
    assert "".join(arguments) == call.arguments
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "sunny, 25C"}
    answered = await api.responses.with_raw_response.create(
        model="m", previous_response_id=asked.id, input=[output], tools=WEATHER
    )
    assert answered.parse().output_text == SUNNY  # the engine read the call and its result, kept by taskgate
    assert record_of(client, answered.headers)["decisions"]["responses"]["previous_response_id"] == asked.id


async def test_follow_ups_land_on_the_endpoint_where_their_previous_response_ran(plain: Any) -> None:
    client, api = plain
    firsts, follow_ups = [], []
    for n in range(4):
        raw = await api.responses.with_raw_response.create(model="m", input=f"conversation {n} begins")
        firsts.append((raw.parse().id, raw.headers["x-taskgate-endpoint"]))
    for response_id, _ in reversed(firsts):  # latest first: placement that ignored the chain would alternate wrongly
        raw = await api.responses.with_raw_response.create(
            model="m", input="and continues", previous_response_id=response_id
        )
        follow_ups.append(raw.headers["x-taskgate-endpoint"])
        record = record_of(client, raw.headers)
        assert record["decisions"]["responses"]["previous_endpoint"] == record["dispatch"]["endpoint"]
    assert {endpoint for _, endpoint in firsts} == {"sim-a", "sim-b"}  # new conversations spread out
    assert follow_ups == [endpoint for _, endpoint in reversed(firsts)]  # each continued where it began


async def test_a_kept_response_is_retrieved_by_its_caller_only(plain: Any) -> None:
    _, api = plain
    created = await api.responses.create(model="m", input="hi")
    got = await api.responses.retrieve(created.id)
    assert (got.id, got.output_text) == (created.id, HELLO)
    with pytest.raises(openai.NotFoundError) as missing:
        await api.responses.retrieve("resp_not_kept_here")
    assert missing.value.code == "response_not_found"
    unkept = await api.responses.create(model="m", input="hi", store=False)
    with pytest.raises(openai.NotFoundError):
        await api.responses.retrieve(unkept.id)
    with pytest.raises(openai.BadRequestError) as unknown:
        await api.responses.create(model="m", input="more", previous_response_id=unkept.id)
    assert unknown.value.code == "previous_response_not_found"
    assert unknown.value.param == "previous_response_id"


@pytest.mark.parametrize(
    ("extra", "code", "param"),
    [
        ({"input": 42}, "invalid_field", "input"),
        ({"input": [{"role": "user", "content": [{"type": "input_file"}]}]}, "invalid_field", "input[0].content[0]"),
        ({"input": [{"type": "web_search_call", "id": "w"}]}, "unsupported_item", "input[0].type"),
        ({"input": ["hi", {"type": "function_call", "name": "f"}]}, "invalid_field", "input[0]"),
        ({"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]}, "invalid_field", "input[0].call_id"),
        ({"tools": [{"type": "web_search"}]}, "unsupported_tool", "tools[0].type"),
        ({"temperature": "hot"}, "invalid_field", "temperature"),
        ({"max_output_tokens": 0}, "invalid_field", "max_output_tokens"),
        ({"background": True}, "unsupported_parameter", "background"),
        ({"frobnicate": 1}, "unknown_parameter", "frobnicate"),
        ({"text": {"format": {"type": "json_schema"}}}, "invalid_field", "text.format"),
    ],
)
async def test_bad_input_is_a_400_openai_error_naming_the_param(
    plain: Any, extra: dict[str, Any], code: str, param: str
) -> None:
    client, _ = plain
    body = {"model": "m", "input": "hi", **extra}
    resp = await client.post("/v1/responses", json=body)
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["code"], error["param"], error["type"]) == (code, param, "invalid_request_error")
    async with sdk(client) as api:  # the SDK raises it as a typed error
        with pytest.raises(openai.BadRequestError) as caught:
            await api.responses.create(model="m", input="hi", extra_body=extra)
    assert caught.value.code == code


async def test_a_model_taskgate_does_not_serve_is_a_404_as_on_chat(plain: Any) -> None:
    _, api = plain
    with pytest.raises(openai.NotFoundError) as caught:
        await api.responses.create(model="no-such-model", input="hi")
    assert caught.value.code == "model_not_found"


# under a grant: the task's tools, the tool-call guard, PII both ways

ADDRESS = "carol.danvers@fastmail.com"
GRANTED = Script(
    [
        Rule(match="quickly", role="user", tool_calls=(ToolCall("mail__delete", {"message_id": "42"}),)),
        Rule(match="summarise", role="user", tool_calls=(ToolCall("mail__read", {"folder": "inbox"}),)),
        Rule(match="<EMAIL_ADDRESS>", reply="The address reached me redacted."),
        Rule(match=ADDRESS, reply="The address reached me as written."),
        Rule(match="contact", reply=f"Write to {ADDRESS} about it."),
    ]
)
MAIL: Any = [
    {"type": "function", "name": name, "parameters": {"type": "object"}} for name in ("mail__read", "mail__delete")
]


@pytest.fixture
async def granted(
    aiohttp_server: Any, proxy: ProxyFactory, keys: Keys, tmp_path: Path
) -> AsyncIterator[tuple[Any, openai.AsyncOpenAI]]:
    """Real JWTs and Casbin policy (tests/authz/policy.py), the PII guard on chat, one scripted engine."""
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    engine = await aiohttp_server(create_sim(profile, "sim", GRANTED))
    config = authz_config(keys, tmp_path, str(engine.make_url("")).rstrip("/"))
    config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}})
    config["pipelines"]["chat"] = ["authn", "classify", "authorize", "pii", "state", "route"]
    client = await proxy(config)
    async with sdk(client, keys.token(roles=[])) as api:
        yield client, api


@pytest.mark.parametrize("stream", [False, True])
async def test_a_function_call_the_grant_allows_reaches_the_client(granted: Any, stream: bool) -> None:
    client, api = granted
    ask = {"model": "m", "input": "summarise my email from this week", "tools": MAIL}
    if stream:
        async with api.responses.stream(**ask) as events:
            kinds = [event.type async for event in events]
            response = await events.get_final_response()
        assert "response.function_call_arguments.delta" in kinds
    else:
        response = await api.responses.create(**ask)
    (call,) = response.output
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments)) == ("mail__read", {"folder": "inbox"})
    record = client.server.app[GATEWAY].evidence.records()[-1]
    assert record["surface"] == "responses"
    assert record["decisions"]["grant"]["profile"] == "summarise"
    assert record["decisions"]["grant"]["tools_removed"] == ["mail__delete"]  # the engine never saw delete


@pytest.mark.parametrize("stream", [False, True])
async def test_a_function_call_outside_the_grant_is_refused_before_the_client_sees_it(
    granted: Any, stream: bool
) -> None:
    client, api = granted
    ask = {"model": "m", "input": "summarise my email from this week, quickly", "tools": MAIL}
    if stream:  # its text has gone out: the stream ends with the note
        stream_ = await api.responses.create(**ask, stream=True)
        events = [event async for event in stream_]
        assert all("mail__delete" not in getattr(e, "delta", "") for e in events if "arguments" in e.type)
        assert not any(e.type.startswith("response.function_call") for e in events)
        response = events[-1].response
        assert "the tool call 'mail__delete' was blocked" in response.output_text
        assert response.status == "completed"
    else:  # whole: the model is told, as the call's result, and asked again; the client gets its next step
        response = await api.responses.create(**ask)
        record = client.server.app[GATEWAY].evidence.records()[-1]
        assert record["task"]["trace"][0]["refused"] == ["mail__delete"]
        assert "mail__delete" not in response.output_text  # the sim's next step: text of its own
    assert [item.type for item in response.output] == ["message"]  # no function call left to run


@pytest.mark.parametrize("stream", [False, True])
async def test_personal_data_is_redacted_in_input_items_and_in_the_output(granted: Any, stream: bool) -> None:
    client, api = granted
    item = {"role": "user", "content": [{"type": "input_text", "text": f"my address is {ADDRESS}"}]}
    heard = await api.responses.create(model="m", input=[item])
    assert heard.output_text == "The address reached me redacted."
    if stream:
        async with api.responses.stream(model="m", input="who is my contact?") as events:
            shown = "".join([e.delta async for e in events if e.type == "response.output_text.delta"])
            answer = await events.get_final_response()
        assert shown == answer.output_text
    else:
        answer = await api.responses.create(model="m", input="who is my contact?")
    assert answer.output_text == "Write to <EMAIL_ADDRESS> about it."
    record = client.server.app[GATEWAY].evidence.records()[-1]
    assert record["decisions"]["pii"]["output"]["counts"] == {"EMAIL_ADDRESS": 1}
    kept = await api.responses.retrieve(answer.id)
    assert ADDRESS not in kept.model_dump_json()  # what is kept is what the client was shown


@pytest.mark.parametrize("stream", [False, True])
async def test_the_tool_loop_answers_a_response_and_its_tool_calls_run_under_the_grant(
    start: Any, keys: Keys, stream: bool
) -> None:
    client = await start(script(ToolCall("mail__read", {"folder": "inbox"})))
    async with sdk(client, keys.token(roles=[])) as api:
        raw = await api.responses.with_raw_response.create(
            model="m",
            input=SUMMARISE,
            stream=stream,
            max_output_tokens=200,
            extra_body={"tool_loop": {"servers": ["mail"]}},
        )
        parsed: Any = raw.parse()
        response = [event async for event in parsed][-1].response if stream else parsed
    assert response.output_text == ANSWER
    assert raw.headers["x-taskgate-loop"] == "turns=2; tool_calls=1; denied=0"
    task = record_of(client, raw.headers)["task"]
    (call,) = [entry for entry in task["trace"] if entry["kind"] == "tool_call"]
    assert (call["tool"], call["allowed"]) == ("mail__read", True)


async def test_another_caller_can_neither_retrieve_nor_continue_a_response(granted: Any, keys: Keys) -> None:
    client, alice = granted
    mine = await alice.responses.create(model="m", input="who is my contact?")
    assert (await alice.responses.retrieve(mine.id)).id == mine.id
    for other in (keys.token(sub="bob", roles=[]), keys.token(tenant="globex", roles=[])):
        async with sdk(client, other) as stranger:
            with pytest.raises(openai.NotFoundError) as hidden:
                await stranger.responses.retrieve(mine.id)
            assert hidden.value.code == "response_not_found"
            with pytest.raises(openai.BadRequestError) as refused:
                await stranger.responses.create(model="m", input="and then?", previous_response_id=mine.id)
            assert refused.value.code == "previous_response_not_found"
    async with sdk(client, "not-a-token") as anonymous:
        with pytest.raises(openai.AuthenticationError):
            await anonymous.responses.retrieve(mine.id)
