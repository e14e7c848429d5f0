"""The task store behind Redis Sentinel: the primary dies, authorization fails closed until the sentinel promotes
its replica, then taskgate follows the new primary and nothing revoked comes back."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import redis

from taskgate.gateway.gateway import GATEWAY

from ..conftest import SentinelGroup
from .conftest import Keys
from .policy import authz_config
from .test_tasks import ask, bearer
from .upstream import ToolCaller


async def test_a_failover_fails_closed_then_follows_the_new_primary_and_revoked_stays_revoked(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, sentinel_group: SentinelGroup
) -> None:
    url = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    config = authz_config(keys, tmp_path, url, redis_url=sentinel_group.url)  # policy reloads announced there too
    config["authz"]["tasks"].update(store="redis", redis_url=sentinel_group.url)
    config["steps"] = [s for s in config["steps"] if s["name"] != "classify"]  # no intent needed here
    config["pipelines"]["chat"].remove("classify")
    config["routing"]["state"] = {"store": "redis", "redis_url": sentinel_group.url}
    client = await proxy(config)

    async def chat(token: str | None) -> tuple[int, dict[str, Any], Any]:
        headers = bearer(keys, **({"x-taskgate-task-token": token} if token else {}))
        resp = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=headers)
        return resp.status, dict(resp.headers), await resp.json()

    status, revoked_headers, _ = await chat(None)
    status_kept, kept_headers, _ = await chat(None)
    assert (status, status_kept) == (200, 200)
    revoked, kept = revoked_headers["x-taskgate-task-token"], kept_headers["x-taskgate-task-token"]
    answer = await client.post(f"/v1/tasks/{revoked_headers['x-taskgate-task']}/revoke", headers=bearer(keys))
    assert answer.status == 200
    old_primary = sentinel_group.primary_port()
    with redis.Redis(port=old_primary) as primary:
        assert primary.wait(1, 1000) >= 1  # the revocation reached the replica before the primary goes
    assert (await chat(revoked))[0] == 403

    sentinel_group.primary.proc.kill()  # no goodbye: the sentinel must notice and fail over
    started, gap = time.monotonic(), []
    while time.monotonic() - started < 20:
        status, _, body = await chat(kept)
        if status == 200:
            break
        assert status == 503, body  # never allowed, never a crash: the store is away
        assert body["error"]["code"] == "task_store_unavailable"
        gap.append(body)
        assert (await chat(revoked))[0] in (403, 503)  # and the revoked task is refused either way
        await asyncio.sleep(0.05)
    followed_s = time.monotonic() - started
    assert status == 200, f"taskgate did not follow the new primary within 20 s ({len(gap)} refusals)"
    assert gap, "no request fell in the gap: the test proved nothing about failing closed"
    assert sentinel_group.primary_port() == sentinel_group.replica.port  # the replica was promoted
    errors = [r["error"] for r in client.app[GATEWAY].evidence.records() if r.get("status") == 503]
    assert len(errors) >= len(gap)  # each refusal's evidence says the task store was away, and why
    assert all(e["code"] == "task_store_unavailable" and e["task_store"]["error"] for e in errors)

    status, _, body = await chat(revoked)  # on the new primary: still revoked
    assert (status, body["error"]["code"]) == (403, "task_revoked")
    status, fresh, _ = await chat(None)  # and new tasks open there
    assert status == 200
    assert (await chat(fresh["x-taskgate-task-token"]))[0] == 200
    assert followed_s < 15
