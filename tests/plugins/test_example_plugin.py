"""The example plugin in examples/ is found through its entry point and runs in a request."""

from __future__ import annotations

from typing import Any

from taskgate.plugins import Registry
from taskgate.proxy.state import GATEWAY

from ..conftest import ProxyFactory, upstreams
from ..proxy.upstream import Recorder, upstream_app


async def guarded_proxy(aiohttp_server: Any, proxy: ProxyFactory, rec: Recorder) -> Any:
    server = await aiohttp_server(upstream_app(rec))
    raw = upstreams(str(server.make_url("")).rstrip("/"), "m") | {
        "steps": [{"name": "no-secrets", "type": "example.keyword_block", "params": {"words": ["password"]}}],
        "pipelines": {"chat": ["no-secrets", "route"]},
    }
    return await proxy(raw)


def test_example_plugin_is_discovered_through_its_entry_point(registry: Registry) -> None:
    assert "example.keyword_block" in registry.steps
    assert registry.origin("example.keyword_block") == "keyword_guard"
    assert registry.origin("routing.static") == "routing"


async def test_example_step_refuses_a_request_and_nothing_is_forwarded(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    rec = Recorder()
    client = await guarded_proxy(aiohttp_server, proxy, rec)
    body = {"model": "m", "messages": [{"role": "user", "content": "my Password is hunter2"}]}
    resp = await client.post("/v1/chat/completions", json=body)
    assert resp.status == 403
    error = (await resp.json())["error"]
    assert error["code"] == "blocked_term"
    assert "hunter2" not in error["message"]
    assert "password" not in error["message"].lower()
    assert rec.bodies == []
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record["error"]["step"] == "no-secrets"


async def test_example_step_lets_a_clean_request_through_and_leaves_evidence(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    rec = Recorder()
    client = await guarded_proxy(aiohttp_server, proxy, rec)
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    )
    assert resp.status == 200
    assert len(rec.bodies) == 1
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert [s["step"] for s in record["steps"]] == ["no-secrets", "route"]
    assert record["decisions"]["keyword_scan"] == {"chars_scanned": 5, "terms": 1, "matched": False}
