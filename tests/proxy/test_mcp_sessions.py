"""Handshake MCP sessions in Redis: bounded as in memory, every key expiring; a store away is a JSON-RPC error, and
an answer nothing waits for is refused at once."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from taskgate.mcp_gateway.sessions import RedisSessions, SessionStoreUnavailable
from tests.authz.conftest import Keys
from tests.authz.mcp_servers import mail_server, serving
from tests.authz.policy import authz_config
from tests.authz.test_tasks import bearer
from tests.authz.upstream import ToolCaller

from ..conftest import RedisServer, closed_port


@dataclass(frozen=True)
class Caller:
    subject: str
    tenant: str
    roles: tuple[str, ...] = ()


ALICE, BOB = Caller("alice", "acme"), Caller("bob", "acme")
HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO}


async def test_redis_sessions_are_bound_per_caller_and_overall_and_every_key_expires(
    redis_server: RedisServer,
) -> None:
    sessions = RedisSessions(redis_server.url, "dep-a:mcp:", limit=3, ttl_s=60, per_caller=2)
    try:
        first, second, third = [await sessions.open("2025-11-25", ALICE, {"roots": {}}) for _ in range(3)]
        assert await sessions.get(first) is None  # alice's oldest went at her third
        found = await sessions.get(third)
        assert found is not None
        assert (found.subject, found.tenant, found.capabilities) == ("alice", "acme", {"roots": {}})
        bobs = [await sessions.open("2025-11-25", BOB, {}) for _ in range(2)]
        assert await sessions.get(second) is None  # anyone's oldest past the limit of three
        assert [await sessions.get(s) is not None for s in [third, *bobs]] == [True] * 3

        await sessions.remember(found, "task_token", "tok")
        again = await sessions.get(third)
        assert again is not None
        assert again.task_token == "tok"
        assert not await sessions.close(third, BOB)  # only its caller closes it
        assert await sessions.close(third, ALICE)
        await sessions.remember(found, "log_level", "debug")  # a closed session is not brought back
        assert await sessions.get(third) is None

        client = aioredis.from_url(redis_server.url, decode_responses=True)
        keys = [str(k) for k in await client.keys("*")]
        assert keys
        assert all(k.startswith("dep-a:mcp:") for k in keys)  # one deployment's prefix
        assert [0 < await client.ttl(k) <= 60 for k in keys] == [True] * len(keys)
        await client.aclose()
    finally:
        await sessions.aclose()


async def test_a_redis_session_expires_with_its_ttl(redis_server: RedisServer) -> None:
    sessions = RedisSessions(redis_server.url, "taskgate:mcp:", limit=10, ttl_s=1, per_caller=10)
    try:
        sid = await sessions.open("2025-11-25", ALICE, {})
        assert await sessions.get(sid) is not None
        await asyncio.sleep(1.2)
        assert await sessions.get(sid) is None
    finally:
        await sessions.aclose()


async def test_a_session_store_that_is_away_is_unavailable_not_an_unknown_session() -> None:
    sessions = RedisSessions(f"redis://127.0.0.1:{closed_port()}/0", "taskgate:mcp:", 10, 60, 10)
    try:
        with pytest.raises(SessionStoreUnavailable):
            await sessions.get("0" * 32)
    finally:
        await sessions.aclose()


async def gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, **mcp: Any) -> Any:
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    config = authz_config(keys, tmp_path, model)
    config["steps"] = [s for s in config["steps"] if s["name"] != "classify"]  # nothing here needs an intent
    config["pipelines"]["chat"].remove("classify")
    config["mcp"] = {"servers": [{"name": "mail", "url": mcp.pop("mail")}], **mcp}
    config["pipelines"]["mcp"] = ["authn", "authorize"]
    return await proxy(config)


async def test_initialize_with_the_session_store_away_is_a_json_rpc_error_saying_so(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    away = f"redis://127.0.0.1:{closed_port()}/0"
    async with serving(mail_server()) as mail:
        client = await gateway(proxy, aiohttp_server, keys, tmp_path, mail=mail, session_store="redis", redis_url=away)
        resp = await client.post("/mcp", json=INIT, headers=bearer(keys))
        body = await resp.json()
        await client.close()
    assert "Mcp-Session-Id" not in resp.headers
    assert resp.headers["Retry-After"] == "1"
    assert body["error"]["data"]["reason"] == "session_store_unavailable"
    assert body["error"]["code"] == -32603


async def test_an_answer_no_relayed_request_waits_for_is_refused_with_a_json_rpc_error(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    async with serving(mail_server()) as mail:
        client = await gateway(
            proxy, aiohttp_server, keys, tmp_path, mail=mail, session_store="redis", redis_url=redis_server.url
        )
        session = (await client.post("/mcp", json=INIT, headers=bearer(keys))).headers["Mcp-Session-Id"]
        answer = {"jsonrpc": "2.0", "id": "taskgate-0123", "result": {"roots": []}}
        resp = await client.post("/mcp", json=answer, headers={**bearer(keys), "Mcp-Session-Id": session})
        body = await resp.json()
        await client.close()
    assert resp.status == 409  # not 404: the session is there, so a client must not open another
    assert body["error"]["data"]["reason"] == "no_relayed_request"
    assert body["id"] is None
    assert "replica that made the call" in body["error"]["message"]
