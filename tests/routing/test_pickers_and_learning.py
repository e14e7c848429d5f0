"""Baseline pickers, how new conversations spread, and what the index learns from the engine."""

from __future__ import annotations

import asyncio
from collections import Counter

from taskgate.gateway.gateway import GATEWAY
from taskgate.routing.scrape import scrape

from ..conftest import ProxyFactory
from .conftest import StartEngines, chat, cluster_of, pool, record_of, routing


def picker(name: str, **params: object) -> list[dict[str, object]]:
    return [{"name": "route", "type": "routing.route", "params": {"picker": name, **params}}]


async def test_round_robin_visits_every_endpoint_of_every_eligible_pool_in_turn(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    a, b = await engines("a0", "a1"), await engines("b0", "b1")  # an even count: a double step would hide half
    client = await proxy(routing(pool("a", a), pool("b", b)) | {"steps": picker("round_robin")})
    served = [
        (await client.post("/v1/chat/completions", json=chat(f"q{i}"))).headers["x-taskgate-endpoint"] for i in range(8)
    ]
    assert Counter(served) == {"a0": 2, "a1": 2, "b0": 2, "b1": 2}
    assert len(set(served[:4])) == 4, "four consecutive picks visit four endpoints"


async def test_random_is_seeded_and_least_loaded_prefers_the_idle(proxy: ProxyFactory, engines: StartEngines) -> None:
    sims = await engines("e0", "e1")
    one = await proxy(routing(pool("p", sims)) | {"steps": picker("random", seed=7)})
    two = await proxy(routing(pool("p", sims)) | {"steps": picker("random", seed=7)})
    picks = [
        [(await c.post("/v1/chat/completions", json=chat(f"q{i}"))).headers["x-taskgate-endpoint"] for i in range(8)]
        for c in (one, two)
    ]
    assert picks[0] == picks[1]
    assert set(picks[0]) == {"e0", "e1"}
    least = await proxy(routing(pool("p", sims)) | {"steps": picker("least_loaded")})
    resp = await least.post("/v1/chat/completions", json=chat("q"))
    assert record_of(least, resp)["decisions"]["placement"]["reason"] == "least_loaded picker"


async def test_a_new_conversation_goes_to_the_endpoint_holding_fewer_blocks(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0", "e1")
    client = await proxy(routing(pool("p", sims)))
    first = await client.post("/v1/chat/completions", json=chat("conversation A " * 80))
    second = await client.post("/v1/chat/completions", json=chat("conversation B " * 80))
    assert first.headers["x-taskgate-endpoint"] != second.headers["x-taskgate-endpoint"]


async def test_the_index_learns_an_engines_real_capacity_from_its_reported_cache_hits(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    # One engine whose KV cache holds about one conversation: B evicts A, then A evicts B.
    sims = await engines("e0", kv_capacity_blocks=14)
    client = await proxy(routing(pool("p", sims), prefix={"block_chars": 64}))
    a_text, b_text = "alpha policy clause " * 60, "bravo incident notes " * 60
    await client.post("/v1/chat/completions", json=chat(a_text, "first"))
    await client.post("/v1/chat/completions", json=chat(b_text, "first"))
    index = cluster_of(client).store.index  # type: ignore[attr-defined]
    assert index.cap_of("e0") == index.cap  # nothing learned yet
    again = await client.post("/v1/chat/completions", json=chat(a_text, "first", "ok", "second"))
    predicted = int(again.headers["x-taskgate-prefix-hit"])
    engine = record_of(client, again)["dispatch"]["engine_cached_tokens"]
    assert predicted > 100 > engine, "the index believed A was still cached; the engine had evicted it"
    assert index.cap_of("e0") < index.cap, "the miss taught the index a smaller bound"
    later = await client.post("/v1/chat/completions", json=chat(b_text, "first", "ok", "second"))
    assert int(later.headers["x-taskgate-prefix-hit"]) == 0, "B's blocks are forgotten, as the engine forgot them"


async def test_the_evidence_says_when_a_tie_break_decided(proxy: ProxyFactory, engines: StartEngines) -> None:
    sims = await engines("e0", "e1")
    client = await proxy(routing(pool("p", sims)))
    resp = await client.post("/v1/chat/completions", json=chat("nothing cached anywhere"))
    reason = record_of(client, resp)["decisions"]["placement"]["reason"]
    assert "tied on score with" in reason


async def test_a_scrape_taken_before_the_proxys_own_completions_does_not_make_an_idle_engine_look_busy(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0", "e1", tpot_s=0.05, time_scale=1.0, prefill_tokens_per_s=1e6)
    client = await proxy(routing(pool("p", sims), state={"scrape_interval_s": 3600}))  # no scrape but ours
    cluster = cluster_of(client)
    long = await client.post("/v1/chat/completions", json=chat("conversation X, a long one " * 60))
    home = long.headers["x-taskgate-endpoint"]
    other = "e1" if home == "e0" else "e0"
    short = {**chat("conversation A"), "max_tokens": 12}  # about 0.6 s of decoding
    first = asyncio.create_task(client.post("/v1/chat/completions", json=short))
    await asyncio.sleep(0.25)
    session = client.app[GATEWAY].services.http
    endpoints = cluster.topology.endpoints
    cluster.took({n: await scrape(session, endpoints[n], "/metrics", 2.0) for n in ("e0", "e1")})  # mid-A
    assert cluster.loads[other].running == 1, "the scrape saw A running"
    answered = await first
    assert answered.headers["x-taskgate-endpoint"] == other
    fresh = await client.post("/v1/chat/completions", json=chat("conversation B " * 40))
    # A has ended: taskgate's own account wins over the older scrape, so both engines are idle, and the new
    # conversation goes where it crowds less cache instead of onto X's engine
    assert fresh.headers["x-taskgate-endpoint"] == other
    assert cluster.running_now(other, cluster.loads[other]) == 0


async def test_a_new_conversation_goes_where_it_displaces_the_least_cache(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0", "e1")
    client = await proxy(routing(pool("p", sims), prefix={"block_chars": 64}))
    cluster = cluster_of(client)
    first = await client.post("/v1/chat/completions", json=chat("conversation X, the long one " * 90))
    big = first.headers["x-taskgate-endpoint"]
    second = await client.post("/v1/chat/completions", json=chat("conversation Y " * 45))
    small = second.headers["x-taskgate-endpoint"]
    assert small != big, "Y went to the engine holding fewer blocks"
    cluster.store.learn(small, 12)  # as after a miss: that engine holds about 12 blocks, all of them Y's
    third = await client.post("/v1/chat/completions", json=chat("conversation Z " * 25))
    # fewer blocks held would send Z to Y's engine and push Y out; the other engine has room for it
    assert third.headers["x-taskgate-endpoint"] == big
    assert "less cache displaced" in record_of(client, third)["decisions"]["placement"]["reason"]
