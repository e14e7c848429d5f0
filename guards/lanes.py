"""Worker threads for blocking analysis that a stalled call cannot hold.

A presidio call cannot be interrupted. In a plain thread pool, a call that
stalls keeps its thread for as long as it stalls, and every request behind it
waits (and times out) until it returns, long after the analyzer itself is fine
again. A Lane keeps `threads` workers; when requests wait and a worker's job
has run longer than `stall_s`, that worker is set aside: it finishes its job
(the result is still delivered and cached) and then exits, and a fresh worker
takes its place at once. At most `max_stalled` workers are set aside at a
time; once that many are and the lane's own workers have stalled too, `submit`
refuses at once (LaneStalled) instead of queueing work that cannot start.

Work whose request gave up (its future cancelled) or whose deadline passed
never starts. A job set aside stops at its next checkpoint once past its
deadline; one that is not set aside finishes in the background, so its
results fill the cache for a retry. A closed lane's jobs stop at their next
checkpoint. Workers are daemon threads, so a call stuck for good cannot keep
the process from exiting; at exit, running calls get EXIT_WAIT_S to return
(a thread stopped inside native code, spaCy's, aborts the process).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from queue import SimpleQueue
from typing import Any

from taskgate.errors import TaskgateError

EXIT_WAIT_S = 10.0


class LaneStalled(TaskgateError):
    """Every worker of a lane is stuck in a call and no more may be set aside."""


class Abandoned(TaskgateError):
    """A job set aside and past its deadline stopped at a checkpoint; nobody waits for its result."""


@dataclass(eq=False)
class _Worker:
    since: float | None = None  # when its current job started; None while it waits for one
    set_aside: bool = False


@dataclass(eq=False)
class Ticket:
    """What a running job may ask of its lane: `checkpoint()` before each step."""

    _worker: _Worker
    _lane: Lane
    deadline: float

    def checkpoint(self) -> None:
        if self._lane.closed:
            raise Abandoned("the lane was closed")
        if self._worker.set_aside and time.monotonic() > self.deadline:
            raise Abandoned("the job was set aside and its request has given up")


Job = Callable[[Ticket], Any]


@dataclass(eq=False)
class _Work:
    job: Job
    future: Future[Any]
    deadline: float


@dataclass(eq=False)
class Lane:
    name: str
    threads: int
    stall_s: float
    max_stalled: int
    on_set_aside: Callable[[], None] = field(default=lambda: None)

    _queue: SimpleQueue[_Work | None] = field(default_factory=SimpleQueue, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _workers: list[_Worker] = field(default_factory=list, init=False)
    _aside: int = field(default=0, init=False)  # set aside and still running
    _queued: int = field(default=0, init=False)
    _watch: asyncio.TimerHandle | None = field(default=None, init=False)
    _started: list[threading.Thread] = field(default_factory=list, init=False)
    _closed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        _LANES.add(self)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def set_aside(self) -> int:
        """Workers set aside whose job has not returned yet."""
        return self._aside

    def submit(self, job: Job, deadline: float) -> asyncio.Future[Any]:
        """Run `job` on a worker; refuses with LaneStalled if no worker can take it."""
        loop = asyncio.get_running_loop()
        future: Future[Any] = Future()
        with self._lock:
            self._queued += 1
            self._grow()
            self._replace_stalled()
            if self._stuck():
                self._queued -= 1
                raise LaneStalled(self._stuck_reason())
            self._queue.put(_Work(job, future, deadline))
        self._schedule(loop)
        return asyncio.wrap_future(future, loop=loop)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Stop the workers once their current job ends; queued work is cancelled if asked."""
        if cancel_futures:
            while not self._queue.empty():
                work = self._queue.get_nowait()
                if work is not None:
                    work.future.cancel()
        with self._lock:
            self._closed = True
            active = [w for w in self._workers if not w.set_aside]
        for _ in active:
            self._queue.put(None)
        if self._watch is not None:
            self._watch.cancel()
        if wait:
            self.join(time.monotonic() + EXIT_WAIT_S)

    def _grow(self) -> None:
        """Under the lock: start workers as work arrives, up to `threads` (none before the first request)."""
        active = [w for w in self._workers if not w.set_aside]
        idle = sum(w.since is None for w in active)
        if len(active) < self.threads and idle < self._queued and not self._closed:
            self._spawn()

    def join(self, deadline: float) -> None:
        """Wait for this lane's threads to end, until `deadline` (monotonic)."""
        for thread in list(self._started):
            if thread is not threading.current_thread():
                thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def _spawn(self) -> None:
        worker = _Worker()
        self._workers.append(worker)
        thread = threading.Thread(target=self._run, args=(worker,), name=f"{self.name}-{len(self._started)}")
        thread.daemon = True  # a call stuck for good must not keep the process from exiting
        self._started = [t for t in self._started if t.is_alive()] + [thread]
        thread.start()

    def _run(self, worker: _Worker) -> None:
        while (work := self._queue.get()) is not None:
            with self._lock:
                self._queued -= 1
            if not work.future.set_running_or_notify_cancel():
                continue  # its request gave up while it waited
            if time.monotonic() > work.deadline:
                work.future.set_exception(TimeoutError("the request's budget ran out before its analysis began"))
                continue
            if self._do(worker, work):
                return

    def _do(self, worker: _Worker, work: _Work) -> bool:
        """Run one job; True if this worker was set aside meanwhile and must now exit."""
        worker.since = time.monotonic()
        try:
            work.future.set_result(work.job(Ticket(worker, self, work.deadline)))
        except Exception as exc:
            work.future.set_exception(exc)
        with self._lock:
            worker.since = None
            if worker.set_aside:
                self._aside -= 1
                self._workers.remove(worker)
                self._replace_stalled()  # room for one more: work may be waiting behind stalled workers
            return worker.set_aside

    def _stalled(self, worker: _Worker, now: float) -> bool:
        return worker.since is not None and now - worker.since > self.stall_s

    def _replace_stalled(self) -> None:
        """Under the lock: set aside stalled workers while work waits for them, within the bound."""
        now = time.monotonic()
        active = [w for w in self._workers if not w.set_aside]
        idle = sum(w.since is None for w in active)
        for worker in active if not self._closed else ():
            if self._queued <= idle or self._aside >= self.max_stalled:
                return
            if self._stalled(worker, now):
                worker.set_aside = True
                self._aside += 1
                self._spawn()
                idle += 1
                self.on_set_aside()

    def _stuck(self) -> bool:
        now = time.monotonic()
        active = [w for w in self._workers if not w.set_aside]
        return self._aside >= self.max_stalled and all(self._stalled(w, now) for w in active)

    def _stuck_reason(self) -> str:
        return (
            f"the analyzer is stalled: {self.threads} worker thread(s) of lane {self.name!r} have been in one call "
            f"for over {self.stall_s} s and {self._aside} more are set aside, the most this lane allows"
        )

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        """While work waits, look again when the oldest running job would count as stalled."""
        with self._lock:
            busy = [w.since for w in self._workers if not w.set_aside and w.since is not None]
            room = self._queued > 0 and self._aside < self.max_stalled and not self._closed
        if not room or self._watch is not None:
            return
        due = min(busy) + self.stall_s if busy else time.monotonic() + self.stall_s
        self._watch = loop.call_later(max(0.01, due - time.monotonic() + 0.001), self._recheck, loop)

    def _recheck(self, loop: asyncio.AbstractEventLoop) -> None:
        self._watch = None
        with self._lock:
            self._replace_stalled()
        self._schedule(loop)


_LANES: weakref.WeakSet[Lane] = weakref.WeakSet()


def _drain() -> None:
    """At exit, close every lane and give its running calls EXIT_WAIT_S to return."""
    lanes = list(_LANES)
    for lane in lanes:
        lane.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + EXIT_WAIT_S
    for lane in lanes:
        lane.join(deadline)


# Before any atexit handler, while native libraries (blis, under spaCy) are still whole: a call running
# after their own exit handlers crashes the process. concurrent.futures registers its joins the same way.
getattr(threading, "_register_atexit", atexit.register)(_drain)
