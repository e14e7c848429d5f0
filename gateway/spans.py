"""What a finished evidence record says on its spans: status, error, a denial's rule, where a model call ran.

A record's spans (`Evidence.trace`) end together when the record is finished,
so they carry what the record knows by then: the status the client got, the
error code, the dispatch log (endpoint, attempts, first chunk) and the token
usage. A task's span ends when its block does (`TaskSpan`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from contextvars import Token
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import context as contexts
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from taskgate.plugins import Placement
from taskgate.plugins.evidence import Evidence


class Spans:
    """The spans of one evidence record: its own, and those opened under it (a client's model call, an MCP
    request); they end together when the record is finished, the innermost first."""

    __slots__ = ("placement", "rpc_code", "spans")

    def __init__(self, own: Span, role: str):
        self.spans: list[tuple[Span, str]] = [(own, role)]
        self.placement: Placement | None = None
        self.rpc_code: int | None = None  # the JSON-RPC error an MCP request was answered with

    def add(self, span: Span, role: str) -> None:
        self.spans.append((span, role))

    @property
    def model(self) -> Span | None:
        return next((span for span, role in self.spans if role == "model"), None)

    def finish(self, evidence: Evidence) -> None:
        for span, role in reversed(self.spans):
            if span.is_recording():
                _ENDS[role](self, span, evidence)
                _outcome(span, evidence, str(self.rpc_code) if role == "mcp" and self.rpc_code is not None else None)
            span.end()


def _end_request(spans: Spans, span: Span, evidence: Evidence) -> None:
    found: dict[str, Any] = {"http.response.status_code": evidence.status or 0}
    if evidence.surface:
        found["taskgate.surface"] = evidence.surface
    span.set_attributes(found)


def _end_model(spans: Spans, span: Span, evidence: Evidence) -> None:
    """Where routing placed the call and how dispatch went: pool, endpoint, prefix hit, fallbacks, usage. Set
    at once (one lock, one validation pass); an event per attempt only when there was more than one."""
    placement, log = spans.placement, evidence.dispatch
    found = _placed(placement, getattr(log, "endpoint", None)) if placement is not None else {}
    attempts = getattr(log, "attempts", None) or []
    if log is not None:
        found["taskgate.fallbacks"] = max(0, len(attempts) - 1)
        found["taskgate.dispatch.outcome"] = getattr(log, "outcome", "pending")
        first = getattr(log, "first_chunk_ms", None)
        if first is not None:
            found["gen_ai.response.time_to_first_chunk"] = first / 1000.0
    usage = getattr(evidence, "usage", None)  # token accounting's, when it is there
    if isinstance(usage, Mapping):
        found.update({attribute: usage[key] for key, attribute in USAGE.items() if isinstance(usage.get(key), int)})
    span.set_attributes(found)
    if len(attempts) > 1:
        for attempt in attempts:
            span.add_event("attempt", {k: v for k, v in attempt.items() if isinstance(v, str | int | float | bool)})


USAGE = {
    "prompt_tokens": "gen_ai.usage.input_tokens",
    "completion_tokens": "gen_ai.usage.output_tokens",
    "cached_tokens": "gen_ai.usage.cache_read.input_tokens",
}


def _placed(placement: Placement, answered: str | None) -> dict[str, Any]:
    candidates = (placement.endpoint, *placement.fallbacks)
    endpoint = next((e for e in candidates if e.name == answered), placement.endpoint)
    host, port = address(endpoint.url)
    attributes: dict[str, Any] = {
        "gen_ai.response.model": placement.model,
        "server.address": host,
        "server.port": port,
        "taskgate.pool": endpoint.pool,
        "taskgate.endpoint": endpoint.name,
        "taskgate.prefix_hit_tokens": placement.predicted_cached_tokens if endpoint is placement.endpoint else 0,
        "taskgate.routing.reason": placement.reason,
    }
    if placement.fallbacks:
        attributes["taskgate.routing.candidates"] = [e.name for e in candidates]
    if endpoint.region:
        attributes["taskgate.region"] = endpoint.region
    if isinstance(placement.details.get("class"), str):
        attributes["taskgate.request_class"] = placement.details["class"]
    return attributes


def _end_mcp(spans: Spans, span: Span, evidence: Evidence) -> None:
    if getattr(evidence.dispatch, "outcome", None) == "tool_error":
        failed(span, "tool_error", "the tool reported an error")


def _end_tool(spans: Spans, span: Span, evidence: Evidence) -> None:
    server = getattr(evidence.dispatch, "server", None)
    if server:
        span.set_attribute("taskgate.mcp.server", server)
    _end_mcp(spans, span, evidence)


_ENDS = {"request": _end_request, "model": _end_model, "mcp": _end_mcp, "tool": _end_tool}


def _outcome(span: Span, evidence: Evidence, rpc_code: str | None) -> None:
    """The record's error, if any: the span's status, `error.type` its code (an MCP span's: the JSON-RPC code,
    beside taskgate's own as `taskgate.error.code`), a denial's rule."""
    error = evidence.error
    if not error:
        return
    code = str(error.get("code", "error"))
    if rpc_code is None and error.get("answered_as") == "isError result":  # a refusal the model reads: a tool error
        rpc_code = "tool_error"
    failed(span, rpc_code or code, str(error.get("message", ""))[:200])
    if rpc_code == "tool_error":
        span.set_attribute("taskgate.error.code", code)
    elif rpc_code is not None or code.lstrip("-").isdigit():
        span.set_attribute("rpc.response.status_code", rpc_code or code)
        span.set_attribute("taskgate.error.code", code)
    decision = error.get("decision")
    if isinstance(decision, Mapping) and decision.get("rule"):
        span.set_attribute("taskgate.authz.rule", str(decision["rule"]))


def failed(span: Span, code: str, message: str) -> None:
    span.set_attribute("error.type", code)
    span.set_status(Status(StatusCode.ERROR, message or code))


class TaskSpan:
    """A task taskgate runs (a tool loop, a workflow): the parent of its turns and calls while its block runs."""

    def __init__(self, tracer: Tracer, evidence: Evidence, kind: str):
        self.tracer, self.evidence, self.kind = tracer, evidence, kind
        self.status: str = "running"
        self.task: str | None = None
        self.error: str | None = None
        self.span: Span = trace.INVALID_SPAN
        self._token: Token[Context] | None = None

    def __enter__(self) -> TaskSpan:
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": self.kind,
            "taskgate.request_id": self.evidence.request_id,
        }
        self.span = self.tracer.start_span(f"invoke_agent {self.kind}", kind=SpanKind.INTERNAL, attributes=attributes)
        self._token = contexts.attach(trace.set_span_in_context(self.span))
        return self

    def outcome(self, status: str, task: str | None = None, error: str | None = None) -> None:
        """How the task ended (said before its block exits)."""
        self.status, self.task, self.error = status, task, error

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._token is not None:
            contexts.detach(self._token)
        if kind is not None:  # the block raised: the request's span says what the client was told
            cancelled = issubclass(kind, asyncio.CancelledError)
            self.status, self.error = ("cancelled", None) if cancelled else ("failed", self.error or kind.__name__)
        span = self.span
        span.set_attribute("taskgate.task.status", self.status)
        if self.task:
            span.set_attribute("taskgate.task.id", self.task)
        if self.error:
            failed(span, self.error, f"the task ended {self.status}")
        span.end()


@functools.lru_cache(maxsize=256)
def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
