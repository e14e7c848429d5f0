"""Helpers for routing tests; the Redis server and simulated engines come from the shared conftest."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from taskgate.gateway.gateway import GATEWAY
from taskgate.routing import ClusterState

from ..conftest import Engine, RedisServer, StartEngines, redis_server

__all__ = ["Engine", "RedisServer", "StartEngines", "redis_server"]


def pool(name: str, engines: list[Engine], **extra: Any) -> dict[str, Any]:
    endpoints = [{"name": n, "url": url} for n, url, _ in engines]
    return {"name": name, "endpoints": endpoints, "models": [{"name": "m"}], **extra}


def routing(*pools: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"routing": {"pools": list(pools), **extra}, "logging": {"evidence": False}}


def cluster_of(client: Any) -> ClusterState:
    state: ClusterState = client.app[GATEWAY].services._shared["routing.cluster"]
    return state


def record_of(client: Any, resp: Any) -> dict[str, Any]:
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    return dict(record)


def chat(system: str, *turns: str) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}]
    for i, text in enumerate(turns):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    return {"model": "m", "messages": messages, "max_tokens": 4}


@contextlib.asynccontextmanager
async def saturated(client: Any, url: str, name: str, waiting: int = 3) -> AsyncIterator[None]:
    """Saturate engine `name` at `url` behind the proxy's back, until its scraper sees `waiting` queued."""
    async with aiohttp.ClientSession() as direct:
        hogs = [
            asyncio.create_task(direct.post(url + "/v1/chat/completions", json={**chat(f"hog {i}"), "max_tokens": 50}))
            for i in range(4)
        ]
        try:
            cluster = cluster_of(client)
            for _ in range(100):
                load = cluster.loads.get(name)
                if load is not None and load.waiting >= waiting:
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the scraper never saw the saturated engine")
            yield
        finally:
            for hog in hogs:
                hog.cancel()
            await asyncio.gather(*hogs, return_exceptions=True)


async def until(condition: Any, timeout_s: float = 5.0) -> None:
    """Wait for a background task (the scraper, the state store's writer) to have done what `condition` checks:
    neither has an event to wait on, so poll what it wrote."""
    for _ in range(int(timeout_s / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the background task did not get there within {timeout_s} s")
