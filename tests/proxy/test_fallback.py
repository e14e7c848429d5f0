"""Dispatch falls back to the next candidate before the first byte, never after."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import web
from pydantic import Field

from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import PLACEMENT, REQUEST, Endpoint, Inputs, Params, Placement, Registry, Step, load_plugins

from ..conftest import ProxyFactory, closed_port


class OrderParams(Params):
    urls: list[str] = Field(min_length=1)


class Ordered(Step[OrderParams]):
    """Places every request on the configured URLs, in order."""

    type = "test.ordered"
    requires = (REQUEST,)
    provides = PLACEMENT
    Params = OrderParams

    async def run(self, inputs: Inputs) -> Placement:
        endpoints = [Endpoint(f"e{i}", url) for i, url in enumerate(self.params.urls)]
        return Placement(endpoints[0], "m", "test order", tuple(endpoints[1:]))


@pytest.fixture(scope="module")
def plugins() -> Registry:
    registry = Registry()
    load_plugins(registry)
    registry.add_step(Ordered)
    return registry


def answering(status: int, hits: list[int]) -> web.Application:
    async def chat(request: web.Request) -> web.Response:
        hits.append(status)
        return web.json_response({"status": status}, status=status)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


async def ordered_proxy(proxy: ProxyFactory, plugins: Registry, urls: list[str]) -> Any:
    raw = {"steps": [{"name": "route", "type": "test.ordered", "params": {"urls": urls}}]}
    return await proxy(raw, plugins)


async def test_a_refused_connection_falls_back_to_the_next_endpoint(
    aiohttp_server: Any, proxy: ProxyFactory, plugins: Registry
) -> None:
    hits: list[int] = []
    good = await aiohttp_server(answering(200, hits))
    client = await ordered_proxy(
        proxy, plugins, [f"http://127.0.0.1:{closed_port()}", str(good.make_url("")).rstrip("/")]
    )
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert resp.status == 200
    assert resp.headers["x-taskgate-endpoint"] == "e1"
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert [a["endpoint"] for a in record["dispatch"]["attempts"]] == ["e0", "e1"]
    assert "error" in record["dispatch"]["attempts"][0]


async def test_a_503_before_the_first_byte_falls_back(
    aiohttp_server: Any, proxy: ProxyFactory, plugins: Registry
) -> None:
    hits: list[int] = []
    busy = await aiohttp_server(answering(503, hits))
    good = await aiohttp_server(answering(200, hits))
    urls = [str(s.make_url("")).rstrip("/") for s in (busy, good)]
    client = await ordered_proxy(proxy, plugins, urls)
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert resp.status == 200
    assert hits == [503, 200]


async def test_the_last_candidate_answer_is_relayed_even_if_it_is_an_error(
    aiohttp_server: Any, proxy: ProxyFactory, plugins: Registry
) -> None:
    hits: list[int] = []
    first = await aiohttp_server(answering(503, hits))
    last = await aiohttp_server(answering(429, hits))
    client = await ordered_proxy(proxy, plugins, [str(s.make_url("")).rstrip("/") for s in (first, last)])
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert resp.status == 429
    assert hits == [503, 429]


async def test_no_candidate_answering_is_a_502_that_hides_addresses(proxy: ProxyFactory, plugins: Registry) -> None:
    ports = [closed_port(), closed_port()]
    client = await ordered_proxy(proxy, plugins, [f"http://127.0.0.1:{p}" for p in ports])
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert resp.status == 502
    error = (await resp.json())["error"]
    assert error["code"] == "upstream_unavailable"
    assert "127.0.0.1" not in error["message"]
    assert all(str(p) not in error["message"] for p in ports)
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert len(record["dispatch"]["attempts"]) == 2
    assert str(ports[0]) in record["error"]["message"]  # the details stay in the evidence
