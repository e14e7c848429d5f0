"""`/v1/tasks`: a client submits a workflow; taskgate checks its graph, opens its task, runs it, reports every step.

    POST /v1/tasks          {"purpose": "...", "steps": [...], "limits": {...}, "wait": true}
    GET  /v1/tasks/{task}   the task's state while it runs and for a while after (any replica, with Redis)

A POST answers, by default, when the task ends: every step's status, output
and timing. With `Accept: text/event-stream` it streams an event per step as
each finishes (`task`, then `step`..., then `done`). With `"wait": false` it
answers 202 at once and the client polls GET. A graph that cannot run (a
cycle, a dangling reference) is a 400 naming the steps, before anything runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any

from aiohttp import web

from taskgate.plugins import EVIDENCE, FRONT, ClientError, Evidence, Reject

from .config import WorkflowsConfig
from .resume import resumed
from .run import Run
from .shared import SharedRuns
from .types import CALLER, Caller
from .workflows import Workflow, WorkflowError, parse

Owner = tuple[str, str] | None  # (subject, tenant); None where no authentication is configured


class Runs:
    """Tasks kept for polling, bounded in number and age; those still running in the background end at shutdown.

    With `workflows.store: redis` each run's view is shared as it changes (shared.py), so any replica answers
    a poll, and a run whose replica stopped is resumed by another; the runs running here, and the running
    limits, are this replica's.
    """

    def __init__(self, limits: WorkflowsConfig, caller: Caller, publish: Callable[[Evidence], None]):
        self._runs: OrderedDict[tuple[Owner, str], Run] = OrderedDict()  # in the owner's namespace
        self._limits, self._caller, self._publish = limits, caller, publish
        self._background: set[asyncio.Task[None]] = set()
        self.shared = SharedRuns(limits) if limits.store == "redis" else None
        if self.shared is not None:
            self.shared.room, self.shared.adopt = self._room, self._adopt

    def _room(self) -> bool:
        return sum(1 for r in self._runs.values() if r.status == "running") < self._limits.max_running

    def admit(self, run: Run) -> None:
        """Keep `run` for polling; past the running limits, refuse it (429) before any step runs."""
        self._forget()
        running = [r for r in self._runs.values() if r.status == "running"]
        mine = sum(1 for r in running if r.owner == run.owner)
        if len(running) >= self._limits.max_running or mine >= self._limits.max_running_per_caller:
            raise Reject(
                429, "too_many_tasks", "too many workflows are running; retry shortly", "rate_limit_error",
                headers={"Retry-After": "1"},
            )  # fmt: skip
        self._keep(run)

    def _keep(self, run: Run) -> None:
        self._runs[(run.owner, run.task)] = run
        if self.shared is not None:
            run.on_change, run.on_start = self.shared.changed, self.shared.started
            self.shared.changed(run)

    def _adopt(self, record: dict[str, Any]) -> None:
        """Resume here a run another replica stopped holding (or end it, if a step cut off mid-way is not safe
        to repeat)."""
        run = resumed(self._caller, self._limits, record)
        run.epoch, run.deadline = int(record["epoch"]), float(record["deadline"])
        asked = run.spec.limits.max_parallel
        run.parallel = min(self._limits.max_parallel, asked or self._limits.max_parallel)
        self._keep(run)
        if run.status == "running":
            self.background(self.in_background(run, max(0.0, run.deadline - time.time())))
        else:
            run.evidence.finish(200)
            self._publish(run.evidence)

    def _forget(self) -> None:
        """Drop ended tasks past `keep` (oldest first) or `keep_s` after they ended; running ones stay."""
        now, ended = time.monotonic(), [k for k, r in self._runs.items() if r.ended_mono is not None]
        excess = len(ended) - self._limits.keep
        for position, key in enumerate(ended):
            ended_mono = self._runs[key].ended_mono or now
            if position < excess or now - ended_mono > self._limits.keep_s:
                del self._runs[key]

    def get(self, owner: Owner, task: str) -> Run | None:
        run = self._runs.get((owner, task))
        if run is not None and run.moved:  # another replica runs it now: its view is theirs
            return None
        if run is not None and run.ended_mono is not None and time.monotonic() - run.ended_mono > self._limits.keep_s:
            return None
        return run

    async def find(self, owner: Owner, task: str) -> dict[str, Any] | None:
        """A task's view: this replica's own run, else (shared) the one another replica holds or held."""
        run = self.get(owner, task)
        if run is not None:
            return run.view()
        return await self.shared.find(owner, task) if self.shared is not None else None

    async def saved(self, run: Run) -> None:
        """The run's view is shared as it is now (its end): a poll on another replica finds it."""
        if self.shared is not None:
            await self.shared.saved(run)

    async def in_background(self, run: Run, wall_s: float) -> None:
        """A task the client polls: its evidence is written again, complete, when it ends (or is cut short)."""
        try:
            await run.execute(run.parallel, wall_s)
        finally:
            await self.saved(run)
            run.evidence.finish(200)
            self._publish(run.evidence)

    async def start(self) -> None:
        if self.shared is not None:
            await self.shared.start()

    def background(self, work: Any) -> None:
        job = asyncio.create_task(work)
        self._background.add(job)
        job.add_done_callback(self._background.discard)

    async def close(self) -> None:
        """Stop the runs in the background. Where runs are shared they are handed over, not ended: their state
        stays as recorded, and another replica resumes them once this one's lease is gone."""
        if self.shared is not None:
            for run in self._runs.values():
                run.moved = run.moved or run.status == "running"
        for job in list(self._background):
            job.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        if self.shared is not None:
            await self.shared.close()


RUNS = web.AppKey("taskgate.task_runs", Runs)


LIMITS = web.AppKey("taskgate.agent.workflows", WorkflowsConfig)


def add_routes(app: web.Application) -> None:
    limits = app[FRONT].services.section("workflows", WorkflowsConfig)
    app[LIMITS], app[RUNS] = limits, Runs(limits, app[CALLER], app[FRONT].publish)
    app.router.add_post("/v1/tasks", submit)
    app.router.add_get("/v1/tasks/{task}", state)
    app.cleanup_ctx.append(_runs)


async def _runs(app: web.Application) -> AsyncIterator[None]:
    await app[RUNS].start()
    yield
    await app[RUNS].close()


async def submit(request: web.Request) -> web.StreamResponse:
    evidence, limits = request[EVIDENCE], request.app[LIMITS]
    evidence.surface = "tasks"
    workflow = _workflow(await request.app[FRONT].read_json(request), limits.max_steps)
    run = Run(request.app[CALLER], limits, workflow, evidence)
    await run.open(request.headers)  # a refusal (authentication, PII, grant) stops the task before any step
    asked = workflow.spec.limits
    parallel = run.parallel = min(limits.max_parallel, asked.max_parallel or limits.max_parallel)
    wall_s = min(limits.timeout_s, asked.timeout_s or limits.timeout_s)
    run.deadline = time.time() + wall_s
    request.app[RUNS].admit(run)
    headers = _task_headers(run)
    if not workflow.spec.wait:
        request.app[RUNS].background(request.app[RUNS].in_background(run, wall_s))
        await request.app[RUNS].saved(run)  # a poll that reaches another replica next finds the task
        body = {"task": run.task, "status": run.status, "poll": f"/v1/tasks/{run.task}"}
        return web.json_response(body, status=202, headers=headers)
    if "text/event-stream" in request.headers.get("Accept", ""):
        return await _stream(request, run, parallel, wall_s, headers)
    await run.execute(parallel, wall_s)
    await request.app[RUNS].saved(run)
    return web.json_response(run.view(), headers=headers)


def _workflow(body: Any, max_steps: int) -> Workflow:
    try:
        workflow = parse(body)
    except WorkflowError as exc:
        raise ClientError(400, exc.code, exc.message, exc.field or "steps") from None
    if len(workflow.spec.steps) > max_steps:
        raise ClientError(400, "too_many_steps", f"a workflow has at most {max_steps} steps here", "steps")
    return workflow


def _task_headers(run: Run) -> dict[str, str]:
    task_header, token_header = run.caller.task_header, run.caller.token_header
    token = run.headers.get(token_header)
    return {task_header: run.task, **({token_header: token} if token else {})}


async def _stream(
    request: web.Request, run: Run, parallel: int, wall_s: float, headers: dict[str, str]
) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **headers})
    await response.prepare(request)
    await response.write(_event("task", run.view()))
    work = asyncio.create_task(run.execute(parallel, wall_s))
    try:
        while (sid := await run.updates.get()) != "":
            await response.write(_event("step", {"id": sid, **run.steps[sid].view()}))
        await work
        await request.app[RUNS].saved(run)
        await response.write(_event("done", run.view()))
    finally:
        if not work.done():  # the client went away: the task stops with it
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
    await response.write_eof()
    return response


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


async def state(request: web.Request) -> web.Response:
    """A task's state; only its owner sees it (anyone else gets the same 404 as for an unknown task)."""
    request[EVIDENCE].surface = "tasks"
    view = await request.app[RUNS].find(await _caller(request), request.match_info["task"])
    if view is None:
        raise ClientError(404, "unknown_task", "no such task (finished tasks are kept for a while)")
    return web.json_response(view)


async def _caller(request: web.Request) -> Owner:
    """Who asks: (subject, tenant) when a plan authenticates callers and the caller passes it."""
    try:
        identity = await request.app[FRONT].authenticate(request, request[EVIDENCE])
    except Reject:  # unauthenticated: sees only tasks started without authentication
        return None
    return (identity.subject, identity.tenant) if identity is not None else None
