"""Bad input on /mcp and /v1/tasks is a 4xx in the surface's format; a bad Authorization header is a 401 everywhere."""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any

import pytest
from mcp import MCPError

from tests.authz.conftest import Keys
from tests.authz.test_mcp import gateway, summary_session
from tests.authz.test_tasks import ask, bearer

__all__ = ["gateway"]

MCP_CALL = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "mail__read", "arguments": {}}}'


async def initialized(client: Any, keys: Keys) -> dict[str, str]:
    """Headers of an open MCP session for alice."""
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    resp = await client.post("/mcp", json=hello, headers=bearer(keys))
    assert resp.status == 200
    return {**bearer(keys), "Mcp-Session-Id": resp.headers["Mcp-Session-Id"], "Content-Type": "application/json"}


def rpc_error(body: dict[str, Any], code: int) -> dict[str, Any]:
    assert body["jsonrpc"] == "2.0"
    assert body["error"]["code"] == code, body
    assert "Traceback" not in body["error"]["message"]
    return dict(body["error"])


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "method": "ping"}', "duplicate_key"),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "mail__read", '
            b'"arguments": {"folder": "trash", "folder": "inbox"}}}',
            "duplicate_key",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "too_deep"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "\\udc00"}}', "invalid_unicode"),
    ],
)
async def test_an_mcp_body_taskgate_will_not_read_is_a_json_rpc_parse_error(
    gateway: tuple[Any, Keys], body: bytes, reason: str
) -> None:
    client, keys = gateway
    resp = await client.post("/mcp", data=body, headers=await initialized(client, keys))
    assert resp.status == 400
    error = rpc_error(await resp.json(), -32700)
    assert error["data"]["reason"] == reason


async def test_an_mcp_body_whose_encoding_lies_is_refused_and_a_true_one_is_read(gateway: tuple[Any, Keys]) -> None:
    """Item 8: a gzip header on a plain body was a 500 on every surface."""
    client, keys = gateway
    headers = await initialized(client, keys)
    lying = await client.post("/mcp", data=MCP_CALL, headers={**headers, "Content-Encoding": "gzip"})
    assert lying.status == 400
    assert rpc_error(await lying.json(), -32700)["data"]["reason"] == "invalid_encoding"
    ping = b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}'
    honest = await client.post("/mcp", data=gzip.compress(ping), headers={**headers, "Content-Encoding": "gzip"})
    assert honest.status == 200
    assert (await honest.json())["result"] == {}


async def test_an_mcp_header_longer_than_the_limit_is_a_json_rpc_error(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    headers = {**await initialized(client, keys), "X-Trace": "SECRET" * 2000}
    resp = await client.post("/mcp", data=MCP_CALL, headers=headers)
    assert resp.status == 431
    assert "SECRET" not in await resp.text()
    assert rpc_error(await resp.json(), -32600)["data"]["reason"] == "header_too_large"


async def raw_post(client: Any, path: str, body: bytes, authorization: bytes) -> tuple[int, dict[str, Any]]:
    """POST with the Authorization header's exact bytes (an HTTP client would encode them as UTF-8)."""
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(
        b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\n"
        b"Authorization: " + authorization + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    answer = await asyncio.wait_for(reader.read(), 10.0)
    writer.close()
    head, _, payload = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(payload)


@pytest.mark.parametrize("authorization", [b"Bearer \xe9", b"Bearer abc\xff.def", b"Bearer a\tb", b"Bearer \xc3\xa9"])
async def test_a_bearer_token_that_is_not_ascii_is_a_401_on_every_surface(
    gateway: tuple[Any, Keys], authorization: bytes
) -> None:
    """Item 9: a non-ASCII byte in Authorization was a 503 `step_failed` on chat and a 500 on /mcp."""
    client, _ = gateway
    status, chat = await raw_post(client, "/v1/chat/completions", json.dumps(ask("summarise")).encode(), authorization)
    assert status == 401
    assert chat["error"]["code"] == "token_malformed"
    hello = b'{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}'
    status, mcp = await raw_post(client, "/mcp", hello, authorization)
    assert status == 401
    assert rpc_error(mcp, -32001)["data"]["reason"] == "token_malformed"


async def test_a_tool_no_upstream_lists_is_invalid_params_before_any_policy(gateway: tuple[Any, Keys]) -> None:
    """Item 14: `nosuch__tool` got the policy's -32003; docs/mcp.md promises -32602."""
    async with summary_session(gateway) as mcp:
        for name in ("nosuch__tool", "mail__nosuch", "notool"):
            with pytest.raises(MCPError) as caught:
                await mcp.call_tool(name, {})
            assert caught.value.error.code == -32602, name
            assert "unknown tool" in caught.value.error.message


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"purpose": "a", "purpose": "b", "steps": []}', "duplicate_key"),
        (b'{"purpose": "a", "steps": ' + b"[" * 100 + b"]" * 100 + b"}", "too_deep"),
        (b'{"purpose": "\\ud800", "steps": []}', "invalid_unicode"),
    ],
)
async def test_a_workflow_body_taskgate_will_not_read_is_a_400(
    gateway: tuple[Any, Keys], body: bytes, code: str
) -> None:
    client, keys = gateway
    resp = await client.post("/v1/tasks", data=body, headers=bearer(keys))
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == code
