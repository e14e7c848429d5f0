"""Releasing jobs' items into idle capacity: the scheduler.

One loop per replica. It starts an item while fewer than `concurrency` run
(`per_job` of one job) and a pool serving the item's model has idle capacity
(`IDLE_CAPACITY`: routing's pools under their idle watermark, nothing waiting);
otherwise it looks again every `poll_s`, and at once when an item ends. Jobs
go oldest deadline first; a job's items go group by group, so items that
share a prefix run back to back, and each group is one routing session, so
it stays on the endpoint that holds its prefix; a group's first item runs alone,
so the prefix is computed once before the rest follow. Each item is authorized as a task
of its own, named for its job (`<batch id>-<hex>`). Routing checks again when it
places the item; a pool that filled up meanwhile answers `pool_not_idle` and
the item goes back to the head of its job's queue.

The aging rule: past `due_after` of its window, a job whose pace would not
finish it in time is due, and so is every job past `due_always`: its items
are then `batch` work that queues for a slot (and ages there) instead of
waiting for idle capacity. At the deadline what has not run is written to
the error file as `batch_expired`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable, Mapping

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge

from taskgate.plugins import (
    BATCH_HEADER,
    Evidence,
    Principal,
    Services,
)

from .config import BatchConfig
from .jobs import ENDED, Item, Job, Jobs
from .types import ItemResult, Items

log = structlog.get_logger("taskgate.batch")
IdleCheck = Callable[[str], bool | None]


class Metrics:
    def __init__(self, registry: CollectorRegistry):
        self.items = Gauge(
            "taskgate_batch_items", "Batch items by state (queued, running)", ["state"], registry=registry
        )
        self.ended = Counter(
            "taskgate_batch_items_ended_total", "Batch items ended, by pool and outcome (completed, failed, expired)",
            ["pool", "outcome"], registry=registry,
        )  # fmt: skip
        self.jobs = Gauge("taskgate_batch_jobs", "Batch jobs by status", ["status"], registry=registry)


class Scheduler:
    """Runs every job's items as the job's caller, into idle capacity, and ends the jobs."""

    def __init__(
        self,
        config: BatchConfig,
        jobs: Jobs,
        items: Items,
        idle: list[IdleCheck],
        metrics: Metrics,
        publish: Callable[[Evidence], None],
        headers: Mapping[str, str],
    ):
        self.config, self.jobs, self.items, self.idle_checks = config, jobs, items, idle
        self.metrics, self.publish = metrics, publish
        self.task_header, self.session_header = headers["task"], headers["session"]
        self.callers: dict[str, Principal | None] = {}
        self.running = 0
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._items: set[asyncio.Task[None]] = set()
        # (job, group): a group's first item runs alone, so its prefix is computed once and is cached for the rest
        self._leading: set[tuple[str, str]] = set()
        self._warm: set[tuple[str, str]] = set()

    async def start(self) -> None:
        """Resume every job that had not ended (an interrupted item runs again, a finished one never twice)."""
        for job in list(self.jobs.by_id.values()):
            if job.status in ENDED:
                continue
            try:
                await self.resume(job)
            except (OSError, ValueError) as exc:
                self._fail(job, "resume_failed", f"the job could not be resumed: {exc}")
        self._loop = asyncio.create_task(self._run(), name="batch-scheduler")

    async def resume(self, job: Job) -> None:
        self.callers[job.id] = self.items.unseal(job.ours.get("caller"))
        inputs = self.jobs.files / f"{job.record['input_file_id']}.jsonl"
        await asyncio.to_thread(job.load, inputs)  # a large input is parsed off the event loop
        if job.status in ("validating", "finalizing"):
            job.mark("in_progress")
        if job.status == "cancelling":  # cancelled before the restart: nothing more starts
            job.pending.clear()
        job.started_mono = time.monotonic()
        self._count()
        self.wake()

    def wake(self) -> None:
        self._wake.set()

    def cancel(self, job: Job) -> None:
        """Stop starting the job's items; it is cancelled once those in flight have ended (and been written)."""
        job.mark("cancelling")
        job.pending.clear()
        self._count()
        self.wake()

    async def close(self) -> None:
        """Stop: items in flight are cut off, not written, so they run again after a restart."""
        if self._loop is not None:
            self._loop.cancel()
        for task in list(self._items):
            task.cancel()
        await asyncio.gather(*([self._loop] if self._loop else []), *self._items, return_exceptions=True)
        for job in self.jobs.by_id.values():
            job.close()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            self._release()
            self._end_jobs()
            if not any(job.status not in ENDED for job in self.jobs.by_id.values()):
                await self._wake.wait()  # nothing to run: sleep until a job comes
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.poll_s):
                    await self._wake.wait()

    def _release(self) -> None:
        """Start what may start now: oldest deadline first, each job's items in order, into idle capacity."""
        active = [job for job in self.jobs.by_id.values() if job.status == "in_progress" and job.pending]
        for job in sorted(active, key=lambda j: j.record["expires_at"]):
            due = self._due(job)
            while job.pending and self.running < self.config.concurrency and job.inflight < self.config.per_job:
                item = job.pending[0]
                if not due and not self._idle(str(item.body.get("model"))):
                    break  # this job waits; another job's model may have room
                if (job.id, item.group) in self._leading:
                    break  # the rest of a group waits for its first item, which fills the cache with their prefix
                job.pending.popleft()
                self._start(job, item, due)
            if self.running >= self.config.concurrency:
                return

    def _idle(self, model: str) -> bool:
        answers = [check(model) for check in self.idle_checks]
        known = [answer for answer in answers if answer is not None]
        return any(known) if known else True  # nothing says where the model runs: routing will decide

    def _due(self, job: Job) -> bool:
        """The aging rule: whether the job must queue for slots now to finish within its window."""
        window_s = float(job.ours["window_s"])
        elapsed = time.time() - job.record["created_at"]
        if elapsed >= self.config.due_always * window_s:
            return True
        if elapsed < self.config.due_after * window_s:
            return False
        done = job.totals.completed + job.totals.failed
        ran_s = max(1e-3, time.monotonic() - job.started_mono)
        remaining_s = job.record["expires_at"] - time.time()
        return done == 0 or len(job.pending) * ran_s / max(done, 1) > remaining_s

    def _start(self, job: Job, item: Item, due: bool) -> None:
        job.inflight += 1
        self.running += 1
        self._count()
        task = asyncio.create_task(self._item(job, item, due))
        self._items.add(task)
        task.add_done_callback(self._items.discard)
        key = (job.id, item.group)
        if key not in self._warm:
            self._leading.add(key)
            task.add_done_callback(lambda _: self._led(job, item))

    def _led(self, job: Job, item: Item) -> None:
        """A group's first item ended: the rest may follow, together, unless it went back to wait (it leads again)."""
        self._leading.discard((job.id, item.group))
        if not (job.pending and job.pending[0] is item):
            self._warm.add((job.id, item.group))
        self.wake()

    async def _item(self, job: Job, item: Item, due: bool) -> None:
        cls = str(job.ours["class"])
        headers = {
            BATCH_HEADER: f"{cls}; due" if due else cls,
            self.session_header: f"batch-{job.id}-{item.group}",  # a group stays where its prefix is cached
            # each attempt at an item is a task of its own, named for its job: a task id cannot start twice
            self.task_header: f"{job.id}-{secrets.token_hex(6)}",
        }
        labels = {"batch_id": job.id, "custom_id": item.custom_id, "class": cls, "due": due}
        result: ItemResult | None = None
        try:
            try:
                result = await self.items.run(self.callers.get(job.id), job.surface, item.body, headers, labels)
            except Exception:  # Items.run answers every refusal itself: this is a bug, and the item's error line
                log.exception("batch_item_crashed", batch_id=job.id, custom_id=item.custom_id)
                error = {"code": "internal_error", "message": "taskgate failed while running this item"}
                result = ItemResult(500, {"error": error}, "")
        finally:
            job.inflight -= 1
            self.running -= 1
            if result is None:  # cut off (shutdown): it runs again
                job.pending.appendleft(item)
            elif result.waits and job.status == "in_progress":
                job.pending.appendleft(item)  # a pool filled up since it was released: it waits again
            elif job.status in ("in_progress", "cancelling"):
                self._ended(job, item, result)
            self._count()
            self.wake()

    def _ended(self, job: Job, item: Item, result: ItemResult) -> None:
        job.write(item, result)
        outcome = "failed" if result.status >= 400 else "completed"
        self.metrics.ended.labels(result.pool or "", outcome).inc()

    def _end_jobs(self) -> None:
        now = time.time()
        for job in list(self.jobs.by_id.values()):
            if job.status == "in_progress" and job.pending and now >= job.record["expires_at"]:
                for item in job.pending:
                    job.expire(item)
                    self.metrics.ended.labels("", "expired").inc()
                job.pending.clear()
                job.ours["expired"] = True
            if job.status in ("in_progress", "cancelling") and not job.pending and job.inflight == 0:
                self._finish(job)

    def _finish(self, job: Job) -> None:
        """Publish the job's files and its record: completed, expired or cancelled."""
        job.close()
        self._warm = {key for key in self._warm if key[0] != job.id}
        ended = "cancelled" if job.status == "cancelling" else "expired" if job.ours.get("expired") else "completed"
        job.mark("finalizing")
        for kind, field in (("output", "output_file_id"), ("errors", "error_file_id")):
            path = job.file_path(kind)
            if path.exists() and path.stat().st_size > 0:
                self.jobs.keep_file(job, kind)
                job.record[field] = job.ours[kind]
        job.mark(ended)
        self._count()
        self._evidence(job)

    def _fail(self, job: Job, code: str, message: str) -> None:
        job.record["errors"] = {"object": "list", "data": [{"code": code, "message": message, "line": None}]}
        job.pending.clear()
        job.mark("failed")
        self._evidence(job)
        log.warning("batch_failed", batch_id=job.id, code=code, reason=message)

    def _evidence(self, job: Job) -> None:
        """One record per job, beside its items' records: who, what, how it ended, what it took."""
        evidence = Evidence(job.id, "/v1/batches", surface="batches", model=None)
        view = job.view()
        evidence.batch = {
            "batch_id": job.id,
            "status": job.status,
            "endpoint": view["endpoint"],
            "counts": view["request_counts"],
            "pools": view["taskgate"]["pools"],
            "class": view["taskgate"]["class"],
        }
        evidence.usage = {
            "prompt_tokens": view["usage"]["input_tokens"],
            "completion_tokens": view["usage"]["output_tokens"],
            "total_tokens": view["usage"]["total_tokens"],
        } | ({"cost": view["taskgate"]["cost"]} if view["taskgate"]["cost"] is not None else {})
        evidence.finish(200 if job.status != "failed" else 500)
        self.publish(evidence)

    def _count(self) -> None:
        queued = sum(len(job.pending) for job in self.jobs.by_id.values())
        self.metrics.items.labels("queued").set(queued)
        self.metrics.items.labels("running").set(self.running)
        statuses: dict[str, int] = {}
        for job in self.jobs.by_id.values():
            statuses[job.status] = statuses.get(job.status, 0) + 1
        for status in ("in_progress", "cancelling", "completed", "failed", "expired", "cancelled"):
            self.metrics.jobs.labels(status).set(statuses.get(status, 0))


def task_headers(services: Services) -> dict[str, str]:
    """Where an item names its job's task and its routing session, as the steps that read them set them."""
    task, _ = services.task_headers()
    return {"task": task, "session": services.session_header()}
