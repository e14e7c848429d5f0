"""The simulated engine: admission, prefill and per-token decode timing."""

import asyncio
import math
import time
from collections.abc import AsyncGenerator

from taskgate.sim.kvcache import Lease, PrefixCache
from taskgate.sim.metrics import EngineMetrics
from taskgate.sim.profile import EngineProfile
from taskgate.sim.scheduler import Scheduler
from taskgate.sim.sequence import Sequence
from taskgate.sim.text import output_tokens
from taskgate.sim.tokens import block_hashes


class CapacityError(ValueError):
    """A request that this engine can never run (too long for it)."""


class Engine:
    """Runs sequences against a shared prefix cache with vLLM-like timing."""

    def __init__(self, profile: EngineProfile) -> None:
        self.profile = profile
        self.cache = PrefixCache(profile.kv_capacity_blocks)
        self.scheduler = Scheduler(self.cache, profile.max_num_seqs)
        self.metrics = EngineMetrics(profile.models[0])
        self._prefill_lane = asyncio.Lock()
        self._lane_idle = asyncio.Event()  # no prefill chunk is computing: a decode step may run
        self._lane_idle.set()

    def check(self, seq: Sequence) -> None:
        """Raise CapacityError if ``seq`` could never be scheduled."""
        limit = self.profile.max_model_len
        if not seq.prompt:
            raise CapacityError("The prompt must contain at least one token.")
        if seq.total_tokens > limit:
            raise CapacityError(
                f"This model's maximum context length is {limit} tokens. However, "
                f"you requested {seq.total_tokens} tokens ({len(seq.prompt)} in the "
                f"messages, {seq.max_tokens} in the completion)."
            )
        if self._blocks(seq) > self.cache.capacity:
            raise CapacityError("The request needs more KV-cache blocks than exist.")

    async def generate(self, seq: Sequence) -> AsyncGenerator[str, None]:
        """Queue, prefill and decode ``seq``, yielding each output token."""
        size = self.profile.block_size
        lookup = block_hashes(seq.prompt[:-1], size)  # the last token is always computed
        if seq.delay_s:
            await asyncio.sleep(seq.delay_s)
        lease = await self.scheduler.admit(lookup, self._blocks(seq))
        try:
            if seq.remote is not None:
                await self._transfer(seq, lease)
            else:
                await self._prefill(seq, lease)
            scripted = seq.scripted
            tokens = scripted[: seq.max_tokens] if scripted is not None else output_tokens(seq.seed, seq.max_tokens)
            for index, token in enumerate(tokens):
                if seq.output:
                    await self._decode_step()
                self._emit(seq, token)
                if scripted is not None and index == len(scripted) - 1 and len(scripted) < seq.max_tokens:
                    calls = seq.kinds is not None and any(k.call is not None for k in seq.kinds)
                    seq.finish_reason = "tool_calls" if calls else "stop"  # the script ended before the budget
                yield token
            self.metrics.finished(seq.finish_reason or "length", time.monotonic() - seq.arrival)
        finally:
            if seq.output:  # prefill done: the prompt and output so far are computed
                self.cache.commit(lease, block_hashes(seq.tokens, size))
            self.scheduler.finish(lease)

    async def embed(self, tokens: int) -> None:
        """Spend the prefill time of an embeddings request."""
        self.metrics.embedded(tokens)
        await self._sleep(self.profile.prefill_s(tokens))

    def refresh_metrics(self) -> None:
        """Copy the current load into the gauges."""
        running, waiting = self.scheduler.running, self.scheduler.waiting
        self.metrics.set_state(running, waiting, self.cache.usage())

    def _blocks(self, seq: Sequence) -> int:
        return math.ceil(seq.total_tokens / self.profile.block_size)

    async def _prefill(self, seq: Sequence, lease: Lease, left: int | None = None) -> None:
        if left is None:
            seq.cached_tokens = len(lease.pinned) * self.profile.block_size
            self.metrics.admitted(len(seq.prompt), seq.cached_tokens, time.monotonic() - seq.arrival)
            left = len(seq.prompt) - seq.cached_tokens
        chunk = self.profile.prefill_chunk_tokens or left
        while left > 0:  # prefills share the compute; chunked, each gives the lane up between chunks
            tokens = min(chunk, left)
            delay = self._scaled(self.profile.prefill_s(tokens))
            if delay > 0:
                async with self._prefill_lane:  # FIFO: a prefill that arrives mid-way runs its next chunk
                    self._lane_idle.clear()
                    try:
                        await asyncio.sleep(delay)
                    finally:
                        self._lane_idle.set()
            left -= tokens
        self.cache.commit(lease, block_hashes(seq.prompt, self.profile.block_size))

    async def _transfer(self, seq: Sequence, lease: Lease) -> None:
        """A decode whose prompt was prefilled elsewhere: the blocks it does not hold arrive over the link (no
        compute, so no prefill lane), as many as the prefill engine named; any rest is prefilled here."""
        size = self.profile.block_size
        seq.cached_tokens = len(lease.pinned) * size
        self.metrics.admitted(len(seq.prompt), seq.cached_tokens, time.monotonic() - seq.arrival)
        missing = len(seq.prompt) - seq.cached_tokens
        moved = min(missing, len(seq.remote.block_ids) * size)
        seconds = self.profile.transfer_s(moved)
        await self._sleep(seconds)
        seq.transferred_tokens = moved
        self.metrics.transferred(moved, seconds)
        await self._prefill(seq, lease, missing - moved)

    async def _decode_step(self) -> None:
        if self.profile.prefill_stalls_decode:  # the batch's step waits for the prefill chunk computing in it
            await self._lane_idle.wait()
        await self._sleep(self.profile.decode_step_s(self.scheduler.running))

    def _emit(self, seq: Sequence, token: str) -> None:
        seq.output.append(token)
        if len(seq.output) == seq.max_tokens:
            seq.finish_reason = "length"
        first = len(seq.output) == 1
        self.metrics.token(time.monotonic() - seq.arrival if first else None)

    def _scaled(self, seconds: float) -> float:
        return seconds * self.profile.time_scale

    async def _sleep(self, seconds: float) -> None:
        delay = self._scaled(seconds)
        if delay > 0:
            await asyncio.sleep(delay)
