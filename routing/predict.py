"""What one request would take on one endpoint: its time to first token and its cost, before it is sent.

TTFT is the wait for the engine to admit the request, then for its prefill
lane, plus the prefill of the prompt tokens it does not hold, plus, while the
engine queues requests, one whole prompt's prefill per queued request.

Admission: an engine allocates a request's KV blocks (its uncached prompt and
its answer) when it admits it, holds them until the answer ends, and admits in
arrival order; a request that does not fit waits, and everything behind it
waits too. Where the pool declares `kv_capacity_tokens`, each placement of
this replica holds its tokens from its predicted admission until its predicted
end (first token plus `max_tokens` at the pool's `targets.tpot_ms`), or until
its answer ends, whichever is later; a request is predicted admitted once the
holds ahead of it leave it room. An answer that is later than predicted keeps
holding: its end is then predicted as far ahead as it is already late. A
prefix the prefix index places on the endpoint counts as cached only as far as
the cache can hold it idle beside those holds and this request's own: an
engine evicts idle prefixes to admit work. Nor does a block that a placement
still prefilling brings: it is not in the cache until that prefill is done.

The lane: each placement occupies it for its uncached prefill, starting when
the request is admitted and the lane is next free (`Lanes`), so a lightly
loaded endpoint predicts its own prefill and nothing more, and one that was
just handed long prompts, or whose KV cache long answers fill, predicts that
backlog until it has had the time to clear it, or until an answer shows the
engine got there sooner. A scrape cannot say this: it sees an engine that has
not started the work yet as idle.

Cost prices the uncached prompt tokens at the pool's input price, the cached
ones at its cached-input price, and `max_tokens` at its output price: a pool
that is cheaper per token can cost more for a request whose conversation is
cached elsewhere, since it must prefill all of it again.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .config import PoolConfig


@dataclass(frozen=True, slots=True)
class Ticket:
    """One placement on one endpoint: when its prefill should be done, and its hold on the endpoint's KV cache."""

    prefill_done: float  # monotonic s
    hold: int


@dataclass(slots=True)
class Hold:
    tokens: float  # KV tokens the engine allocates for the request: its uncached prompt and its answer
    until: float  # when its answer is predicted to end (monotonic s)


@dataclass
class Lanes:
    """Per endpoint, when the engine admits a new request and when its prefill lane is next free, as this
    replica's placements predict (monotonic s)."""

    clock: Callable[[], float] = time.monotonic
    free_at: dict[str, float] = field(default_factory=dict)
    admitted_at: dict[str, float] = field(default_factory=dict)  # the last placement's predicted admission
    holds: dict[str, dict[int, Hold]] = field(default_factory=dict)  # KV held by placements not yet answered
    _ids: Iterator[int] = field(default_factory=itertools.count)
    pending: dict[str, dict[str, float]] = field(default_factory=dict)  # block hash -> when its prefill is done

    def backlog_s(self, endpoint: str) -> float:
        """Seconds of prefill placed on the endpoint that it has not had the time to do."""
        return max(0.0, self.free_at.get(endpoint, 0.0) - self.clock())

    def wait_s(self, endpoint: str, tokens: float = 0.0, capacity: int | None = None, in_use: float = 0.0) -> float:
        """Seconds before a request needing `tokens` of KV (of `capacity`, None: unbounded) starts its prefill:
        admitted behind the placements ahead of it, once they leave it room, then when the lane is free.
        `in_use`: the tokens the engine's last scrape said its running requests hold, a floor under this
        replica's own holds (another replica's work, or blocks an estimate missed), released only as they are."""
        now = self.clock()
        return max(0.0, self._admission(endpoint, tokens, capacity, now, in_use) - now, self.backlog_s(endpoint))

    def _admission(self, endpoint: str, tokens: float, capacity: int | None, now: float, in_use: float = 0.0) -> float:
        start = max(now, self.admitted_at.get(endpoint, now))  # in arrival order: never before the one ahead
        if capacity is None:
            return start
        held = [
            (h.until if h.until > now else 2 * now - h.until, h.tokens) for h in self.holds.get(endpoint, {}).values()
        ]
        own = sum(t for _, t in held)
        room = capacity - max(own, in_use)
        floor = max(0.0, in_use - own)  # held by what this replica did not place: when it ends is unknown
        need = min(tokens, capacity)  # a request larger than the cache waits for all of it, no longer
        for until, freed in sorted(held):
            if room >= need:
                break
            room = min(capacity - floor, room + freed)
            start = max(start, until)
        return start

    def computed(self, endpoint: str, hashes: list[str], hits: int) -> int:
        """Of the `hits` leading prompt blocks the prefix index places on the endpoint, those already computed: a
        block a placement still prefilling brings is not in the cache yet, so a request admitted now computes it
        again (an agent's second turn sent while its first is still prefilling the shared system prompt)."""
        pending = self.pending.get(endpoint)
        if not pending:
            return hits
        now = self.clock()
        for index, digest in enumerate(hashes[:hits]):
            if pending.get(digest, 0.0) > now:
                return index
        return hits

    def bringing(self, endpoint: str, hashes: list[str], prefill_done: float) -> None:
        """A placement brings these blocks to the endpoint's cache once its prefill is done."""
        now = self.clock()
        pending = {h: t for h, t in self.pending.get(endpoint, {}).items() if t > now}
        if prefill_done > now:
            pending.update(dict.fromkeys(hashes, prefill_done))
        if pending:
            self.pending[endpoint] = pending
        else:
            self.pending.pop(endpoint, None)

    def _computed_by(self, endpoint: str, prefill_done: float) -> None:
        pending = self.pending.get(endpoint)
        if pending:
            self.pending[endpoint] = {h: t for h, t in pending.items() if t > prefill_done}
            if not self.pending[endpoint]:
                del self.pending[endpoint]

    def held_tokens(self, endpoint: str) -> float:
        """KV tokens this replica's placements on the endpoint hold now: their uncached prompts and answers."""
        return sum(h.tokens for h in self.holds.get(endpoint, {}).values())

    def resident(self, endpoint: str, cached: int, prompt_tokens: int, max_tokens: int, capacity: int | None) -> int:
        """Of the `cached` prompt tokens the prefix index places on the endpoint, as many as its KV cache can
        still hold idle beside the answers running there and this request's own allocation: an engine evicts
        idle prefixes to admit work, so a long document cached before a burst of long answers is gone after it."""
        if capacity is None or cached <= 0:
            return max(0, cached)
        room = capacity - self.held_tokens(endpoint) - (prompt_tokens - cached) - max(0, max_tokens)
        return max(0, min(cached, int(room)))

    def placed(
        self,
        endpoint: str,
        prefill_s: float,
        tokens: float = 0.0,
        decode_s: float = 0.0,
        capacity: int | None = None,
        in_use: float = 0.0,
    ) -> Ticket:
        """A request goes to the endpoint: it is admitted when the placements ahead leave it room, its prefill
        follows whatever the lane still holds, and it holds `tokens` of KV until `decode_s` after its first
        token. Returns its ticket for `done`."""
        now = self.clock()
        admitted = self.admitted_at[endpoint] = self._admission(endpoint, tokens, capacity, now, in_use)
        prefill_done = self.free_at[endpoint] = max(admitted, self.free_at.get(endpoint, now)) + prefill_s
        hold = next(self._ids)
        if capacity is not None and tokens > 0:
            self.holds.setdefault(endpoint, {})[hold] = Hold(tokens, prefill_done + decode_s)
        return Ticket(prefill_done, hold)

    def done(self, endpoint: str, ticket: Ticket) -> None:
        """The engine answered a request whose prefill was predicted done by `ticket`: its KV is free, and if its
        prefill was still predicted ahead, the engine is faster than its pool's `prefill_tokens_per_s` says, and
        everything after it moves up as much."""
        self.release(endpoint, ticket)
        self._computed_by(endpoint, ticket.prefill_done)  # the lane is past it: so is every prefill before it
        now = self.clock()
        ahead = ticket.prefill_done - now
        if ahead > 0 and endpoint in self.free_at:
            self.free_at[endpoint] = max(now, self.free_at[endpoint] - ahead)

    def release(self, endpoint: str, ticket: Ticket) -> None:
        """The request no longer holds the endpoint's KV (answered, failed, or never sent there): requests
        predicted to wait for room need only what the holds left say."""
        held = self.holds.get(endpoint)
        if held is None or held.pop(ticket.hold, None) is None:
            return
        if not held:
            del self.holds[endpoint]
        now = self.clock()
        if self.admitted_at.get(endpoint, now) > now:
            self.admitted_at[endpoint] = now


@dataclass(frozen=True, slots=True)
class Estimate:
    """One request on one endpoint."""

    ttft_ms: float
    cost: float  # in the pool's currency; 0 where the pool is unpriced
    cached_tokens: int


def prefill_s(pool: PoolConfig, tokens: float) -> float:
    return max(0.0, tokens) / pool.prefill_tokens_per_s


def kv_tokens(prompt_tokens: int, cached_tokens: int, max_tokens: int) -> int:
    """What the engine allocates to admit the request: its uncached prompt and its whole answer."""
    return max(0, prompt_tokens - max(0, cached_tokens)) + max(0, max_tokens)


def decode_s(pool: PoolConfig, max_tokens: int) -> float:
    return max(0, max_tokens) * pool.targets.tpot_ms / 1000.0


def estimate(
    pool: PoolConfig, prompt_tokens: int, cached_tokens: int, max_tokens: int, waiting: float, backlog_s: float
) -> Estimate:
    """TTFT and cost of a prompt of `prompt_tokens` (`cached_tokens` of them held) with `max_tokens` to answer;
    `backlog_s`: the wait before its prefill starts (`Lanes.wait_s`)."""
    cached = max(0, min(prompt_tokens, cached_tokens))
    fresh = prompt_tokens - cached
    ttft_s = backlog_s + prefill_s(pool, fresh) + waiting * prefill_s(pool, prompt_tokens)
    price = pool.price
    cached_rate = price.input_per_mtok if price.cached_input_per_mtok is None else price.cached_input_per_mtok
    cost = (fresh * price.input_per_mtok + cached * cached_rate + max_tokens * price.output_per_mtok) / 1e6
    return Estimate(round(ttft_s * 1000.0, 3), cost, cached)
