"""Running a `/v1/tasks` workflow on the DAG engine: its task opened once, each step started when its inputs exist.

The task is opened by running the chat plan on the workflow's purpose (the
user's instruction) without dispatching anything: that authenticates the
caller, classifies the instruction, scans it, and mints the task's grant and
token. The opening names the workflow's first model (or, for a workflow of
tool steps only, the first model the gateway serves); what it places is
released at once. Every step then runs under that token: a model step through the chat
plan (placed, guarded), a tool step through the mcp plan (authorized on its
arguments, PII-scanned). A step that fails, or is denied, skips the steps
that need its output; the others go on. Bounds: parallel steps (the
Execution's limit) and wall time. The Execution's settle callback feeds the
event stream a client may watch.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from multidict import CIMultiDict

from taskgate.dag import Execution, Outcome, StepRecord
from taskgate.plugins import FAILURES, ClientError, Evidence

from .config import WorkflowsConfig
from .types import Caller, cut
from .workflows import RUN, StepSpec, Workflow, resolve, resolved_chars


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


class NotCompleted(Exception):
    """A step ended without its output (failed, denied): the engine skips the steps that reference it."""


async def _nothing(run: Run) -> None:
    return None


class Run:
    """One workflow's execution, observable while it runs (for polling and server-sent events)."""

    def __init__(self, caller: Caller, limits: WorkflowsConfig, workflow: Workflow, evidence: Evidence):
        self.caller, self.limits, self.evidence = caller, limits, evidence
        self.specs = workflow.steps  # dropped when the task ends: a kept task holds only its results
        self.spec = workflow.spec  # what was submitted: another replica resumes the run from it
        self.plan, self.layers, self.purpose = workflow.plan, workflow.layers, workflow.spec.purpose
        self.task: str = evidence.request_id
        self.owner: tuple[str, str] | None = None
        self.status = "running"
        self.headers: CIMultiDict[str] = CIMultiDict()
        self.trace: list[dict[str, Any]] = []
        graph = workflow.plan.graph
        self.steps = {s.id: StepState(s.kind, sorted(graph.predecessors(s.id))) for s in workflow.spec.steps}
        self.updates: asyncio.Queue[str] = asyncio.Queue()  # ids of steps as they finish; "" when the task ends
        self.finished = asyncio.Event()
        self.ended_at: float | None = None
        self.ended_mono: float | None = None  # time.monotonic() when it ended, for how long it is kept
        self.on_change: Callable[[Run], None] = lambda run: None  # its view changed (the shared store listens)
        # awaited as a step starts, before it does anything: the shared store records it (it raises if another
        # replica has taken the run over)
        self.on_start: Callable[[Run], Awaitable[None]] = _nothing
        self.moved = False  # another replica took the run over: this one stops, and its view is not the run's
        self.epoch: int | None = None  # its fencing token in the shared store (None: not recorded there yet)
        self.deadline = 0.0  # wall clock: when it must have ended (its timeout), wherever it runs
        self.parallel = limits.max_parallel  # steps at once
        self._task: asyncio.Task[Any] | None = None

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
        model = next((s.model for s in self.specs.values() if s.model), None) or self.caller.default_model()
        body = {"model": model, "messages": [{"role": "user", "content": self.purpose}]}
        child, started = self.evidence.child("open"), time.perf_counter()
        status = 500
        try:
            opening = await self.caller.open_task(child, self.headers, body)
            status = 200
        except Exception as exc:
            problem = FAILURES.explain(exc, child)
            status = problem.status
            problem.record(child)
            raise
        finally:
            self._trace(child, started, status, {"kind": "open"})
        token = opening.headers.get(self.caller.token_header)
        if token:
            self.headers[self.caller.token_header] = token
            self.task = opening.headers.get(self.caller.task_header, self.task)
        if opening.caller is not None:
            self.owner = (opening.caller.subject, opening.caller.tenant)

    async def execute(self, max_parallel: int, timeout_s: float) -> None:
        """Run the workflow's plan: each step as soon as the steps it needs are done; at most `max_parallel` at once."""
        self._task = asyncio.current_task()
        execution = Execution(self.plan, {RUN: self}, limit=max_parallel, on_settle=self._settled)
        with self.caller.trace_task(self.evidence, "workflow") as trace:  # every step's call is the task's child
            try:
                async with asyncio.timeout(timeout_s):
                    await execution.run()
                self.status = "completed" if all(s.status == "completed" for s in self.steps.values()) else "failed"
            except TimeoutError:
                self.status = "timeout"
            except asyncio.CancelledError:  # the client that waited left, or taskgate is shutting down
                self.status = "cancelled"
                raise
            finally:  # the engine has cancelled and awaited every running step: their records are in
                for state in self.steps.values():
                    if state.status in ("pending", "running"):
                        state.status = "cancelled" if state.status == "running" else "skipped"
                        state.error = {"code": self.status if self.status in ("timeout", "cancelled") else "cancelled"}
                self._close()
                trace.outcome(self.status, self.task, None if self.status == "completed" else self.status)

    def end(self) -> None:
        """Settle a run that ends without executing here (resumed, then found unsafe to go on)."""
        self._close()

    def _settled(self, record: StepRecord) -> None:
        """The engine settled a step: one it skipped names the step it needed that did not complete."""
        if record.outcome is Outcome.SKIPPED:
            state = self.steps[record.name]
            cause = next((sid for sid in state.after if self.steps[sid].status != "completed"), "?")
            state.status = "skipped"
            state.error = {"code": "dependency_failed", "message": f"step {cause!r} did not complete"}
        self.updates.put_nowait(record.name)
        self.on_change(self)

    def cut_off(self) -> None:
        """Another replica has taken this run over: stop it here; what it does from now on is not recorded."""
        self.moved = True
        if self._task is not None:
            self._task.cancel()

    async def step(self, sid: str) -> str:
        """Run one step (called by the engine when its inputs exist); raises NotCompleted unless it completed."""
        spec, state = self.specs[sid], self.steps[sid]
        if state.status != "pending":  # settled before this run was resumed here: it is not run again
            if state.status != "completed":
                raise NotCompleted(state.status)
            return state.output or ""
        outputs = {k: s.output or "" for k, s in self.steps.items() if s.status == "completed"}
        child, started = self.evidence.child(sid), time.perf_counter()
        state.status, state.started_ms = "running", self.evidence.offset_ms(started)
        await self.on_start(self)  # recorded as running before it runs: a replica that resumes the run knows
        status = 500
        try:
            _check_inputs(spec, outputs, self.limits.max_input_chars)
            status = await (
                self._model(spec, child, outputs) if spec.kind == "model" else self._tool(spec, child, outputs)
            )
        except asyncio.CancelledError:
            child.fail("cancelled", "the task ended while the step ran")
            raise
        except Exception as exc:
            problem = FAILURES.settle(exc, child)
            status = problem.status
            if problem.unexpected:
                state.status = "failed"
                state.error = {"code": "internal_error", "message": "the step failed inside taskgate"}
            else:
                state.status = "denied" if status in (401, 403) else "failed"
                state.error = {"code": problem.code, "message": problem.message}
        finally:
            state.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            self._trace(child, started, status, {"kind": f"{spec.kind}_step", "step": sid})
        if state.status != "completed":
            raise NotCompleted(state.status)
        return state.output or ""

    async def _model(self, spec: StepSpec, child: Evidence, outputs: dict[str, str]) -> int:
        body: dict[str, Any] = {"model": spec.model, "messages": resolve(spec.messages, outputs)}
        if spec.max_tokens is not None:
            body["max_tokens"] = spec.max_tokens
        turn = await self.caller.model_turn(child, self.headers, body)
        state = self.steps[spec.id]
        state.where = {k.removeprefix("x-taskgate-"): v for k, v in turn.headers.items() if k in PLACED}
        state.output, state.status = cut(turn.text, self.limits.max_output_chars), "completed"
        return 200

    async def _tool(self, spec: StepSpec, child: Evidence, outputs: dict[str, str]) -> int:
        state = self.steps[spec.id]
        state.where = {"tool": spec.tool}
        if not self.caller.servers:
            raise ClientError(400, "tools_unavailable", "this gateway has no MCP servers (mcp.servers)")
        assert spec.tool is not None  # a tool step names its tool (StepSpec checks)
        result = await self.caller.tool_call(child, self.headers, spec.tool, resolve(spec.arguments, outputs))
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
        self.on_change(self)


def _check_inputs(spec: StepSpec, outputs: dict[str, str], limit: int) -> None:
    """A step whose inputs, once references are filled in, would pass `limit` characters fails before they are built."""
    size = resolved_chars(spec.messages, outputs) + resolved_chars(spec.arguments, outputs)
    if size > limit:
        raise ClientError(400, "inputs_too_large", f"the step's inputs would hold {size} characters (limit {limit})")


PLACED = frozenset(
    {"x-taskgate-pool", "x-taskgate-endpoint", "x-taskgate-model", "x-taskgate-region", "x-taskgate-prefix-hit"}
)
