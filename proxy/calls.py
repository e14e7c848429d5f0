"""The gateway's side of the agent room's `Caller`: a model turn through the chat plan, a tool call through mcp's.

The tool loop and `/v1/tasks` run one task as many such calls. A model turn
takes the one dispatch path (proxy.dispatch) with a sink that assembles a
Turn instead of relaying to a client; a tool call runs the MCP gateway's
plan and forwards the call with its arguments as a dict, as the gateway
does for a client's tools/call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import aiohttp
from mcp.types.version import LATEST_HANDSHAKE_VERSION

from taskgate.agent.types import UNTRACED, Forward, Opening, TaskTrace, Tool, ToolResult, Turn, TurnFailed
from taskgate.dag.errors import describe
from taskgate.plugins import DEFAULT_TASK_HEADERS, IDENTITY, PLACEMENT, SERVED_MODELS, TASK_HEADERS, RequestContext
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.sse import EventSplitter

from .dispatch import added, decide, send, step_outputs
from .errors import UpstreamUnavailable, upstream_error
from .mcp import APPROVAL_REQUIRED, FORBIDDEN, RpcError, forward_call
from .mcp_upstream import Upstreams
from .relay import MAX_ERROR_BYTES, TRUNCATED, Chunks, Dispatch, FilterChain, Paced, broke_off, refused
from .state import Gateway, release

CHAT_PATH = "/v1/chat/completions"
STREAMED = {"stream": True, "stream_options": {"include_usage": True}}


class GatewayCaller:
    """The agent room's Caller, as this gateway answers it."""

    def __init__(self, gateway: Gateway, upstreams: Upstreams | None):
        self.gateway, self.upstreams = gateway, upstreams
        self.task_header, self.token_header = _task_headers(gateway)
        self.servers = frozenset(upstreams.by_name) if upstreams is not None else frozenset()

    def default_model(self) -> str:
        served: tuple[str, ...] = self.gateway.services.shared(SERVED_MODELS, tuple)
        return served[0] if served else ""

    def trace_task(self, evidence: Evidence, kind: str) -> TaskTrace:
        tracing = self.gateway.tracing
        return tracing.task(evidence, kind) if tracing is not None else UNTRACED

    async def model_turn(
        self,
        evidence: Evidence,
        headers: Mapping[str, str],
        body: dict[str, Any],
        forward: Forward | None = None,
        turn: Turn | None = None,
    ) -> Turn:
        """Run the chat plan for `body`, dispatch it streamed, and assemble the answer.

        The task's grant decides each tool call when it runs, so the guard
        that judges tool calls a client would run is left out here.
        """
        tracing = self.gateway.tracing
        if tracing is None:
            return await self._model_turn(evidence, headers, body, forward, turn)
        with tracing.model_turn(evidence, str(body.get("model"))):  # the span ends with the turn's record
            return await self._model_turn(evidence, headers, body, forward, turn)

    async def _model_turn(
        self,
        evidence: Evidence,
        headers: Mapping[str, str],
        body: dict[str, Any],
        forward: Forward | None,
        turn: Turn | None,
    ) -> Turn:
        evidence.surface, evidence.model = "chat", str(body.get("model"))
        raw = json.dumps(body).encode()
        context = RequestContext.parsed(evidence.request_id, "chat", CHAT_PATH, headers, raw, body)
        decision = await decide(self.gateway, "chat", context, evidence, STREAMED)
        chain = FilterChain([f for f in decision.filters if not getattr(f, "checks_tool_calls", False)])
        turn = turn if turn is not None else Turn()
        sent = {"Content-Type": "application/json", "Accept-Encoding": "identity", "X-Request-Id": evidence.request_id}

        async def assemble(upstream: aiohttp.ClientResponse, ours: dict[str, str], log: Dispatch) -> Turn:
            turn.headers = {name.lower(): value for name, value in ours.items()}
            try:
                if upstream.status >= 400:
                    log.outcome = "completed"
                    raise _upstream_refusal(upstream.status, await upstream.content.read(MAX_ERROR_BYTES))
                await _read(upstream, chain, turn, forward, log)
            finally:
                if log.outcome == "completed":
                    upstream.release()
                else:
                    upstream.close()  # the engine stops generating for an answer nobody reads
            return turn

        return await send(self.gateway, evidence, decision, CHAT_PATH, sent, assemble)

    async def open_task(self, evidence: Evidence, headers: Mapping[str, str], body: dict[str, Any]) -> Opening:
        """The chat plan on the task's instruction, nothing dispatched: what it placed is released at once."""
        raw = json.dumps(body).encode()
        context = RequestContext.parsed(evidence.request_id, "chat", CHAT_PATH, headers, raw, body)
        values = await self.gateway.run_plan("chat", context, evidence)
        release(values.get(PLACEMENT))  # opening places nothing: each model step is placed when it runs
        headers = added(step_outputs(self.gateway, "chat", values))
        return Opening({name.lower(): value for name, value in headers.items()}, values.get(IDENTITY))

    async def tools(self, servers: Sequence[str]) -> tuple[list[Tool], list[str]]:
        if self.upstreams is None:
            return [], list(servers)
        listed, missing = await self.upstreams.catalog(list(servers))
        return [Tool(t.name, t.description or "", t.input_schema) for t in listed], missing

    async def tool_call(
        self,
        evidence: Evidence,
        headers: Mapping[str, str],
        name: str,
        arguments: dict[str, Any],
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the mcp plan for one tools/call (grant, arguments, PII) and forward it if allowed."""
        tracing = self.gateway.tracing
        if tracing is None:
            return await self._tool_call(evidence, headers, name, arguments)
        with tracing.tool_call(evidence, name, call_id):  # the span ends with the call's record
            return await self._tool_call(evidence, headers, name, arguments)

    async def _tool_call(
        self, evidence: Evidence, headers: Mapping[str, str], name: str, arguments: dict[str, Any]
    ) -> ToolResult:
        if self.upstreams is None:
            return ToolResult("taskgate could not run this tool call: this gateway has no MCP servers", False)
        evidence.surface, evidence.model = "mcp", "tools/call"
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        context = RequestContext.parsed(
            evidence.request_id, "mcp", "/mcp", headers, json.dumps(message).encode(), message
        )
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


def _task_headers(gateway: Gateway) -> tuple[str, str]:
    """Where the task id and its token travel, as the step that grants tasks set them (else the defaults)."""
    found: tuple[str, str] = gateway.services.shared(TASK_HEADERS, lambda: DEFAULT_TASK_HEADERS)
    return found


async def _read(
    upstream: aiohttp.ClientResponse, chain: FilterChain, turn: Turn, forward: Forward | None, log: Dispatch
) -> None:
    splitter, chunks = EventSplitter(), Chunks(upstream, log)

    async def flush() -> None:  # the next chunk is late: what the guards hold goes out as it stands
        for event in splitter.feed(_guarded(chain.flush, None, log)):
            if (shown := turn.event(event)) and forward is not None:
                await forward(shown)

    paced = Paced(chunks, chain.flush_after_s if forward is not None else None, flush)
    try:
        while data := await paced.next():
            for event in splitter.feed(_guarded(chain.chunk, data, log)):
                if (shown := turn.event(event)) and forward is not None:
                    await forward(shown)
        for event in [*splitter.feed(_guarded(chain.end, None, log)), splitter.rest()]:
            if (shown := turn.event(event)) and forward is not None:
                await forward(shown)
    except ConnectionResetError:  # writing to the client failed: the client left, the endpoint did nothing wrong
        log.outcome = "client_disconnected"
        raise
    except (aiohttp.ClientError, TimeoutError) as exc:
        broke_off(exc, log)
        raise UpstreamUnavailable(f"upstream {log.endpoint!r} broke off: {describe(exc)}") from None
    except TurnFailed:
        log.outcome = log.outcome if log.outcome.startswith("output_refused") else "upstream_malformed"
        raise
    if not chunks.ended:
        log.outcome = TRUNCATED
        raise TurnFailed(502, "upstream_truncated", "the model's stream ended before it was finished")
    log.outcome = "completed"


def _guarded(filter_: Any, data: bytes | None, log: Dispatch) -> bytes:
    """Bytes through the output guards; a guard that cannot check them withholds the rest of the turn."""
    try:
        out: bytes = filter_(data) if data is not None else filter_()
    except Exception as exc:
        message = refused(exc, log, "an output guard failed; the answer was withheld")
        raise TurnFailed(502, "output_refused", message) from None
    return out


def _upstream_refusal(status: int, body: bytes) -> TurnFailed:
    """An upstream's own error answer, as the front door words it (a 4xx keeps the engine's message)."""
    code, message = upstream_error(status, body)
    return TurnFailed(status if status < 500 else 502, code, message)


def _text(result: Mapping[str, Any]) -> str:
    """A tools/call result as text for the model: its text parts, else its structured content."""
    content = result.get("content") or []
    parts = [str(c.get("text", "")) for c in content if isinstance(c, dict) and c.get("type") == "text"]
    if parts:
        return "\n".join(parts)
    if "structuredContent" in result:
        return json.dumps(result["structuredContent"])
    return ""
