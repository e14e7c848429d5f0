"""Admission control: a FIFO waiting queue in front of the KV cache."""

import asyncio
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from taskgate.sim.kvcache import Lease, PrefixCache


@dataclass(eq=False)
class _Waiter:
    hashes: Sequence[int]
    blocks: int
    future: "asyncio.Future[Lease]"


class Scheduler:
    """Admits sequences in arrival order while seats and KV blocks allow."""

    def __init__(self, cache: PrefixCache, max_num_seqs: int) -> None:
        self.cache = cache
        self.max_num_seqs = max_num_seqs
        self.running = 0
        self._waiting: deque[_Waiter] = deque()

    @property
    def waiting(self) -> int:
        """Sequences queued for admission."""
        return len(self._waiting)

    async def admit(self, hashes: Sequence[int], blocks: int) -> Lease:
        """Wait for a seat and ``blocks`` KV blocks; the lease pins cached hits."""
        waiter = _Waiter(hashes, blocks, asyncio.get_running_loop().create_future())
        self._waiting.append(waiter)
        self._pump()
        try:
            return await waiter.future
        except asyncio.CancelledError:
            self._abandon(waiter)
            raise

    def finish(self, lease: Lease) -> None:
        """Free a running sequence's seat and blocks, then admit waiters."""
        self.cache.release(lease)
        self.running -= 1
        self._pump()

    def _abandon(self, waiter: _Waiter) -> None:
        if waiter in self._waiting:
            self._waiting.remove(waiter)
            self._pump()
        elif waiter.future.done() and not waiter.future.cancelled():
            self.finish(waiter.future.result())

    def _pump(self) -> None:
        while self._waiting and self.running < self.max_num_seqs:
            head = self._waiting[0]
            if head.future.done():
                self._waiting.popleft()
                continue
            lease = self.cache.acquire(head.hashes, head.blocks)
            if lease is None:
                return
            self._waiting.popleft()
            self.running += 1
            head.future.set_result(lease)
