"""restrict: an entity limits the regions a request may run in; routing obeys or refuses clearly."""

from __future__ import annotations

from typing import Any

from taskgate.gateway.gateway import GATEWAY

from ..conftest import IBAN, StartEngines

PROMPT = f"Transfer the balance to IBAN {IBAN} by Friday."


def config(engines: list[Any], restrict_to: list[str]) -> dict[str, Any]:
    def pool(name: str, region: str, engine: Any, price: float) -> dict[str, Any]:
        price_of = {"input_per_mtok": price, "output_per_mtok": price}
        endpoints = [{"name": engine[0], "url": engine[1]}]
        return {"name": name, "region": region, "models": [{"name": "m"}], "price": price_of, "endpoints": endpoints}

    rules = {"IBAN_CODE": {"action": "restrict", "regions": restrict_to}}
    return {
        # the US pool is cheaper, so without the restriction it is the one chosen
        "routing": {"pools": [pool("us-pool", "us", engines[0], 1.0), pool("eu-pool", "eu", engines[1], 5.0)]},
        "steps": [{"name": "pii", "type": "guards.pii", "params": {"backend": "patterns", "entities": rules}}],
        "pipelines": {"chat": ["pii", "state", "route"]},
        "logging": {"evidence": False},
    }


def ask(text: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], "max_tokens": 2}


async def test_a_restricted_entity_lands_only_in_an_allowed_region(proxy: Any, engines: StartEngines) -> None:
    started = await engines("us-0", "eu-0")
    client = await proxy(config(started, ["eu"]))
    plain = await client.post("/v1/chat/completions", json=ask("What is the capital of France?"))
    assert plain.status == 200
    assert plain.headers["x-taskgate-region"] == "us"
    for _ in range(5):
        resp = await client.post("/v1/chat/completions", json=ask(PROMPT))
        assert resp.status == 200
        assert resp.headers["x-taskgate-region"] == "eu"
        assert resp.headers["x-sim-engine"] == "eu-0"
    rec = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert rec is not None
    assert rec["decisions"]["pii"]["allowed_regions"] == ["eu"]
    assert rec["decisions"]["pii"]["counts"] == {"IBAN_CODE": 1}


async def test_a_restricted_entity_with_no_pool_in_its_regions_gets_a_clear_error(
    proxy: Any, engines: StartEngines
) -> None:
    started = await engines("us-0", "eu-0")
    client = await proxy(config(started, ["ap-south"]))
    resp = await client.post("/v1/chat/completions", json=ask(PROMPT))
    assert resp.status >= 400
    error = (await resp.json())["error"]
    assert "region" in error["message"], error
    assert "ap-south" in error["message"], error
    assert IBAN[:4] not in error["message"]
