"""Two replicas sharing Redis: a revocation on one holds on the other; a policy reload reaches the other."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from taskgate.gateway.gateway import GATEWAY

from ..conftest import RedisServer
from .conftest import Keys
from .policy import POLICY, authz_config, write_policy
from .test_tasks import ask, bearer
from .upstream import ToolCaller


async def replicas(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_url: str
) -> tuple[Any, Any, ToolCaller]:
    upstream = ToolCaller()
    url = str((await aiohttp_server(upstream.app())).make_url("")).rstrip("/")
    first = authz_config(keys, tmp_path, url, redis_url=redis_url)
    first["authz"]["tasks"].update(store="redis", redis_url=redis_url)  # and the same task key as the second
    second = authz_config(
        keys, tmp_path, url, redis_url=redis_url, reload_interval_s=0
    )  # learns of reloads only by Redis
    second["authz"]["tasks"].update(store="redis", redis_url=redis_url)
    return await proxy(first), await proxy(second), upstream


async def test_a_task_revoked_on_one_replica_is_refused_by_the_other(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    a, b, _ = await replicas(proxy, aiohttp_server, keys, tmp_path, redis_server.url)
    resp = await a.post("/v1/chat/completions", json=ask("summarise my email"), headers=bearer(keys))
    task, token = resp.headers["x-taskgate-task"], resp.headers["x-taskgate-task-token"]
    headers = bearer(keys, **{"x-taskgate-task-token": token})
    assert (await b.post("/v1/chat/completions", json=ask("more"), headers=headers)).status == 200
    assert (await b.post(f"/v1/tasks/{task}/revoke", headers=bearer(keys))).status == 200  # b knows a's task
    resp = await a.post("/v1/chat/completions", json=ask("more"), headers=headers)
    assert resp.status == 403
    assert (await resp.json())["error"]["code"] == "task_revoked"


async def test_a_policy_reload_on_one_replica_reaches_the_other_through_redis(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    _, b, upstream = await replicas(proxy, aiohttp_server, keys, tmp_path, redis_server.url)
    await asyncio.sleep(0.2)  # b's subscription is up

    async def tools(client: Any) -> list[str]:
        resp = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=bearer(keys))
        assert resp.status == 200
        return [t["function"]["name"] for t in upstream.bodies[-1]["tools"]]

    assert await tools(b) == ["mail__read", "mail__list"]
    shorter = POLICY.replace("p, profile:summarise, *, mail__list, call, prof-summarise-list\n", "")
    policy = write_policy(tmp_path, shorter)
    stat = policy.stat()
    os.utime(policy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    store = b.app[GATEWAY].services._shared["authz.authorizer"].policy
    for _ in range(100):
        if store.current.generation >= 2:
            break
        await asyncio.sleep(0.05)
    assert store.current.generation == 2, "replica b did not hear of the reload"
    assert await tools(b) == ["mail__read"]
