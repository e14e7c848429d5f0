"""Kept responses are bounded (in count, per caller, in time), private to their caller, and shared through Redis."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import openai
import pytest
import redis

from taskgate.llm.responses_store import Kept, MemoryStore, RedisStore, ResponsesConfig
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim

from ..conftest import ProxyFactory, RedisServer, upstreams


def kept(response_id: str) -> Kept:
    return Kept(response_id, response_id, {"id": response_id}, [{"role": "user", "content": "hi"}], "up", None)


async def test_one_caller_s_many_responses_push_out_only_their_own_oldest() -> None:
    store = MemoryStore(ResponsesConfig(max_responses=5, per_caller=2))
    await store.put("bob", kept("b1"))
    for n in range(4):
        await store.put("alice", kept(f"a{n}"))
    assert await store.get("bob", "b1") is not None  # alice's many responses left bob's alone
    assert [await store.get("alice", f"a{n}") is not None for n in range(4)] == [False, False, True, True]
    assert await store.get("bob", "a3") is None  # and no one reads another's


async def test_the_store_holds_at_most_max_responses_and_forgets_the_oldest_first() -> None:
    store = MemoryStore(ResponsesConfig(max_responses=3, per_caller=10))
    for n in range(5):
        await store.put(f"caller{n}", kept(f"r{n}"))
    assert [await store.get(f"caller{n}", f"r{n}") is not None for n in range(5)] == [False, False, True, True, True]


async def test_a_kept_response_expires_after_its_ttl() -> None:
    store = MemoryStore(ResponsesConfig(ttl_s=0.05))
    await store.put("alice", kept("r"))
    assert await store.get("alice", "r") is not None
    await asyncio.sleep(0.1)
    assert await store.get("alice", "r") is None


async def test_redis_keeps_a_response_for_its_owner_with_the_ttl(redis_server: RedisServer) -> None:
    store = RedisStore(ResponsesConfig(store="redis", redis_url=redis_server.url, ttl_s=120))
    try:
        await store.put("alice", kept("r1"))
        assert await store.get("alice", "r1") == kept("r1")
        assert await store.get("bob", "r1") is None
        ttl = redis.Redis(port=redis_server.port).ttl("taskgate:response:alice:r1")
        assert 0 < ttl <= 120
    finally:
        await store.close()


async def test_a_chain_continues_on_another_replica_through_redis(
    aiohttp_server: Any, proxy: ProxyFactory, redis_server: RedisServer
) -> None:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    engine = await aiohttp_server(create_sim(profile, "sim"))
    raw = upstreams(str(engine.make_url("")).rstrip("/"), "m") | {
        "responses": {"store": "redis", "redis_url": redis_server.url}
    }
    first, second = await proxy(raw), await proxy(raw)
    async with (
        openai.AsyncOpenAI(base_url=str(first.make_url("/v1")), api_key="x", max_retries=0) as one,
        openai.AsyncOpenAI(base_url=str(second.make_url("/v1")), api_key="x", max_retries=0) as other,
    ):
        began = await one.responses.create(model="m", input="hi", max_output_tokens=5)
        assert (await other.responses.retrieve(began.id)).output_text == began.output_text
        more = await other.responses.create(model="m", input="more", previous_response_id=began.id)
        assert more.previous_response_id == began.id


async def test_a_store_that_cannot_be_reached_is_a_503_with_a_stable_code(
    aiohttp_server: Any, proxy: ProxyFactory, redis_server: RedisServer
) -> None:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    engine = await aiohttp_server(create_sim(profile, "sim"))
    raw = upstreams(str(engine.make_url("")).rstrip("/"), "m") | {
        "responses": {"store": "redis", "redis_url": redis_server.url}
    }
    client = await proxy(raw)
    async with openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0) as api:
        began = await api.responses.create(model="m", input="hi", max_output_tokens=5)
        redis_server.stop()
        with pytest.raises(openai.APIStatusError) as caught:
            await api.responses.create(model="m", input="more", previous_response_id=began.id)
        assert caught.value.status_code == 503
        assert caught.value.code == "response_store_unavailable"
        answered = await api.responses.create(model="m", input="a new conversation", max_output_tokens=5)
        assert answered.status == "incomplete"  # answered at the token bound, though it could not be kept
