"""Workflow runs shared through Redis: a run's view is there when the POST answers and when the run ends, in its
owner's namespace and expiring; a store away leaves the run going here and makes a foreign poll a 503, not a 404."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis.asyncio as aioredis

from tests.authz.conftest import Keys

from ..conftest import RedisServer, closed_port
from .test_taskflow import PLANNER, bearer, diamond


async def test_a_runs_view_is_in_redis_as_the_202_goes_out_and_complete_when_it_ends(
    start: Any, keys: Keys, redis_server: RedisServer
) -> None:
    client = await start(PLANNER, workflows={"store": "redis", "redis_url": redis_server.url, "keep_s": 30})
    store = aioredis.from_url(redis_server.url, decode_responses=True)
    try:
        resp = await client.post("/v1/tasks", json=diamond(wait=False), headers=bearer(keys))
        assert resp.status == 202
        task = (await resp.json())["task"]
        [key] = [k for k in await store.keys("taskgate:workflow:run:*") if k.endswith(task)]
        assert json.loads(str(await store.get(key)))["view"]["status"] == "running"  # before any poll
        assert "alice" not in key  # the owner's namespace, hashed
        for _ in range(100):
            view = await (await client.get(f"/v1/tasks/{task}", headers=bearer(keys))).json()
            if view["status"] != "running":
                break
            await asyncio.sleep(0.1)
        shared = json.loads(str(await store.get(key)))["view"]
        ttl = await store.ttl(key)
    finally:
        await store.aclose()
    assert view["status"] == "completed"
    assert shared == view  # what another replica would answer
    assert 0 < ttl <= 30  # kept keep_s after it ended


async def test_with_the_run_store_away_a_run_goes_on_here_and_a_foreign_poll_is_a_503(start: Any, keys: Keys) -> None:
    away = f"redis://127.0.0.1:{closed_port()}/0"
    client = await start(PLANNER, workflows={"store": "redis", "redis_url": away})
    resp = await client.post("/v1/tasks", json=diamond(), headers=bearer(keys))
    assert resp.status == 200, await resp.text()
    assert (await resp.json())["status"] == "completed"
    mine = await client.get(f"/v1/tasks/{resp.headers['x-taskgate-task']}", headers=bearer(keys))
    assert mine.status == 200  # this replica holds it
    foreign = await client.get("/v1/tasks/0123456789abcdef", headers=bearer(keys))
    body = await foreign.json()
    assert foreign.status == 503
    assert body["error"]["code"] == "run_store_unavailable"
    assert foreign.headers["Retry-After"] == "1"
