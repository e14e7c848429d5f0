"""The server-side tool loop: taskgate runs the tool calls a model emits, through the MCP gateway, until an answer.

A chat completion opts in with a `tool_loop` object naming gateway tools:

    {"model": "agent", "messages": [...], "stream": true,
     "tool_loop": {"servers": ["mail"], "tools": ["files__read"], "max_turns": 4, "max_tool_calls": 8}}

The model is offered those tools (the chat plan narrows them to the task's
grant, as for any request). Each model turn runs the chat plan and is placed
like any other request, so the growing conversation keeps its cache
affinity. The tool calls of one turn run in parallel, each through the `mcp`
plan under the task's token: authorized on its arguments, PII-scanned both
ways. A refused or failed call becomes a tool message that says why, so the
model can recover. The loop ends with the model's answer, which streams to
the client, or at a bound (turns, tool calls, wall time) with a clear note
and `finish_reason: "length"`. Every turn and call lands in one evidence
record, the task's trace.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
from aiohttp import web
from multidict import CIMultiDict
from prometheus_client import Counter
from pydantic import Field, ValidationError, model_validator

from taskgate.plugins import EVIDENCE, FAILURES, FRONT, ClientError, Evidence, Params, Problem, RequestContext
from taskgate.plugins.params import problems

from .config import ToolLoopConfig
from .types import CALLER, Caller, ToolResult, Turn, cut

FIELD = "tool_loop"
STREAM_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
logger = structlog.get_logger("taskgate")
SETTINGS = web.AppKey("taskgate.agent.tool_loop", ToolLoopConfig)


class LoopMetrics:
    """The tool loop's counters, on the app's Prometheus registry."""

    def __init__(self, registry: Any) -> None:
        self.tool_calls = Counter(
            "taskgate_loop_tool_calls", "Tool calls the tool loop ran, by outcome", ["outcome"], registry=registry
        )
        self.ends = Counter("taskgate_loop_ends", "Tool loops ended, by why", ["reason"], registry=registry)


METRICS = web.AppKey("taskgate.agent.loop_metrics", LoopMetrics)


def setup(app: web.Application) -> None:
    """Keep the loop's bounds and counters on the app (the tool loop answers chat requests with `tool_loop`)."""
    services = app[FRONT].services
    app[SETTINGS] = services.section("tool_loop", ToolLoopConfig)
    app[METRICS] = LoopMetrics(services.metrics)


class LoopRequest(Params):
    """The request's opt-in: which gateway tools the model is offered, and bounds below the operator's."""

    servers: list[str] = Field(default_factory=list, max_length=64)  # every tool of these MCP servers
    tools: list[str] = Field(default_factory=list, max_length=256)  # and these SERVER__TOOL names
    max_turns: int | None = Field(default=None, ge=1)
    max_tool_calls: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _some_tools(self) -> LoopRequest:
        if not self.servers and not self.tools:
            raise ValueError("name the gateway tools the model may use: servers, tools, or both")
        return self


@dataclass
class Progress:
    """What the loop has done so far; its summary goes to the client and the evidence."""

    task: str | None = None
    turns: int = 0
    tool_calls: int = 0
    denied: int = 0
    failed: int = 0
    stopped: str | None = None
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    cached_tokens: int = 0
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per turn with tools: names, wall and summed time

    def add_usage(self, usage: Mapping[str, Any] | None) -> None:
        if not usage:
            return
        for key in self.usage:
            value = usage.get(key)
            self.usage[key] += value if isinstance(value, int) else 0
        details = usage.get("prompt_tokens_details")
        if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
            self.cached_tokens += details["cached_tokens"]

    def total_usage(self) -> dict[str, Any]:
        total = self.usage["prompt_tokens"] + self.usage["completion_tokens"]
        details = {"cached_tokens": self.cached_tokens}
        return {**self.usage, "total_tokens": total, "prompt_tokens_details": details}

    def summary(self) -> dict[str, Any]:
        keys = ("task", "turns", "tool_calls", "denied", "failed", "stopped", "rounds")
        return {k: getattr(self, k) for k in keys}


class Reply:
    """What the client gets: a stream, prepared at its first event, or one JSON body at the end."""

    def __init__(self, request: web.Request, stream: bool):
        self.request, self.stream = request, stream
        self.response: web.StreamResponse | None = None
        self.headers: dict[str, str] = {}

    async def event(self, data: bytes) -> None:
        if self.response is None:
            self.response = web.StreamResponse(headers={**STREAM_HEADERS, **self.headers})
            await self.response.prepare(self.request)
        await self.response.write(data)

    async def end(self) -> web.StreamResponse:
        assert self.response is not None  # end() follows at least one event()
        await self.response.write_eof()
        return self.response


async def serve(request: web.Request, context: RequestContext) -> web.StreamResponse:
    """Run the tool loop for a chat request that asked for it."""
    caller = request.app[CALLER]
    body = context.json()
    spec = _spec(body.get(FIELD))
    if not caller.servers:
        raise ClientError(400, "tool_loop_unavailable", "this gateway has no MCP servers (mcp.servers)", FIELD)
    _check_body(body)
    await request.app[FRONT].authenticate(request, request[EVIDENCE])  # which tools exist is for callers it knows
    offered, selection = await _offer(caller, spec)
    loop = Loop(request, caller, _bounds(request.app[SETTINGS], spec), body, selection)
    return await loop.run(offered)


def preview(asked: Any, settings: ToolLoopConfig, servers: list[str]) -> dict[str, Any]:
    """What the tool loop would do with a request's `tool_loop` (for `taskgate explain`): the bounds that would hold."""
    limit = {"max_turns": settings.max_turns, "max_tool_calls": settings.max_tool_calls}
    if isinstance(asked, dict):
        limit = {k: min(v, asked[k]) if isinstance(asked.get(k), int) else v for k, v in limit.items()}
    return {
        "asked": asked,
        "servers_configured": servers,
        "bounds": {**limit, "max_parallel": settings.max_parallel, "timeout_s": settings.timeout_s},
        "runs": "each turn runs this plan; each tool call the model emits runs the mcp plan under the task's token. "
        "The tools offered are listed from the MCP servers when the request runs, so they are not shown here.",
    }


def _spec(raw: Any) -> LoopRequest:
    try:
        return LoopRequest.model_validate(raw)
    except ValidationError as exc:
        path, reason = problems(exc, (FIELD,))[0]
        raise ClientError(400, "invalid_tool_loop", f"{path}: {reason}", FIELD) from None


def _check_body(body: Mapping[str, Any]) -> None:
    if body.get("tools") or body.get("functions"):
        message = "with tool_loop, the model is offered gateway tools only; leave out tools and functions"
        raise ClientError(400, "invalid_tool_loop", message, "tools")
    if body.get("n") not in (None, 1):
        raise ClientError(400, "invalid_tool_loop", "with tool_loop, n must be 1", "n")
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        raise ClientError(400, "invalid_request", "messages must be a non-empty list", "messages")


async def _offer(caller: Caller, spec: LoopRequest) -> tuple[list[dict[str, Any]], set[str]]:
    """The requested gateway tools as OpenAI function tools; a name the gateway does not serve is an error."""
    servers = {*spec.servers, *(t.partition("__")[0] for t in spec.tools)}
    unknown = sorted(s for s in servers if s not in caller.servers)
    if unknown:
        raise ClientError(400, "unknown_mcp_server", f"no MCP server named {unknown} here", FIELD)
    tools, missing = await caller.tools(sorted(servers))
    wanted = [t for t in tools if t.name in spec.tools or t.name.split("__", 1)[0] in spec.servers]
    names = {t.name for t in wanted}
    absent = [t for t in spec.tools if t not in names]
    if absent:
        down = f"; unreachable now: {missing}" if missing else ""
        raise ClientError(400, "unknown_tool", f"the gateway serves no tool named {absent}{down}", FIELD)
    offered = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in wanted
    ]
    return offered, names


@dataclass(frozen=True)
class Bounds:
    max_turns: int
    max_tool_calls: int
    max_parallel: int
    timeout_s: float
    max_result_chars: int


def _bounds(config: ToolLoopConfig, spec: LoopRequest) -> Bounds:
    turns = min(config.max_turns, spec.max_turns or config.max_turns)
    calls = min(config.max_tool_calls, config.max_tool_calls if spec.max_tool_calls is None else spec.max_tool_calls)
    return Bounds(turns, calls, config.max_parallel, config.timeout_s, config.max_result_chars)


class Loop:
    """One request's loop: model turns and tool calls, recorded as one trace."""

    def __init__(self, request: web.Request, caller: Caller, bounds: Bounds, body: dict[str, Any], selection: set[str]):
        self.caller, self.bounds, self.selection = caller, bounds, selection
        self.metrics = request.app[METRICS]
        self.evidence: Evidence = request[EVIDENCE]
        self.body = body
        self.reply = Reply(request, body.get("stream") is True)
        self.headers: CIMultiDict[str] = CIMultiDict(request.headers)
        self.task_header, self.token_header = caller.task_header, caller.token_header
        self.progress = Progress(task=request.headers.get(self.task_header))
        self.trace: list[dict[str, Any]] = []
        self.messages: list[Any] = list(body["messages"])

    async def run(self, offered: list[dict[str, Any]]) -> web.StreamResponse:
        with self.caller.trace_task(self.evidence, FIELD) as trace:  # every turn and call is the task's child
            try:
                return await self._run(offered)
            except ConnectionResetError:  # the client left mid-stream: nothing more to say to it
                self.evidence.fail("client_disconnected", "the client went away before the answer ended")
                return self.reply.response or web.Response(status=499)
            finally:
                error = self.evidence.error
                stopped = self.progress.stopped or ("failed" if error else "answered")
                trace.outcome(stopped, self.progress.task, str(error["code"]) if error else None)

    async def _run(self, offered: list[dict[str, Any]]) -> web.StreamResponse:
        keep = {k: v for k, v in self.body.items() if k not in (FIELD, "stream", "stream_options", "messages")}
        base = {**keep, "tools": offered} if offered else keep
        last: Turn | None = None
        wall = asyncio.timeout(self.bounds.timeout_s)
        try:
            async with wall:
                last = await self._turns(base)
        except TimeoutError:
            if not wall.expired():
                raise
            self.progress.stopped = "timeout"
        except Exception as exc:
            if self.reply.response is None:
                raise  # nothing was sent yet: the client gets the error body
            problem = FAILURES.settle(exc, self.evidence)
            return await self._broken(problem)  # never an error page written into a stream that already started
        finally:
            self._record()
        return await self._answer(last)

    async def _turns(self, base: dict[str, Any]) -> Turn | None:
        turn = None
        for number in range(1, self.bounds.max_turns + 1):
            turn = await self._model(number, {**base, "messages": self.messages})
            calls = turn.tool_calls()
            message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
            if calls:
                message["tool_calls"] = calls
            self.messages.append(message)
            if not calls:
                return turn
            if number == self.bounds.max_turns:
                self.progress.stopped = "max_turns"
                return turn
            if self.progress.tool_calls + len(calls) > self.bounds.max_tool_calls:
                self.progress.stopped = "max_tool_calls"
                return turn
            self.messages.extend(await self._tools(number, calls))
        return turn

    async def _model(self, number: int, body: dict[str, Any]) -> Turn:
        child, started = self.evidence.child(f"t{number}"), time.perf_counter()
        turn, status = Turn(), 500
        self.progress.turns = number

        async def forward(event: bytes) -> None:
            self.reply.headers = {**turn.headers, **self._loop_header()}
            if self.reply.stream:
                await self.reply.event(event)

        try:
            await self.caller.model_turn(child, self.headers, body, forward, turn)
            status = 200
        except asyncio.CancelledError:
            child.fail("cancelled", "the loop ended while the turn ran")
            raise
        except Exception as exc:
            problem = FAILURES.explain(exc, child)
            status = problem.status
            if not problem.unexpected:
                problem.record(child)
            raise
        finally:
            self._trace(child, started, status, {"kind": "model_turn", "turn": number})
        self.progress.add_usage(turn.usage)
        self._carry_task(turn.headers)
        self.reply.headers = {**turn.headers, **self._loop_header()}  # a stream that starts later says where it is
        return turn

    def _carry_task(self, headers: Mapping[str, str]) -> None:
        """The first turn started the task: every later call presents its token."""
        token = headers.get(self.token_header)
        if token and self.token_header not in self.headers:
            self.headers[self.token_header] = token
        self.progress.task = self.progress.task or headers.get(self.task_header)

    async def _tools(self, number: int, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Run one turn's tool calls in parallel (bounded); their results as tool messages, in call order."""
        gate = asyncio.Semaphore(1 if self.body.get("parallel_tool_calls") is False else self.bounds.max_parallel)
        started = time.perf_counter()

        async def one(call: dict[str, Any]) -> tuple[dict[str, Any], float]:
            async with gate:
                begun = time.perf_counter()
                text = await self._tool(number, call)
                return {"role": "tool", "tool_call_id": call["id"], "content": text}, time.perf_counter() - begun

        async with asyncio.TaskGroup() as group:  # on cancellation, waits until every call has recorded itself
            running = [group.create_task(one(call)) for call in calls]
        done = [task.result() for task in running]
        self.progress.rounds.append(
            {
                "turn": number,
                "tools": [c["function"]["name"] for c in calls],
                "wall_ms": round((time.perf_counter() - started) * 1000.0, 3),
                "sum_ms": round(sum(seconds for _, seconds in done) * 1000.0, 3),
            }
        )
        return [message for message, _ in done]

    async def _tool(self, number: int, call: dict[str, Any]) -> str:
        name, call_id = call["function"]["name"], call["id"]
        child, started = self.evidence.child(f"t{number}.{call_id}"), time.perf_counter()
        self.progress.tool_calls += 1
        result = ToolResult("taskgate could not run this tool call: the loop ended first", False)
        try:
            result = await self._run_tool(child, name, call["function"]["arguments"], call_id)
        except asyncio.CancelledError:
            child.fail("cancelled", "the loop ended while the call ran")
            raise
        finally:
            self.progress.denied += result.denied
            self.progress.failed += not result.ok and not result.denied
            extra = {
                "kind": "tool_call",
                "turn": number,
                "call_id": call_id,
                "tool": name,
                "allowed": not result.denied,
            }
            status = 200 if result.ok else 403 if result.denied else 502
            self._trace(child, started, status, extra | ({"rule": result.rule} if result.rule else {}))
        return cut(result.text, self.bounds.max_result_chars)

    async def _run_tool(self, child: Evidence, name: str, raw_arguments: str, call_id: str) -> ToolResult:
        """One call through the mcp plan; what it could not do, said as a tool result the model can read."""
        arguments = _arguments(raw_arguments)
        if name not in self.selection:
            child.fail("tool_not_offered", f"the loop does not offer {name!r}")
            return ToolResult(f"taskgate refused this tool call: this loop does not offer {name!r}", False, True)
        if arguments is None:
            child.fail("invalid_arguments", "the arguments are not a JSON object")
            return ToolResult("taskgate could not run this tool call: its arguments are not a JSON object", False)
        try:
            return await self.caller.tool_call(child, self.headers, name, arguments, call_id)
        except Exception:  # a bug must not take the task down; the model hears the call failed
            logger.exception("tool_call_failed", request_id=child.request_id)
            child.fail("internal_error", "the tool call failed inside taskgate")
            return ToolResult("taskgate could not run this tool call", False)

    def _trace(self, child: Evidence, started: float, status: int, extra: dict[str, Any]) -> None:
        self.trace.append(self.evidence.trace_entry(child, started, status, extra))

    def _record(self) -> None:
        self.evidence.task = {**self.progress.summary(), "trace": self.trace}
        for entry in self.trace:
            if entry["kind"] == "tool_call":
                outcome = "ok" if entry["status"] == 200 else "denied" if not entry["allowed"] else "failed"
                self.metrics.tool_calls.labels(outcome).inc()
        self.metrics.ends.labels(self.progress.stopped or "answered").inc()

    def _loop_header(self) -> dict[str, str]:
        p = self.progress
        return {"x-taskgate-loop": f"turns={p.turns}; tool_calls={p.tool_calls}; denied={p.denied}"}

    def _final_text(self, last: Turn | None) -> tuple[str, str]:
        """The answer's text and finish reason; a loop stopped at a bound says so in the text."""
        text = last.text if last is not None and not self.progress.stopped else ""
        if self.progress.stopped is None:
            return text, (last.finish_reason if last is not None else None) or "stop"
        b = self.bounds
        bound = {"max_turns": b.max_turns, "max_tool_calls": b.max_tool_calls, "timeout": f"{b.timeout_s:g} s"}
        note = (
            f"[taskgate] the tool loop stopped at its bound ({self.progress.stopped}: "
            f"{bound[self.progress.stopped]}) before the model gave a final answer."
        )
        return note, "length"

    async def _answer(self, last: Turn | None) -> web.StreamResponse:
        text, finish = self._final_text(last)
        head = {"id": f"chatcmpl-{self.evidence.request_id}", "created": int(time.time()), "model": self.body["model"]}
        summary = self.progress.summary()
        if not self.reply.stream:
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
            body = {**head, "object": "chat.completion", "choices": [choice], "usage": self.progress.total_usage()}
            headers = {**(last.headers if last is not None else {}), **self._loop_header()}
            return web.json_response({**body, "taskgate_loop": summary}, headers=headers)
        chunk = {**head, "object": "chat.completion.chunk"}
        if self.progress.stopped:  # the turn's own text has streamed already; the note follows it
            await self.reply.event(_data({**chunk, "choices": [_delta({"content": text})]}))
        await self.reply.event(_data({**chunk, "choices": [_delta({}, finish)], "taskgate_loop": summary}))
        options = self.body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            await self.reply.event(_data({**chunk, "choices": [], "usage": self.progress.total_usage()}))
        await self.reply.event(b"data: [DONE]\n\n")
        return await self.reply.end()

    async def _broken(self, problem: Problem) -> web.StreamResponse:
        """The stream already started: end it with an error event that says why."""
        code, message = problem.code, problem.message
        if problem.unexpected:
            message = f"internal error; request id {self.evidence.request_id}"
        self.evidence.fail(code, message)
        error = {"message": message, "type": "upstream_error", "param": None, "code": code}
        await self.reply.event(_data({"error": error}))
        return await self.reply.end()


def _arguments(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _delta(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish}


def _data(chunk: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"
