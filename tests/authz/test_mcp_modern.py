"""MCP 2026-07-28 through the gateway: the SDK client in its modern mode (no session, no handshake) and in
handshake mode; the envelope checked as the SDK's own server checks it; two replicas behind a real load
balancer serving a modern client with no stickiness."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import HEADER_MISMATCH, INVALID_PARAMS, METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION

from taskgate.gateway.gateway import GATEWAY

from ..conftest import RedisServer, haproxy
from .conftest import Keys
from .mcp_servers import files_server, mail_server, serving
from .policy import authz_config
from .test_mcp import summary_token
from .test_tasks import bearer
from .upstream import ToolCaller

MODERN = "2026-07-28"
Seen = list[tuple[str, dict[str, str], dict[str, str]]]  # method line, request headers, response headers


def mcp_config(keys: Keys, tmp_path: Path, model_url: str, mail: str, files: str, **tasks: Any) -> dict[str, Any]:
    config = authz_config(keys, tmp_path, model_url)
    config["mcp"] = {"servers": [{"name": "mail", "url": mail}, {"name": "files", "url": files}]}
    config["pipelines"]["mcp"] = ["authn", "authorize"]
    config["authz"]["tasks"].update(tasks)
    return config


@pytest.fixture
async def gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[Any]:
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        client = await proxy(mcp_config(keys, tmp_path, model, mail, files))
        yield client
        await client.close()


@contextlib.asynccontextmanager
async def watched(url: str, headers: dict[str, str], mode: Any) -> AsyncIterator[tuple[Client, Seen]]:
    """An SDK client on `url` whose every exchange is recorded: what it sent and what came back."""
    seen: Seen = []

    async def record(response: httpx2.Response) -> None:
        seen.append((response.request.method, dict(response.request.headers), dict(response.headers)))

    async with (
        httpx2.AsyncClient(headers=headers, event_hooks={"response": [record]}) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as mcp,
    ):
        yield mcp, seen


async def test_the_sdk_client_discovers_2026_07_28_and_sends_stateless_requests(gateway: Any, keys: Keys) -> None:
    headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(gateway, keys)}
    async with watched(str(gateway.make_url("/mcp")), headers, "auto") as (mcp, seen):
        assert mcp.protocol_version == MODERN
        assert mcp.server_info is not None
        assert mcp.server_info.name == "taskgate"
        names = sorted(t.name for t in (await mcp.list_tools()).tools)
        result = await mcp.call_tool("mail__read", {"folder": "inbox"})
    assert names == ["files__read", "mail__list", "mail__read"]
    assert not result.is_error
    assert all("mcp-session-id" not in answer for _, _, answer in seen)  # no session was ever opened
    assert all(sent.get("mcp-protocol-version") == MODERN for _, sent, _ in seen)
    methods = [r.get("model") for r in gateway.app[GATEWAY].evidence.records()]
    assert "server/discover" in methods
    assert "initialize" not in methods


async def test_the_handshake_still_serves_older_clients_with_a_session(gateway: Any, keys: Keys) -> None:
    headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(gateway, keys)}
    async with watched(str(gateway.make_url("/mcp")), headers, "legacy") as (mcp, seen):
        assert mcp.protocol_version == "2025-11-25"
        names = sorted(t.name for t in (await mcp.list_tools()).tools)
    assert names == ["files__read", "mail__list", "mail__read"]
    assert any("mcp-session-id" in answer for _, _, answer in seen)


async def test_discover_needs_a_caller_like_every_other_request(gateway: Any) -> None:
    resp = await gateway.post("/mcp", json=envelope("server/discover"), headers=modern_headers("server/discover"))
    assert resp.status == 401
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")


async def test_a_modern_request_missing_its_envelope_is_refused_as_the_sdk_server_refuses_it(
    gateway: Any, keys: Keys
) -> None:
    bare = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    resp = await gateway.post("/mcp", json=bare, headers={**bearer(keys), **modern_headers("tools/list")})
    assert resp.status == 400
    body = await resp.json()
    assert body["error"]["code"] == INVALID_PARAMS
    assert "io.modelcontextprotocol/protocolVersion" in body["error"]["message"]


async def test_a_header_that_disagrees_with_the_envelope_is_a_mismatch(gateway: Any, keys: Keys) -> None:
    headers = {**bearer(keys), **modern_headers("tools/call")}  # the body says tools/list
    resp = await gateway.post("/mcp", json=envelope("tools/list"), headers=headers)
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == HEADER_MISMATCH


async def test_an_unknown_revision_is_answered_with_the_revisions_served(gateway: Any, keys: Keys) -> None:
    body = envelope("tools/list", version="2099-01-01")
    resp = await gateway.post("/mcp", json=body, headers={**bearer(keys), **modern_headers("tools/list", "2099-01-01")})
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert error["code"] == UNSUPPORTED_PROTOCOL_VERSION
    assert error["data"] == {"supported": [MODERN], "requested": "2099-01-01"}


async def test_ping_is_a_handshake_method_only(gateway: Any, keys: Keys) -> None:
    resp = await gateway.post("/mcp", json=envelope("ping"), headers={**bearer(keys), **modern_headers("ping")})
    assert resp.status == 404
    assert (await resp.json())["error"]["code"] == METHOD_NOT_FOUND


async def test_two_replicas_behind_a_load_balancer_serve_a_modern_client_without_stickiness(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    store = {"store": "redis", "redis_url": redis_server.url}
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        replicas = [await proxy(mcp_config(keys, tmp_path, model, mail, files, **store)) for _ in range(2)]
        headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(replicas[0], keys)}
        with haproxy(tmp_path, [r.server.port for r in replicas]) as port:
            async with watched(f"http://127.0.0.1:{port}/mcp", headers, MODERN) as (mcp, _):
                listed = [sorted(t.name for t in (await mcp.list_tools(cache_mode="bypass")).tools) for _ in range(4)]
                calls = [await mcp.call_tool("mail__list", {}) for _ in range(4)]
    assert listed == [["files__read", "mail__list", "mail__read"]] * 4
    assert not any(c.is_error for c in calls)
    served = [[r for r in replica.app[GATEWAY].evidence.records() if r.get("surface") == "mcp"] for replica in replicas]
    assert all(len(s) >= 3 for s in served)  # both replicas answered; neither had a session to look up
    assert all(r["status"] == 200 for s in served for r in s)


def modern_headers(method: str, version: str = MODERN) -> dict[str, str]:
    return {"MCP-Protocol-Version": version, "Mcp-Method": method, "Accept": "application/json, text/event-stream"}


def envelope(method: str, version: str = MODERN) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta}}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example.com"}, 421),  # a rebound name: not one this loopback gateway answers to
        ({"Origin": "http://evil.example.com"}, 403),  # a page of another site
        ({"Origin": "http://localhost:3000"}, 200),  # a local client's page
    ],
)
async def test_a_request_a_rebound_page_sends_is_refused_before_anything_is_read(
    gateway: Any, keys: Keys, headers: dict[str, str], status: int
) -> None:
    resp = await gateway.post(
        "/mcp",
        json=envelope("server/discover"),
        headers={**bearer(keys), **modern_headers("server/discover"), **headers},
    )
    assert resp.status == status
    if status != 200:
        assert "DNS rebinding" in (await resp.json())["error"]["message"]


async def test_a_bad_task_token_is_not_a_401_so_an_oauth_client_does_not_sign_in_again(
    gateway: Any, keys: Keys
) -> None:
    """Signing in again cannot mend a task token: its refusal is -32001 in a 200; a missing bearer is the 401."""
    headers = {**bearer(keys), **modern_headers("tools/list"), "x-taskgate-task-token": "not-a-task-token"}
    resp = await gateway.post("/mcp", json=envelope("tools/list"), headers=headers)
    assert resp.status == 200
    assert "WWW-Authenticate" not in resp.headers
    error = (await resp.json())["error"]
    assert error["code"] == -32001
    assert error["data"]["reason"].startswith("task_token")


async def test_anonymous_mode_names_a_caller_without_a_token_and_still_refuses_a_bad_one(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        config = mcp_config(keys, tmp_path, model, mail, files)
        config["steps"][0]["params"] = {"anonymous": {"subject": "kiosk", "tenant": "acme", "roles": ["mail-user"]}}
        client = await proxy(config)
        async with watched(str(client.make_url("/mcp")), {}, MODERN) as (mcp, _):
            names = [t.name for t in (await mcp.list_tools()).tools]
        bad = {"Authorization": "Bearer not-a-jwt", **modern_headers("tools/list")}
        refused = await client.post("/mcp", json=envelope("tools/list"), headers=bad)
        elsewhere = await client.post("/v1/tasks/open", json={"purpose": "summarise my mail"})
        records = client.app[GATEWAY].evidence.records()
        await client.close()
    assert names == ["mail__list"]  # the configured role, the default profile: what the policy gives its tasks
    identity = next(r["decisions"]["identity"] for r in records if r.get("model") == "tools/list")
    assert (identity["subject"], identity["issuer"], identity["alg"]) == ("anonymous:kiosk", "anonymous", "none")
    assert refused.status == 401  # a token that fails is never taken for the anonymous caller
    assert elsewhere.status == 401  # anonymous callers reach /mcp only
