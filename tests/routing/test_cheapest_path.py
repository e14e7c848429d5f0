"""The `cheapest` picker: the cheapest endpoint predicted to meet the class's target, else the fastest."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from taskgate.gateway.config import parse_config
from taskgate.gateway.errors import ConfigError
from taskgate.plugins import Registry
from taskgate.proxy.app import create_app

from ..conftest import ProxyFactory
from .conftest import Engine, StartEngines, chat, pool, record_of, routing

CHEAPEST = [{"name": "route", "type": "routing.route", "params": {"picker": "cheapest"}}]


def pools(premium: list[Engine], cheap: list[Engine], cheap_prefill: float = 3_000) -> list[dict[str, Any]]:
    """A dear fast pool and a cheap slow one whose advertised TTFT (3 s) is far above the interactive target (1 s)."""
    return [
        pool(
            "premium",
            premium,
            price={"input_per_mtok": 3.0, "output_per_mtok": 9.0, "cached_input_per_mtok": 0.3},
            prefill_tokens_per_s=20_000,
            targets={"ttft_ms": 300},
        ),
        pool(
            "cheap",
            cheap,
            price={"input_per_mtok": 0.8, "output_per_mtok": 2.4, "cached_input_per_mtok": 0.08},
            prefill_tokens_per_s=cheap_prefill,
            targets={"ttft_ms": 3_000},
        ),
    ]


async def test_a_short_interactive_turn_goes_to_the_cheap_pool_that_meets_its_target(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    premium, cheap = await engines("premium-0"), await engines("cheap-0")
    client = await proxy(routing(*pools(premium, cheap)) | {"steps": CHEAPEST})
    resp = await client.post("/v1/chat/completions", json=chat("a short question"))
    assert resp.status == 200
    assert resp.headers["x-taskgate-pool"] == "cheap"
    placement = record_of(client, resp)["decisions"]["placement"]
    assert placement["picker"] == "cheapest"
    assert placement["reason"].startswith("cheapest predicted within the interactive target 1000 ms less 20%")
    by_endpoint = placement["predicted_by_endpoint"]
    assert by_endpoint["cheap-0"]["ttft_ms"] < 800
    assert by_endpoint["premium-0"]["ttft_ms"] < 800
    assert by_endpoint["cheap-0"]["cost"] < by_endpoint["premium-0"]["cost"]
    # the scored picker trusts the pools' advertised targets: the cheap pool's 3 s never meets 1 s
    scored = await proxy(routing(*pools(premium, cheap)))
    assert (await scored.post("/v1/chat/completions", json=chat("a short question"))).headers[
        "x-taskgate-pool"
    ] == "premium"


async def test_a_cheap_endpoint_still_prefilling_long_work_sends_interactive_turns_to_premium_until_it_is_done(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    premium = await engines("premium-0")
    cheap = await engines("cheap-0", profile="l4", prefill_tokens_per_s=3_000, tpot_s=0.001, time_scale=1.0)
    client = await proxy(routing(*pools(premium, cheap)) | {"steps": CHEAPEST})
    report = chat("summarise this report: " + "quarterly figures and remarks " * 600)  # ~4,500 tokens: 1.5 s
    batch = asyncio.create_task(client.post("/v1/chat/completions", json=report, headers={"x-taskgate-class": "batch"}))
    await asyncio.sleep(0.1)  # the report is placed, and prefilling on cheap-0
    meanwhile = await client.post("/v1/chat/completions", json=chat("are you there?"))
    assert meanwhile.headers["x-taskgate-pool"] == "premium"
    placement = record_of(client, meanwhile)["decisions"]["placement"]
    assert placement["predicted_by_endpoint"]["cheap-0"]["ttft_ms"] > 800, "the backlog of the report is predicted"
    assert (await batch).headers["x-taskgate-pool"] == "cheap"  # the report: the cheapest that meets 30 s
    later = await client.post("/v1/chat/completions", json=chat("and now?"))
    assert later.headers["x-taskgate-pool"] == "cheap", "once the report is prefilled, the cheap pool meets 1 s again"


async def test_a_conversation_cached_on_premium_stays_there_when_a_cheap_prefill_would_cost_more(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    premium, cheap = await engines("premium-0"), await engines("cheap-0")
    # cheap prefills 2,000 tokens/s: a 2,500-token prompt misses the interactive target there, meets the batch one
    client = await proxy(routing(*pools(premium, cheap, cheap_prefill=2_000)) | {"steps": CHEAPEST})
    text = "the customer's contract, clause by clause: " + "terms and obligations of either party " * 250
    first = await client.post("/v1/chat/completions", json=chat(text, "what is the notice period?"))
    assert first.headers["x-taskgate-pool"] == "premium", "uncached, only premium meets the interactive target"
    follow_up = chat(text, "what is the notice period?", "three months", "summarise the rest for the file")
    later = await client.post("/v1/chat/completions", json=follow_up, headers={"x-taskgate-class": "batch"})
    assert later.headers["x-taskgate-pool"] == "premium"
    placement = record_of(client, later)["decisions"]["placement"]
    estimates = placement["predicted_by_endpoint"]
    assert estimates["cheap-0"]["ttft_ms"] < 30_000 * 0.8, "the cheap pool meets the batch target ..."
    assert estimates["premium-0"]["cost"] < estimates["cheap-0"]["cost"], "... but a cache miss there costs more"
    assert int(later.headers["x-taskgate-prefix-hit"]) > 0
    fresh = chat("another contract entirely: " + "warranties and remedies of the buyer " * 250, "and its terms?")
    other = await client.post("/v1/chat/completions", json=fresh, headers={"x-taskgate-class": "batch"})
    assert other.headers["x-taskgate-pool"] == "cheap", "with nothing cached anywhere the cheap pool is cheaper"


async def test_when_no_endpoint_is_predicted_to_meet_the_target_the_fastest_serves(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    premium, cheap = await engines("premium-0"), await engines("cheap-0")
    raw = routing(*pools(premium, cheap), classes={"interactive_ttft_ms": 20}) | {"steps": CHEAPEST}
    client = await proxy(raw)
    resp = await client.post("/v1/chat/completions", json=chat("the longer question, " * 200))  # ~1,000 tokens
    assert resp.status == 200
    assert resp.headers["x-taskgate-pool"] == "premium"
    placement = record_of(client, resp)["decisions"]["placement"]
    assert placement["reason"].startswith("none predicted within the interactive target 20 ms less 20%; the fastest")
    assert placement["predicted_by_endpoint"]["premium-0"]["ttft_ms"] > 16


@pytest.mark.parametrize(
    ("params", "path", "words"),
    [
        ({"margin": 1.0}, "params.picker.params.margin", ["less than 1"]),
        ({"margin": -0.1}, "params.picker.params.margin", ["greater than or equal to 0"]),
        ({"marign": 0.1}, "params.picker.params.marign", ["unknown key"]),
    ],
)
def test_a_bad_cheapest_picker_is_a_config_error_naming_the_key(
    registry: Registry, params: dict[str, Any], path: str, words: list[str]
) -> None:
    raw = {"routing": {"pools": [{"name": "p", "endpoints": [{"name": "e", "url": "http://127.0.0.1:9"}]}]}}
    raw["routing"]["pools"][0]["models"] = [{"name": "m"}]
    step = {"name": "route", "type": "routing.route", "params": {"picker": {"type": "cheapest", "params": params}}}
    config = parse_config(raw | {"steps": [step]}, "<t>", registry)
    with pytest.raises(ConfigError) as info:
        create_app(config, registry)
    assert info.value.path == f"steps[0].{path}"
    for word in words:
        assert word in info.value.reason
