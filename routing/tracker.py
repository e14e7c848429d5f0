"""What dispatch tells routing back: in-flight counts, breaker outcomes, admission release."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskgate.plugins import Endpoint

from .admission import Gate
from .predict import Ticket, decode_s, kv_tokens, prefill_s

if TYPE_CHECKING:
    from .cluster import ClusterState


class Tracker:
    """The DispatchObserver of one placement."""

    def __init__(
        self,
        cluster: ClusterState,
        gate: Gate,
        placed: str,
        hashes: list[str],
        session: str | None,
        predicted_blocks: int = 0,
        distance: int | None = None,
        model: str | None = None,
    ):
        self.cluster = cluster
        self.gate = gate
        self.placed = placed
        self.hashes = hashes
        self.session = session
        self.predicted_blocks = predicted_blocks
        self.distance = distance
        self.model = model  # the name the engines know the model by
        self.prompt_tokens = 0  # estimated: what a fallback must prefill, holding none of it
        self.answer_tokens = 0  # the request's max_tokens: KV every endpoint tried allocates for it
        self.tickets: dict[str, Ticket] = {}  # per endpoint tried: its prefill lane's and its KV's part in this request
        self.done = False
        self.foreground = True  # not a batch item: engines it runs on are not quiet for long prefills
        self.prefill: str | None = None  # a disaggregated placement's prefill engine

    def attempt_started(self, endpoint: Endpoint) -> None:
        self.cluster.store.inflight(endpoint.name, +1)
        if self.foreground:
            self.cluster.foreground_started(endpoint.name)
        self.cluster.dispatched(endpoint.name)
        self.cluster.breakers.attempting(endpoint.name)
        pool = self.cluster.topology.by_name.get(endpoint.pool)
        if endpoint.name not in self.tickets and pool is not None:  # the placement's own prefill is on its lane already
            config = pool.config
            self.tickets[endpoint.name] = self.cluster.lanes.placed(
                endpoint.name,
                prefill_s(config, self.prompt_tokens),
                kv_tokens(self.prompt_tokens, 0, self.answer_tokens),
                decode_s(config, self.answer_tokens),
                config.kv_capacity_tokens,
            )

    def attempt_ended(self, endpoint: Endpoint, ok: bool, status: int | None) -> None:
        self.cluster.store.inflight(endpoint.name, -1)
        if self.foreground:
            self.cluster.foreground_ended(endpoint.name)
        self.cluster.completed(endpoint.name)
        if endpoint.name == self.prefill:  # its half is done: the lane is past it, the KV handed over
            ticket = self.tickets.pop(endpoint.name, None)
            if ticket is not None:
                (self.cluster.lanes.done if ok else self.cluster.lanes.release)(endpoint.name, ticket)
        breakers = self.cluster.breakers
        if ok:
            breakers.success(endpoint.name)
        elif status is None or status >= 500 or status == 401:  # refused, broken, failing, or our key refused
            breakers.failure(endpoint.name)
        else:  # 429 (load), 404 (not this model) or a client that left: nothing learned about its health
            breakers.neutral(endpoint.name)
            if status == 404 and self.model is not None:
                self.cluster.not_serving(endpoint.name, self.model)

    def finished(self, endpoint: Endpoint | None, cached_tokens: int | None) -> None:
        if self.done:
            return
        self.done = True
        self.gate.leave()
        lanes = self.cluster.lanes
        for name, ticket in self.tickets.items():  # it answered: its prefill is done, whatever the lane predicted
            if endpoint is not None and name == endpoint.name:
                lanes.done(name, ticket)
            else:  # tried and failed, or never sent: it holds no KV there
                lanes.release(name, ticket)
        if endpoint is None:
            return
        if endpoint.name != self.placed:  # a fallback answered: it now holds the prefix
            self.cluster.store.placed(endpoint.name, self.hashes, self.session)
        elif cached_tokens is not None:
            self._learn(endpoint.name, cached_tokens)

    def _learn(self, endpoint: str, cached_tokens: int) -> None:
        """Compare the engine's own account with the prediction, and correct the index's bound.

        A miss bounds the index at the reuse distance, but never below the blocks of the prompt
        just sent (all of them, not only those predicted cached: a smaller bound would evict this
        prompt's leading block, and the next turn would find nothing the engine still holds); one
        odd answer (an engine restart) must not shrink it to nothing. Any hit the engine reports
        lets the bound grow back by that many blocks.
        """
        prefix = self.cluster.config.prefix
        engine_blocks = int(cached_tokens * prefix.chars_per_token / prefix.block_chars)
        if engine_blocks and engine_blocks >= self.predicted_blocks / 2:
            self.cluster.store.confirm(endpoint, engine_blocks)
        elif self.predicted_blocks and self.distance is not None:
            self.cluster.store.learn(endpoint, max(self.distance, len(self.hashes), 1))
