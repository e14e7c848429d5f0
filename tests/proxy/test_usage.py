"""Token accounting: every answer's usage in the evidence and the metrics, priced at its pool's price; streams
asked for their usage on the client's behalf, and that usage kept from a client that did not ask."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from aiohttp.test_utils import TestClient

from taskgate.gateway.gateway import GATEWAY
from taskgate.gateway.usage import UsageKept, splice, usage_of
from taskgate.plugins import Usage

from ..conftest import ProxyFactory, StartEngines
from .upstream import Recorder, upstream_app

PRICE = {"input_per_mtok": 2.0, "output_per_mtok": 6.0, "cached_input_per_mtok": 0.5}
MESSAGES: list[Any] = [{"role": "user", "content": "Count the primes below one hundred, and say which are twins."}]


def config(url: str, **usage: Any) -> dict[str, Any]:
    pool = {"name": "gpu", "endpoints": [{"name": "e1", "url": url}], "models": [{"name": "m"}], "price": PRICE}
    return {"routing": {"pools": [pool]}, "usage": usage}


async def gateway(proxy: ProxyFactory, engines: StartEngines, **usage: Any) -> TestClient[Any, Any]:
    (_, url, _), *_ = await engines("e1")
    return await proxy(config(url, **usage))


def last_record(client: TestClient[Any, Any]) -> dict[str, Any]:
    records = client.app[GATEWAY].evidence.records()
    assert records
    record: dict[str, Any] = records[-1]
    return record


def sdk(client: TestClient[Any, Any]) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0)


def cost(usage: dict[str, int]) -> float:
    fresh = usage["prompt_tokens"] - usage["cached_tokens"]
    return (fresh * 2.0 + usage["cached_tokens"] * 0.5 + usage["completion_tokens"] * 6.0) / 1e6


async def test_a_whole_answer_leaves_its_usage_and_cost_in_the_evidence_and_the_metrics(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    client = await gateway(proxy, engines)
    async with sdk(client) as via:
        answer = await via.chat.completions.create(model="m", messages=MESSAGES, max_tokens=12)
    assert answer.usage is not None
    usage = last_record(client)["usage"]
    assert usage["prompt_tokens"] == answer.usage.prompt_tokens > 0
    assert usage["completion_tokens"] == answer.usage.completion_tokens == 12
    assert usage["cost"] == pytest.approx(cost(usage))
    metrics = (await (await client.get("/metrics")).read()).decode()
    completion = 'taskgate_tokens_total{kind="completion",model="m",pool="gpu",tenant="none"} 12.0'
    assert completion in metrics
    assert f'taskgate_tokens_total{{kind="prompt",model="m",pool="gpu",tenant="none"}} {usage["prompt_tokens"]}.0' in (
        metrics
    )
    assert 'taskgate_cost_total{model="m",pool="gpu",tenant="none"}' in metrics


async def test_a_second_turn_counts_the_tokens_the_engine_had_cached_at_their_price(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    client = await gateway(proxy, engines)
    text = "Summarise this. " + "The quick brown fox jumps over the lazy dog. " * 40
    long: list[Any] = [{"role": "user", "content": text}]
    async with sdk(client) as via:
        await via.chat.completions.create(model="m", messages=long, max_tokens=4)
        await via.chat.completions.create(model="m", messages=long, max_tokens=4)
    usage = last_record(client)["usage"]
    assert 0 < usage["cached_tokens"] <= usage["prompt_tokens"]
    assert usage["cost"] == pytest.approx(cost(usage))


async def test_a_stream_the_client_did_not_ask_usage_of_is_counted_and_the_client_sees_none(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    client = await gateway(proxy, engines)
    body = {"model": "m", "messages": MESSAGES, "max_tokens": 9, "stream": True}
    response = await client.post("/v1/chat/completions", json=body)
    raw = await response.read()
    assert response.status == 200
    assert b"[DONE]" in raw
    assert b"usage" not in raw
    events = [json.loads(line[6:]) for line in raw.split(b"\n") if line.startswith(b"data: {")]
    assert all(e["choices"] for e in events)
    assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events)
    usage = last_record(client)["usage"]
    assert usage["completion_tokens"] == 9
    assert usage["cost"] == pytest.approx(cost(usage))


async def test_a_stream_that_asked_for_usage_gets_it_and_the_evidence_agrees(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    client = await gateway(proxy, engines)
    async with sdk(client) as via:
        stream = await via.chat.completions.create(
            model="m", messages=MESSAGES, max_tokens=7, stream=True, stream_options={"include_usage": True}
        )
        seen = [chunk.usage async for chunk in stream if chunk.usage is not None]
    assert len(seen) == 1
    usage = last_record(client)["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (seen[0].prompt_tokens, seen[0].completion_tokens)


async def test_the_engine_is_asked_for_usage_with_the_clients_own_stream_options_kept(
    proxy: ProxyFactory, aiohttp_server: Any
) -> None:
    recorder = Recorder()
    upstream = await aiohttp_server(upstream_app(recorder))
    client = await proxy(config(str(upstream.make_url("")).rstrip("/")))
    sent = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true, "max_tokens": 3}'
    asked = {"model": "m", "messages": MESSAGES, "stream": True, "stream_options": {"continuous_usage_stats": False}}
    for body in (sent, json.dumps(asked).encode()):
        response = await client.post("/v1/chat/completions", data=body, headers={"Content-Type": "application/json"})
        await response.read()
    spliced, merged = (json.loads(b) for b in recorder.bodies)
    assert spliced == json.loads(sent) | {"stream_options": {"include_usage": True}}
    assert merged["stream_options"] == {"continuous_usage_stats": False, "include_usage": True}


async def test_with_stream_usage_off_a_stream_goes_as_sent_and_counts_nothing(
    proxy: ProxyFactory, aiohttp_server: Any
) -> None:
    recorder = Recorder()
    upstream = await aiohttp_server(upstream_app(recorder))
    client = await proxy(config(str(upstream.make_url("")).rstrip("/"), stream_usage=False))
    sent = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true}'
    response = await client.post("/v1/chat/completions", data=sent, headers={"Content-Type": "application/json"})
    await response.read()
    assert recorder.bodies == [sent]
    assert "usage" not in last_record(client)


def test_usage_kept_drops_the_usage_event_even_when_chunks_split_it() -> None:
    stream = (
        b'data: {"choices": [{"delta": {"content": "hi"}}], "usage": null}\r\n\r\n'
        b'data: {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1}}\n\n'
        b"data: [DONE]\n\n"
    )
    for cut in range(1, len(stream)):
        kept = UsageKept()
        out = kept.chunk(stream[:cut]) + kept.chunk(stream[cut:]) + kept.end()
        assert out == b'data: {"choices": [{"delta": {"content": "hi"}}]}\r\n\r\ndata: [DONE]\n\n', cut


def test_usage_beside_choices_loses_the_usage_and_keeps_the_choice() -> None:
    event = b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 2}}\n\n'
    out = UsageKept().chunk(event)
    assert json.loads(out[6:]) == {"choices": [{"delta": {}, "finish_reason": "stop"}]}


def test_usage_is_read_from_the_last_usage_object_of_a_window() -> None:
    window = (
        b'{"usage": null}{"choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 4, '
        b'"prompt_tokens_details": {"cached_tokens": 16}}}'
    )
    assert usage_of(window) == Usage(30, 4, 16)
    assert usage_of(b'{"usage": {"prompt_tokens": 3, "completion_tokens": 1}}') == Usage(3, 1, None)  # not said
    assert usage_of(window[:-10]) is None  # cut off: the next window holds it whole
    assert usage_of(b'{"content": "the \\"usage\\" of words"}') is None


def test_splice_adds_fields_without_writing_the_body_out_again() -> None:
    assert json.loads(splice(b' {"a": 1}', {"b": {"c": True}})) == {"a": 1, "b": {"c": True}}


async def test_a_stream_option_spelled_with_escapes_is_merged_not_duplicated(
    proxy: ProxyFactory, aiohttp_server: Any
) -> None:
    recorder = Recorder()
    upstream = await aiohttp_server(upstream_app(recorder))
    client = await proxy(config(str(upstream.make_url("")).rstrip("/")))
    sent = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true, '
    sent += b'"stream\\u005foptions": {"include_usage": false}}'
    response = await client.post("/v1/chat/completions", data=sent, headers={"Content-Type": "application/json"})
    await response.read()
    (forwarded,) = recorder.bodies
    assert forwarded.count(b"stream_options") == 1  # one key, which a lenient parser reads as we did
    assert json.loads(forwarded)["stream_options"] == {"include_usage": True}


def test_usage_null_is_taken_out_wherever_it_stands_without_a_parse() -> None:
    kept = UsageKept()
    first = b'data: {"usage": null, "choices": [{"delta": {"content": "a"}}]}\n\n'
    last = b'data: {"choices": [{"delta": {"content": "b"}}], "usage": null}\n\n'
    assert kept.chunk(first + last) == (
        b'data: {"choices": [{"delta": {"content": "a"}}]}\n\ndata: {"choices": [{"delta": {"content": "b"}}]}\n\n'
    )


def test_a_usage_word_after_the_usage_object_does_not_hide_it() -> None:
    whole = b'{"usage": {"prompt_tokens": 7, "completion_tokens": null}, "prompt_logprobs": [{"\\"usage": 1}]}'
    assert usage_of(whole) == Usage(7, 0, None)
