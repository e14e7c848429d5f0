"""Releasing jobs' items into idle capacity: the scheduler, one loop per replica.

It claims an item from its ledger only when it could start one: fewer than
`concurrency` run here (`per_job` of one job) and a pool serving the job's
models has idle capacity (`IDLE_CAPACITY`: routing's pools under their idle
watermark, nothing waiting). An item that cannot start yet stays claimed,
at the head of its job's queue here, and is looked at again every `poll_s`,
and at once when an item ends. Jobs go oldest deadline first; a job's items
go in the order its ledger queued them: group by group, so items that share
a prefix run back to back, and each group is one routing session, so it
stays on the endpoint that holds its prefix. A group's first item runs
alone; the rest follow once it has ended (on any replica), so the prefix is
computed once. Each item is authorized as a task of its own, named for its
job (`<batch id>-<hex>`). Routing checks again when it places the item; a
pool that filled up meanwhile answers `pool_not_idle` and the item waits
again.

Where replicas share jobs, the claims are leases: a keeper renews this
replica's several times within `lease_s` and takes over items whose claims
lapsed; an item whose claim was lost is cut off, and its line, if it comes,
is refused by the ledger (`taskgate_batch_claims_lost_total`).

The aging rule: past `due_after` of its window, a job whose pace would not
finish it in time is due, and so is every job past `due_always`: its items
are then `batch` work that queues for a slot (and ages there) instead of
waiting for idle capacity. At the deadline what has not run is written to
the error file as `batch_expired`.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import secrets
import time
from collections.abc import Callable, Mapping

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge

from taskgate.plugins import BATCH_HEADER, Evidence, Principal, Services

from .config import BatchConfig
from .jobs import Job, expired_line, result_line
from .ledger import Claim, Ledger
from .types import ItemResult, Items

log = structlog.get_logger("taskgate.batch")
IdleCheck = Callable[[str], bool | None]
LIVE = frozenset({"in_progress", "cancelling"})
REFRESH_S = 0.5  # how often a replica that shares jobs reads them again (a cancel, a new job elsewhere)


class Metrics:
    def __init__(self, registry: CollectorRegistry):
        self.items = Gauge(
            "taskgate_batch_items", "Batch items by state (queued, running)", ["state"], registry=registry
        )
        self.ended = Counter(
            "taskgate_batch_items_ended_total", "Batch items ended, by pool and outcome (completed, failed, expired)",
            ["pool", "outcome"], registry=registry,
        )  # fmt: skip
        self.lost = Counter(
            "taskgate_batch_claims_lost_total",
            "Items whose claim this replica lost to another (its lease lapsed): cut off, their lines refused",
            registry=registry,
        )
        self.jobs = Gauge("taskgate_batch_jobs", "Batch jobs by status", ["status"], registry=registry)


class Scheduler:
    """Runs every job's items as the job's caller, into idle capacity, and ends the jobs."""

    def __init__(
        self,
        config: BatchConfig,
        ledger: Ledger,
        items: Items,
        idle: list[IdleCheck],
        metrics: Metrics,
        publish: Callable[[Evidence], None],
        headers: Mapping[str, str],
    ):
        self.config, self.ledger, self.items, self.idle_checks = config, ledger, items, idle
        self.metrics, self.publish = metrics, publish
        self.task_header, self.session_header = headers["task"], headers["session"]
        self.callers: dict[str, Principal | None] = {}
        self.jobs: dict[str, Job] = {}
        self.held: dict[str, list[Claim]] = {}  # claimed, not started: per job, in the order they run
        self.tasks: dict[tuple[str, str], tuple[Claim, asyncio.Task[None]]] = {}  # running here
        self.warm: set[tuple[str, str]] = set()
        self.lost: set[tuple[str, str]] = set()  # running here, its claim known lost (counted once)
        self._refreshed = 0.0
        self._wake = asyncio.Event()
        self._loops: list[asyncio.Task[None]] = []

    @property
    def running(self) -> int:
        return len(self.tasks)

    async def start(self) -> None:
        for job in await self.ledger.start():
            self._evidence(job)
        self._loops = [asyncio.create_task(self._run(), name="batch-scheduler")]
        if self.ledger.shared:
            self._loops.append(asyncio.create_task(self._keep(), name="batch-leases"))

    def wake(self) -> None:
        self._wake.set()

    def add(self, job: Job) -> None:
        """A job made here: run it now, without waiting for the next read of the ledger."""
        self.jobs[job.id] = job
        self.wake()

    async def cancel(self, job: Job) -> Job | None:
        """Stop starting the job's items (on every replica); it is cancelled once those in flight have ended and
        been written. None if it had ended or was being cancelled already."""
        cancelled = await self.ledger.mark(job, frozenset({"validating", "in_progress"}), "cancelling")
        if cancelled is not None:
            self.jobs[job.id] = cancelled
            self.wake()
        return cancelled

    async def close(self) -> None:
        """Stop: items in flight are cut off, not written; another replica (or this one, restarted) runs them."""
        for loop in self._loops:
            loop.cancel()
        running = [task for _, task in self.tasks.values()]
        for task in running:
            task.cancel()
        await asyncio.gather(*self._loops, *running, return_exceptions=True)
        unended = [claim for held in self.held.values() for claim in held] + [c for c, _ in self.tasks.values()]
        with contextlib.suppress(Exception):  # the store may be gone: the claims lapse by themselves
            await self.ledger.close(unended)

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self._tick()
            except Exception as exc:  # the store went away for a moment: try again at the next tick
                log.warning("batch_store_unavailable", reason=f"{type(exc).__name__}: {exc}")
            wait = self.config.poll_s if self.jobs else (REFRESH_S if self.ledger.shared else None)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._wake.wait()

    async def _tick(self) -> None:
        await self._refresh()
        for job in sorted(self.jobs.values(), key=lambda j: j.record["expires_at"]):
            if job.status == "cancelling":
                await self._drop_held(job)
            elif job.status == "in_progress" and time.time() >= job.record["expires_at"]:
                await self._expire(job)
            elif job.status == "in_progress":
                await self._release(job)
            if self._ended(job):
                await self._finish(job)
        self._count()

    async def _refresh(self) -> None:
        """Every job not ended, as the ledger has it now (read at most every REFRESH_S where jobs are shared)."""
        now = time.monotonic()
        if self.ledger.shared and now - self._refreshed < REFRESH_S:
            return
        self._refreshed = now
        self.jobs = {job.id: job for job in await self.ledger.active()}
        for gone in set(self.held) - set(self.jobs):
            self.held.pop(gone, None)

    async def _release(self, job: Job) -> None:
        """Start what may start now: the job's items in order, into idle capacity."""
        if not await self._known(job):
            return
        due = self._due(job)
        held = self.held.setdefault(job.id, [])
        while self.running < self.config.concurrency and self._inflight(job) < self.config.per_job:
            if not held:
                models = job.ours.get("models") or []
                if not due and models and not any(self._idle(str(model)) for model in models):
                    return  # no pool of the job's has room: claim nothing another replica could run
                claims = await self.ledger.take(job, 1)
                if not claims:
                    return
                self._hold(claims)
            claim = held[0]
            if not due and not self._idle(str(claim.item.body.get("model"))):
                return  # this job waits; another job's model may have room
            if not claim.item.first and not await self._warm(job, claim.item.group):
                return  # the rest of a group waits for its first item, which fills the cache with their prefix
            held.pop(0)
            self._start(job, claim, due)

    def _hold(self, claims: list[Claim]) -> None:
        for claim in claims:
            bisect.insort(self.held.setdefault(claim.job, []), claim, key=lambda c: c.order)

    async def _warm(self, job: Job, group: str) -> bool:
        if (job.id, group) in self.warm:
            return True
        if await self.ledger.warm(job, group):
            self.warm.add((job.id, group))
            return True
        return False

    def _inflight(self, job: Job) -> int:
        return sum(1 for job_id, _ in self.tasks if job_id == job.id)

    def _idle(self, model: str) -> bool:
        answers = [check(model) for check in self.idle_checks]
        known = [answer for answer in answers if answer is not None]
        return any(known) if known else True  # nothing says where the model runs: routing will decide

    def _due(self, job: Job) -> bool:
        """The aging rule: whether the job must queue for slots now to finish within its window."""
        window_s = float(job.ours["window_s"])
        now = time.time()
        elapsed = now - job.record["created_at"]
        if elapsed >= self.config.due_always * window_s:
            return True
        if elapsed < self.config.due_after * window_s:
            return False
        ran_s = max(1e-3, now - (job.record.get("in_progress_at") or job.record["created_at"]))
        remaining_s = job.record["expires_at"] - now
        return job.done == 0 or (job.queued + job.running) * ran_s / job.done > remaining_s

    def _start(self, job: Job, claim: Claim, due: bool) -> None:
        task = asyncio.create_task(self._item(job, claim, due))
        self.tasks[(job.id, claim.entry)] = (claim, task)

    async def _item(self, job: Job, claim: Claim, due: bool) -> None:
        cls, item = str(job.ours["class"]), claim.item
        headers = {
            BATCH_HEADER: f"{cls}; due" if due else cls,
            self.session_header: f"batch-{job.id}-{item.group}",  # a group stays where its prefix is cached
            # each attempt at an item is a task of its own, named for its job: a task id cannot start twice
            self.task_header: f"{job.id}-{secrets.token_hex(6)}",
        }
        labels = {"batch_id": job.id, "custom_id": item.custom_id, "class": cls, "due": due}
        try:
            try:
                result = await self.items.run(self.callers.get(job.id), job.surface, item.body, headers, labels)
            except Exception:  # Items.run answers every refusal itself: this is a bug, and the item's error line
                log.exception("batch_item_crashed", batch_id=job.id, custom_id=item.custom_id)
                error = {"code": "internal_error", "message": "taskgate failed while running this item"}
                result = ItemResult(500, {"error": error}, "")
            status = self.jobs.get(job.id, job).status
            if result.waits and status == "in_progress":
                self._hold([claim])  # a pool filled up since it was released: it waits again, still claimed
            elif result.waits:
                await self.ledger.drop(claim)  # it never ran, and its job was cancelled meanwhile
            else:
                kind, line = result_line(item, result)
                await self._commit(claim, kind, line, result.pool or "")
        finally:  # cut off (shutdown, or its claim lost): nothing is written, and it runs again elsewhere
            self.tasks.pop((job.id, claim.entry), None)
            self.lost.discard((job.id, claim.entry))
            self.wake()

    async def _known(self, job: Job) -> bool:
        """Whether the caller the job keeps can be restored to run its items; if not, the job fails."""
        if job.id in self.callers:
            return True
        try:
            self.callers[job.id] = self.items.unseal(job.ours.get("caller"))
            return True
        except ValueError as exc:
            errors = [{"code": "resume_failed", "message": f"the job's caller cannot be restored: {exc}", "line": None}]
            failed = await self.ledger.mark(job, LIVE, "failed", errors={"object": "list", "data": errors})
            log.warning("batch_failed", batch_id=job.id, code="resume_failed", reason=str(exc))
            self.jobs.pop(job.id, None)
            if failed is not None:
                self._evidence(failed)
            return False

    async def _commit(self, claim: Claim, kind: str, line: dict[str, object], pool: str) -> None:
        """Write the item's line if its claim still holds; a store that fails is asked again within the lease."""
        deadline = time.monotonic() + self.ledger.lease_s / 2
        while True:
            try:
                written = await self.ledger.commit(claim, kind, line)
                break
            except Exception as exc:
                if time.monotonic() > deadline:  # the claim lapses and another replica runs the item
                    log.warning("batch_line_not_written", batch_id=claim.job, reason=f"{type(exc).__name__}: {exc}")
                    return
                await asyncio.sleep(0.2)
        if not written:
            if (claim.job, claim.entry) not in self.lost:
                self.metrics.lost.inc()
            log.warning("batch_claim_lost", batch_id=claim.job, custom_id=claim.item.custom_id, why="line refused")
            return
        error = line.get("error")
        expired = isinstance(error, dict) and error.get("code") == "batch_expired"
        outcome = "expired" if expired else "failed" if kind == "errors" else "completed"
        self.metrics.ended.labels(pool, outcome).inc()

    async def _expire(self, job: Job) -> None:
        """The window closed: every item not started yet, here and unclaimed, is written as expired."""
        held = self.held.pop(job.id, [])
        while True:
            for claim in held:
                await self._commit(claim, "errors", expired_line(claim.item), "")
            held = await self.ledger.take(job, 256, bounded=False)
            if not held:
                return

    async def _drop_held(self, job: Job) -> None:
        for claim in self.held.pop(job.id, []):
            await self.ledger.drop(claim)

    def _ended(self, job: Job) -> bool:
        """Nothing of the job left anywhere: no item unclaimed (or it is cancelled) and none claimed."""
        if job.status == "finalizing":  # its finisher stopped before it ended the job: take it over
            since = job.record.get("finalizing_at") or 0
            return bool(self.ledger.shared and time.time() - since > self.ledger.lease_s)
        mine = self._inflight(job) + len(self.held.get(job.id, []))
        unclaimed = job.queued if job.status == "in_progress" else 0
        return job.status in LIVE and unclaimed == 0 and job.running == 0 and mine == 0

    async def _finish(self, job: Job) -> None:
        """Publish the job's files and its record: completed, expired or cancelled."""
        status = "cancelled" if job.status == "cancelling" else "expired" if job.totals.expired else "completed"
        ended = await self.ledger.finish(job, status)
        self.jobs.pop(job.id, None)
        self.held.pop(job.id, None)
        self.warm = {key for key in self.warm if key[0] != job.id}
        self.callers.pop(job.id, None)
        if ended is not None:
            self._evidence(ended)

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

    async def _keep(self) -> None:
        """Where replicas share jobs: renew this replica's claims, and take over items whose claims lapsed."""
        while True:
            await asyncio.sleep(self.ledger.lease_s / 3)
            try:
                await self._renew()
                await self._reclaim()
            except Exception as exc:  # the claims lapse if this goes on; another replica takes the items
                log.warning("batch_leases_not_renewed", reason=f"{type(exc).__name__}: {exc}")

    async def _renew(self) -> None:
        mine: dict[str, list[Claim]] = {job: list(held) for job, held in self.held.items() if held}
        for claim, _ in self.tasks.values():
            mine.setdefault(claim.job, []).append(claim)
        for job, claims in mine.items():
            for claim in await self.ledger.renew(job, claims):
                self._lost(claim)

    def _lost(self, claim: Claim) -> None:
        self.metrics.lost.inc()
        log.warning("batch_claim_lost", batch_id=claim.job, custom_id=claim.item.custom_id, why="lease lapsed")
        held = self.held.get(claim.job, [])
        if claim in held:
            held.remove(claim)
        running = self.tasks.get((claim.job, claim.entry))
        if running is not None:
            self.lost.add((claim.job, claim.entry))
            running[1].cancel()  # its answer would be refused: stop spending the engine on it

    async def _reclaim(self) -> None:
        room = self.config.concurrency - self.running - sum(len(held) for held in self.held.values())
        for job in list(self.jobs.values()):
            if room <= 0 or job.status not in LIVE:
                continue
            claims = await self.ledger.reclaim(job, min(room, self.config.per_job))
            room -= len(claims)
            if job.status == "cancelling":
                for claim in claims:
                    await self.ledger.drop(claim)
            else:
                self._hold(claims)
        if room < self.config.concurrency:
            self.wake()

    def _count(self) -> None:
        self.metrics.items.labels("queued").set(sum(job.queued for job in self.jobs.values()))
        self.metrics.items.labels("running").set(self.running)
        statuses: dict[str, int] = {}
        for job in self.jobs.values():
            statuses[job.status] = statuses.get(job.status, 0) + 1
        for status in ("in_progress", "cancelling", "finalizing"):
            self.metrics.jobs.labels(status).set(statuses.get(status, 0))


def task_headers(services: Services) -> dict[str, str]:
    """Where an item names its job's task and its routing session, as the steps that read them set them."""
    task, _ = services.task_headers()
    return {"task": task, "session": services.session_header()}
