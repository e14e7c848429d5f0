"""Running a `/v1/tasks` workflow: its task opened once, each step started the moment its inputs exist.

The task is opened by running the chat plan on the workflow's purpose (the
user's instruction) without dispatching anything: that authenticates the
caller, classifies the instruction, scans it, and mints the task's grant and
token. The opening names the workflow's first model (or, for a workflow of
tool steps only, the first model the gateway serves); what it places is
released at once. Every step then runs under that token: a model step through the chat
plan (placed, guarded), a tool step through the mcp plan (authorized on its
arguments, PII-scanned). A step that fails, or is denied, skips the steps
that need its output; the others go on. Bounds: parallel steps and wall time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
from multidict import CIMultiDict

from taskgate.authz.authorize import GRANT
from taskgate.plugins import PLACEMENT, RequestContext
from taskgate.plugins.evidence import Evidence

from .calls import CALL_FAILURES, CHAT_PATH, cut, failure, model_turn, task_headers, tool_call
from .errors import ClientError
from .mcp_upstream import Upstreams
from .outputs import added_headers, release, run_plan, step_outputs
from .state import Gateway
from .workflows import StepSpec, Workflow, resolve, resolved_chars

logger = structlog.get_logger("taskgate")


@dataclass
class StepState:
    kind: str
    after: list[str]
    status: str = "pending"  # running, completed, failed, denied, skipped, cancelled
    output: str | None = None
    error: dict[str, Any] | None = None
    started_ms: float | None = None
    duration_ms: float | None = None
    where: dict[str, Any] = field(default_factory=dict)  # placement of a model step; tool and rule of a tool step

    def view(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, {}, [])} | {"after": self.after}


class Run:
    """One workflow's execution, observable while it runs (for polling and server-sent events)."""

    def __init__(self, gateway: Gateway, upstreams: Upstreams | None, workflow: Workflow, evidence: Evidence):
        self.gateway, self.upstreams, self.evidence = gateway, upstreams, evidence
        self.limits = gateway.config.core.workflows
        self.specs = workflow.steps  # dropped when the task ends: a kept task holds only its results
        self.graph, self.layers, self.purpose = workflow.graph, workflow.layers, workflow.spec.purpose
        self.task: str = evidence.request_id
        self.owner: tuple[str, str] | None = None
        self.status = "running"
        self.headers: CIMultiDict[str] = CIMultiDict()
        self.trace: list[dict[str, Any]] = []
        self.steps = {s.id: StepState(s.kind, sorted(workflow.graph.predecessors(s.id))) for s in workflow.spec.steps}
        self.updates: asyncio.Queue[str] = asyncio.Queue()  # ids of steps as they finish; "" when the task ends
        self.finished = asyncio.Event()
        self.ended_at: float | None = None
        self.ended_mono: float | None = None  # time.monotonic() when it ended, for how long it is kept

    def view(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "status": self.status,
            "request_id": self.evidence.request_id,
            "duration_ms": round(
                self.evidence.offset_ms(time.perf_counter()) if self.ended_at is None else self.ended_at, 3
            ),
            "layers": [list(layer) for layer in self.layers],
            "steps": {sid: state.view() for sid, state in self.steps.items()},
        }

    async def open(self, headers: Mapping[str, str]) -> None:
        """Authenticate, classify, scan and grant the task once, on its purpose; nothing is dispatched."""
        self.headers = CIMultiDict(headers)
        served = self.gateway.catalog.served
        model = next((s.model for s in self.specs.values() if s.model), served[0].name if served else "")
        body = {"model": model, "messages": [{"role": "user", "content": self.purpose}]}
        child, started = self.evidence.child("open"), time.perf_counter()
        context = RequestContext.parsed(
            child.request_id, "chat", CHAT_PATH, self.headers, json.dumps(body).encode(), body
        )
        status = 500
        try:
            values = await run_plan(self.gateway, "chat", context, child)
            release(values.get(PLACEMENT))  # opening places nothing: each model step is placed when it runs
            status = 200
        except CALL_FAILURES as exc:
            status, code, message = failure(exc)
            child.fail(code, message)
            raise
        finally:
            self._trace(child, started, status, {"kind": "open"})
        added = {k.lower(): v for k, v in added_headers(step_outputs(self.gateway, "chat", values)).items()}
        task_header, token_header = task_headers(self.gateway)
        if token_header in added:
            self.headers[token_header] = added[token_header]
            self.task = added.get(task_header, self.task)
        grant = values.get(GRANT)
        spec = getattr(grant, "spec", None)
        if spec is not None:
            self.owner = (spec.subject, spec.tenant)

    async def execute(self, max_parallel: int, timeout_s: float) -> None:
        """Start each step as soon as the steps it needs are done; at most `max_parallel` at once."""
        waiting = {sid: set(state.after) for sid, state in self.steps.items()}
        running: dict[asyncio.Task[None], str] = {}
        try:
            async with asyncio.timeout(timeout_s):
                while waiting or running:
                    for sid in [s for s, needs in waiting.items() if not needs][: max_parallel - len(running)]:
                        del waiting[sid]
                        running[asyncio.create_task(self._step(sid), name=f"task-step:{sid}")] = sid
                    if not running:
                        break
                    done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                    for finished in done:
                        self._settle(running.pop(finished), waiting)
            self.status = "completed" if all(s.status == "completed" for s in self.steps.values()) else "failed"
        except TimeoutError:
            self.status = "timeout"
        except asyncio.CancelledError:  # the client that waited left, or taskgate is shutting down
            self.status = "cancelled"
            raise
        finally:
            for pending in running:
                pending.cancel()
            await asyncio.gather(*running, return_exceptions=True)  # their records land before the task closes
            for state in self.steps.values():
                if state.status in ("pending", "running"):
                    state.status = "cancelled" if state.status == "running" else "skipped"
                    state.error = {"code": self.status if self.status in ("timeout", "cancelled") else "cancelled"}
            self._close()

    def _settle(self, sid: str, waiting: dict[str, set[str]]) -> None:
        self.updates.put_nowait(sid)
        if self.steps[sid].status == "completed":
            for later in self.graph.successors(sid):
                waiting.get(later, set()).discard(sid)
            return
        causes = [(later, sid) for later in self.graph.successors(sid)]
        while causes:  # everything downstream of a step that did not complete is skipped
            later, cause = causes.pop()
            if waiting.pop(later, None) is None:
                continue
            state = self.steps[later]
            state.status = "skipped"
            state.error = {"code": "dependency_failed", "message": f"step {cause!r} did not complete"}
            self.updates.put_nowait(later)
            causes += [(after, later) for after in self.graph.successors(later)]

    async def _step(self, sid: str) -> None:
        spec, state = self.specs[sid], self.steps[sid]
        outputs = {k: s.output or "" for k, s in self.steps.items() if s.status == "completed"}
        child, started = self.evidence.child(sid), time.perf_counter()
        state.status, state.started_ms = "running", self.evidence.offset_ms(started)
        status = 500
        try:
            _check_inputs(spec, outputs, self.limits.max_input_chars)
            status = await (
                self._model(spec, child, outputs) if spec.kind == "model" else self._tool(spec, child, outputs)
            )
        except CALL_FAILURES as exc:
            status, code, message = failure(exc)
            state.status, state.error = (
                ("denied" if status in (401, 403) else "failed"),
                {"code": code, "message": message},
            )
            if child.error is None:
                child.fail(code, message)
        except asyncio.CancelledError:
            child.fail("cancelled", "the task ended while the step ran")
            raise
        except Exception:
            logger.exception("task_step_failed", request_id=child.request_id)
            state.status, state.error = (
                "failed",
                {"code": "internal_error", "message": "the step failed inside taskgate"},
            )
        finally:
            state.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            self._trace(child, started, status, {"kind": f"{spec.kind}_step", "step": sid})

    async def _model(self, spec: StepSpec, child: Evidence, outputs: dict[str, str]) -> int:
        body: dict[str, Any] = {"model": spec.model, "messages": resolve(spec.messages, outputs)}
        if spec.max_tokens is not None:
            body["max_tokens"] = spec.max_tokens
        turn = await model_turn(self.gateway, child, self.headers, body)
        state = self.steps[spec.id]
        state.where = {k.removeprefix("x-taskgate-"): v for k, v in turn.headers.items() if k in PLACED}
        state.output, state.status = cut(turn.text, self.limits.max_output_chars), "completed"
        return 200

    async def _tool(self, spec: StepSpec, child: Evidence, outputs: dict[str, str]) -> int:
        state = self.steps[spec.id]
        state.where = {"tool": spec.tool}
        if self.upstreams is None:
            raise ClientError(400, "tools_unavailable", "this gateway has no MCP servers (mcp.servers)")
        assert spec.tool is not None  # a tool step names its tool (StepSpec checks)
        result = await tool_call(
            self.gateway, self.upstreams, child, self.headers, spec.tool, resolve(spec.arguments, outputs)
        )
        if result.rule:
            state.where["rule"] = result.rule
        if result.denied:
            state.status, state.error = "denied", {"code": "tool_denied", "message": result.text}
            return 403
        state.output = cut(result.text, self.limits.max_output_chars)
        if not result.ok:
            state.status, state.error = "failed", {"code": "tool_error", "message": result.text}
            return 502
        state.status = "completed"
        return 200

    def _trace(self, child: Evidence, started: float, status: int, extra: dict[str, Any]) -> None:
        self.trace.append(self.evidence.trace_entry(child, started, status, extra))

    def _close(self) -> None:
        self.ended_at, self.ended_mono = self.evidence.offset_ms(time.perf_counter()), time.monotonic()
        self.specs = {}
        counts: dict[str, int] = {}
        for state in self.steps.values():
            counts[state.status] = counts.get(state.status, 0) + 1
        self.evidence.task = {"task": self.task, "status": self.status, "steps": counts, "trace": self.trace}
        self.finished.set()
        self.updates.put_nowait("")


def _check_inputs(spec: StepSpec, outputs: dict[str, str], limit: int) -> None:
    """A step whose inputs, once references are filled in, would pass `limit` characters fails before they are built."""
    size = resolved_chars(spec.messages, outputs) + resolved_chars(spec.arguments, outputs)
    if size > limit:
        raise ClientError(400, "inputs_too_large", f"the step's inputs would hold {size} characters (limit {limit})")


PLACED = frozenset(
    {"x-taskgate-pool", "x-taskgate-endpoint", "x-taskgate-model", "x-taskgate-region", "x-taskgate-prefix-hit"}
)
