"""Behaviour under load: prefix caching, TTFT, queueing and disconnects."""

import asyncio
import json
import time
from typing import Any

from aiohttp import ClientSession, web

from taskgate.sim import ENGINE, create_app
from tests.sim.conftest import MakeClient
from tests.sim.helpers import SimClient, eventually, long_text, metric, scrape, timed


async def _first_token_and_usage(client: SimClient, prompt: str) -> tuple[float, dict[str, Any]]:
    body = {
        "model": "sim-a",
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": 2,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    start = time.perf_counter()
    response = await client.post("/v1/chat/completions", json=body)
    ttft = None
    last = b""
    async for line in response.content:
        if line.startswith(b"data: {"):
            ttft = ttft or time.perf_counter() - start
            last = line
    assert ttft is not None
    return ttft, json.loads(last[len(b"data: ") :])["usage"]


async def _gauges(client: SimClient) -> tuple[float, float]:
    text = await scrape(client)
    return metric(text, "vllm:num_requests_running"), metric(text, "vllm:num_requests_waiting")


async def test_repeated_prompt_hits_the_cache_and_starts_faster(sim_client: MakeClient) -> None:
    client = await sim_client(timed(prefill_tokens_per_s=10_000.0))
    prompt = long_text(1500)
    cold_ttft, cold = await _first_token_and_usage(client, prompt)
    warm_ttft, warm = await _first_token_and_usage(client, prompt)
    assert cold["prompt_tokens_details"] == {"cached_tokens": 0}
    cached = warm["prompt_tokens_details"]["cached_tokens"]
    assert warm["prompt_tokens"] - 16 <= cached < warm["prompt_tokens"]
    assert cold_ttft >= 0.15
    assert warm_ttft < cold_ttft / 3
    text = await scrape(client)
    assert metric(text, "vllm:prefix_cache_hits_total") == cached


async def test_follow_up_turn_reuses_the_prompt_and_the_reply(sim_client: MakeClient) -> None:
    client = await sim_client(timed(time_scale=0.0))
    first = [{"role": "system", "content": long_text(100)}, {"role": "user", "content": "Go on."}]
    reply = await (await client.post("/v1/chat/completions", json={"model": "sim-a", "messages": first})).json()
    answer = reply["choices"][0]["message"]
    second = [*first, answer, {"role": "user", "content": "And then?"}]
    again = await (await client.post("/v1/chat/completions", json={"model": "sim-a", "messages": second})).json()
    seen = reply["usage"]["total_tokens"]
    assert again["usage"]["prompt_tokens_details"]["cached_tokens"] == seen // 16 * 16


async def test_second_request_waits_while_max_num_seqs_is_one(sim_client: MakeClient) -> None:
    client = await sim_client(timed(max_num_seqs=1, tpot_s=0.04))
    body = {"model": "sim-a", "prompt": "hello there", "max_tokens": 8}
    first = asyncio.create_task(client.post("/v1/completions", json=body))

    async def first_running() -> bool:
        return await _gauges(client) == (1, 0)

    async def second_waiting() -> bool:
        return await _gauges(client) == (1, 1)

    await eventually(first_running)
    second = asyncio.create_task(client.post("/v1/completions", json=body))
    await eventually(second_waiting)
    replies = [await (await task).json() for task in (first, second)]
    assert [reply["usage"]["completion_tokens"] for reply in replies] == [8, 8]
    text = await scrape(client)
    assert (metric(text, "vllm:num_requests_waiting"), metric(text, "vllm:request_success_total")) == (0, 2)
    assert metric(text, "vllm:request_queue_time_seconds_sum") > 0.1


async def test_client_disconnect_mid_stream_frees_the_sequence(sim_client: MakeClient) -> None:
    client = await sim_client(timed(tpot_s=0.05))
    body = {"model": "sim-a", "prompt": long_text(40), "max_tokens": 200, "stream": True}
    response = await client.post("/v1/completions", json=body)
    await response.content.readline()
    text = await scrape(client)
    assert metric(text, "vllm:num_requests_running") == 1
    assert metric(text, "vllm:kv_cache_usage_perc") > 0
    response.close()

    async def freed() -> bool:
        text = await scrape(client)
        return metric(text, "vllm:num_requests_running") == 0 == metric(text, "vllm:kv_cache_usage_perc")

    await eventually(freed)
    assert metric(await scrape(client), "vllm:request_success_total") == 0


async def test_disconnect_while_queued_leaves_the_queue(sim_client: MakeClient) -> None:
    client = await sim_client(timed(max_num_seqs=1, tpot_s=0.05))
    body = {"model": "sim-a", "prompt": "hi", "max_tokens": 20, "stream": True}
    running = await client.post("/v1/completions", json=body)
    queued = await client.post("/v1/completions", json=body)

    async def one_waiting() -> bool:
        return await _gauges(client) == (1, 1)

    await eventually(one_waiting)
    queued.close()

    async def none_waiting() -> bool:
        return await _gauges(client) == (1, 0)

    await eventually(none_waiting)
    running.close()


async def test_batch_slowdown_stretches_decode_when_busy(sim_client: MakeClient) -> None:
    client = await sim_client(timed(tpot_s=0.01, batch_slowdown=1.0))
    body = {"model": "sim-a", "prompt": "hi", "max_tokens": 10}
    start = time.perf_counter()
    await client.post("/v1/completions", json=body)
    alone = time.perf_counter() - start
    start = time.perf_counter()
    await asyncio.gather(*(client.post("/v1/completions", json=body | {"seed": n}) for n in range(4)))
    together = time.perf_counter() - start
    assert together > 2 * alone


async def test_disconnect_frees_the_sequence_without_handler_cancellation() -> None:
    app = create_app(timed(tpot_s=0.02), "no-cancel")
    runner = web.AppRunner(app, handler_cancellation=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    body = {"model": "sim-a", "prompt": "hi", "max_tokens": 500, "stream": True}
    try:
        async with ClientSession() as session:
            response = await session.post(f"http://{host}:{port}/v1/completions", json=body)
            await response.content.readline()
            response.close()
        engine = app[ENGINE]

        async def freed() -> bool:
            return engine.scheduler.running == 0 == engine.cache.used_blocks

        await eventually(freed)
    finally:
        await runner.cleanup()


async def test_a_short_prompt_waits_one_chunk_of_a_long_prefill_when_prefill_is_chunked(sim_client: MakeClient) -> None:
    async def short_behind_long(client: SimClient) -> float:
        long = asyncio.create_task(_first_token_and_usage(client, long_text(4000, "doc")))  # 0.4 s of prefill
        await asyncio.sleep(0.05)
        short, _ = await _first_token_and_usage(client, long_text(20, "q"))
        await long
        return short

    whole = await short_behind_long(await sim_client(timed()))
    chunked = await short_behind_long(await sim_client(timed(prefill_chunk_tokens=256)))  # 25.6 ms a chunk
    assert whole > 0.3  # it waited for the rest of the long prompt's prefill
    assert chunked < 0.15  # it waited for the chunk in progress, then ran its own
