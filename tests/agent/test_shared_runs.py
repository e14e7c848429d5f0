"""Workflow runs shared through Redis: a run's view is there when the POST answers and when the run ends, in its
owner's namespace and expiring; a store away leaves the run going here and makes a foreign poll a 503, not a 404;
a replica that stops hands its running workflows to another, which finishes them without redoing settled steps."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import redis.asyncio as aioredis
from structlog.testing import capture_logs

from taskgate.agent.config import WorkflowsConfig
from taskgate.agent.shared import BEAT_S, LEASE_S, SharedRuns
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script
from tests.authz.conftest import Keys
from tests.batch.conftest import Seen, recording
from tests.proxy.agents import SUMMARISE

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
        assert json.loads(str(await store.hget(key, "view")))["status"] == "running"  # before any poll
        assert json.loads(str(await store.hget(key, "spec")))["purpose"] == diamond()["purpose"]  # to resume it
        assert "alice" not in key  # the owner's namespace, hashed
        for _ in range(100):
            view = await (await client.get(f"/v1/tasks/{task}", headers=bearer(keys))).json()
            if view["status"] != "running":
                break
            await asyncio.sleep(0.1)
        shared = json.loads(str(await store.hget(key, "view")))
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


async def test_a_replica_that_stops_hands_its_running_workflow_to_another_which_finishes_it(
    redis_server: RedisServer, start: Any, keys: Keys
) -> None:
    store = {"store": "redis", "redis_url": redis_server.url}
    script = Script([Rule(match="over slowly", role="user", reply="thought", delay_s=1.0), *PLANNER.rules])
    engines: list[list[Seen]] = []

    async def replica() -> Any:
        seen: list[Seen] = []
        engines.append(seen)
        sim = create_sim(dataclasses.replace(PROFILES["instant"], models=("m",)), "sim", script)
        sim.middlewares.append(recording(seen))
        return await start(sim, lambda config: config["authz"]["tasks"].update(store), workflows=store)

    first, second = await replica(), await replica()
    workflow = {
        "purpose": SUMMARISE, "wait": False,
        "steps": [
            {"id": "plan", "model": "m", "messages": [{"role": "user", "content": "which folder should I read?"}]},
            {"id": "think", "model": "m", "messages": [{"role": "user", "content": "think ${plan} over slowly"}]},
            {"id": "answer", "model": "m", "messages": [{"role": "user", "content": "summarise these: ${think}"}]},
        ],
    }  # fmt: skip
    resp = await first.post("/v1/tasks", json=workflow, headers=bearer(keys))
    assert resp.status == 202, await resp.text()
    task = (await resp.json())["task"]

    async def view(client: Any) -> dict[str, Any]:
        found: dict[str, Any] = await (await client.get(f"/v1/tasks/{task}", headers=bearer(keys))).json()
        return found

    for _ in range(200):  # the first replica's engine has the slow step's request: it is cut off mid-way
        if any("over slowly" in json.dumps(s.body) for s in engines[0]):
            break
        await asyncio.sleep(0.05)
    await first.close()  # a graceful stop: the run is left as recorded, and its lease goes with the replica
    for _ in range(100):
        done = await view(second)
        if done["status"] != "running":
            break
        await asyncio.sleep(0.1)
    assert done["status"] == "completed", done
    assert done["steps"]["answer"]["output"]
    here, there = ([json.dumps(s.body) for s in seen] for seen in engines)
    assert sum("which folder" in body for body in here + there) == 1  # what completed is not run again
    assert any("over slowly" in body for body in here)  # cut off on the first replica...
    assert sum("over slowly" in body for body in there) == 1  # ...and run again where the run was resumed
    assert any("summarise these" in body for body in there)


async def test_a_lease_that_could_not_be_renewed_in_time_is_said_in_the_log(redis_server: RedisServer) -> None:
    """While Redis takes no writes for longer than a lease lasts, the replica says so: each renewal that failed,
    and, once one lands, how long the lease was not renewed (another replica may have taken its runs)."""
    shared = SharedRuns(WorkflowsConfig(store="redis", redis_url=redis_server.url))
    admin = aioredis.from_url(redis_server.url)
    try:
        with capture_logs() as logs:
            await shared.start()
            await asyncio.sleep(0.3)
            await admin.client_pause(int((LEASE_S + 0.5) * 1000), all=False)
            await asyncio.sleep(LEASE_S + 2 * BEAT_S + 0.5)
    finally:
        await shared.close()
        await admin.aclose()
    events = [entry["event"] for entry in logs]
    assert "workflow_lease_not_renewed" in events
    [lapsed] = [entry for entry in logs if entry["event"] == "workflow_lease_lapsed"]
    assert lapsed["for_s"] > LEASE_S
