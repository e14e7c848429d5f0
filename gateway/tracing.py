"""OpenTelemetry traces: a span per request, plan and step, model call, tool call, task and MCP exchange.

Off (the default), nothing here is built: the gateway's `tracing` is None and
every hook is one check. On, the front door starts a server span per request
(continuing a client's W3C `traceparent`), and each record's spans end when the
record is finished (`Evidence.trace`; proxy/spans.py), so they carry its status,
error and usage.
Spans that have children are the current context while their work runs, so
calls made in tasks inherit their parent. Names and attributes follow the
OpenTelemetry GenAI and MCP conventions (`chat {model}`, `execute_tool {tool}`,
`invoke_agent {name}`, `{mcp.method.name} {target}`); taskgate's own are
`taskgate.*`. docs/tracing.md lists them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from aiohttp import web
from opentelemetry import context as contexts
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from taskgate import __version__
from taskgate.dag import Execution, Outcome
from taskgate.plugins import Placement
from taskgate.plugins.evidence import Evidence

from .config import TracingConfig
from .spans import Spans, TaskSpan, address, failed

OPERATIONS = {"chat": "chat", "responses": "chat", "completions": "text_completion", "embeddings": "embeddings"}
FAILED = frozenset({Outcome.FAILED, Outcome.TIMEOUT, Outcome.HALTED})
_W3C = TraceContextTextMapPropagator()


def exporter(settings: TracingConfig) -> SpanExporter:
    if settings.exporter == "console":
        return ConsoleSpanExporter(service_name=settings.service_name)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # protobuf: only when used

    return OTLPSpanExporter(str(settings.endpoint), headers=settings.export_headers(), timeout=settings.timeout_s)


class Tracing:
    """The gateway's tracer and the span shapes it makes; `provider` is the config's, or one a test hands in."""

    def __init__(self, settings: TracingConfig, provider: trace.TracerProvider | None = None):
        self.settings, self.owned = settings, provider is None
        if provider is None:
            sampler = ParentBased(TraceIdRatioBased(settings.sample_ratio))
            built = TracerProvider(resource=Resource.create({"service.name": settings.service_name}), sampler=sampler)
            built.add_span_processor(BatchSpanProcessor(exporter(settings)))  # exports on a thread of its own
            provider = built
        self.provider = provider
        self.tracer = provider.get_tracer("taskgate", __version__)
        self.provider_name = settings.provider_name

    def shutdown(self) -> None:
        """Flush and stop a provider built from config; one handed in belongs to whoever made it."""
        if self.owned and isinstance(self.provider, TracerProvider):
            self.provider.shutdown()

    def span(self, name: str, kind: SpanKind, attributes: Mapping[str, Any], **more: Any) -> Span:
        return self.tracer.start_span(name, kind=kind, attributes=attributes, **more)

    @contextmanager
    def current(self, span: Span) -> Iterator[Span]:
        """`span` is the parent of what starts inside the block (tasks created there inherit it)."""
        token = contexts.attach(trace.set_span_in_context(span))
        try:
            yield span
        finally:
            contexts.detach(token)

    @contextmanager
    def request(self, request: web.Request, evidence: Evidence) -> Iterator[Span]:
        """A client's request: a server span, continuing the client's trace context if it sent one."""
        parent = _W3C.extract(request.headers) if "traceparent" in request.headers else None
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else None
        attributes = {
            "http.request.method": request.method,
            "url.path": request.path,
            "taskgate.request_id": evidence.request_id,
            **({"http.route": route} if route else {}),
        }
        span = self.span(
            f"{request.method} {route}" if route else request.method, SpanKind.SERVER, attributes, context=parent
        )
        evidence.trace = Spans(span, "request")
        with self.current(span):
            yield span

    def plan(self, surface: str, run: Execution) -> None:
        """A plan that ran, and each of its steps, as spans made after the fact from the engine's records."""
        now = time.time_ns()
        started = now - int(run.elapsed_ms() * 1e6)
        span = self.span(f"plan {surface}", SpanKind.INTERNAL, {"taskgate.plan": surface}, start_time=started)
        if span.is_recording():
            parent = trace.set_span_in_context(span)
            for record in run.records:
                attributes = {"taskgate.step.name": record.name, "taskgate.step.outcome": record.outcome.value}
                if record.detail:
                    attributes["taskgate.step.detail"] = record.detail
                step = self.tracer.start_span(
                    f"step {record.name}",
                    parent,
                    attributes=attributes,
                    start_time=started + int(record.start_ms * 1e6),
                )
                if record.outcome in FAILED:
                    step.set_status(Status(StatusCode.ERROR, record.detail or record.outcome.value))
                step.end(started + int(record.end_ms * 1e6))
        span.end(now)

    def dispatching(self, evidence: Evidence, placement: Placement, headers: dict[str, str]) -> dict[str, str]:
        """A model call about to go upstream: its span (a client's request opens one; a task's turn has its
        own), and the headers to send with its `traceparent`."""
        spans = evidence.trace
        if not isinstance(spans, Spans):
            return headers
        span = spans.model
        if span is None:
            span = self.span(*self._model_span(evidence.surface or "chat", evidence.model or ""))
            spans.add(span, "model")
        spans.placement = placement
        carrier = dict(headers)
        _W3C.inject(carrier, trace.set_span_in_context(span))
        return carrier

    @contextmanager
    def model_turn(self, evidence: Evidence, model: str) -> Iterator[Span]:
        """A model call a task makes: its span covers the turn's plan, its dispatch and its answer."""
        name, kind, attributes = self._model_span("chat", model)
        span = self.span(name, kind, {**attributes, "gen_ai.request.stream": True})  # a turn is always streamed
        evidence.trace = Spans(span, "model")
        with self.current(span):
            yield span

    def _model_span(self, surface: str, model: str) -> tuple[str, SpanKind, dict[str, Any]]:
        operation = OPERATIONS.get(surface, surface)
        attributes = {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": self.provider_name,
            "gen_ai.request.model": model,
        }
        return f"{operation} {model}", SpanKind.CLIENT, attributes

    @contextmanager
    def tool_call(self, evidence: Evidence, name: str, call_id: str | None) -> Iterator[Span]:
        """A tool call a task makes: authorized by the mcp plan, then forwarded (an MCP client span below it)."""
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "extension",
            "mcp.method.name": "tools/call",
        }
        if call_id:
            attributes["gen_ai.tool.call.id"] = call_id
        span = self.span(f"execute_tool {name}", SpanKind.INTERNAL, attributes)
        evidence.trace = Spans(span, "tool")
        with self.current(span):
            yield span

    def task(self, evidence: Evidence, kind: str) -> TaskSpan:
        return TaskSpan(self.tracer, evidence, kind)

    @contextmanager
    def mcp_request(
        self, evidence: Evidence, method: str, params: Mapping[str, Any], attributes: dict[str, Any]
    ) -> Iterator[Span]:
        """A client's MCP request: a server span whose parent is the trace context in its `params._meta` (the
        HTTP request's span is linked), else the HTTP request's span."""
        target = _target(method, params)
        attributes = {**attributes, **_mcp_attributes(method, target, params)}
        meta = params.get("_meta")
        carried = {k: v for k in ("traceparent", "tracestate") if isinstance(v := (meta or {}).get(k), str)}
        remote = _W3C.extract(carried) if isinstance(meta, dict) and "traceparent" in carried else None
        ambient = trace.get_current_span().get_span_context()
        if remote is not None and not trace.get_current_span(remote).get_span_context().is_valid:
            remote = None
        links = [Link(ambient)] if remote is not None and ambient.is_valid else ()
        span = self.span(
            f"{method} {target}" if target else method, SpanKind.SERVER, attributes, context=remote, links=links
        )
        spans = evidence.trace
        if isinstance(spans, Spans):
            spans.add(span, "mcp")
        try:
            with self.current(span):
                yield span
        except Exception as exc:  # an RpcError: its JSON-RPC code is the span's error.type
            code = getattr(exc, "code", None)
            if isinstance(spans, Spans) and isinstance(code, int):
                spans.rpc_code = code
            raise

    @contextmanager
    def mcp_call(
        self, method: str, target: str | None, url: str, meta: Mapping[str, Any]
    ) -> Iterator[tuple[Span, dict[str, Any]]]:
        """A request to an upstream MCP server: a client span, current while it runs, its context in the `_meta`
        sent (the SDK client injects the current context too: the same)."""
        host, port = address(url)
        attributes = {**_mcp_attributes(method, target, {}), "server.address": host, "server.port": port}
        span = self.span(f"{method} {target}" if target else method, SpanKind.CLIENT, attributes)
        carrier = dict(meta)
        _W3C.inject(carrier, trace.set_span_in_context(span))
        try:
            with self.current(span):
                yield span, carrier
        except Exception as exc:
            error = getattr(getattr(exc, "error", None), "code", None)
            failed(span, str(error) if error is not None else type(exc).__name__, str(exc)[:200])
            raise
        finally:
            span.end()


def _target(method: str, params: Mapping[str, Any]) -> str | None:
    """The low-cardinality name of what a request is for: a tool's or a prompt's name (never a resource URI)."""
    name = params.get("name") if method in ("tools/call", "prompts/get") else None
    return name[:128] if isinstance(name, str) else None


def _mcp_attributes(method: str, target: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "mcp.method.name": method,
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    if method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if target:
            attributes["gen_ai.tool.name"] = target
    elif method == "prompts/get" and target:
        attributes["gen_ai.prompt.name"] = target
    uri = params.get("uri")
    if isinstance(uri, str) and method.startswith("resources/"):
        attributes["mcp.resource.uri"] = uri[:512]
    return attributes
