"""Calls taskgate makes on a task's behalf: a model turn through the chat plan, a tool call through the mcp plan.

The tool loop and `/v1/tasks` run one task as many such calls. Each runs its
surface's plan exactly as a client's own request would (authenticated, under
the task's token, PII-guarded, placed with the conversation's cache in mind)
and leaves an evidence record of its own, which becomes one entry of the
task's trace.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import structlog
from mcp.types.version import LATEST_HANDSHAKE_VERSION

from taskgate.authz.config import TaskConfig
from taskgate.dag import Halt, StepFailed
from taskgate.dag.errors import describe
from taskgate.dag.types import Outcome
from taskgate.plugins import PAYLOAD, PLACEMENT, OutputRefused, Placement, Reject, RequestContext, sse
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.sse import EventSplitter

from .errors import ClientError, PlanIncomplete, TurnFailed, UpstreamUnavailable, upstream_error
from .mcp import FORBIDDEN, McpDispatch, RpcError, call_tool, find_tool, run_mcp_plan
from .mcp_upstream import Upstreams
from .outputs import added_headers, apply_edits, release, response_filters, run_plan, step_outputs
from .relay import BROKE, MAX_ERROR_BYTES, STALLED, TRUNCATED, Chunks, Dispatch, FilterChain, Stalled, cached_tokens
from .state import Gateway
from .upstream import attempt_outcome, open_upstream, placement_headers

logger = structlog.get_logger("taskgate")

CALL_FAILURES = (Reject, ClientError, TurnFailed, UpstreamUnavailable, StepFailed, Halt, PlanIncomplete)
"""What ends a call taskgate makes for a task on purpose or for a known reason (anything else is a bug)."""
CHAT_PATH = "/v1/chat/completions"
MAX_TURN_CHARS = 1 << 20  # one answer's content and tool calls; beyond this the turn fails rather than grow
MAX_CALLS = 128  # tool calls in one answer
Forward = Callable[[bytes], Awaitable[None]]


@dataclass
class Turn:
    """One model call's answer, assembled from its stream."""

    content: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)  # index -> {id, name, arguments}
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)  # what the plan's steps and the placement add (lower case)
    size: int = 0  # characters assembled so far

    @property
    def text(self) -> str:
        return "".join(self.content)

    def tool_calls(self) -> list[dict[str, Any]]:
        """The calls in the OpenAI message shape, in index order."""
        return [
            {
                "id": call["id"] or f"call_{index}",
                "type": "function",
                "function": {"name": "".join(call["name"]), "arguments": "".join(call["arguments"])},
            }
            for index, call in sorted(self.calls.items())
        ]

    def take(self, chunk: dict[str, Any]) -> tuple[str, bool]:
        """Fold one chunk in: the content it added, and whether content is all it carried."""
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        text, only_content = "", True
        for choice in _listed(chunk.get("choices")):
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                only_content = False
                continue
            delta = _object(choice.get("delta"))
            if isinstance(delta.get("content"), str) and delta["content"]:
                text += delta["content"]
            for piece in _listed(delta.get("tool_calls")):
                self._call_piece(piece)
                only_content = False
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
                only_content = False
        if text:
            self.content.append(text)
            self.size += len(text)
        return text, only_content

    def _call_piece(self, piece: Any) -> None:
        piece = _object(piece)
        index, function = piece.get("index", 0), _object(piece.get("function"))
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < MAX_CALLS:
            raise TurnFailed(502, "upstream_malformed", "the model sent a tool call taskgate cannot read")
        call = self.calls.setdefault(index, {"id": None, "name": [], "arguments": []})
        call["id"] = str(piece["id"]) if piece.get("id") else call["id"]
        for key in ("name", "arguments"):
            if function.get(key):
                call[key].append(str(function[key]))
                self.size += len(call[key][-1])
        if self.size > MAX_TURN_CHARS:
            raise TurnFailed(502, "upstream_too_large", f"the model's answer passed {MAX_TURN_CHARS} characters")


def _object(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TurnFailed(502, "upstream_malformed", "the model's stream held a field taskgate cannot read")
    return value


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TurnFailed(502, "upstream_malformed", "the model's stream held a field taskgate cannot read")
    return value


async def model_turn(
    gateway: Gateway,
    evidence: Evidence,
    headers: Mapping[str, str],
    body: dict[str, Any],
    forward: Forward | None = None,
    turn: Turn | None = None,
) -> Turn:
    """Run the chat plan for `body`, dispatch it streamed, and assemble the answer.

    Content-only events are handed to `forward` as they pass the output guards
    (so a final answer streams); tool-call pieces are assembled, never
    forwarded. The task's grant decides each tool call when it runs, so the
    guard that judges tool calls a client would run is left out here.
    """
    evidence.surface, evidence.model = "chat", str(body.get("model"))
    raw = json.dumps(body).encode()
    context = RequestContext.parsed(evidence.request_id, "chat", CHAT_PATH, headers, raw, body)
    values = await run_plan(gateway, "chat", context, evidence)
    placement = values.get(PLACEMENT)
    if not isinstance(placement, Placement):
        raise PlanIncomplete(f"plan 'chat' gave no placement (got {type(placement).__name__})")
    outputs = step_outputs(gateway, "chat", values)
    sent = dict(values[PAYLOAD]) if isinstance(values.get(PAYLOAD), dict) else dict(body)
    try:
        apply_edits(sent, outputs)
    except BaseException:
        release(placement)
        raise
    sent |= {"model": placement.model, "stream": True, "stream_options": {"include_usage": True}}
    filters = [f for f in response_filters(outputs, "chat") if not getattr(f, "checks_tool_calls", False)]
    turn = turn if turn is not None else Turn()
    turn.headers = {name.lower(): value for name, value in added_headers(outputs).items()}
    await _dispatch(gateway, evidence, placement, json.dumps(sent).encode(), FilterChain(filters), turn, forward)
    return turn


async def _dispatch(
    gateway: Gateway,
    evidence: Evidence,
    placement: Placement,
    body: bytes,
    chain: FilterChain,
    turn: Turn,
    forward: Forward | None,
) -> None:
    log = Dispatch(started_ms=round((time.perf_counter() - evidence.started) * 1000.0, 3))
    evidence.dispatch = log
    headers = {"Content-Type": "application/json", "Accept-Encoding": "identity", "X-Request-Id": evidence.request_id}
    endpoint = None
    try:
        upstream, endpoint = await open_upstream(gateway, placement, CHAT_PATH, body, headers, log)
        turn.headers |= placement_headers(placement, endpoint, log)
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
    except asyncio.CancelledError:  # the loop's bound or the client ended it: nothing the endpoint did wrong
        if log.outcome == "pending":
            log.outcome = "client_disconnected"
        raise
    finally:
        if placement.observer is not None:
            if endpoint is not None:
                placement.observer.attempt_ended(endpoint, *attempt_outcome(log))
            placement.observer.finished(endpoint, log.engine_cached_tokens)


async def _read(
    upstream: aiohttp.ClientResponse, chain: FilterChain, turn: Turn, forward: Forward | None, log: Dispatch
) -> None:
    splitter, chunks = EventSplitter(), Chunks(upstream, log)
    try:
        while data := await chunks.next():
            for event in splitter.feed(_guarded(chain.chunk, data, log)):
                await _event(event, turn, forward)
        for event in [*splitter.feed(_guarded(chain.end, None, log)), splitter.rest()]:
            await _event(event, turn, forward)
    except ConnectionResetError:  # writing to the client failed: the client left, the endpoint did nothing wrong
        log.outcome = "client_disconnected"
        raise
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.outcome = f"{STALLED}: {exc}" if isinstance(exc, Stalled) else f"{BROKE}: {describe(exc)}"
        raise UpstreamUnavailable(f"upstream {log.endpoint!r} broke off: {describe(exc)}") from None
    except TurnFailed:
        log.outcome = log.outcome if log.outcome.startswith("output_refused") else "upstream_malformed"
        raise
    if turn.usage is not None:
        log.engine_cached_tokens = cached_tokens(json.dumps(turn.usage).encode())
    if not chunks.ended:
        log.outcome = TRUNCATED
        raise TurnFailed(502, "upstream_truncated", "the model's stream ended before it was finished")
    log.outcome = "completed"


def _guarded(filter_: Any, data: bytes | None, log: Dispatch) -> bytes:
    """Bytes through the output guards; a guard that cannot check them withholds the rest of the turn."""
    try:
        out: bytes = filter_(data) if data is not None else filter_()
    except Exception as exc:
        log.outcome = f"output_refused: {describe(exc)}"
        if not isinstance(exc, OutputRefused):
            logger.exception("output_guard_failed")
        message = str(exc) if isinstance(exc, OutputRefused) else "an output guard failed; the answer was withheld"
        raise TurnFailed(502, "output_refused", message) from None
    return out


async def _event(event: bytes, turn: Turn, forward: Forward | None) -> None:
    _, data = sse.parse(event)
    if data is None or data.strip() in (b"", b"[DONE]"):
        return
    try:
        chunk = json.loads(data)
    except (ValueError, RecursionError):
        raise TurnFailed(502, "upstream_malformed", "the model's stream held an event that is not JSON") from None
    if not isinstance(chunk, dict):
        raise TurnFailed(502, "upstream_malformed", "the model's stream held an event that is not an object")
    if "error" in chunk:
        raise TurnFailed(502, "upstream_stream_error", "the model reported an error in the middle of its answer")
    text, only_content = turn.take(chunk)
    if forward is None or not text:
        return
    if only_content:
        await forward(event)  # as the guards let it through
    else:  # content beside a finish or tool-call piece: the content alone
        choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
        fields = {k: chunk[k] for k in ("id", "object", "created", "model") if k in chunk}
        await forward(b"data: " + json.dumps({**fields, "choices": [choice]}).encode() + b"\n\n")


def _upstream_refusal(status: int, body: bytes) -> TurnFailed:
    """An upstream's own error answer, as the front door words it (a 4xx keeps the engine's message)."""
    code, message = upstream_error(status, body)
    return TurnFailed(status if status < 500 else 502, code, message)


@dataclass
class ToolResult:
    """One tool call's outcome, as the model will read it."""

    text: str
    ok: bool
    denied: bool = False
    rule: str | None = None


async def tool_call(
    gateway: Gateway,
    upstreams: Upstreams,
    evidence: Evidence,
    headers: Mapping[str, str],
    name: str,
    arguments: dict[str, Any],
) -> ToolResult:
    """Run the mcp plan for one tools/call (grant, arguments, PII) and forward it if allowed."""
    evidence.surface, evidence.model = "mcp", "tools/call"
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    raw = json.dumps(message).encode()
    context = RequestContext.parsed(evidence.request_id, "mcp", "/mcp", headers, raw, message)
    try:
        log = McpDispatch("tools/call")
        target = await find_tool(upstreams, message["params"], log)
        values = await run_mcp_plan(gateway, context, evidence)
        evidence.dispatch = log
        outputs = step_outputs(gateway, "mcp", values)
        result = await call_tool(target, context, outputs, log, LATEST_HANDSHAKE_VERSION)
    except RpcError as exc:
        if evidence.error is None:
            evidence.fail(str(exc.code), exc.message)
        rule = exc.data.get("rule") if isinstance(exc.data, dict) else None
        denied = exc.code == FORBIDDEN
        verb = "refused" if denied else "could not run"
        return ToolResult(f"taskgate {verb} this tool call: {exc.message}", False, denied, rule)
    return ToolResult(_text(result), not result.get("isError", False))


def failure(exc: BaseException) -> tuple[int, str, str]:
    """Status, code and a client-safe message for a call that ended with `exc`, as the front door would say them."""
    if isinstance(exc, Reject | ClientError | TurnFailed):
        return exc.status, exc.code, exc.message
    if isinstance(exc, UpstreamUnavailable):
        return exc.status, exc.code, exc.client_message
    if isinstance(exc, StepFailed):
        status, code = (504, "step_timeout") if exc.outcome is Outcome.TIMEOUT else (503, "step_failed")
        return status, code, f"step {exc.step!r} could not decide"
    if isinstance(exc, Halt):
        return 403, "halted", str(exc)
    if isinstance(exc, PlanIncomplete):
        return 503, "no_placement", "no upstream was chosen for this call"
    return 500, "internal_error", "the call failed inside taskgate"


def task_headers(gateway: Gateway) -> tuple[str, str]:
    """Where the task id and its token travel (the authz section's names, or their defaults), lower case."""
    tasks = getattr(gateway.services.sections.get("authz"), "tasks", None)
    if not isinstance(tasks, TaskConfig):
        return "x-taskgate-task", "x-taskgate-task-token"
    return tasks.header.lower(), tasks.token_header.lower()


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a note that says so (for a model or a client to read)."""
    return text if len(text) <= limit else text[:limit] + f"\n[taskgate: cut at {limit} characters]"


def _text(result: Mapping[str, Any]) -> str:
    """A tools/call result as text for the model: its text parts, else its structured content."""
    content = result.get("content") or []
    parts = [str(c.get("text", "")) for c in content if isinstance(c, dict) and c.get("type") == "text"]
    if parts:
        return "\n".join(parts)
    if "structuredContent" in result:
        return json.dumps(result["structuredContent"])
    return ""
