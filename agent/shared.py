"""Workflow runs every replica can report and take over: each run's state in Redis, written as it changes.

A run executes on the replica that admitted it; with `workflows.store:
redis` that replica records it in Redis when it is admitted (what was
submitted, the headers its steps run with, who owns it) and writes its view
(what `GET /v1/tasks/{task}` answers) whenever a step starts or settles and
when it ends, so a poll reaching any replica finds it. Writes are coalesced
and in order: one writer task sends, per wake-up, one pipeline of the views
that changed, so an older view never lands after a newer one. The first
view is in Redis before the 202 goes out, the last before the run's answer
does, and a step's `running` before the step does anything.

Each replica holds a lease (`replica:ID`, refreshed every second, expiring
after LEASE_S), and each run it holds a fencing token (`epoch`): every write
of the view checks, in the same step, that the run is still this replica's
under the same token. Every second each replica looks for running runs whose
replica holds no lease, takes them over (a new token: the old holder's
writes are refused from then on, and it stops the run when it learns so),
and resumes them from their recorded steps (`resume.py`). Runs live
`keep_s` after they end (a running one `timeout_s + keep_s`), under the
owner's namespace (a hash of tenant and subject), so nobody reads another's.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Literal

import structlog

from taskgate.errors import TaskgateError
from taskgate.plugins import FAILURES, Evidence, Problem
from taskgate.plugins.redis import connect

from .config import WorkflowsConfig
from .run import Run

Owner = tuple[str, str] | None  # (subject, tenant); None where no authentication is configured
Outcome = Literal["written", "refused", "failed"]
BEAT_S, LEASE_S = 1.0, 3.0
SAVE_S = 2.0  # the longest saved() waits for the writer
log = structlog.get_logger("taskgate")

ADMIT = """
-- KEYS: run, running; ARGV: replica, view, status, spec, headers, owner, deadline, ttl. A new token, this replica's.
local epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'replica', ARGV[1], 'view', ARGV[2], 'status', ARGV[3], 'spec', ARGV[4],
           'headers', ARGV[5], 'owner', ARGV[6], 'deadline', ARGV[7])
redis.call('EXPIRE', KEYS[1], ARGV[8])
if ARGV[3] == 'running' then
  redis.call('ZADD', KEYS[2], ARGV[7], KEYS[1])
  redis.call('EXPIRE', KEYS[2], ARGV[8])
end
return epoch
"""
WRITE = """
-- KEYS: run, running; ARGV: replica, epoch, view, status, ttl. Only while the run is this replica's, same token.
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'view', ARGV[3], 'status', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
if ARGV[4] ~= 'running' then redis.call('ZREM', KEYS[2], KEYS[1]) end
return 1
"""
TAKE = """
-- KEYS: run, the holder's lease; ARGV: holder, its token, this replica. The run, if its holder still has it
-- under that token, it still runs, and the holder's lease is gone.
if redis.call('HGET', KEYS[1], 'replica') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[2]
   or redis.call('HGET', KEYS[1], 'status') ~= 'running' or redis.call('EXISTS', KEYS[2]) == 1 then
  return false
end
local epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'replica', ARGV[3])
return {epoch, unpack(redis.call('HMGET', KEYS[1], 'view', 'spec', 'headers', 'owner', 'deadline'))}
"""


class RunStoreUnavailable(TaskgateError):
    """The shared store of workflow runs cannot be reached: a run this replica does not hold cannot be found."""


class RunMoved(TaskgateError):
    """Another replica has taken this run over: nothing more of it runs here."""


@FAILURES.explains(RunStoreUnavailable)
def _unavailable(exc: RunStoreUnavailable, evidence: Evidence) -> Problem:
    message = "the store of workflow runs is unavailable; poll again shortly"
    return Problem(
        503, "run_store_unavailable", message, "api_error", headers={"Retry-After": "1"}, detail=str(exc), cite=True
    )


class SharedRuns:
    """Runs in Redis: written through from this replica, read for runs other replicas hold, taken over from
    replicas that stopped."""

    def __init__(self, limits: WorkflowsConfig):
        self._redis = connect(limits.redis_url, decode_responses=True)
        self._prefix, self._limits = limits.key_prefix, limits
        self._running = self._prefix + "running"
        self.replica = uuid.uuid4().hex
        self._dirty: dict[str, Run] = {}
        self._waiting: dict[str, list[asyncio.Future[Outcome]]] = {}  # saved() calls, told how their write went
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._admit, self._write_one, self._take = (self._redis.register_script(s) for s in (ADMIT, WRITE, TAKE))
        self.room: Callable[[], bool] = lambda: False  # whether this replica may take another run (Runs sets it)
        self.adopt: Callable[[dict[str, Any]], None] = lambda record: None  # resumes a run taken over

    def _key(self, owner: Owner, task: str) -> str:
        who = "anonymous" if owner is None else _hashed(owner)
        return f"{self._prefix}run:{who}:{task[:128]}"

    def _lease(self, replica: str) -> str:
        return self._prefix + f"replica:{replica}"

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._beat(), name="workflow-lease"),
            asyncio.create_task(self._look_forever(), name="workflow-takeover"),
            asyncio.create_task(self._write_forever(), name="workflow-writer"),
        ]

    def changed(self, run: Run) -> None:
        """`run`'s view changed: it goes out with the writer's next pipeline (unless the run is no longer ours)."""
        if not run.moved:
            self._dirty[self._key(run.owner, run.task)] = run
            self._wake.set()

    async def saved(self, run: Run) -> Outcome:
        """Until `run`'s view as it is now has been written: how that went (`failed` after SAVE_S at most)."""
        if run.moved:
            return "refused"
        self.changed(run)
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(self._key(run.owner, run.task), []).append(done)
        try:  # bounded: the store's own timeouts are shorter
            return await asyncio.wait_for(asyncio.shield(done), SAVE_S)
        except TimeoutError:
            return "failed"

    async def started(self, run: Run) -> None:
        """A step of `run` is about to start: its `running` is recorded first, so whoever resumes the run knows it
        may have done its work. Raises RunMoved if the run is another replica's now; waits while the store is
        away, unless the run never reached it (then no other replica can know it, nor resume it)."""
        while True:
            outcome = await self.saved(run)
            if outcome == "written" or (outcome == "failed" and run.epoch is None):
                return
            if outcome == "refused":
                raise RunMoved(f"workflow {run.task} was taken over by another replica")
            await asyncio.sleep(BEAT_S)

    async def find(self, owner: Owner, task: str) -> dict[str, Any] | None:
        """The view of a run another replica holds or held; None if there is none. A run whose replica is gone
        is resumed by another within seconds; one nobody resumed by its deadline is reported interrupted."""
        with _reached():
            raw, replica, deadline = await self._redis.hmget(self._key(owner, task), "view", "replica", "deadline")
            view = _loaded(raw)
            if view is None:
                return None
            late = time.time() > float(deadline or 0) + LEASE_S
            if view.get("status") == "running" and late and not await self._redis.exists(self._lease(str(replica))):
                return interrupted(view)
        return view

    async def _write(self, runs: dict[str, Run]) -> dict[str, Outcome]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for key, run in runs.items():
                running = run.status == "running"
                ttl = max(1, int(self._limits.keep_s + (self._limits.timeout_s if running else 0.0)))
                view = json.dumps(run.view())
                if run.epoch is None:
                    record = (
                        json.dumps(run.spec.model_dump(mode="json")),
                        json.dumps(_kept(run)),
                        json.dumps(run.owner),
                    )
                    args = [self.replica, view, run.status, *record, run.deadline, ttl]
                    await self._admit(keys=[key, self._running], args=args, client=pipe)
                else:
                    args = [self.replica, run.epoch, view, run.status, ttl]
                    await self._write_one(keys=[key, self._running], args=args, client=pipe)
            answers = await pipe.execute()
        outcomes: dict[str, Outcome] = {}
        for (key, run), answer in zip(runs.items(), answers, strict=True):
            if run.epoch is None:
                run.epoch = int(answer)
            elif not answer:  # another replica took it over: this one stops it
                log.warning("workflow_taken_over", task=run.task)
                run.cut_off()
            outcomes[key] = "written" if answer else "refused"
        return outcomes

    async def _write_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._dirty = self._dirty, {}
            waiting = {key: self._waiting.pop(key) for key in list(self._waiting) if key in batch}
            try:
                outcomes = await self._write(batch)
                failed = False
            except Exception as exc:  # kept for the next try; the runs go on here whatever Redis does
                log.warning("workflow_runs_not_shared", runs=len(batch), reason=f"{type(exc).__name__}: {exc}")
                self._dirty, failed = {**batch, **self._dirty}, True
                outcomes = dict.fromkeys(batch, "failed")
            for key, futures in waiting.items():
                _tell(futures, outcomes.get(key, "failed"))
            if failed:
                await asyncio.sleep(BEAT_S)
                self._wake.set()

    async def _beat(self) -> None:
        """This replica's lease: while it holds one, its runs are its own. Renewed every BEAT_S on a task of its
        own, so that looking for runs to take over, however slow, never lets it lapse; a renewal that fails, or
        one that comes after the lease ran out, is logged (another replica may have taken this one's runs)."""
        renewed = time.monotonic()
        while True:
            try:
                await self._redis.set(self._lease(self.replica), "1", px=int(LEASE_S * 1000))
            except Exception as exc:  # tried again at the next beat
                log.warning("workflow_lease_not_renewed", reason=f"{type(exc).__name__}: {exc}")
            else:
                now = time.monotonic()
                if now - renewed > LEASE_S:
                    log.warning("workflow_lease_lapsed", for_s=round(now - renewed, 3))
                renewed = now
            await asyncio.sleep(BEAT_S)

    async def _look_forever(self) -> None:
        """Every BEAT_S, the runs to take over."""
        while True:
            try:
                await self._take_over()
            except Exception as exc:  # looked for again at the next beat
                log.warning("workflow_takeover_failed", reason=f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(BEAT_S)

    async def _take_over(self) -> None:
        """Resume here every running run whose replica holds no lease, while this replica has room."""
        keys = await self._redis.zrange(self._running, 0, -1)
        if not keys:
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.hmget(key, "replica", "epoch", "status")
            rows = await pipe.execute()
        holders = sorted({str(row[0]) for row in rows if row[0] and row[0] != self.replica})
        async with self._redis.pipeline(transaction=False) as pipe:
            for holder in holders:
                pipe.exists(self._lease(holder))
            alive = dict(zip(holders, await pipe.execute(), strict=True))
        for key, (holder, epoch, status) in zip(keys, rows, strict=True):
            if holder is None or status != "running":
                await self._redis.zrem(self._running, key)  # expired, or ended
            elif holder != self.replica and not alive.get(holder) and self.room():
                taken = await self._take(keys=[key, self._lease(holder)], args=[holder, epoch, self.replica])
                if taken:
                    log.warning("workflow_resumed", run=key.rsplit(":", 1)[-1], from_replica=holder)
                    self.adopt(_record(taken))

    async def close(self, handed_over: bool = False) -> None:
        """Stop the lease and the writer, send what is pending, and let go of Redis. `handed_over`: the runs still
        running here were cut off to be resumed elsewhere: the lease goes at once so another takes them."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            pending = {key: run for key, run in self._dirty.items() if not run.moved}
            if pending:
                await self._write(pending)
            await self._redis.delete(self._lease(self.replica))
        for futures in self._waiting.values():
            _tell(futures, "failed")
        with contextlib.suppress(Exception):
            await self._redis.aclose()


def _tell(futures: list[asyncio.Future[Outcome]], outcome: Outcome) -> None:
    for done in futures:
        if not done.done():
            done.set_result(outcome)


def _kept(run: Run) -> dict[str, str]:
    """The headers the run's steps need to run elsewhere: the caller's credentials, the task's id and token, and
    taskgate's own (`x-`) headers."""
    return {name.lower(): value for name, value in run.headers.items() if name.lower() == "authorization" or
            name.lower().startswith("x-")}  # fmt: skip


def _record(taken: list[Any]) -> dict[str, Any]:
    epoch, view, spec, headers, owner, deadline = taken
    return {
        "epoch": int(epoch), "view": json.loads(view), "spec": json.loads(spec), "headers": json.loads(headers),
        "owner": json.loads(owner), "deadline": float(deadline),
    }  # fmt: skip


def interrupted(view: dict[str, Any]) -> dict[str, Any]:
    """A running run's view once its replica is gone and nobody resumed it: what completed stays, the rest did
    not run to its end."""
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
    """A stored view; one that cannot be read counts as gone."""
    if not raw:
        return None
    try:
        view = json.loads(raw)
    except ValueError:
        return None
    return view if isinstance(view, dict) else None


@contextlib.contextmanager
def _reached() -> Iterator[None]:
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise RunStoreUnavailable(f"could not read a workflow run: {type(exc).__name__}: {exc}") from None
