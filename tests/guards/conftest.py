"""A real upstream on 127.0.0.1 that records bodies and answers with scripted text, whole or in chosen pieces;
the MCP gateway in front of a real SDK server, with real keys and task tokens."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from mcp import Client
from mcp.server import MCPServer

from taskgate.demo.tools import serving
from tests.authz import conftest as authz_fixtures
from tests.authz.conftest import Keys
from tests.authz.policy import authz_config
from tests.authz.test_mcp import connect
from tests.authz.test_tasks import ask, bearer
from tests.authz.upstream import ToolCaller
from tests.conftest import CARD, EMAIL, PHONE

PII_PROMPT = f"My name is Maria Gonzalez. Email me at {EMAIL} or call {PHONE}; charge the card {CARD} for the renewal."


@dataclass
class Scripted:
    """Answers every chat call with `pieces` (one SSE event each when streamed; joined when whole)."""

    pieces: list[str] = field(default_factory=lambda: ["Done."])
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> web.Application:
        async def chat(request: web.Request) -> web.StreamResponse:
            body = json.loads(await request.read())
            self.bodies.append(body)
            head = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": body["model"]}
            if not body.get("stream"):
                message = {"role": "assistant", "content": "".join(self.pieces)}
                choice = {"index": 0, "message": message, "finish_reason": "stop"}
                return web.json_response({**head, "object": "chat.completion", "choices": [choice]})
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            for i, piece in enumerate(self.pieces):
                delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                last = i == len(self.pieces) - 1
                event = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if last else None}]}
                await response.write(b"data: " + json.dumps(event).encode() + b"\n\n")
            await response.write(b"data: [DONE]\n\n")
            return response

        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        return app


@pytest.fixture
async def scripted(aiohttp_server: Any) -> tuple[Scripted, str]:
    upstream = Scripted()
    server = await aiohttp_server(upstream.app())
    return upstream, str(server.make_url("")).rstrip("/")


def pii_config(url: str, params: dict[str, Any] | None = None, **step: Any) -> dict[str, Any]:
    """A proxy with the pii step before routing, one pool `default` in region eu at `url`, model m."""
    pool = {"name": "default", "region": "eu", "endpoints": [{"name": "up", "url": url}], "models": [{"name": "m"}]}
    return {
        "routing": {"pools": [pool]},
        "steps": [{"name": "pii", "type": "guards.pii", "params": params or {}, **step}],
        "pipelines": {"chat": ["pii", "state", "route"]},
        "logging": {"evidence": False},
    }


# The MCP surface: the gateway needs authentication and a task grant, as tests/authz sets them up.
key_pairs = authz_fixtures.key_pairs  # fixtures: real key pairs on disk, for real JWTs
keys = authz_fixtures.keys


@dataclass
class RecordingMail:
    """A real SDK MCP server named `mail` whose `read` tool records every call's arguments."""

    seen: list[dict[str, str]] = field(default_factory=list)

    def server(self) -> MCPServer:
        server = MCPServer("mail")

        @server.tool()
        def read(folder: str = "inbox", label: str = "") -> str:
            """Read the newest message of a folder."""
            self.seen.append({"folder": folder, "label": label})
            return f"[{folder}] nothing new"

        return server


@dataclass
class McpGateway:
    client: Any
    keys: Keys
    mail: RecordingMail

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[Client]:
        """An SDK client session through taskgate under a `summarise` task (mail__read is granted)."""
        resp = await self.client.post(
            "/v1/chat/completions", json=ask("summarise my email from this week"), headers=bearer(self.keys)
        )
        assert resp.status == 200, await resp.text()
        headers = {**bearer(self.keys), "x-taskgate-task-token": resp.headers["x-taskgate-task-token"]}
        async with connect(self.client, headers) as mcp:
            yield mcp


@pytest.fixture
async def mcp_gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[McpGateway]:
    """taskgate's MCP gateway (authn, authorize, pii) in front of RecordingMail, PII_BLOCKING rules."""
    model = await aiohttp_server(ToolCaller().app())
    mail = RecordingMail()
    async with serving(mail.server()) as url:
        config = authz_config(keys, tmp_path, str(model.make_url("")).rstrip("/"))
        config["mcp"] = {"servers": [{"name": "mail", "url": url}]}
        config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns", **PII_BLOCKING}})
        config["pipelines"]["mcp"] = ["authn", "authorize", "pii"]
        client = await proxy(config)
        yield McpGateway(client, keys, mail)
        await client.close()


# Structured entities refused, addresses redacted: the rules the smuggling tests run under.
PII_BLOCKING: dict[str, Any] = {
    "entities": {
        "CREDIT_CARD": {"action": "block"},
        "US_SSN": {"action": "block"},
        "IBAN_CODE": {"action": "block"},
        "EMAIL_ADDRESS": {"action": "redact"},
    }
}
