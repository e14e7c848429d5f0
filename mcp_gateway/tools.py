"""Tool calls a task makes through the gateway (the agent room's, by way of the gateway's Caller).

A call runs the `mcp` plan exactly as a client's tools/call does (grant,
arguments, PII) and is forwarded if allowed; its result comes back as text
for the model, a refusal as the reason the model reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mcp.types.version import LATEST_HANDSHAKE_VERSION

from taskgate.agent.types import Tool, ToolResult
from taskgate.gateway.gateway import Gateway
from taskgate.plugins import RequestContext, Surface
from taskgate.plugins.evidence import Evidence

from .forward import forward_call
from .rpc import APPROVAL_REQUIRED, FORBIDDEN, RpcError
from .upstream import Upstreams


class McpToolCalls:
    """The gateway's ToolCalls: the upstream MCP servers, as a task's calls reach them."""

    def __init__(self, gateway: Gateway, upstreams: Upstreams):
        self.gateway, self.upstreams = gateway, upstreams
        self.servers = frozenset(upstreams.by_name)

    async def tools(self, servers: Sequence[str]) -> tuple[list[Tool], list[str]]:
        listed, missing = await self.upstreams.catalog(list(servers))
        return [Tool(t.name, t.description or "", t.input_schema) for t in listed], missing

    async def call(
        self, evidence: Evidence, headers: Mapping[str, str], name: str, arguments: dict[str, Any]
    ) -> ToolResult:
        evidence.surface, evidence.model = Surface.MCP, "tools/call"
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        raw = json.dumps(message).encode()
        context = RequestContext.parsed(evidence.request_id, Surface.MCP, "/mcp", headers, raw, message)
        try:
            result = await forward_call(self.gateway, self.upstreams, context, evidence, LATEST_HANDSHAKE_VERSION)
        except RpcError as exc:
            if evidence.error is None:
                evidence.fail(str(exc.code), exc.message)
            rule = exc.data.get("rule") if isinstance(exc.data, dict) else None
            held = exc.code == APPROVAL_REQUIRED  # the model reads why; the task's user is asked
            denied = held or exc.code == FORBIDDEN
            verb = "held" if held else "refused" if denied else "could not run"
            return ToolResult(f"taskgate {verb} this tool call: {exc.message}", False, denied, rule)
        return ToolResult(_text(result), not result.get("isError", False))


def _text(result: Mapping[str, Any]) -> str:
    """A tools/call result as text for the model: its text parts, else its structured content."""
    content = result.get("content") or []
    parts = [str(c.get("text", "")) for c in content if isinstance(c, dict) and c.get("type") == "text"]
    if parts:
        return "\n".join(parts)
    if "structuredContent" in result:
        return json.dumps(result["structuredContent"])
    return ""
