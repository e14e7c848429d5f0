"""Two replicas sharing Redis place a conversation's next turn where its prefix lives."""

from __future__ import annotations

import time
from typing import Any

import redis

from ..conftest import ProxyFactory
from .conftest import RedisServer, StartEngines, chat, pool, record_of, routing, until

SYSTEM = "You are agent {k}. " + "Follow the runbook carefully and cite evidence. " * 60


def shared(redis_server: RedisServer, max_blocks: int = 4096) -> dict[str, Any]:
    return {"store": "redis", "redis_url": redis_server.url, "scrape_interval_s": 0.2, "timeout_ms": 200}


async def test_replicas_sharing_redis_send_the_next_turn_to_the_previous_endpoint(
    proxy: ProxyFactory, engines: StartEngines, redis_server: RedisServer
) -> None:
    sims = await engines("e0", "e1")
    config = routing(pool("p", sims), state=shared(redis_server))
    replica_a, replica_b = await proxy(config), await proxy(config)
    for k in range(6):
        system = SYSTEM.format(k=k)
        first = await replica_a.post("/v1/chat/completions", json=chat(system, "Where is the outage?"))
        assert first.status == 200
        served = first.headers["x-taskgate-endpoint"]
        answer = (await first.json())["choices"][0]["message"]["content"]
        second = await replica_b.post(
            "/v1/chat/completions", json=chat(system, "Where is the outage?", answer, "And why?")
        )
        assert second.status == 200
        assert second.headers["x-taskgate-endpoint"] == served, f"conversation {k} moved"
        record = record_of(replica_b, second)
        assert record["decisions"]["cluster"]["state"] == "redis"
        assert int(second.headers["x-taskgate-prefix-hit"]) > 0
        assert record["dispatch"]["engine_cached_tokens"] > 0  # the engine confirms the cache hit


async def test_with_redis_stopped_requests_flow_and_evidence_says_local_only(
    proxy: ProxyFactory, engines: StartEngines, redis_server: RedisServer
) -> None:
    sims = await engines("e0", "e1")
    client = await proxy(routing(pool("p", sims), state=shared(redis_server)))
    assert (await client.post("/v1/chat/completions", json=chat("warm up"))).status == 200
    redis_server.stop()
    for i in range(5):
        started = time.perf_counter()
        resp = await client.post("/v1/chat/completions", json=chat(f"after the store died {i}"))
        assert resp.status == 200
        assert time.perf_counter() - started < 1.0
        cluster = record_of(client, resp)["decisions"]["cluster"]
        assert cluster["state"].startswith("local (redis unavailable")
        assert cluster["degraded"] is True


async def test_the_shared_prefix_index_stays_bounded(
    proxy: ProxyFactory, engines: StartEngines, redis_server: RedisServer
) -> None:
    sims = await engines("e0")
    config = routing(
        pool("p", sims), state=shared(redis_server), prefix={"block_chars": 64, "max_blocks_per_endpoint": 32}
    )
    client = await proxy(config)
    for i in range(40):
        assert (await client.post("/v1/chat/completions", json=chat(f"conversation {i} " * 40))).status == 200
    store = redis.Redis(port=redis_server.port)
    try:
        # the placements reach Redis through the store's writer task, after the response: wait for the last write
        await until(lambda: store.zcard("taskgate:prefix:e0") >= 32)
        assert store.zcard("taskgate:prefix:e0") == 32
    finally:
        store.close()


async def test_in_flight_counts_made_during_an_outage_reach_redis_when_it_returns(redis_server: RedisServer) -> None:
    import asyncio

    from taskgate.routing.config import StateConfig
    from taskgate.routing.prefix import PrefixIndex
    from taskgate.routing.store import MemoryStore, RedisStore

    config = StateConfig(store="redis", redis_url=redis_server.url, retry_after_s=0.2, timeout_ms=100)
    store = RedisStore(config, MemoryStore(PrefixIndex(64)))
    await store.start()
    client = redis.Redis(port=redis_server.port, decode_responses=True)
    try:
        for _ in range(300):  # a burst: one writer, one pipeline per wake-up, no connection storm
            store.inflight("e0", +1)
        await asyncio.sleep(0.2)
        assert client.hget("taskgate:inflight", "e0") == "300"
        for _ in range(300):
            store.inflight("e0", -1)
        await asyncio.sleep(0.2)
        redis_server.stop()
        for delta in (+1, +1, +1, -1):  # net +2 while Redis is away
            store.inflight("e0", delta)
        await asyncio.sleep(0.3)
        redis_server.restart()  # empty: only what the store delivers after the outage counts
        for _ in range(50):
            await asyncio.sleep(0.1)
            try:
                if client.hget("taskgate:inflight", "e0") == "2":
                    break
            except redis.ConnectionError:
                continue
        assert client.hget("taskgate:inflight", "e0") == "2", "the outage's deltas were delivered, not dropped"
    finally:
        client.close()
        await store.close()
