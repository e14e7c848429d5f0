"""Baseline pickers, how new conversations spread, and what the index learns from the engine."""

from __future__ import annotations

from collections import Counter

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
