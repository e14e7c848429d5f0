"""What routing reads of each endpoint for the dashboard (`ENDPOINT_READINGS`): load, breaker, the engine's cache."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import ENDPOINT_READINGS
from taskgate.routing.breaker import Breakers

from ..conftest import ProxyFactory, StartEngines
from .conftest import chat, cluster_of, pool, routing, until


async def test_each_endpoint_reads_its_load_breaker_and_the_engines_prefix_cache_counters(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("a", "b")
    client = await proxy(routing(pool("p", sims), state={"scrape_interval_s": 0.05}))
    readings = client.app[GATEWAY].services.shared(ENDPOINT_READINGS, list)
    assert readings == [cluster_of(client).readings]
    body = chat("You are terse. " * 40, "hello")
    for _ in range(2):  # the second finds the first's prefix cached on the engine it went to
        assert (await client.post("/v1/chat/completions", json=body)).status == 200
    now: dict[str, Any] = {}
    for _ in range(100):
        now = readings[0]()
        if any((r["prefix_hits"] or 0) > 0 for r in now.values()):
            break
        await asyncio.sleep(0.05)
    assert set(now) == {"a", "b"}
    hit = next(r for r in now.values() if (r["prefix_hits"] or 0) > 0)
    assert 0 < hit["prefix_hits"] < hit["prefix_queries"]  # tokens, as the engine counts them
    assert hit | {"prefix_hits": 0, "prefix_queries": 0} == {
        "pool": "p", "inflight": 0, "breaker": "closed", "healthy": True, "running": 0.0, "waiting": 0.0,
        "kv_usage": hit["kv_usage"], "prefix_hits": 0, "prefix_queries": 0,
    }  # fmt: skip


def test_a_breaker_is_read_as_the_next_placement_finds_it_without_changing_it() -> None:
    breakers = Breakers(threshold=1, cooldown_s=0.05)
    assert breakers.current("e") == "closed"
    breakers.failure("e")
    assert breakers.current("e") == "open"
    time.sleep(0.06)
    assert breakers.current("e") == "half_open"  # a probe may go now
    assert breakers.state("e") == "open"  # reading it let no probe through


async def test_a_slow_scrape_is_not_an_engine_down_but_a_hung_one_is(proxy: ProxyFactory, aiohttp_server: Any) -> None:
    """A 50 ms interval still gives a scrape 0.5 s: an engine answering its metrics in 200 ms (a busy event
    loop, a loaded host) must not rank last as down, while one that never answers reads down at once."""

    def engine(delay_s: float) -> web.Application:
        async def metrics(request: web.Request) -> web.Response:
            await asyncio.sleep(delay_s)
            return web.Response(text="vllm:num_requests_waiting 2\nvllm:num_requests_running 1\n")

        app = web.Application()
        app.router.add_get("/metrics", metrics)
        return app

    slow, hung = await aiohttp_server(engine(0.2)), await aiohttp_server(engine(30))
    sims = [("slow", str(slow.make_url("")).rstrip("/"), slow), ("hung", str(hung.make_url("")).rstrip("/"), hung)]
    client = await proxy(routing(pool("p", sims), state={"scrape_interval_s": 0.05}))
    cluster = cluster_of(client)  # its loads are swapped whole at each scrape round
    await until(lambda: {"slow", "hung"} <= set(cluster.loads))
    for _ in range(3):  # three scrape rounds in a row
        took = cluster.loads["slow"].at
        await until(lambda took=took: cluster.loads["slow"].at > took)
        slow, hung = cluster.loads["slow"], cluster.loads["hung"]
        assert slow.healthy, slow
        assert slow.waiting == 2
        assert not hung.healthy
        assert hung.error == "TimeoutError"
