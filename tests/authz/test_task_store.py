"""A task store that lost its state, or cannot be reached, refuses: a revoked task never becomes valid again."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from mcp import MCPError

from taskgate.authz.authorizer import MAX_PURPOSE_CHARS
from taskgate.authz.tasks import MemoryTaskStore, TaskInfo
from taskgate.gateway.gateway import GATEWAY

from ..conftest import RedisServer
from .conftest import Keys
from .mcp_servers import mail_server, serving
from .policy import authz_config
from .test_mcp import connect
from .test_tasks import ask, bearer
from .upstream import ToolCaller


async def gateway(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, store: dict[str, Any], mcp: str | None = None
) -> Any:
    upstream = ToolCaller()
    url = str((await aiohttp_server(upstream.app())).make_url("")).rstrip("/")
    config = authz_config(keys, tmp_path, url)
    config["authz"]["tasks"].update(store)  # keeps the task key: a restarted taskgate has the same one
    if mcp is not None:
        config["mcp"] = {"servers": [{"name": "mail", "url": mcp}]}
        config["pipelines"]["mcp"] = ["authn", "authorize"]
    return await proxy(config)


def wait_for_redis(server: RedisServer) -> None:
    client = redis.Redis(port=server.port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "redis-server did not come back"
            time.sleep(0.05)
    client.close()


async def start_task(client: Any, keys: Keys) -> tuple[str, dict[str, str]]:
    resp = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=bearer(keys))
    assert resp.status == 200, await resp.text()
    return resp.headers["x-taskgate-task"], bearer(
        keys, **{"x-taskgate-task-token": resp.headers["x-taskgate-task-token"]}
    )


async def error_of(resp: Any) -> dict[str, Any]:
    error: dict[str, Any] = (await resp.json())["error"]
    return error


async def test_a_revoked_task_stays_refused_after_redis_restarts_empty(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, {"store": "redis", "redis_url": redis_server.url})
    task, revoked = await start_task(client, keys)
    _, live = await start_task(client, keys)
    assert (await client.post(f"/v1/tasks/{task}/revoke", headers=bearer(keys))).status == 200
    resp = await client.post("/v1/chat/completions", json=ask("more"), headers=revoked)
    assert (await error_of(resp))["code"] == "task_revoked"
    redis_server.restart()  # `--save ''`: the revocation, the tasks and the epoch are gone
    wait_for_redis(redis_server)
    for headers in [revoked] * 20 + [live]:  # neither the revoked task nor a live one is trusted blindly
        resp = await client.post("/v1/chat/completions", json=ask("more"), headers=headers)
        assert resp.status == 403, await resp.text()
        assert (await error_of(resp))["code"] == "task_state_lost"
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record["error"]["code"] == "task_state_lost"
    assert "lost its state" in record["error"]["message"]
    assert record["error"]["task_store"]["store_epoch"] is None  # the evidence says why: no epoch, or another one
    _, fresh = await start_task(client, keys)  # a new task opens a new epoch, and works
    assert (await client.post("/v1/chat/completions", json=ask("more"), headers=fresh)).status == 200
    resp = await client.post("/v1/chat/completions", json=ask("more"), headers=revoked)
    assert (await error_of(resp))["code"] == "task_state_lost"
    exchange = {"subject_token": revoked["x-taskgate-task-token"], "tools": ["mail__read"]}
    assert (await client.post("/v1/tasks/token", json=exchange, headers=bearer(keys))).status == 403


async def test_a_restarted_taskgate_with_the_memory_store_refuses_tokens_it_cannot_vouch_for(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    before = await gateway(proxy, aiohttp_server, keys, tmp_path, {})
    task, headers = await start_task(before, keys)
    assert (await before.post(f"/v1/tasks/{task}/revoke", headers=bearer(keys))).status == 200
    after = await gateway(proxy, aiohttp_server, keys, tmp_path, {})  # same signing secret, a fresh process's store
    resp = await after.post("/v1/chat/completions", json=ask("more"), headers=headers)
    assert resp.status == 403
    error = await error_of(resp)
    assert error["code"] == "task_state_lost"
    assert "start a new task" in error["message"]


async def test_a_task_the_store_no_longer_has_is_refused(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, {"max_tasks": 1})
    _, first = await start_task(client, keys)
    _, second = await start_task(client, keys)  # the memory store forgets the oldest task past max_tasks
    assert (await client.post("/v1/chat/completions", json=ask("more"), headers=second)).status == 200
    resp = await client.post("/v1/chat/completions", json=ask("more"), headers=first)
    assert resp.status == 403
    assert "no longer has this task" in (await error_of(resp))["message"]


async def test_every_surface_answers_503_with_a_retry_hint_while_redis_is_down(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    async with serving(mail_server()) as mail:
        store = {"store": "redis", "redis_url": redis_server.url}
        client = await gateway(proxy, aiohttp_server, keys, tmp_path, store, mcp=mail)
        task, headers = await start_task(client, keys)
        token = headers["x-taskgate-task-token"]
        redis_server.stop()
        calls = [
            client.post(f"/v1/tasks/{task}/revoke", headers=bearer(keys)),
            client.post(
                "/v1/tasks/token", json={"subject_token": token, "tools": ["mail__read"]}, headers=bearer(keys)
            ),
            client.post("/v1/chat/completions", json=ask("more"), headers=headers),
            client.post("/v1/chat/completions", json=ask("summarise my email"), headers=bearer(keys)),
        ]
        for call in calls:
            resp = await call
            assert resp.status == 503, await resp.text()
            assert resp.headers["Retry-After"] == "2"
            error = await error_of(resp)
            assert (error["code"], error["type"]) == ("task_store_unavailable", "api_error")
            assert "retry" in error["message"]
            assert "127.0.0.1" not in error["message"]  # the store's address stays in the evidence
            record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
            assert record["error"]["code"] == "task_store_unavailable"
            assert "ConnectionError" in record["error"]["task_store"]["error"]
        async with connect(client, headers) as session:
            with pytest.raises(MCPError) as caught:
                await session.list_tools()
        assert caught.value.error.data == {"reason": "task_store_unavailable"}
        await client.close()


async def test_the_memory_store_forgets_tasks_past_their_time_and_keeps_at_most_max_tasks() -> None:
    """Item 19: tasks were kept until 100,000 had piled up, whatever their age."""
    store = MemoryTaskStore(max_tasks=3)
    info = TaskInfo("alice", "acme", "default", "p", time.time())
    assert await store.put("old", info, 0.05)
    await asyncio.sleep(0.06)
    assert (await store.state("old")).info is None  # past its time: gone, and its token is refused for that
    for key in ("a", "b", "c", "d"):
        assert await store.put(key, info, 60)
    assert "old" not in store._tasks  # dropped as new tasks arrived, not only when looked up
    assert [(await store.state(k)).info is not None for k in "abcd"] == [False, True, True, True]
    assert not await store.put("d", info, 60)  # a live task cannot start twice


async def test_a_task_keeps_only_the_first_32k_characters_of_its_instruction(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    client = await gateway(proxy, aiohttp_server, keys, tmp_path, {})
    text = "summarise my email " + "x" * 100_000
    resp = await client.post("/v1/chat/completions", json=ask(text), headers=bearer(keys))
    assert resp.status == 200
    store = client.app[GATEWAY].services._shared["authz.authorizer"].store
    [(info, _)] = store._tasks.values()
    assert info.purpose == text[:MAX_PURPOSE_CHARS]


async def test_the_memory_store_keeps_a_bounded_amount_of_instruction_text() -> None:
    store = MemoryTaskStore(max_tasks=1_000, max_chars=250)
    for n in range(5):
        assert await store.put(f"t{n}", TaskInfo("alice", "acme", "default", "x" * 100, time.time()), 60)
    assert [(await store.state(f"t{n}")).info is not None for n in range(5)] == [False, False, False, True, True]
    assert store._chars == 200


SPIN = """
local start = redis.call('TIME')
local until_us = start[1] * 1000000 + start[2] + tonumber(ARGV[1]) * 1000
while true do
  local now = redis.call('TIME')
  if now[1] * 1000000 + now[2] >= until_us then return 1 end
end
"""


async def _with_redis_busy(server: RedisServer, ms: int, call: Any) -> Any:
    """Run `call` while a script holds the Redis server for `ms` (a server answers nothing while one runs)."""
    client = redis.Redis(port=server.port)
    spin = asyncio.get_running_loop().run_in_executor(None, client.eval, SPIN, 0, ms)
    await asyncio.sleep(0.2)  # the script has started
    try:
        return await call()
    finally:
        await spin
        client.close()


async def test_a_store_slower_than_timeout_ms_cannot_decide_and_a_longer_timeout_waits_for_it(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    hasty = await gateway(proxy, aiohttp_server, keys, tmp_path, {"store": "redis", "redis_url": redis_server.url,
                                                                   "timeout_ms": 100})  # fmt: skip
    patient = await gateway(proxy, aiohttp_server, keys, tmp_path, {"store": "redis", "redis_url": redis_server.url,
                                                                     "timeout_ms": 10_000})  # fmt: skip
    _, first = await start_task(hasty, keys)
    _, second = await start_task(patient, keys)

    async def ask_more(client: Any, headers: dict[str, str]) -> tuple[int, str, float]:
        began = time.monotonic()
        resp = await client.post("/v1/chat/completions", json=ask("more"), headers=headers)
        return resp.status, resp.headers["x-taskgate-request-id"], time.monotonic() - began

    status, request_id, took = await _with_redis_busy(redis_server, 1500, lambda: ask_more(hasty, first))
    assert status == 503
    assert took < 1.0  # refused at the timeout, not when the store answered
    record = hasty.app[GATEWAY].evidence.find(request_id)
    assert record["error"]["code"] == "task_store_unavailable"
    assert "Timeout" in record["error"]["task_store"]["error"]

    status, _, took = await _with_redis_busy(redis_server, 1500, lambda: ask_more(patient, second))
    assert status == 200
    assert took > 1.0  # it waited for the store, and the store decided
