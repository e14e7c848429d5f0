"""The agent room's one contract with the gateway: a `Caller` that runs a model turn or a tool call for a task.

The gateway implements it (proxy.calls): each call runs its surface's plan
exactly as a client's own request would (authenticated under the task's
token, PII-guarded, placed with the conversation's cache in mind) and leaves
an evidence record of its own, which becomes one entry of the task's trace.
Arguments stay dicts end to end; results come back as values, never as
wire envelopes.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol

from aiohttp import web

from taskgate.errors import TaskgateError
from taskgate.plugins import FAILURES, Evidence, Principal, Problem, sse

Forward = Callable[[bytes], Awaitable[None]]
"""Receives a turn's content events (server-sent event bytes) as they pass the output guards."""
MAX_TURN_CHARS = 1 << 20  # one answer's content and tool calls; beyond this the turn fails rather than grow
MAX_CALLS = 128  # tool calls in one answer


class TurnFailed(TaskgateError):
    """A model call taskgate made itself (a tool-loop turn, a workflow step) ended without an answer.

    `status`, `code` and `message` are safe to show the client: an upstream's
    own refusal (a context too long, say) keeps its message.
    """

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@FAILURES.explains(TurnFailed)
def _turn_failed(exc: TurnFailed, evidence: Evidence) -> Problem:
    return Problem(exc.status, exc.code, exc.message, "upstream_error", cite=True)


@dataclass
class Turn:
    """One model call's answer, assembled from its stream."""

    content: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)  # index -> {id, name: [..], arguments: [..]}
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

    def event(self, event: bytes) -> bytes | None:
        """Fold one server-sent event of the model's stream in; what of it a client may see (its content), if any."""
        _, data = sse.parse(event)
        if data is None or data.strip() in (b"", b"[DONE]"):
            return None
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError):
            raise TurnFailed(502, "upstream_malformed", "the model's stream held an event that is not JSON") from None
        if not isinstance(chunk, dict):
            raise TurnFailed(502, "upstream_malformed", "the model's stream held an event that is not an object")
        if "error" in chunk:
            raise TurnFailed(502, "upstream_stream_error", "the model reported an error in the middle of its answer")
        text, only_content = self.take(chunk)
        if not text:
            return None
        if only_content:
            return event  # as the guards let it through
        choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}  # beside a finish: the content alone
        fields = {k: chunk[k] for k in ("id", "object", "created", "model") if k in chunk}
        return b"data: " + json.dumps({**fields, "choices": [choice]}).encode() + b"\n\n"

    def take(self, chunk: dict[str, Any]) -> tuple[str, bool]:
        """Fold one chat-completion chunk in: the content it added, and whether content is all it carried."""
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


@dataclass
class ToolResult:
    """One tool call's outcome, as the model will read it."""

    text: str
    ok: bool
    denied: bool = False
    rule: str | None = None


@dataclass(frozen=True)
class Tool:
    """A gateway tool as a model is offered it."""

    name: str  # SERVER__TOOL
    description: str
    parameters: dict[str, Any]


@dataclass
class Opening:
    """What opening a task on its instruction gave: the headers the plan's steps added, and who called."""

    headers: dict[str, str]  # lower case
    caller: Principal | None


class TaskTrace(Protocol):
    """A task's span in the gateway's traces: the parent of the turns and calls made inside its block."""

    def __enter__(self) -> TaskTrace: ...

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def outcome(self, status: str, task: str | None = None, error: str | None = None) -> None:
        """How the task ended, said before its block exits (a block that raises is a failed task)."""
        ...


class _Untraced:
    """A gateway that does not trace: the task's block runs as it is."""

    def __enter__(self) -> _Untraced:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def outcome(self, status: str, task: str | None = None, error: str | None = None) -> None:
        return None


UNTRACED: TaskTrace = _Untraced()


class Caller(Protocol):
    """The calls the agent room makes on a task's behalf."""

    @property
    def task_header(self) -> str:
        """Where the task id travels (lower case)."""
        ...

    @property
    def token_header(self) -> str:
        """Where the task's token travels (lower case)."""
        ...

    @property
    def servers(self) -> frozenset[str]:
        """The MCP servers the gateway serves tools of (empty: no tool calls here)."""
        ...

    def default_model(self) -> str:
        """The first model the gateway serves, for a task that names none."""
        ...

    async def model_turn(
        self,
        evidence: Evidence,
        headers: Mapping[str, str],
        body: dict[str, Any],
        forward: Forward | None = None,
        turn: Turn | None = None,
    ) -> Turn:
        """Run the chat plan on `body`, dispatch it streamed, assemble the answer into `turn`.

        Content-only events go to `forward` as they pass the output guards;
        tool-call pieces are assembled, never forwarded. Raises what the
        failure table explains when the turn ends without an answer.
        """
        ...

    async def tool_call(
        self,
        evidence: Evidence,
        headers: Mapping[str, str],
        name: str,
        arguments: dict[str, Any],
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the mcp plan on one call and forward it if allowed; a refusal is a result the model can read.

        `call_id` is the model's id for the call, where there is one (for the trace)."""
        ...

    def trace_task(self, evidence: Evidence, kind: str) -> TaskTrace:
        """The task's span (`kind`: `tool_loop`, `workflow`), for a `with` around its calls; UNTRACED when the
        gateway does not trace."""
        ...

    async def open_task(self, evidence: Evidence, headers: Mapping[str, str], body: dict[str, Any]) -> Opening:
        """Run the chat plan on `body` without dispatching anything: authenticate, scan, grant the task."""
        ...

    async def tools(self, servers: Sequence[str]) -> tuple[list[Tool], list[str]]:
        """The tools of `servers` (known to the gateway), and the servers that cannot list theirs now."""
        ...


CALLER = web.AppKey("taskgate.agent.caller", Caller)
"""Set by the gateway before the agent room's routes are added."""


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a note that says so (for a model or a client to read)."""
    return text if len(text) <= limit else text[:limit] + f"\n[taskgate: cut at {limit} characters]"
