"""The gateway's side of the agent room's `Caller`: a model turn through the chat plan; tool calls by the MCP room.

The tool loop and `/v1/tasks` run one task as many such calls. A model turn
takes the one path out (`decide`, `send`) and reads the streamed answer with
the same reader a client's stream uses, folding it into a Turn instead of
writing it to a client. Tool calls belong to the surface that reaches tool
servers: the front door hands this caller that room's `ToolCalls` (or none).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from taskgate.agent.types import UNTRACED, Forward, Opening, TaskTrace, Tool, ToolResult, Turn, TurnFailed
from taskgate.plugins import IDENTITY, PLACEMENT, SERVED_MODELS, RequestContext, Surface
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.sse import EventSplitter

from .answer import Answer, StreamFailed
from .decide import added_headers, decide
from .errors import UpstreamUnavailable
from .filters import without_tool_call_checks
from .gateway import Gateway, release
from .send import outgoing, send

CHAT_PATH = "/v1/chat/completions"
STREAMED = {"stream": True, "stream_options": {"include_usage": True}}


class ToolCalls(Protocol):
    """Where a task's tool calls go: the surface that reaches tool servers (the MCP gateway)."""

    servers: frozenset[str]

    async def tools(self, servers: Sequence[str]) -> tuple[list[Tool], list[str]]: ...

    async def call(
        self, evidence: Evidence, headers: Mapping[str, str], name: str, arguments: dict[str, Any]
    ) -> ToolResult: ...


class NoTools:
    """A gateway with no tool servers: nothing to list, and every call says so."""

    servers: frozenset[str] = frozenset()

    async def tools(self, servers: Sequence[str]) -> tuple[list[Tool], list[str]]:
        return [], list(servers)

    async def call(
        self, evidence: Evidence, headers: Mapping[str, str], name: str, arguments: dict[str, Any]
    ) -> ToolResult:
        return ToolResult("taskgate could not run this tool call: this gateway has no MCP servers", False)


class GatewayCaller:
    """The agent room's Caller, as this gateway answers it."""

    def __init__(self, gateway: Gateway, tool_calls: ToolCalls):
        self.gateway, self.tool_calls = gateway, tool_calls
        self.task_header, self.token_header = gateway.services.task_headers()
        self.servers = tool_calls.servers

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
            return await self._model_turn(evidence, headers, body, forward, turn or Turn())
        with tracing.model_turn(evidence, str(body.get("model"))):  # the span ends with the turn's record
            return await self._model_turn(evidence, headers, body, forward, turn or Turn())

    async def _model_turn(
        self, evidence: Evidence, headers: Mapping[str, str], body: dict[str, Any], forward: Forward | None, turn: Turn
    ) -> Turn:
        evidence.surface, evidence.model = Surface.CHAT, str(body.get("model"))
        raw = json.dumps(body).encode()
        context = RequestContext.parsed(evidence.request_id, Surface.CHAT, CHAT_PATH, headers, raw, body)
        decision = await decide(self.gateway, Surface.CHAT, context, evidence, STREAMED)
        decision.filters = without_tool_call_checks(decision.filters)
        async with send(self.gateway, evidence, decision, CHAT_PATH, outgoing(evidence)) as answer:
            turn.headers = {name.lower(): value for name, value in answer.headers.items()}
            if answer.status >= 400:
                failed = await answer.error()
                raise TurnFailed(failed.status if failed.status < 500 else 502, failed.code, failed.message)
            await _fold(answer, turn, forward)
        return turn

    async def open_task(self, evidence: Evidence, headers: Mapping[str, str], body: dict[str, Any]) -> Opening:
        """The chat plan on the task's instruction, nothing dispatched: what it placed is released at once."""
        raw = json.dumps(body).encode()
        context = RequestContext.parsed(evidence.request_id, Surface.CHAT, CHAT_PATH, headers, raw, body)
        values = await self.gateway.run_plan(Surface.CHAT, context, evidence)
        release(values.get(PLACEMENT))  # opening places nothing: each model step is placed when it runs
        added = added_headers(self.gateway.outputs(Surface.CHAT, values))
        return Opening({name.lower(): value for name, value in added.items()}, values.get(IDENTITY))

    async def tools(self, servers: Sequence[str]) -> tuple[list[Tool], list[str]]:
        return await self.tool_calls.tools(servers)

    async def tool_call(
        self,
        evidence: Evidence,
        headers: Mapping[str, str],
        name: str,
        arguments: dict[str, Any],
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the tool servers' plan for one call (grant, arguments, PII) and forward it if allowed."""
        tracing = self.gateway.tracing
        if tracing is None:
            return await self.tool_calls.call(evidence, headers, name, arguments)
        with tracing.tool_call(evidence, name, call_id):  # the span ends with the call's record
            return await self.tool_calls.call(evidence, headers, name, arguments)


async def _fold(answer: Answer, turn: Turn, forward: Forward | None) -> None:
    """The streamed answer, event by event, into `turn`; what a client may see of it passed to `forward`."""
    splitter = EventSplitter()
    try:
        async for piece in answer.stream(flushing=forward is not None):
            for event in splitter.feed(piece):
                await _fold_event(turn, event, forward)
        await _fold_event(turn, splitter.rest(), forward)
    except StreamFailed as exc:
        if exc.code == "output_refused":
            raise TurnFailed(502, "output_refused", exc.message) from None
        if exc.code == "upstream_truncated":
            raise TurnFailed(502, "upstream_truncated", "the model's stream ended before it was finished") from None
        raise UpstreamUnavailable(f"upstream {answer.log.endpoint!r} broke off: {answer.log.outcome}") from None
    except ConnectionResetError:  # writing to the client failed: the client left, the endpoint did nothing wrong
        answer.client_left()
        raise
    except TurnFailed:
        if not answer.log.outcome.startswith("output_refused"):
            answer.log.outcome = "upstream_malformed"
        raise


async def _fold_event(turn: Turn, event: bytes, forward: Forward | None) -> None:
    if (shown := turn.event(event)) and forward is not None:
        await forward(shown)
