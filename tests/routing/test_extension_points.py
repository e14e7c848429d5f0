"""Routing's extension points: filters, scorers with a category, and pickers, from a plugin as from taskgate."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import pytest

from taskgate.gateway.config import parse_config
from taskgate.gateway.errors import ConfigError
from taskgate.plugins import (
    AFFINITY,
    DISTRIBUTION,
    Candidate,
    Category,
    Demand,
    Params,
    PluginError,
    Registry,
    Slate,
    load_plugins,
)
from taskgate.proxy.app import create_app

from ..conftest import ProxyFactory
from .conftest import StartEngines, chat, cluster_of, pool, record_of, routing, saturated

SYSTEM = "Shared agent instructions: plan, call tools, verify, answer. " * 40


class CachedShare:
    """A vendor's affinity scorer: the prefix scorer's arithmetic under its own type."""

    type: ClassVar[str] = "acme.cached_share"
    category: ClassVar[Category] = AFFINITY

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float:
        return candidate.prefix_blocks / candidate.prompt_blocks if candidate.prompt_blocks else 0.0


class CachedShareSpread(CachedShare):
    """The same arithmetic declared as distribution: it never yields."""

    type: ClassVar[str] = "acme.cached_share_spread"
    category: ClassVar[Category] = DISTRIBUTION


class DrainParams(Params):
    endpoints: list[str]
    reason: str = "drained for maintenance"


class Drain:
    """A vendor's filter: endpoints an operator took out of service."""

    type: ClassVar[str] = "acme.drain"
    Params = DrainParams

    def __init__(self, params: DrainParams) -> None:
        self.drained = frozenset(params.endpoints)
        self.reason = params.reason

    def filter(self, candidate: Candidate, peers: tuple[Candidate, ...], demand: Demand) -> str | None:
        return self.reason if candidate.endpoint.name in self.drained else None


class LastByName:
    """A vendor's picker: the eligible endpoint whose name sorts last."""

    type: ClassVar[str] = "acme.last"
    scored: ClassVar[bool] = True

    def pick(self, slate: Slate) -> tuple[Candidate, str]:
        everyone = [c for ranked in slate.ranked.values() for c, _ in ranked]
        return max(everyone, key=lambda c: c.endpoint.name), f"last by name of {len(everyone)}"


def register(registry: Registry) -> None:
    """What the vendor's entry point would name."""
    registry.add_scorer(CachedShare)
    registry.add_scorer(CachedShareSpread)
    registry.add_filter(Drain)
    registry.add_picker(LastByName)


@pytest.fixture(scope="module")
def acme() -> Registry:
    registry = Registry()
    load_plugins(registry)
    with registry.loading("acme"):  # what load_plugins does for each entry point
        register(registry)
    return registry


def route(**params: Any) -> list[dict[str, Any]]:
    return [{"name": "route", "type": "routing.route", "params": params}]


async def test_a_plugins_affinity_scorer_yields_to_load_exactly_like_prefix(
    proxy: ProxyFactory, engines: StartEngines, acme: Registry
) -> None:
    sims = await engines("e0", "e1", profile="h100", max_num_seqs=1, tpot_s=0.2, time_scale=1.0)
    scorers = [
        {"type": "prefix", "weight": 4},
        {"name": "acme", "type": "acme.cached_share", "weight": 4},
        {"name": "spread", "type": "acme.cached_share_spread", "weight": 0.01},
        {"type": "inflight", "weight": 2},
        {"type": "queue", "weight": 1},
    ]
    raw = routing(pool("p", sims), state={"scrape_interval_s": 0.05}) | {"steps": route(scorers=scorers)}
    client = await proxy(raw, acme)
    warm = await client.post("/v1/chat/completions", json=chat(SYSTEM, "first session"))
    home = warm.headers["x-taskgate-endpoint"]
    control = await client.post("/v1/chat/completions", json=chat(SYSTEM, "second session"))
    assert control.headers["x-taskgate-endpoint"] == home, "without load, the shared prefix should attract"
    idle = record_of(client, control)["decisions"]["placement"]["candidates"][home]
    assert idle["acme"] == idle["prefix"] == idle["spread"] > 0

    url = next(u for n, u, _ in sims if n == home)
    async with saturated(client, url, home):  # the home engine, behind the proxy's back
        for i in range(3):
            resp = await client.post("/v1/chat/completions", json=chat(SYSTEM, f"new session {i}"))
            assert resp.headers["x-taskgate-endpoint"] != home
            busy = record_of(client, resp)["decisions"]["placement"]["candidates"][home]
            assert busy["acme"] == busy["prefix"] == 0.0, "both affinity scorers yield on the saturated endpoint"
            assert busy["spread"] > 0, "a distribution scorer does not yield"


async def test_a_plugins_filter_excludes_endpoints_and_the_evidence_says_why(
    proxy: ProxyFactory, engines: StartEngines, acme: Registry
) -> None:
    p, q = await engines("e0", "e1", "e2"), await engines("q0")
    drain = {"name": "drain", "type": "acme.drain", "params": {"endpoints": ["e0", "q0"]}}
    steps = route(filters=["region", "context", "breaker", drain])
    client = await proxy(routing(pool("p", p), pool("q", q)) | {"steps": steps}, acme)
    for i in range(6):
        resp = await client.post("/v1/chat/completions", json=chat(f"question {i}"))
        assert resp.status == 200
        assert resp.headers["x-taskgate-endpoint"] in {"e1", "e2"}
        placement = record_of(client, resp)["decisions"]["placement"]
        assert placement["refused_endpoints"] == {"e0": "drained for maintenance"}
        assert placement["refused_pools"] == {"q": "drained for maintenance"}
        assert set(placement["candidates"]) == {"e1", "e2"}
        assert "e0" not in placement["fallbacks"]


async def test_a_plugins_picker_is_used_and_its_reason_recorded(
    proxy: ProxyFactory, engines: StartEngines, acme: Registry
) -> None:
    sims = await engines("e0", "e1", "e2")
    steps = route(picker={"name": "last", "type": "acme.last"})
    client = await proxy(routing(pool("p", sims)) | {"steps": steps}, acme)
    for i in range(4):
        resp = await client.post("/v1/chat/completions", json=chat(f"question {i}"))
        assert resp.headers["x-taskgate-endpoint"] == "e2"
        placement = record_of(client, resp)["decisions"]["placement"]
        assert (placement["picker"], placement["reason"]) == ("last", "last by name of 3")
        assert "total" in placement["scores"], "a scored picker's endpoints were scored"
        assert len(placement["fallbacks"]) == 2


async def test_the_built_in_filters_refuse_a_pool_in_the_same_words_as_before(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    small, broken = await engines("s0"), await engines("b0", "b1")
    client = await proxy(routing(pool("small", small, max_context=64), pool("broken", broken)))
    for name in ("b0", "b1"):
        for _ in range(3):  # breaker.failures
            cluster_of(client).breakers.failure(name)
    resp = await client.post("/v1/chat/completions", json={**chat("hello"), "max_tokens": 100})
    assert resp.status == 503
    message = (await resp.json())["error"]["message"]
    assert re.search(r"pool small: needs about \d+ tokens of context, pool allows 64(;|$)", message), message
    assert "pool broken: no endpoint available (every circuit is open)" in message


async def test_an_open_circuit_leaves_its_pool_serving_and_is_named_in_the_evidence(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0", "e1")
    client = await proxy(routing(pool("p", sims)))
    for _ in range(3):
        cluster_of(client).breakers.failure("e0")
    resp = await client.post("/v1/chat/completions", json=chat("hello"))
    assert resp.headers["x-taskgate-endpoint"] == "e1"
    placement = record_of(client, resp)["decisions"]["placement"]
    assert placement["refused_endpoints"] == {"e0": "its circuit is open"}
    assert placement["refused_pools"] == {}


@pytest.mark.parametrize(
    ("params", "path", "words"),
    [
        (
            {"filters": ["regoin"]},
            "params.filters[0]",
            ["unknown filter type 'regoin'", "breaker, context, model, region"],
        ),
        ({"scorers": [{"type": "prefx"}]}, "params.scorers[0]", ["unknown scorer type 'prefx'", "registry.add_scorer"]),
        ({"scorers": [{"name": "p", "type": "prefx"}]}, "params.scorers[0].type", ["unknown scorer type 'prefx'"]),
        ({"weights": {"prefx": 1}}, "params.weights.prefx", ["unknown scorer type 'prefx'", "check the spelling"]),
        ({"picker": "nearest"}, "params.picker", ["unknown picker type 'nearest'", "registry.add_picker"]),
        ({"picker": {"type": "nearest", "params": {"k": 1}}}, "params.picker.type", ["unknown picker type"]),
        ({"filters": ["context", "breaker"]}, "params.filters", ["leaves out the region filter", "add region"]),
        ({"scorers": [{"type": "kv", "params": {"x": 1}}]}, "params.scorers[0].params", ["takes no params"]),
        ({"picker": {"type": "random", "params": {"sed": 1}}}, "params.picker.params.sed", ["unknown key"]),
        ({"scorers": [{"type": "kv", "wieght": 2}]}, "params.scorers[0].wieght", ["unknown key"]),
        ({"scorers": [{"type": "kv"}, {"type": "kv"}]}, "params.scorers[1].name", ["another instance is named 'kv'"]),
        ({"scorers": [{"name": "total", "type": "kv"}]}, "params.scorers[0].name", ["weighted sum"]),
        ({"scorers": [{"type": "kv"}], "weights": {"kv": 1}}, "params", ["give scorers", "not both"]),
    ],
)
def test_a_bad_filter_scorer_or_picker_is_a_config_error_naming_the_key_and_the_fix(
    registry: Registry, params: dict[str, Any], path: str, words: list[str]
) -> None:
    raw = {"routing": {"pools": [{"name": "p", "endpoints": [{"name": "e", "url": "http://127.0.0.1:9"}]}]}}
    raw["routing"]["pools"][0]["models"] = [{"name": "m"}]
    config = parse_config(raw | {"steps": route(**params)}, "<t>", registry)
    with pytest.raises(ConfigError) as info:
        create_app(config, registry)
    assert info.value.path == f"steps[0].{path}"
    for word in words:
        assert word in info.value.reason


def test_the_registry_refuses_a_scorer_without_a_known_category_and_a_filter_without_its_verb() -> None:
    class Vague(CachedShare):
        type: ClassVar[str] = "acme.vague"
        category = "sticky"  # type: ignore[assignment]

    class Verbless:
        type: ClassVar[str] = "acme.verbless"

    registry = Registry()
    with registry.loading("acme"), pytest.raises(PluginError, match=r"plugin 'acme': scorer 'acme.vague' has category"):
        registry.add_scorer(Vague)  # type: ignore[arg-type]
    with registry.loading("acme"), pytest.raises(PluginError, match=r"needs a `type` name .* and a filter\(\) method"):
        registry.add_filter(Verbless)  # type: ignore[arg-type]
    with registry.loading("acme"), pytest.raises(PluginError, match=r"and a pick\(\) method"):
        registry.add_picker(Verbless)  # type: ignore[arg-type]
