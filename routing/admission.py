"""Per-pool admission: above the watermark, batch work waits in a priority queue that ages."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from dataclasses import dataclass, field

from taskgate.plugins import Reject

from .config import AdmissionConfig

BASE_PRIORITY = {"interactive": 0.0, "batch": 1.0, "background": 2.0}
INTERACTIVE_HEADROOM = 2  # interactive work passes the queue up to this multiple of the watermark, then waits first


@dataclass
class _Waiter:
    cls: str
    since: float
    seq: int
    future: asyncio.Future[None] = field(repr=False)

    def priority(self, now: float, aging_s: float) -> tuple[float, int]:
        return BASE_PRIORITY[self.cls] - (now - self.since) / aging_s, self.seq


class Gate:
    """One pool's concurrency watermark and its waiting room.

    Interactive requests pass the queue up to twice the watermark, then wait
    at the head of it. Batch and background requests queue above the
    watermark; each queued request gains one priority level
    per `aging_s` waited, so nothing starves behind a steady stream.
    """

    def __init__(self, pool: str, watermark: int, config: AdmissionConfig):
        self.pool = pool
        self.watermark = watermark
        self.config = config
        self.inflight = 0
        self._waiting: list[_Waiter] = []
        self._seq = itertools.count()

    async def enter(self, cls: str) -> float:
        """Take a slot; returns seconds waited, or raises Reject(429) with Retry-After."""
        interactive_room = cls == "interactive" and self.inflight < self.watermark * INTERACTIVE_HEADROOM
        if interactive_room or (self.inflight < self.watermark and not self._waiting):
            self.inflight += 1
            return 0.0
        if len(self._waiting) >= self.config.queue_limit:
            raise self._full("the admission queue is full")
        waiter = _Waiter(cls, time.monotonic(), next(self._seq), asyncio.get_running_loop().create_future())
        self._waiting.append(waiter)
        try:
            async with asyncio.timeout(self.config.max_wait_s):
                await asyncio.shield(waiter.future)
        except BaseException as exc:
            self._abandon(waiter)
            if isinstance(exc, TimeoutError):
                raise self._full(f"waited {self.config.max_wait_s:.0f}s for a slot") from None
            raise
        return time.monotonic() - waiter.since

    def _abandon(self, waiter: _Waiter) -> None:
        """A waiter gave up (timeout, client gone); a slot granted meanwhile is passed on."""
        if waiter in self._waiting:
            self._waiting.remove(waiter)
        elif waiter.future.done():
            self.leave()

    def leave(self) -> None:
        """Free a slot and hand it to the most urgent waiter, if any."""
        self.inflight = max(0, self.inflight - 1)
        while self._waiting and self.inflight < self.watermark:
            now = time.monotonic()
            best = min(self._waiting, key=lambda w: w.priority(now, self.config.aging_s))
            self._waiting.remove(best)
            if not best.future.done():
                self.inflight += 1
                best.future.set_result(None)

    @property
    def queued(self) -> int:
        return len(self._waiting)

    def _full(self, why: str) -> Reject:
        retry = max(1, math.ceil(self.config.aging_s))
        message = f"pool {self.pool!r} is at capacity and {why}; retry later"
        return Reject(429, "pool_busy", message, "rate_limit_error", {"Retry-After": str(retry)})
