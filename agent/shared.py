"""Workflow runs every replica can report: each run's state written to Redis as it changes.

A run executes on the replica that admitted it; with `workflows.store:
redis` that replica writes the run's view (what `GET /v1/tasks/{task}`
answers) to Redis when it is admitted, whenever a step starts or settles,
and when it ends, so a poll reaching any replica finds it. Writes are
coalesced and in order: one writer task sends, per wake-up, one pipeline of
the views that changed, so an older view never lands after a newer one. The
first view is in Redis before the 202 goes out, the last before the run's
answer does.

Each replica holds a lease (`replica:ID`, refreshed every second, expiring
after LEASE_S). A run whose view says `running` while the replica that runs
it holds no lease was cut short with that replica: it is reported as
`interrupted`, its running steps `cancelled` and its pending ones `skipped`,
with every step that completed kept as it was. Views live `keep_s` after
the run ends (a running one `timeout_s + keep_s`), under the owner's
namespace (a hash of tenant and subject), so nobody reads another's.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import structlog

from taskgate.errors import TaskgateError
from taskgate.plugins import FAILURES, Evidence, Problem
from taskgate.plugins.redis import connect

from .config import WorkflowsConfig
from .run import Run

Owner = tuple[str, str] | None  # (subject, tenant); None where no authentication is configured
BEAT_S, LEASE_S = 1.0, 3.0
SAVE_S = 2.0  # the longest saved() waits for the writer
log = structlog.get_logger("taskgate")


class RunStoreUnavailable(TaskgateError):
    """The shared store of workflow runs cannot be reached: a run this replica does not hold cannot be found."""


@FAILURES.explains(RunStoreUnavailable)
def _unavailable(exc: RunStoreUnavailable, evidence: Evidence) -> Problem:
    message = "the store of workflow runs is unavailable; poll again shortly"
    return Problem(
        503, "run_store_unavailable", message, "api_error", headers={"Retry-After": "1"}, detail=str(exc), cite=True
    )


class SharedRuns:
    """Runs' views in Redis: written through from this replica, read for runs other replicas hold."""

    def __init__(self, limits: WorkflowsConfig):
        self._redis = connect(limits.redis_url, decode_responses=True)
        self._prefix, self._limits = limits.key_prefix, limits
        self.replica = uuid.uuid4().hex
        self._dirty: dict[str, Run] = {}
        self._waiting: list[asyncio.Future[None]] = []  # saved() calls, told when the writer's next pipeline ends
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def _key(self, owner: Owner, task: str) -> str:
        who = "anonymous" if owner is None else _hashed(owner)
        return f"{self._prefix}run:{who}:{task[:128]}"

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._beat(), name="workflow-lease"),
            asyncio.create_task(self._write_forever(), name="workflow-writer"),
        ]

    def changed(self, run: Run) -> None:
        """`run`'s view changed: it goes out with the writer's next pipeline."""
        self._dirty[self._key(run.owner, run.task)] = run
        self._wake.set()

    async def saved(self, run: Run) -> None:
        """Until `run`'s view as it is now has been written (or the write failed, which the writer logs)."""
        self.changed(run)
        done = asyncio.get_running_loop().create_future()
        self._waiting.append(done)
        with contextlib.suppress(TimeoutError):  # bounded: the store's own timeouts are shorter
            await asyncio.wait_for(asyncio.shield(done), SAVE_S)

    async def find(self, owner: Owner, task: str) -> dict[str, Any] | None:
        """The view of a run another replica holds (interrupted if that replica is gone); None if there is none."""
        with _reached():
            raw = await self._redis.get(self._key(owner, task))
            record = _loaded(raw)
            if record is None:
                return None
            view, replica = record["view"], record.get("replica")
            if view.get("status") == "running" and not await self._redis.exists(self._prefix + f"replica:{replica}"):
                return interrupted(view)
        return dict(view)

    async def _write(self, runs: dict[str, Run]) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            for key, run in runs.items():
                running = run.status == "running"
                life = self._limits.keep_s + (self._limits.timeout_s if running else 0.0)
                pipe.set(key, json.dumps({"replica": self.replica, "view": run.view()}), ex=max(1, int(life)))
            await pipe.execute()

    async def _write_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._dirty = self._dirty, {}
            waiting, self._waiting = self._waiting, []
            try:
                await self._write(batch)
                failed = False
            except Exception as exc:  # kept for the next try; the runs go on here whatever Redis does
                log.warning("workflow_runs_not_shared", runs=len(batch), reason=f"{type(exc).__name__}: {exc}")
                self._dirty, failed = {**batch, **self._dirty}, True
            finally:
                _release(waiting)
            if failed:
                await asyncio.sleep(BEAT_S)
                self._wake.set()

    async def _beat(self) -> None:
        """This replica's lease: while it holds one, its running runs are running."""
        while True:
            with contextlib.suppress(Exception):
                await self._redis.set(self._prefix + f"replica:{self.replica}", "1", px=int(LEASE_S * 1000))
            await asyncio.sleep(BEAT_S)

    async def close(self) -> None:
        """Stop the lease and the writer, send what is pending, and let go of Redis."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            if self._dirty:
                await self._write(self._dirty)
            await self._redis.delete(self._prefix + f"replica:{self.replica}")
        _release(self._waiting)
        with contextlib.suppress(Exception):
            await self._redis.aclose()


def _release(waiting: list[asyncio.Future[None]]) -> None:
    for done in waiting:
        if not done.done():
            done.set_result(None)


def interrupted(view: dict[str, Any]) -> dict[str, Any]:
    """A running run's view once its replica is gone: what completed stays, the rest did not run to its end."""
    steps = {}
    for sid, step in view.get("steps", {}).items():
        if step.get("status") == "running":
            step = {**step, "status": "cancelled", "error": {"code": "interrupted"}}
        elif step.get("status") == "pending":
            step = {**step, "status": "skipped", "error": {"code": "interrupted"}}
        steps[sid] = step
    return {**view, "status": "interrupted", "steps": steps}


def _hashed(owner: tuple[str, str]) -> str:
    subject, tenant = owner
    return hashlib.blake2b(f"{tenant}\x00{subject}".encode(), digest_size=16).hexdigest()


def _loaded(raw: str | None) -> dict[str, Any] | None:
    """A stored record; one that cannot be read counts as gone."""
    if not raw:
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get("view"), dict) else None


@contextlib.contextmanager
def _reached() -> Iterator[None]:
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise RunStoreUnavailable(f"could not read a workflow run: {type(exc).__name__}: {exc}") from None
