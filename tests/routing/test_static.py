"""routing.static, called directly: one upstream per model, a clean refusal otherwise."""

from __future__ import annotations

import pytest

from taskgate.dag import Inputs
from taskgate.plugins import REQUEST, Reject, RequestContext, Services
from taskgate.plugins.params import NoParams
from taskgate.routing import RoutingConfig, StaticRoute


def route() -> StaticRoute:
    config = RoutingConfig.model_validate(
        {"upstreams": [{"name": "fast", "url": "http://127.0.0.1:9001/", "models": ["a", "b"], "region": "eu"}]}
    )
    return StaticRoute("route", NoParams(), Services(sections={"routing": config}))


def request(body: bytes) -> Inputs:
    return Inputs({REQUEST: RequestContext("id", "chat", "/v1/chat/completions", {}, body)})


async def test_a_served_model_is_placed_on_its_upstream() -> None:
    placement = await route().run(request(b'{"model": "b"}'))
    assert placement.endpoint.name == "fast"
    assert placement.endpoint.url == "http://127.0.0.1:9001"
    assert placement.model == "b"
    assert placement.evidence()["region"] == "eu"


async def test_an_unserved_model_is_refused_with_404() -> None:
    with pytest.raises(Reject) as info:
        await route().run(request(b'{"model": "zzz"}'))
    assert (info.value.status, info.value.code) == (404, "model_not_found")


def test_two_upstreams_may_not_serve_one_model() -> None:
    with pytest.raises(ValueError, match="model 'a' is served by both 'x' and 'y'"):
        RoutingConfig.model_validate(
            {"upstreams": [{"name": n, "url": "http://h:1", "models": ["a"]} for n in ("x", "y")]}
        )
