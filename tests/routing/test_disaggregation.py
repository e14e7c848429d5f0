"""Prefill and decode on different engines: vLLM's kv_transfer_params exchange through the openai SDK, on sims."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import openai
import pytest
from aiohttp import web

from taskgate.gateway.config import load_config
from taskgate.gateway.errors import ConfigError
from taskgate.plugins import Registry
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim

from ..conftest import ProxyFactory
from .conftest import cluster_of, record_of

DOCUMENT = " ".join(f"clause {i} of the contract binds the parties to term {i % 17}." for i in range(600))
Seen = list[dict[str, Any]]


async def sim(aiohttp_server: Any, name: str, role: str, seen: Seen) -> tuple[str, Any]:
    """A sim engine of `role` that keeps every generation request body it is sent."""
    profile = dataclasses.replace(
        PROFILES["h100"],
        models=("m",),
        role=role,
        tpot_s=0.01,
        prefill_tokens_per_s=200_000.0,
        kv_transfer_gb_per_s=100.0,
    )
    app = create_sim(profile, name=name)

    @web.middleware
    async def keep(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
        if request.method == "POST":
            seen.append(json.loads(await request.read()))
        return await handler(request)

    app.middlewares.insert(0, keep)
    server = await aiohttp_server(app)
    return str(server.make_url("")).rstrip("/"), server


def config(prefill_url: str, decode_url: str) -> dict[str, Any]:
    pools = [
        {"name": "pre", "role": "prefill", "zone": "r1", "endpoints": [{"name": "p0", "url": prefill_url}],
         "models": [{"name": "m"}], "prefill_tokens_per_s": 20_000},
        {"name": "dec", "role": "decode", "zone": "r1", "endpoints": [{"name": "d0", "url": decode_url}],
         "models": [{"name": "m"}], "prefill_tokens_per_s": 20_000, "targets": {"tpot_ms": 10}},
    ]  # fmt: skip
    return {"routing": {"pools": pools, "state": {"scrape_interval_s": 5}}, "logging": {"evidence": False}}


Tune = Callable[[dict[str, Any]], None]


@pytest.fixture
async def pd_with(aiohttp_server: Any, proxy: ProxyFactory) -> Any:
    """A prefill sim and a decode sim behind taskgate, the config first changed by `tune`."""
    sdks: list[openai.AsyncOpenAI] = []

    async def start(tune: Tune | None = None) -> Any:
        prefill_seen: Seen = []
        decode_seen: Seen = []
        prefill_url, prefill_server = await sim(aiohttp_server, "p0", "prefill", prefill_seen)
        decode_url, _ = await sim(aiohttp_server, "d0", "decode", decode_seen)
        settings = config(prefill_url, decode_url)
        if tune is not None:
            tune(settings["routing"])
        client = await proxy(settings)
        sdks.append(openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0))
        return client, sdks[-1], prefill_seen, decode_seen, prefill_server

    yield start
    for sdk in sdks:
        await sdk.close()


@pytest.fixture
async def pd(pd_with: Any) -> Any:
    return await pd_with()


async def busy(sdk: openai.AsyncOpenAI) -> asyncio.Task[Any]:
    """A chat decoding on the decode engine for a while, so a long prefill there would hold its tokens."""

    async def talk() -> None:
        stream = await sdk.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "chat along"}], max_tokens=60, stream=True
        )
        async for _ in stream:
            pass

    task = asyncio.create_task(talk())
    await asyncio.sleep(0.1)
    return task


async def test_a_long_prompt_beside_a_busy_decode_is_prefilled_elsewhere_and_streams_as_one_answer(pd: Any) -> None:
    client, sdk, prefill_seen, decode_seen, _ = pd
    chatting = await busy(sdk)
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": DOCUMENT}], max_tokens=12, stream=True
    )
    chunks = [chunk async for chunk in raw.parse()]
    await chatting

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) == 12
    assert text
    assert raw.headers["x-taskgate-endpoint"] == "d0"
    assert raw.headers["x-taskgate-prefill-endpoint"] == "p0"
    [prefill] = [b for b in prefill_seen if b["messages"][0]["content"] == DOCUMENT]
    assert prefill["max_tokens"] == 1
    assert prefill["stream"] is False
    assert prefill["kv_transfer_params"] == {
        "do_remote_decode": True, "do_remote_prefill": False, "remote_engine_id": None,
        "remote_block_ids": None, "remote_host": None, "remote_port": None,
    }  # fmt: skip
    [decode] = [b for b in decode_seen if b["messages"][0]["content"] == DOCUMENT]
    handed = decode["kv_transfer_params"]
    assert handed["do_remote_prefill"] is True
    assert handed["remote_engine_id"].startswith("p0-")
    assert handed["remote_block_ids"]
    assert decode["stream"] is True
    assert decode["max_tokens"] == 12

    record = record_of(client, raw.http_response)
    split = record["decisions"]["placement"]["disaggregation"]
    assert (split["mode"], split["prefill_endpoint"], split["decode_endpoint"]) == ("disaggregated", "p0", "d0")
    assert split["pairs"]["p0->d0"]["ttft_ms"] > 0
    assert split["pairs"]["p0->d0"]["link"] == "same zone"
    assert split["aggregated"]["d0"]["stall_ms"] > 100  # what running it whole would hold the chat's tokens
    assert record["dispatch"]["prefill"]["outcome"] == "handed_over"
    assert [a["endpoint"] for a in record["dispatch"]["attempts"]] == ["d0"]


async def test_a_long_prompt_asked_for_whole_is_split_on_both_surfaces_and_answered_whole(pd: Any) -> None:
    client, sdk, prefill_seen, decode_seen, _ = pd
    chatting = await busy(sdk)
    chat = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": DOCUMENT}], max_tokens=7
    )
    completion = await sdk.completions.with_raw_response.create(model="m", prompt=DOCUMENT, max_tokens=5)
    await chatting

    answer, text = chat.parse(), completion.parse()
    assert answer.choices[0].message.content
    assert answer.usage is not None
    assert answer.usage.completion_tokens == 7
    assert text.choices[0].text
    assert text.usage is not None
    assert text.usage.completion_tokens == 5
    for raw in (chat, completion):
        assert (raw.headers["x-taskgate-endpoint"], raw.headers["x-taskgate-prefill-endpoint"]) == ("d0", "p0")
        record = record_of(client, raw.http_response)
        assert record["decisions"]["placement"]["disaggregation"]["mode"] == "disaggregated"
        assert record["dispatch"]["prefill"]["outcome"] == "handed_over"
    prefills = [b for b in prefill_seen if DOCUMENT in (b.get("prompt"), (b.get("messages") or [{}])[0].get("content"))]
    assert [(b["max_tokens"], b["kv_transfer_params"]["do_remote_decode"]) for b in prefills] == [(1, True)] * 2
    decodes = [b for b in decode_seen if DOCUMENT in (b.get("prompt"), (b.get("messages") or [{}])[0].get("content"))]
    assert [(b["max_tokens"], b.get("stream", False)) for b in decodes] == [(7, False), (5, False)]
    assert all(b["kv_transfer_params"]["do_remote_prefill"] is True for b in decodes)


async def test_a_short_prompt_stays_whole_on_the_decode_engine(pd: Any) -> None:
    client, sdk, prefill_seen, decode_seen, _ = pd
    chatting = await busy(sdk)
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": "What is the capital of France?"}], max_tokens=5
    )
    await chatting
    answer = raw.parse()
    assert answer.choices[0].message.content
    assert answer.usage is not None
    assert answer.usage.completion_tokens == 5
    assert raw.headers["x-taskgate-endpoint"] == "d0"
    assert "x-taskgate-prefill-endpoint" not in raw.headers
    assert prefill_seen == []
    assert all("kv_transfer_params" not in body for body in decode_seen)
    split = record_of(client, raw.http_response)["decisions"]["placement"]["disaggregation"]
    assert split["mode"] == "aggregated"
    assert "within 100 ms" in split["reason"]


async def test_a_prefill_engine_that_fails_before_the_first_byte_leaves_the_request_whole(pd: Any) -> None:
    client, sdk, _prefill_seen, decode_seen, prefill_server = pd
    for _ in range(100):  # the scraper has seen it up; its next look is seconds away
        if "p0" in cluster_of(client).loads:
            break
        await asyncio.sleep(0.02)
    await prefill_server.close()  # the prefill engine is gone
    chatting = await busy(sdk)
    raw = await sdk.completions.with_raw_response.create(model="m", prompt=DOCUMENT, max_tokens=6, stream=True)
    chunks = [chunk async for chunk in raw.parse()]
    await chatting

    assert "".join(c.choices[0].text for c in chunks if c.choices)
    assert raw.headers["x-taskgate-endpoint"] == "d0"
    assert "x-taskgate-prefill-endpoint" not in raw.headers
    [decode] = [b for b in decode_seen if b.get("prompt") == DOCUMENT]
    assert "kv_transfer_params" not in decode  # run whole: the decode engine prefills it itself
    record = record_of(client, raw.http_response)
    assert record["decisions"]["placement"]["disaggregation"]["mode"] == "disaggregated", record["decisions"][
        "placement"
    ]["disaggregation"]
    prefill = record["dispatch"]["prefill"]
    assert (prefill["endpoint"], prefill["outcome"]) == ("p0", "failed: sent whole")
    assert prefill["error"]
    assert record["dispatch"]["outcome"] == "completed"


PROMPT_1200 = "Please check this paragraph: " + "word " * 954  # 4,800 characters: 1,200 tokens as routing estimates


def slow_steps(routing: dict[str, Any]) -> None:
    """Decode steps predicted at 150 ms, a 200 ms budget for the gap between two tokens: a 1,200-token prompt
    prefills in 60 ms on the decode engine, within the budget alone, past it with the step it delays."""
    routing["pools"][1]["targets"] = {"tpot_ms": 150}
    routing["disaggregation"] = {"decode_stall_ms": 200}


async def test_a_prefill_whose_stall_fits_the_budget_but_not_with_the_decode_step_is_prefilled_elsewhere(
    pd_with: Any,
) -> None:
    client, sdk, prefill_seen, decode_seen, _ = await pd_with(slow_steps)
    chatting = await busy(sdk)
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": PROMPT_1200}], max_tokens=4, stream=True
    )
    chunks = [chunk async for chunk in raw.parse()]
    await chatting

    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert raw.headers["x-taskgate-prefill-endpoint"] == "p0"
    assert [b["max_tokens"] for b in prefill_seen if b["messages"][0]["content"] == PROMPT_1200] == [1]
    [decode] = [b for b in decode_seen if b["messages"][0]["content"] == PROMPT_1200]
    assert decode["kv_transfer_params"]["do_remote_prefill"] is True
    split = record_of(client, raw.http_response)["decisions"]["placement"]["disaggregation"]
    whole = split["aggregated"]["d0"]
    assert 0 < whole["stall_ms"] < 200 < whole["gap_ms"]  # the stall alone would have kept it whole
    assert whole["gap_ms"] == pytest.approx(150 + whole["stall_ms"])
    assert split["mode"] == "disaggregated", split
    assert f"would wait {whole['gap_ms']:.0f} ms for its next token (a 150 ms step" in split["reason"]
    assert "past 200 ms" in split["reason"]


async def test_a_pair_far_behind_running_whole_leaves_the_prompt_whole_however_long_the_gap(pd_with: Any) -> None:
    def slow_prefill_engine(routing: dict[str, Any]) -> None:
        slow_steps(routing)
        routing["pools"][0]["prefill_tokens_per_s"] = 4_000  # 300 ms for what the decode engine does in 60

    client, sdk, prefill_seen, decode_seen, _ = await pd_with(slow_prefill_engine)
    chatting = await busy(sdk)
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": PROMPT_1200}], max_tokens=4, stream=True
    )
    assert "".join([c.choices[0].delta.content or "" async for c in raw.parse() if c.choices])
    await chatting

    assert "x-taskgate-prefill-endpoint" not in raw.headers
    assert prefill_seen == []
    assert all("kv_transfer_params" not in body for body in decode_seen)
    split = record_of(client, raw.http_response)["decisions"]["placement"]["disaggregation"]
    whole, pair = split["aggregated"]["d0"], split["pairs"]["p0->d0"]
    assert whole["gap_ms"] > 200  # the decodes there would wait past the budget ...
    assert pair["ttft_ms"] - whole["ttft_ms"] > 200  # ... but the request would wait longer than it spares them
    assert pair["ttft_ms"] < 1000  # within the class's target: that alone no longer lets the pair take it
    assert split["mode"] == "aggregated", split
    assert "later than whole" in split["reason"]
    assert "more than the 200 ms it may be" in split["reason"]


def test_a_decode_pool_without_a_prefill_pool_for_its_model_is_a_config_error(
    tmp_path: Path, registry: Registry
) -> None:
    path = tmp_path / "taskgate.yaml"
    path.write_text(
        "routing:\n  pools:\n"
        "    - {name: whole, endpoints: [{name: w0, url: 'http://127.0.0.1:9'}], models: [{name: m}]}\n"
        "    - name: dec\n      role: decode\n      endpoints: [{name: d0, url: 'http://127.0.0.1:9'}]\n"
        "      models: [{name: m}, {name: other}]\n"
    )
    with pytest.raises(ConfigError) as info:
        load_config(path, registry)
    assert info.value.source == str(path)
    assert info.value.path == "routing"
    assert "pools[1]: model 'm' has decode engines but no prefill engine" in info.value.reason
    assert "role: prefill" in info.value.reason


async def test_an_embeddings_request_is_never_split_however_long(pd: Any) -> None:
    client, sdk, prefill_seen, _, _ = pd
    chatting = await busy(sdk)
    raw = await sdk.embeddings.with_raw_response.create(model="m", input=DOCUMENT)
    await chatting
    assert raw.parse().data
    assert raw.headers["x-taskgate-endpoint"] == "d0"
    assert prefill_seen == []
    assert "disaggregation" not in record_of(client, raw.http_response)["decisions"]["placement"]


async def test_a_pair_later_than_whole_by_less_than_it_spares_every_running_decode_is_taken(pd_with: Any) -> None:
    """The same slow prefill engine as above, but ten chats decoding: running the prompt whole would hold each of
    them for its prefill, more together than the pair's wait."""

    def slow_prefill_engine(routing: dict[str, Any]) -> None:
        slow_steps(routing)
        routing["pools"][0]["prefill_tokens_per_s"] = 4_000

    client, sdk, prefill_seen, _, _ = await pd_with(slow_prefill_engine)
    chatting = await asyncio.gather(*(busy(sdk) for _ in range(10)))  # all ten decoding at once
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": PROMPT_1200}], max_tokens=4, stream=True
    )
    assert "".join([c.choices[0].delta.content or "" async for c in raw.parse() if c.choices])
    await asyncio.gather(*chatting)

    split = record_of(client, raw.http_response)["decisions"]["placement"]["disaggregation"]
    assert raw.headers.get("x-taskgate-prefill-endpoint") == "p0", split
    assert [b["max_tokens"] for b in prefill_seen if b["messages"][0]["content"] == PROMPT_1200] == [1]
    whole, pair = split["aggregated"]["d0"], split["pairs"]["p0->d0"]
    assert pair["ttft_ms"] - whole["ttft_ms"] > 200  # later than the budget alone would allow ...
    assert pair["ttft_ms"] - whole["ttft_ms"] < 10 * whole["stall_ms"]  # ... not than the stall of ten decodes
    assert "later than whole" not in split["reason"]
    assert split["mode"] == "disaggregated", split


def two_prefill_engines(routing: dict[str, Any]) -> None:
    """A second prefill endpoint (the same sim under another name); a prompt prefilling past 200 ms is long."""
    pool = routing["pools"][0]
    pool["endpoints"].append({"name": "p1", "url": pool["endpoints"][0]["url"]})
    routing["disaggregation"] = {"long_prefill_ms": 200}


async def test_a_long_prompt_leaves_the_shortest_prefill_lane_to_short_prompts(pd_with: Any) -> None:
    client, sdk, prefill_seen, _, _ = await pd_with(two_prefill_engines)
    chatting = await busy(sdk)
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": DOCUMENT}], max_tokens=4, stream=True
    )
    assert "".join([c.choices[0].delta.content or "" async for c in raw.parse() if c.choices])
    await chatting

    split = record_of(client, raw.http_response)["decisions"]["placement"]["disaggregation"]
    lanes = {name.split("->")[0]: pair["lane_ms"] for name, pair in split["pairs"].items()}
    assert lanes == {"p0": 0, "p1": 0}  # both idle: p0 comes first and is kept for short prompts
    assert split["pairs"]["p0->d0"]["prefill_ms"] > 200
    assert split["mode"] == "disaggregated", split
    assert raw.headers["x-taskgate-prefill-endpoint"] == "p1"
    assert [b["max_tokens"] for b in prefill_seen if b["messages"][0]["content"] == DOCUMENT] == [1]


async def test_every_long_prompt_may_take_the_shortest_lane_when_none_is_kept(pd_with: Any) -> None:
    def keep_none(routing: dict[str, Any]) -> None:
        two_prefill_engines(routing)
        routing["disaggregation"]["short_lanes"] = 0

    _, sdk, _, _, _ = await pd_with(keep_none)
    chatting = await busy(sdk)
    raw = await sdk.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": DOCUMENT}], max_tokens=4, stream=True
    )
    assert "".join([c.choices[0].delta.content or "" async for c in raw.parse() if c.choices])
    await chatting
    assert raw.headers["x-taskgate-prefill-endpoint"] == "p0"
