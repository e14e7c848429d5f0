"""Placement under failure and load: fallback and breakers, affinity that yields, regions, pool choice."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from taskgate.plugins import ALLOWED_REGIONS, REQUEST, Inputs, Registry, RequestContext, Step, load_plugins
from taskgate.plugins.params import NoParams
from taskgate.routing.breaker import CLOSED, OPEN
from taskgate.sim import create_app as create_sim

from ..conftest import ProxyFactory
from .conftest import StartEngines, chat, cluster_of, pool, record_of, routing, saturated

SYSTEM = "Shared agent instructions: plan, call tools, verify, answer. " * 40


async def test_a_killed_endpoint_falls_back_opens_its_circuit_and_closes_it_on_return(
    proxy: ProxyFactory, engines: StartEngines, aiohttp_server: Any
) -> None:
    sims = await engines("e0", "e1")
    raw = routing(pool("p", sims), breaker={"failures": 2, "cooldown_s": 0.3}, state={"scrape_interval_s": 5})
    raw["steps"] = [{"name": "route", "type": "routing.route", "params": {"weights": {"session": 10, "inflight": 1}}}]
    client = await proxy(raw)

    async def ask(session: str) -> tuple[str, list[str]]:
        resp = await client.post(
            "/v1/chat/completions", json=chat(f"task of {session}"), headers={"x-session-id": session}
        )
        assert resp.status == 200
        attempts = [a["endpoint"] for a in record_of(client, resp)["dispatch"]["attempts"]]
        return resp.headers["x-taskgate-endpoint"], attempts

    homes = {f"s{i}": (await ask(f"s{i}"))[0] for i in range(8)}
    victim = "e0"
    pinned = [s for s, home in homes.items() if home == victim]
    assert len(pinned) >= 4, homes
    server = next(srv for name, _, srv in sims if name == victim)
    port = server.port
    await server.close()  # the engine dies

    breakers = cluster_of(client).breakers
    for session in pinned[:2]:  # two failures before the first byte, each rescued by the other endpoint
        served, attempts = await ask(session)
        assert (served, attempts) == ("e1", [victim, "e1"])
    assert breakers.state(victim) == OPEN
    served, attempts = await ask(pinned[2])
    assert attempts == ["e1"], "an open circuit is not even tried"

    await aiohttp_server(create_sim(_profile(), name=victim), port=port)  # the engine comes back
    await asyncio.sleep(0.35)  # past the cool-down, one probe may go through
    served, attempts = await ask(pinned[3])
    assert (served, attempts) == (victim, [victim])
    assert breakers.state(victim) == CLOSED


def _profile() -> Any:
    import dataclasses

    from taskgate.sim import PROFILES

    return dataclasses.replace(PROFILES["instant"], models=("m",))


async def test_affinity_yields_to_load_new_sessions_go_to_the_idle_endpoint(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0", "e1", profile="h100", max_num_seqs=1, tpot_s=0.2, time_scale=1.0)
    client = await proxy(routing(pool("p", sims), state={"scrape_interval_s": 0.05}))
    warm = await client.post("/v1/chat/completions", json=chat(SYSTEM, "first session"))
    home = warm.headers["x-taskgate-endpoint"]
    control = await client.post("/v1/chat/completions", json=chat(SYSTEM, "second session"))
    assert control.headers["x-taskgate-endpoint"] == home, "without load, the shared prefix should attract"

    url = next(u for n, u, _ in sims if n == home)
    async with saturated(client, url, home):  # the home engine, behind the proxy's back
        placed = []
        for i in range(4):
            resp = await client.post("/v1/chat/completions", json=chat(SYSTEM, f"new session {i}"))
            placed.append(resp.headers["x-taskgate-endpoint"])
            scores = record_of(client, resp)["decisions"]["placement"]["candidates"][home]
            assert scores["prefix"] == 0.0, "affinity must not count on the saturated endpoint"
        assert home not in placed


class RegionsFromHeader(Step[NoParams]):
    """Test stand-in for the PII step: allowed regions from a header."""

    type = "test.regions"
    requires = (REQUEST,)
    provides = ALLOWED_REGIONS

    async def run(self, inputs: Inputs) -> frozenset[str] | None:
        request: RequestContext = inputs[REQUEST]
        value = request.headers.get("x-test-regions")
        return frozenset(value.split(",")) if value else None


@pytest.fixture(scope="module")
def with_regions() -> Registry:
    registry = Registry()
    load_plugins(registry)
    registry.add_step(RegionsFromHeader)
    return registry


async def test_a_request_never_lands_outside_its_allowed_regions(
    proxy: ProxyFactory, engines: StartEngines, with_regions: Registry
) -> None:
    eu, us = await engines("eu-0", "eu-1"), await engines("us-0")
    pools = [
        pool("eu", eu, region="eu-west", price={"input_per_mtok": 0.1}),
        pool("us", us, region="us-east", price={"input_per_mtok": 5}),
    ]
    raw = routing(*pools) | {
        "steps": [{"name": "regions", "type": "test.regions"}],
        "pipelines": {"chat": ["regions", "state", "route"]},
    }
    client = await proxy(raw, with_regions)
    anywhere = await client.post("/v1/chat/completions", json=chat("no constraint"))
    assert anywhere.headers["x-taskgate-pool"] == "eu"  # cheaper, so chosen when allowed
    for i in range(10):
        resp = await client.post(
            "/v1/chat/completions", json=chat(f"personal data {i}"), headers={"x-test-regions": "us-east"}
        )
        assert resp.status == 200
        assert resp.headers["x-taskgate-pool"] == "us"
        assert resp.headers["x-taskgate-region"] == "us-east"
        assert record_of(client, resp)["decisions"]["placement"]["refused_pools"]["eu"].startswith("region 'eu-west'")

    nowhere = await client.post("/v1/chat/completions", json=chat("x"), headers={"x-test-regions": "ap-south"})
    assert nowhere.status == 503
    error = (await nowhere.json())["error"]
    assert error["code"] == "no_pool_satisfies"
    assert "pool eu: region 'eu-west' is not among the allowed ['ap-south']" in error["message"]
    assert "pool us: region 'us-east'" in error["message"]


async def test_interactive_goes_to_the_pool_that_meets_its_target_batch_to_the_cheapest(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    fast, cheap = await engines("fast-0"), await engines("cheap-0")
    pools = [
        pool("fast", fast, price={"input_per_mtok": 3}, prefill_tokens_per_s=20_000, targets={"ttft_ms": 200}),
        pool("cheap", cheap, price={"input_per_mtok": 0.5}, prefill_tokens_per_s=500, targets={"ttft_ms": 800}),
    ]
    client = await proxy(routing(*pools))
    long_prompt = chat("summarise this: " + "lorem ipsum dolor " * 250)  # ~1,100 tokens: 2.2 s on the cheap pool
    interactive = await client.post("/v1/chat/completions", json=long_prompt)
    batch = await client.post("/v1/chat/completions", json=long_prompt, headers={"x-taskgate-class": "batch"})
    short = await client.post("/v1/chat/completions", json=chat("hi"))
    assert interactive.headers["x-taskgate-pool"] == "fast"
    assert batch.headers["x-taskgate-pool"] == "cheap"
    assert short.headers["x-taskgate-pool"] == "cheap"  # cheap meets 1 s for a short prompt
    placement = record_of(client, interactive)["decisions"]["placement"]
    assert placement["class"] == "interactive"
    assert placement["predicted_ttft_ms"]["cheap"] > 1000 > placement["predicted_ttft_ms"]["fast"]
    assert record_of(client, batch)["decisions"]["placement"]["class"] == "batch"
