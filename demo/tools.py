"""The demo's agent-gateway half: a signed-in user, an example policy, mail and metrics tool servers behind /mcp.

Secrets are generated for the run; the policy is written next to the
evidence file. The user, alice, is an operator: her role may use every mail
and metrics tool, but a task only gets the tools its intent profile needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jwt

from taskgate.authz.seal import seal

if TYPE_CHECKING:
    from mcp.server import MCPServer

ISSUER, AUDIENCE, TENANT = "https://idp.demo", "taskgate", "demo"
IDP_ENV, TASK_ENV = "TASKGATE_DEMO_IDP_SECRET", "TASKGATE_TASK_KEY"
SENDER = "carol.reyes@fastmail.com"  # the alert mail's: a person's address, which the PII step redacts
POLICY = """\
p, role:ops, demo, mail__*, call, r-ops-mail
p, role:ops, demo, metrics__*, call, r-ops-metrics
p, profile:code, *, mail__read, call, p-code-read
p, profile:code, *, mail__list, call, p-code-list
p, profile:code, *, metrics__latency, call, p-code-latency
p, profile:summarise, *, mail__read, call, p-summarise-read
p, profile:chat, *, mail__send, call, p-chat-send
p, profile:default, *, mail__list, call, p-default-list
p2, mail__send, *, to, provenance, instruction, c-recipient-from-user
g, alice, role:ops, demo
"""
MAIL_TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("mail__read", "mail__list", "mail__delete", "mail__send")
]
MAIL_READ_S, LATENCY_S = 0.25, 0.4  # what each tool takes: run together, a round lasts about the slower


def prepare(folder: Path) -> tuple[dict[str, Any], str]:
    """The authz section for the demo and alice's bearer token; secrets exist for this run only."""
    os.environ.setdefault(IDP_ENV, secrets.token_urlsafe(32))
    os.environ.setdefault(TASK_ENV, secrets.token_urlsafe(32))
    policy = folder / "policy.csv"
    policy.write_text(seal(POLICY))  # a policy is served only whole: it ends with its seal
    section = {
        "jwt": {
            "issuer": ISSUER, "audience": AUDIENCE, "algorithms": ["HS256"],
            "keys": [{"algorithm": "HS256", "secret_env": IDP_ENV}],
        },
        "policy": {"file": str(policy), "reload_interval_s": 0},
        "tasks": {"signing_secret_env": TASK_ENV},
    }  # fmt: skip
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "tenant": TENANT, "iat": now, "exp": now + 3600}
    return section, jwt.encode(claims, os.environ[IDP_ENV], algorithm="HS256")


def admin_token() -> str:
    """A token for the demo's operator, whose `admin` role the dashboard asks for (`ui.role`); after `prepare`."""
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "operator", "tenant": TENANT, "roles": ["admin"]}
    return jwt.encode({**claims, "iat": now, "exp": now + 8 * 3600}, os.environ[IDP_ENV], algorithm="HS256")


@contextlib.asynccontextmanager
async def tool_servers() -> AsyncIterator[dict[str, str]]:
    """The demo's MCP servers, each on its own 127.0.0.1 port: their URLs by gateway name."""
    async with serving(mail_server()) as mail, serving(metrics_server()) as metrics:
        yield {"mail": mail, "metrics": metrics}


def mail_server() -> MCPServer:
    """A real MCP server (the official SDK) with four mail tools."""
    from mcp.server import MCPServer

    server = MCPServer("mail")

    @server.tool()
    async def read(folder: str = "inbox") -> str:
        """Read the newest message of a folder."""
        await asyncio.sleep(MAIL_READ_S)
        return f"[{folder}] From {SENDER}: the payment-api alert fired twice after deploy 7781."

    @server.tool(name="list")
    def list_messages(folder: str = "inbox") -> list[str]:
        """List message subjects."""
        return [f"{folder}: payment-api alert", f"{folder}: deploy 7781 notes"]

    @server.tool()
    def delete(message_id: str) -> str:
        """Delete a message."""
        return f"deleted {message_id}"

    @server.tool()
    def send(to: str, body: str) -> str:
        """Send an email."""
        return f"sent to {to}"

    return server


def metrics_server() -> MCPServer:
    """A second, independent tool source: service latency, as a metrics backend would answer."""
    from mcp.server import MCPServer

    server = MCPServer("metrics")

    @server.tool()
    async def latency(service: str, window: str = "7d") -> str:
        """p99 latency of a service over a window, around its last deploy."""
        await asyncio.sleep(LATENCY_S)
        return f"{service} p99 over {window}: 180 ms until deploy 7781 (Fri 14:02), 410 ms since."

    return server


@contextlib.asynccontextmanager
async def serving(server: MCPServer) -> AsyncIterator[str]:
    """Serve an SDK MCP server over Streamable HTTP on a free 127.0.0.1 port, in this event loop; yields its URL.

    The demo, the tests and the benchmarks start their tool servers this way.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    async with serving_on(server, port) as url:
        yield url


@contextlib.asynccontextmanager
async def serving_on(server: MCPServer, port: int) -> AsyncIterator[str]:
    """Serve an SDK MCP server on 127.0.0.1:`port`, in this event loop; yields its URL."""
    import uvicorn

    logging.getLogger().setLevel(logging.WARNING)  # the SDK turns on INFO logging for everything
    config = uvicorn.Config(
        server.streamable_http_app(), host="127.0.0.1", port=port, log_level="error", lifespan="on",
        timeout_graceful_shutdown=1,  # a client holding a stream open must not stall the shutdown
    )  # fmt: skip
    runner = uvicorn.Server(config)
    task = asyncio.create_task(runner.serve())
    for _ in range(500):
        if runner.started or task.done():
            break
        await asyncio.sleep(0.01)
    if not runner.started:
        await task  # raises what stopped it (a port taken, say)
        raise RuntimeError(f"the MCP server did not start on port {port}")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        runner.should_exit = True
        await task


async def mcp_calls(base_url: str, token: str, task_token: str) -> list[tuple[str, int, str]]:
    """The agent's tool calls through taskgate's /mcp under its task: (label, status, note)."""
    import httpx2
    from mcp import Client, MCPError
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}", "x-taskgate-task-token": task_token}
    out: list[tuple[str, int, str]] = []
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode="legacy") as client,
    ):
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        out.append(("mcp: tools/list", 200, "sees " + ", ".join(tools)))
        result = await client.call_tool("mail__read", {"folder": "inbox"})
        text = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
        out.append(("mcp: mail__read", 200, text[:60]))
        try:
            deleted = await client.call_tool("mail__delete", {"message_id": "42"})
            refused = deleted.is_error and "io.taskgate/refusal" in (deleted.meta or {})
            why = deleted.content[0].text if refused and hasattr(deleted.content[0], "text") else "allowed"
            out.append(
                (
                    "mcp: mail__delete",
                    403 if refused else 200,
                    why.removeprefix("taskgate refused this tool call: ")[:90],
                )
            )
        except MCPError as exc:  # a gateway answering refusals as JSON-RPC errors (mcp.refusals: error)
            out.append(("mcp: mail__delete", 403, exc.error.message[:90]))
    return out
