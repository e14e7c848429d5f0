"""What one request would take on one endpoint: its time to first token and its cost, before it is sent.

TTFT is the wait for the endpoint's prefill lane, plus the prefill of the
prompt tokens it does not hold, plus, while the engine queues requests for a
seat, one whole prompt's prefill per queued request. The lane's wait comes
from this replica's own placements (`Lanes`): each placement occupies the lane
for its uncached prefill, starting when the lane is next free, so a lightly
loaded endpoint predicts its own prefill and nothing more, and one that was
just handed long prompts predicts their backlog until it has had the time to
clear it, or until an answer shows the engine got there sooner. A scrape cannot
say this: it sees an engine that has not started the work yet as idle.

Cost prices the uncached prompt tokens at the pool's input price, the cached
ones at its cached-input price, and `max_tokens` at its output price: a pool
that is cheaper per token can cost more for a request whose conversation is
cached elsewhere, since it must prefill all of it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .config import PoolConfig


@dataclass
class Lanes:
    """Per endpoint, when its prefill lane is next free, as this replica's placements predict (monotonic s)."""

    clock: Callable[[], float] = time.monotonic
    free_at: dict[str, float] = field(default_factory=dict)

    def backlog_s(self, endpoint: str) -> float:
        """Seconds of prefill placed on the endpoint that it has not had the time to do."""
        return max(0.0, self.free_at.get(endpoint, 0.0) - self.clock())

    def placed(self, endpoint: str, prefill_s: float) -> float:
        """A request goes to the endpoint: its prefill follows whatever the lane still holds. Returns when it
        should be done: its ticket for `done`."""
        now = self.clock()
        ticket = self.free_at[endpoint] = max(now, self.free_at.get(endpoint, now)) + prefill_s  # configured only
        return ticket

    def done(self, endpoint: str, ticket: float) -> None:
        """The engine answered a request whose prefill was predicted done by `ticket`: if that is still ahead, the
        engine is faster than its pool's `prefill_tokens_per_s` says, and everything after it moves up as much."""
        ahead = ticket - self.clock()
        if ahead > 0 and endpoint in self.free_at:
            self.free_at[endpoint] = max(self.clock(), self.free_at[endpoint] - ahead)


@dataclass(frozen=True, slots=True)
class Estimate:
    """One request on one endpoint."""

    ttft_ms: float
    cost: float  # in the pool's currency; 0 where the pool is unpriced
    cached_tokens: int


def prefill_s(pool: PoolConfig, tokens: float) -> float:
    return max(0.0, tokens) / pool.prefill_tokens_per_s


def estimate(
    pool: PoolConfig, prompt_tokens: int, cached_tokens: int, max_tokens: int, waiting: float, backlog_s: float
) -> Estimate:
    """TTFT and cost of a prompt of `prompt_tokens` (`cached_tokens` of them held) with `max_tokens` to answer."""
    cached = max(0, min(prompt_tokens, cached_tokens))
    fresh = prompt_tokens - cached
    ttft_s = backlog_s + prefill_s(pool, fresh) + waiting * prefill_s(pool, prompt_tokens)
    price = pool.price
    cached_rate = price.input_per_mtok if price.cached_input_per_mtok is None else price.cached_input_per_mtok
    cost = (fresh * price.input_per_mtok + cached * cached_rate + max_tokens * price.output_per_mtok) / 1e6
    return Estimate(round(ttft_s * 1000.0, 3), cost, cached)
