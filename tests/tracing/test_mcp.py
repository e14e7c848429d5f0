"""MCP through the gateway as spans: a client's `tools/call` is a server span `tools/call {tool}` continuing the
trace context in its `params._meta`, the forwarded request a client span whose context the upstream gets in its
own `_meta`; in a handshake session and in a 2026-07-28 request alike."""

from __future__ import annotations

from typing import Any

from opentelemetry import context, trace
from opentelemetry.trace import SpanKind, StatusCode

from taskgate.sim.script import Rule, Script
from tests.authz.conftest import Keys
from tests.authz.test_mcp import connect, summary_token
from tests.authz.test_tasks import bearer

from .conftest import Traces, attrs, parent_of


def traceparent_of(span: Any) -> str:
    return f"00-{span.context.trace_id:032x}-{span.context.span_id:016x}"


async def test_a_tools_call_continues_the_clients_meta_context_to_the_upstream_in_both_eras(
    tools: Any, traces: Traces, keys: Keys
) -> None:
    client = await tools(Script([Rule(match=".", reply="ok")]))
    headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(client, keys)}
    for mode, version in (("legacy", "2025-11-25"), ("auto", "2026-07-28")):  # one gateway: its set-up is slow
        traces.exporter.clear()
        client.metas.clear()
        await one_call(client, traces, headers, mode, version)


async def one_call(client: Any, traces: Traces, headers: dict[str, str], mode: Any, version: str) -> None:
    caller = traces.provider.get_tracer("the-agent").start_span("agent step")  # the client's own span
    async with connect(client, headers, mode) as mcp:
        token = context.attach(trace.set_span_in_context(caller))
        try:  # the SDK client puts the current context in the request's params._meta
            result = await mcp.call_tool("mail__read", {"folder": "inbox"})
        finally:
            context.detach(token)
    caller.end()
    assert not result.is_error

    served = traces.one("tools/call mail__read")
    assert served.kind is SpanKind.SERVER
    assert parent_of(served) == caller.get_span_context().span_id  # from _meta, not the HTTP request
    assert served.context.trace_id == caller.get_span_context().trace_id
    found = attrs(served)
    assert found["mcp.method.name"] == "tools/call"
    assert found["mcp.protocol.version"] == version
    assert found["gen_ai.operation.name"] == "execute_tool"
    assert found["gen_ai.tool.name"] == "mail__read"
    assert found["jsonrpc.request.id"]
    linked = {link.context.span_id for link in served.links}
    http = next(s for s in traces.named("POST /mcp") if s.context.span_id in linked)
    assert attrs(http)["http.response.status_code"] == 200  # the transport's span is linked
    if mode == "legacy":
        assert found["mcp.session.id"] == attrs(traces.one("initialize"))["mcp.session.id"]
    else:
        assert "mcp.session.id" not in found  # a 2026-07-28 request has no session
    assert [s.name for s in traces.children(served)] == ["plan mcp", "tools/call read"]
    upstream = traces.one("tools/call read")
    assert upstream.kind is SpanKind.CLIENT
    assert attrs(upstream)["server.address"] == "127.0.0.1"
    (meta,) = client.metas
    assert meta["traceparent"].startswith(traceparent_of(upstream))


async def test_a_refused_tools_call_is_an_error_span_of_a_tool_error(tools: Any, traces: Traces, keys: Keys) -> None:
    """The refusal is a result with isError true (MCP's tool execution error): `error.type` is `tool_error`."""
    client = await tools(Script([Rule(match=".", reply="ok")]))
    headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(client, keys)}
    async with connect(client, headers, "legacy") as mcp:
        refused = await mcp.call_tool("files__read", {"path": "/etc/passwd"})
    assert refused.is_error
    served = traces.one("tools/call files__read")
    assert served.status.status_code is StatusCode.ERROR
    assert attrs(served)["error.type"] == "tool_error"
    assert "rpc.response.status_code" not in attrs(served)  # the JSON-RPC answer was a result
    assert attrs(served)["taskgate.error.code"] == "tool_denied"  # taskgate's own, as the evidence says
    assert attrs(served)["taskgate.authz.rule"] == "c-home-only"
    assert "tools/call read" not in [s.name for s in traces.spans()]  # nothing reached the files server
    assert client.metas == []


async def test_a_trace_context_in_meta_that_is_not_text_is_ignored_not_an_error(
    tools: Any, traces: Traces, keys: Keys
) -> None:
    client = await tools(Script([Rule(match=".", reply="ok")]))
    headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(client, keys)}
    async with connect(client, headers, "legacy") as mcp:
        malformed: Any = {"traceparent": 123, "tracestate": []}
        result = await mcp.call_tool("mail__read", {"folder": "inbox"}, meta=malformed)
    assert not result.is_error  # a client's malformed context is no reason to fail its call
    served = traces.one("tools/call mail__read")
    assert served.status.status_code is not StatusCode.ERROR
