"""A task as one trace: the tool loop's and a workflow's span is the parent of every turn (`chat m`) and every
tool call (`execute_tool ...`), across turns and in parallel; each call's MCP request carries its context."""

from __future__ import annotations

from typing import Any

from opentelemetry.trace import SpanKind, StatusCode

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim.script import Rule, Script, ToolCall
from tests.authz.conftest import Keys
from tests.authz.test_tasks import bearer

from .conftest import Traces, attrs, parent_of

SUMMARISE = "summarise my email from this week"
ANSWER = "Summary: the Q3 numbers are in."
LOOP = {"model": "m", "messages": [{"role": "user", "content": SUMMARISE}], "tool_loop": {"servers": ["mail", "files"]}}


def traceparent_of(span: Any) -> str:
    return f"00-{span.context.trace_id:032x}-{span.context.span_id:016x}"


async def test_a_tool_loop_is_one_trace_its_turns_and_calls_children_of_its_task_span(
    tools: Any, traces: Traces, keys: Keys
) -> None:
    calls = (ToolCall("mail__read", {"folder": "inbox"}), ToolCall("files__read", {"path": "/etc/passwd"}))
    client = await tools(
        Script([Rule(match="summarise", role="user", tool_calls=calls), Rule(match=".", reply=ANSWER)])
    )
    resp = await client.post("/v1/chat/completions", json=LOOP, headers=bearer(keys))
    assert resp.status == 200
    assert (await resp.json())["choices"][0]["message"]["content"] == ANSWER
    record = client.server.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    call_ids = {e["tool"]: e["call_id"] for e in record["task"]["trace"] if e["kind"] == "tool_call"}

    root = traces.one("POST /v1/chat/completions")
    task = traces.one("invoke_agent tool_loop")
    assert parent_of(task) == root.context.span_id
    assert attrs(task)["gen_ai.operation.name"] == "invoke_agent"
    assert attrs(task)["taskgate.task.status"] == "answered"
    assert attrs(task)["taskgate.task.id"] == record["task"]["task"]
    turns = traces.named("chat m")
    read, denied = traces.one("execute_tool mail__read"), traces.one("execute_tool files__read")
    assert len(turns) == 2
    assert {parent_of(s) for s in (*turns, read, denied)} == {task.context.span_id}  # across turns, all the task's
    first, second = sorted(turns, key=lambda s: s.start_time or 0)
    assert (first.end_time or 0) <= (read.start_time or 0)  # the calls ran after the turn that asked for them
    assert max(read.end_time or 0, denied.end_time or 0) <= (second.start_time or 0)
    assert "plan chat" in [s.name for s in traces.children(first)]  # each turn's own plan, under it
    assert attrs(first)["taskgate.endpoint"] == "up"
    assert attrs(first)["gen_ai.request.model"] == "m"
    assert attrs(first)["gen_ai.request.stream"] is True
    assert first.kind is SpanKind.CLIENT

    assert attrs(read)["gen_ai.tool.name"] == "mail__read"
    assert attrs(read)["gen_ai.tool.call.id"] == call_ids["mail__read"]
    assert attrs(read)["taskgate.mcp.server"] == "mail"
    assert read.status.status_code is StatusCode.UNSET
    plan, upstream = traces.children(read)
    assert plan.name == "plan mcp"
    assert [s.name for s in traces.children(plan)] == ["step authn", "step authorize"]
    assert upstream.name == "tools/call read"  # the request the mail server got, under its own name
    assert upstream.kind is SpanKind.CLIENT
    assert attrs(upstream)["gen_ai.tool.name"] == "read"
    assert attrs(upstream)["mcp.method.name"] == "tools/call"
    (meta,) = client.metas
    assert meta["traceparent"].startswith(traceparent_of(upstream))  # trace context reached the MCP server

    assert denied.status.status_code is StatusCode.ERROR  # refused by an argument rule, which the span names
    assert attrs(denied)["error.type"] == "tool_denied"
    assert attrs(denied)["taskgate.authz.rule"] == "c-home-only"
    assert [s.name for s in traces.children(denied)] == ["plan mcp"]  # nothing was forwarded
    steps = {s.name: s for s in traces.children(traces.children(denied)[0])}
    assert steps["step authorize"].status.status_code is StatusCode.ERROR
    assert attrs(steps["step authorize"])["taskgate.step.outcome"] == "halted"
    assert {s.context.trace_id for s in traces.spans()} == {root.context.trace_id}


async def test_a_workflow_is_one_trace_its_steps_calls_children_of_its_task_span(
    tools: Any, traces: Traces, keys: Keys
) -> None:
    client = await tools(Script([Rule(match=".", reply=ANSWER)]))
    workflow = {
        "purpose": SUMMARISE,
        "steps": [
            {"id": "fetch", "tool": "mail__list", "arguments": {"folder": "inbox"}},
            {"id": "brief", "model": "m", "messages": [{"role": "user", "content": "Summarise: ${fetch}"}]},
        ],
    }
    resp = await client.post("/v1/tasks", json=workflow, headers=bearer(keys))
    assert resp.status == 200
    assert (await resp.json())["status"] == "completed"
    root, task = traces.one("POST /v1/tasks"), traces.one("invoke_agent workflow")
    assert parent_of(task) == root.context.span_id
    assert attrs(task)["taskgate.task.status"] == "completed"
    fetch, brief = traces.one("execute_tool mail__list"), traces.one("chat m")
    assert parent_of(fetch) == parent_of(brief) == task.context.span_id
    assert (fetch.end_time or 0) <= (brief.start_time or 0)  # the model step needed the tool step's output
    assert "plan chat" in [s.name for s in traces.children(root)]  # the task was opened on its purpose first
    assert client.metas[0]["traceparent"].startswith(traceparent_of(traces.one("tools/call list")))
