"""Relaying: same bytes, no buffering, disconnects propagate, connections are reused."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from taskgate.gateway.gateway import GATEWAY

from ..conftest import ProxyFactory, upstreams
from ..routing.conftest import cluster_of
from .upstream import Recorder, upstream_app


async def start(aiohttp_server: Any, proxy: ProxyFactory, rec: Recorder) -> Any:
    server = await aiohttp_server(upstream_app(rec))
    return await proxy(upstreams(str(server.make_url("")).rstrip("/"), "m"))


async def test_unchanged_body_is_forwarded_as_the_same_bytes(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    rec = Recorder()
    client = await start(aiohttp_server, proxy, rec)
    odd = b'{ "model":"m" ,\n "messages": [ {"role":"user","content":"caf\\u00e9"} ], "z": 1.50 }'
    resp = await client.post("/v1/chat/completions", data=odd)
    assert resp.status == 200
    assert rec.bodies == [odd]
    assert (await resp.json())["echo"] == odd.decode()


async def test_client_credentials_are_not_passed_to_the_upstream(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    rec = Recorder()
    client = await start(aiohttp_server, proxy, rec)
    await client.post("/v1/chat/completions", json={"model": "m"}, headers={"Authorization": "Bearer client-secret"})
    assert "Authorization" not in rec.headers[0]
    assert rec.headers[0]["X-Request-Id"]


async def test_stream_chunk_arrives_while_upstream_still_waits(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    rec = Recorder(chunks=2, gap=2.0)  # one chunk, then 2 s of silence
    client = await start(aiohttp_server, proxy, rec)
    started = time.perf_counter()
    resp = await client.post("/v1/chat/completions", json={"model": "m", "stream": True})
    first = await resp.content.readuntil(b"\n\n")
    elapsed = time.perf_counter() - started
    assert first == b'data: {"chunk": 0}\n\n'
    assert elapsed < 0.5, f"first chunk took {elapsed:.3f}s: the proxy buffered"
    resp.close()


async def test_client_disconnect_cancels_the_upstream_request(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    rec = Recorder(chunks=100, gap=0.05)
    client = await start(aiohttp_server, proxy, rec)
    resp = await client.post("/v1/chat/completions", json={"model": "m", "stream": True})
    await resp.content.readuntil(b"\n\n")
    resp.close()  # the client goes away mid-stream
    await asyncio.wait_for(rec.stream_cancelled.wait(), timeout=2.0)
    for _ in range(50):  # the evidence is written when the handler unwinds
        records = client.app[GATEWAY].evidence.records()
        if records:
            break
        await asyncio.sleep(0.02)
    assert records[-1]["dispatch"]["outcome"] == "client_disconnected"


async def test_upstream_connections_are_pooled_and_kept_alive(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    rec = Recorder()
    client = await start(aiohttp_server, proxy, rec)
    cluster = cluster_of(client)
    for _ in range(250):  # the scraper's first /v1/models listing, which would hold the connection, is done
        if cluster.served:
            break
        await asyncio.sleep(0.02)
    for _ in range(10):
        resp = await client.post("/v1/chat/completions", json={"model": "m"})
        assert resp.status == 200
        await resp.read()
    assert len(rec.bodies) == 10
    assert len(rec.peers) == 1, "each request opened a new upstream connection"


async def test_response_names_the_request_id_and_placement(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    client = await start(aiohttp_server, proxy, Recorder())
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    request_id = resp.headers["x-taskgate-request-id"]
    assert resp.headers["x-taskgate-endpoint"] == "up"
    assert resp.headers["x-taskgate-model"] == "m"
    record = client.app[GATEWAY].evidence.find(request_id)
    assert record is not None
    assert record["status"] == 200
    assert record["decisions"]["placement"]["endpoint"] == "up"
    assert [s["step"] for s in record["steps"]] == ["state", "route"]
    assert record["dispatch"]["outcome"] == "completed"


async def test_models_lists_routable_models_with_upstream_metadata(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    client = await start(aiohttp_server, proxy, Recorder())
    resp = await client.get("/v1/models")
    body = await resp.json()
    assert body["data"] == [
        {
            "id": "m",
            "object": "model",
            "created": 7,
            "owned_by": "lab",
            "taskgate": {"pools": ["default"], "endpoints": 1, "available": 1},
        }
    ]
