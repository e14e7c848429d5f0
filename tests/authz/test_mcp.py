"""The MCP gateway with the official SDK as client, through taskgate to two real SDK servers."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.client import ConnectMode
from mcp.client.streamable_http import streamable_http_client

from taskgate.gateway.gateway import GATEWAY
from taskgate.mcp_gateway import UPSTREAMS

from .conftest import Keys
from .mcp_servers import files_server, mail_server, serving
from .policy import AS_ERRORS, authz_config, write_policy
from .test_tasks import ask, bearer
from .upstream import ToolCaller


@pytest.fixture
async def gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[tuple[Any, Keys]]:
    model = await aiohttp_server(ToolCaller().app())
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        config = authz_config(keys, tmp_path, str(model.make_url("")).rstrip("/"))
        config["mcp"] = {"servers": [{"name": "mail", "url": mail}, {"name": "files", "url": files}], **AS_ERRORS}
        config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}})
        config["pipelines"]["mcp"] = ["authn", "authorize", "pii"]
        client = await proxy(config)
        yield client, keys
        await client.close()


async def summary_token(client: Any, keys: Keys) -> str:
    resp = await client.post(
        "/v1/chat/completions", json=ask("summarise my email from this week"), headers=bearer(keys)
    )
    assert resp.status == 200
    return str(resp.headers["x-taskgate-task-token"])


@contextlib.asynccontextmanager
async def connect(client: Any, headers: dict[str, str], mode: ConnectMode = "auto") -> AsyncIterator[Client]:
    """An SDK client through taskgate (entered and left in the test's own task, as anyio requires).

    The default, as the SDK's: `auto` discovers the gateway speaks 2026-07-28 and sends stateless requests;
    `legacy` makes the initialize handshake and keeps a session."""
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(str(client.make_url("/mcp")), http_client=http), mode=mode) as mcp,
    ):
        yield mcp


@contextlib.asynccontextmanager
async def summary_session(gateway: tuple[Any, Keys]) -> AsyncIterator[Client]:
    client, keys = gateway
    async with connect(client, {**bearer(keys), "x-taskgate-task-token": await summary_token(client, keys)}) as mcp:
        yield mcp


async def test_tools_list_shows_only_the_tools_the_task_may_use(gateway: tuple[Any, Keys]) -> None:
    async with summary_session(gateway) as mcp:
        names = sorted(t.name for t in (await mcp.list_tools()).tools)
    # summarise: mail__read, mail__list and files__read; never delete, send, or whoami
    assert names == ["files__read", "mail__list", "mail__read"]


async def test_a_granted_call_succeeds_and_its_result_is_pii_scanned(gateway: tuple[Any, Keys]) -> None:
    async with summary_session(gateway) as mcp:
        result = await mcp.call_tool("mail__read", {"folder": "inbox"})
        listed = await mcp.call_tool("mail__list", {})
    assert not result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "the quarterly numbers" in text
    assert "carol.danvers@proton.me" not in text
    assert "<EMAIL_ADDRESS>" in text
    assert listed.structured_content == {"result": ["inbox: Q3 numbers", "inbox: offsite"]}


async def test_an_ungranted_call_is_denied_with_a_clear_json_rpc_error_and_evidence(
    gateway: tuple[Any, Keys],
) -> None:
    client, _ = gateway
    async with summary_session(gateway) as mcp:
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__delete", {"message_id": "42", "older_than_days": 90})
    assert caught.value.error.code == -32003
    assert "mail__delete" in caught.value.error.message
    assert "intent profile 'summarise' does not need it" in caught.value.error.message
    record = next(r for r in reversed(client.app[GATEWAY].evidence.records()) if r.get("error"))
    assert record["surface"] == "mcp"
    assert record["error"]["code"] == "tool_denied"
    assert record["error"]["decision"]["outcome"] == "deny"


async def test_a_call_that_breaks_an_argument_constraint_is_denied_and_names_the_rule(
    gateway: tuple[Any, Keys],
) -> None:
    client, _ = gateway
    async with summary_session(gateway) as mcp:
        ok = await mcp.call_tool("files__read", {"path": "/home/alice/notes.txt"})
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("files__read", {"path": "/home/alice/../../etc/passwd"})
    assert ok.content[0].text == "contents of /home/alice/notes.txt"  # type: ignore[union-attr]
    assert caught.value.error.code == -32003
    assert "c-home-only" in caught.value.error.message
    assert caught.value.error.data == {"reason": "tool_denied", "rule": "c-home-only"}
    metrics = (await (await client.get("/metrics")).read()).decode()
    assert 'taskgate_authz_decisions_total{outcome="deny",reason="argument_constraint",surface="mcp"} 1.0' in metrics
    assert 'taskgate_authz_decisions_total{outcome="allow",reason="allowed",surface="mcp"}' in metrics


async def test_upstreams_see_taskgates_credentials_not_the_callers(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAIL_MCP_TOKEN", "Bearer taskgate-own-credential")
    model = await aiohttp_server(ToolCaller().app())
    async with serving(mail_server()) as mail:
        config = authz_config(keys, tmp_path, str(model.make_url("")).rstrip("/"))
        server = {"name": "mail", "url": mail, "headers_env": {"Authorization": "MAIL_MCP_TOKEN"}}
        config["mcp"] = {"servers": [server]}
        config["pipelines"]["mcp"] = ["authn", "authorize"]
        write_policy(tmp_path, (tmp_path / "policy.csv").read_text() + "p, profile:default, *, mail__whoami, call, x\n")
        client = await proxy(config)
        async with connect(client, bearer(keys)) as mcp:
            result = await mcp.call_tool("mail__whoami", {})
        assert result.content[0].text == "Bearer taskgate-own-credential"  # type: ignore[union-attr]
        await client.close()


async def test_calls_without_a_valid_token_get_401_and_unknown_sessions_are_refused(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    resp = await client.post("/mcp", json=init)
    assert resp.status == 401
    assert (await resp.json())["error"]["code"] == -32001
    resp = await client.post("/mcp", json=init, headers=bearer(keys))
    assert resp.status == 200
    session = resp.headers["Mcp-Session-Id"]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    resp = await client.post("/mcp", json=listing, headers={**bearer(keys), "Mcp-Session-Id": "nope"})
    assert resp.status == 404
    other = {"Authorization": f"Bearer {keys.token(sub='bob')}", "Mcp-Session-Id": session}
    resp = await client.post("/mcp", json=listing, headers=other)
    assert (await resp.json())["error"]["code"] == -32003  # someone else's session
    resp = await client.post("/mcp", data=b"{not json", headers=bearer(keys))
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == -32700
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await client.post("/mcp", json=note, headers=bearer(keys))).status == 202


async def test_protocol_edges_give_json_rpc_errors_and_sessions_close_only_for_their_caller(
    gateway: tuple[Any, Keys],
) -> None:
    client, keys = gateway
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    resp = await client.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=bearer(keys)
    )
    session = resp.headers["Mcp-Session-Id"]
    mine = {**bearer(keys), "Mcp-Session-Id": session}
    resp = await client.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ["x"]}, headers=mine
    )
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == -32600
    bob = {"Authorization": f"Bearer {keys.token(sub='bob')}", "Mcp-Session-Id": session}
    assert (await client.delete("/mcp", headers=bob)).status == 404
    assert (await client.delete("/mcp", headers={"Mcp-Session-Id": session})).status == 401
    assert (await client.delete("/mcp", headers=mine)).status == 204
    resp = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 4, "method": "ping"}, headers=mine)
    assert resp.status == 404  # closed


async def test_personal_data_in_an_argument_name_is_refused_and_unlisted_tool_names_are_unknown(
    gateway: tuple[Any, Keys],
) -> None:
    async with summary_session(gateway) as mcp:
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("files__read", {"path": "/home/alice/a", "carol.danvers@fastmail.com": "x"})
        assert caught.value.error.code == -32003
        assert "EMAIL_ADDRESS" in caught.value.error.message
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__Read", {"folder": "inbox"})
        assert caught.value.error.code in (-32602, -32003)


async def test_the_same_user_may_delete_under_a_cleanup_task_but_not_under_a_summary(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    resp = await client.post("/v1/chat/completions", json=ask("clean up my inbox"), headers=bearer(keys))
    cleanup = {**bearer(keys), "x-taskgate-task-token": resp.headers["x-taskgate-task-token"]}
    async with connect(client, cleanup) as mcp:
        names = sorted(t.name for t in (await mcp.list_tools()).tools)
        deleted = await mcp.call_tool("mail__delete", {"message_id": "42", "older_than_days": 90})
        with pytest.raises(MCPError) as caught:  # c-old-mail-only: only mail older than 30 days
            await mcp.call_tool("mail__delete", {"message_id": "43", "older_than_days": 1})
    assert "mail__delete" in names
    assert deleted.content[0].text == "deleted 42"  # type: ignore[union-attr]
    assert "c-old-mail-only" in caught.value.error.message


async def test_a_failed_refresh_of_an_upstreams_tool_list_is_a_json_rpc_error(gateway: tuple[Any, Keys]) -> None:
    from mcp.types import ErrorData

    client, _ = gateway
    async with summary_session(gateway) as mcp:
        await mcp.call_tool("mail__read", {})
        upstream = client.app[UPSTREAMS].by_name["mail"]

        async def broken(_client: Any) -> None:
            raise MCPError.from_error_data(ErrorData(code=-32603, message="listing failed"))

        upstream._list, upstream._listed_at = broken, 0.0
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__read", {})
    assert caught.value.error.code == -32603
    assert "could not list its tools" in caught.value.error.message
