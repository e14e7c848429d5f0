"""Relay edge cases: header hygiene, encoded bodies, an upstream that breaks mid-stream."""

from __future__ import annotations

import gzip
import json
from typing import Any

from aiohttp import web

from taskgate.gateway.gateway import GATEWAY

from ..conftest import ProxyFactory, upstreams


async def proxy_for(aiohttp_server: Any, proxy: ProxyFactory, handler: Any) -> Any:
    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    server = await aiohttp_server(app)
    return await proxy(upstreams(str(server.make_url("")).rstrip("/"), "m"))


async def test_hop_by_hop_and_spoofed_taskgate_headers_are_dropped_repeats_kept(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    async def chat(request: web.Request) -> web.Response:
        resp = web.json_response({"ok": True})
        resp.headers["Connection"] = "keep-alive, X-Private"
        resp.headers["X-Private"] = "for the hop only"
        resp.headers["Proxy-Authenticate"] = "Basic"
        resp.headers["Upgrade"] = "h2c"
        resp.headers["X-Taskgate-Pool"] = "spoofed"
        resp.headers.add("Set-Cookie", "a=1")
        resp.headers.add("Set-Cookie", "b=2")
        resp.headers["X-Upstream-Id"] = "kept"
        return resp

    client = await proxy_for(aiohttp_server, proxy, chat)
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert resp.status == 200
    for dropped in ("X-Private", "Proxy-Authenticate", "Upgrade"):
        assert dropped not in resp.headers, dropped
    assert resp.headers.getall("x-taskgate-pool") == ["default"]
    assert resp.headers.getall("Set-Cookie") == ["a=1", "b=2"]
    assert resp.headers["X-Upstream-Id"] == "kept"


async def test_an_encoded_body_passes_through_with_its_encoding(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    payload = {"object": "chat.completion", "text": "squeezed " * 50}
    sent: list[str] = []

    async def chat(request: web.Request) -> web.Response:
        sent.append(request.headers.get("Accept-Encoding", ""))
        body = gzip.compress(json.dumps(payload).encode())
        return web.Response(body=body, headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})

    client = await proxy_for(aiohttp_server, proxy, chat)
    resp = await client.post("/v1/chat/completions", json={"model": "m"}, headers={"Accept-Encoding": "gzip"})
    assert resp.headers["Content-Encoding"] == "gzip"
    assert await resp.json() == payload  # the client decodes what the upstream encoded
    assert sent == ["gzip"]


async def test_an_upstream_that_breaks_mid_stream_ends_with_an_error_event_and_evidence(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    async def chat(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(b'data: {"chunk": 0}\n\n')
        assert request.transport is not None
        request.transport.abort()  # the engine dies mid-answer
        return resp

    client = await proxy_for(aiohttp_server, proxy, chat)
    resp = await client.post("/v1/chat/completions", json={"model": "m", "stream": True})
    text = (await resp.read()).decode()
    assert text.startswith('data: {"chunk": 0}\n\n')
    last = json.loads(text.strip().split("\n\n")[-1].removeprefix("data: "))
    assert last["error"]["code"] == "upstream_stream_broken"
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record["error"]["code"] == "upstream_stream_broken"
    assert record["dispatch"]["outcome"].startswith("upstream_broke")


async def test_an_upstream_401_means_our_credential_and_is_a_502(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    async def chat(request: web.Request) -> web.Response:
        return web.json_response({"error": {"message": "bad key sk-upstream-secret"}}, status=401)

    client = await proxy_for(aiohttp_server, proxy, chat)
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert resp.status == 502
    error = (await resp.json())["error"]
    assert error["code"] == "upstream_auth_failed"
    assert "sk-upstream-secret" not in error["message"]
