"""Disaggregated placement: whether a request's prefill runs on a prefill engine and its decode on a decode engine.

A decode engine that prefills a long prompt itself holds every decode running
beside it for that long (one batch per step): their next token waits for the
prefill. Sending the prompt to a prefill engine spares them, at the price of
moving its KV (the prompt's tokens the decode engine does not hold, at the
link's bandwidth) and of the prefill engine's own queue.

The route step ranks the endpoints that take whole requests as ever (decode
and `both` engines; load-, KV- and prefix-aware); when the top one is a decode
engine and the model has prefill engines, this module prices every pair: each
usable prefill engine (prefix-aware: its cached share of the prompt is not
computed again) with each decode engine of the chosen pool. Per pair: TTFT =
the prefill engine's predicted TTFT for one token + the transfer + one decode
step; ITL = the decode pool's `targets.tpot_ms` + the prefill work this replica
has placed on the decode engine and it has not had the time to do (what will
hold its steps).

The best pair with a decode engine is the earliest first token, but a long
prompt (its prefill on the prefill engine past `long_prefill_ms`, unset:
`classes.interactive_ttft_ms`) leaves the `short_lanes` prefill engines whose
lanes would start a prompt soonest to the short ones while another can take
it: spread over every lane, long prefills leave a short prompt no lane
without one ahead of it (the size-interval split of a server farm).

The decision, with `disaggregation.mode: auto`. Running it whole, a decode
running on the decode engine waits for its next token one step
(`targets.tpot_ms`) and the stall (this prompt's uncached prefill there, 0 when
the engine is idle): that gap, not the stall alone, is what is held to the
budget (`decode_stall_ms`, unset: `classes.interactive_itl_ms`). Within it, or
with nothing running there, it runs whole. Past it, the best pair takes it if
that first token is within the class's TTFT target (where running whole would
be; a request whole would miss its target anyway is not held to it) and no
later than running whole by more than the request spares the decodes there
(the stall, times the requests on or queued for it: each waits through it), or than
the budget (the gap the class already accepts between two tokens), or than
`ttft_slack` of its whole TTFT, whichever is most; else it runs whole. The
request takes on at most the delay it takes off the running decodes together
(or one token's budget), so a split never trades a little inter-token latency
of a few streams for a long wait in a prefill engine's queue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from taskgate.plugins import Candidate, Endpoint, Prefill

from .cluster import ClusterState, ClusterView
from .config import DisaggregationConfig, PoolConfig
from .predict import estimate, prefill_s
from .topology import Offer
from .transport import TRANSPORTS

LINKS = ("same zone", "cross zone")


@dataclass(frozen=True, slots=True)
class Pair:
    """One prefill engine with one decode engine, for one request."""

    prefill: Endpoint
    decode: str
    ttft_ms: float
    itl_ms: float
    transfer_ms: float
    link: str
    prefill_cached_tokens: int
    prefill_ms: float  # this prompt's uncached prefill on the prefill engine
    lane_ms: float  # the wait before the prefill engine's lane starts it

    def evidence(self) -> dict[str, Any]:
        return {
            "ttft_ms": _ms(self.ttft_ms),
            "itl_ms": _ms(self.itl_ms),
            "transfer_ms": _ms(self.transfer_ms),
            "link": self.link,
            "prefill_cached_tokens": self.prefill_cached_tokens,
            "prefill_ms": _ms(self.prefill_ms),
            "lane_ms": _ms(self.lane_ms),
        }


@dataclass(slots=True)
class Split:
    """The decision for one request, and what it was decided from (the evidence's `disaggregation`)."""

    mode: str  # "disaggregated" or "aggregated"
    reason: str
    chosen: Pair | None = None
    whole: dict[str, dict[str, Any]] = field(default_factory=dict)  # decode engine -> ttft, itl, stall running whole
    pairs: list[Pair] = field(default_factory=list)

    @property
    def prefill(self) -> Endpoint | None:
        return self.chosen.prefill if self.chosen is not None and self.mode == "disaggregated" else None

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode, "reason": self.reason}
        if self.chosen is not None and self.mode == "disaggregated":
            out |= {"prefill_endpoint": self.chosen.prefill.name, "decode_endpoint": self.chosen.decode}
        out["aggregated"] = self.whole
        out["pairs"] = {f"{p.prefill.name}->{p.decode}": p.evidence() for p in self.pairs}
        return out


class Disaggregation:
    """Built once by the route step when some endpoint has a role; per request, `split`."""

    def __init__(self, cluster: ClusterState, tokens_per_block: float):
        self.cluster, self.tokens_per_block = cluster, tokens_per_block
        self.config: DisaggregationConfig = cluster.config.disaggregation
        self.transport = TRANSPORTS[self.config.transport]()
        classes = cluster.config.classes
        self.stall_budget_ms = self.config.decode_stall_ms or classes.interactive_itl_ms
        self.long_prefill_ms = self.config.long_prefill_ms or classes.interactive_ttft_ms
        self.roles = {
            e.name: pool.role_of(e) for pool in cluster.config.pools for e in pool.endpoints
        }  # endpoint -> its role
        topology = cluster.topology
        self.whole_endpoints = {
            pool.name: tuple(e for e in pool.endpoints if self.roles[e.name] != "prefill") for pool in topology.pools
        }

    def whole(self, offers: list[Offer]) -> list[Offer]:
        """The offers whose pool has an engine that takes whole requests (a prefill engine does not)."""
        return [offer for offer in offers if self.whole_endpoints[offer.pool.name]]

    def decodes(self, endpoint: Endpoint) -> bool:
        return self.roles.get(endpoint.name) == "decode"

    def prefill(self, pair: Pair) -> Prefill:
        return Prefill(pair.prefill, self.transport)

    def split(
        self,
        offers: list[Offer],
        ranked: list[Candidate],
        view: ClusterView,
        tokens: int,
        ttft: dict[str, float],
        target_ms: float,
    ) -> Split:
        """Run `ranked[0]` (a decode engine) whole, or pair it with a prefill engine (see the module)."""
        first = ranked[0]
        decode_pool = self.cluster.topology.by_name[first.endpoint.pool].config
        prefills = self._prefills(offers, view)
        whole = {c.endpoint.name: self._whole(c, decode_pool, tokens, ttft) for c in ranked}
        pairs = [self._pair(p, pool, c, decode_pool, view, tokens) for c in ranked for p, pool in prefills]
        mine = [pair for pair in pairs if pair.decode == first.endpoint.name]
        best = min(self._open(mine), key=lambda pair: pair.ttft_ms, default=None)
        split = Split("aggregated", "", best, whole, pairs)
        split.mode, split.reason = self._decide(first, best, whole[first.endpoint.name], target_ms)
        return split

    def _open(self, pairs: list[Pair]) -> list[Pair]:
        """The pairs this prompt may take: a long one leaves the `short_lanes` prefill engines whose lanes would
        start a prompt soonest to the short prompts, while another prefill engine can take it."""
        keep = self.config.short_lanes
        if keep <= 0 or not any(pair.prefill_ms > self.long_prefill_ms for pair in pairs):
            return pairs
        lanes = {pair.prefill.name: pair.lane_ms for pair in pairs}
        if len(lanes) <= keep:
            return pairs
        shortest = set(sorted(lanes, key=lambda name: (lanes[name], name))[:keep])
        return [pair for pair in pairs if pair.prefill.name not in shortest or pair.prefill_ms <= self.long_prefill_ms]

    def _decide(self, first: Candidate, best: Pair | None, whole: dict[str, Any], target_ms: float) -> tuple[str, str]:
        name, mode = first.endpoint.name, self.config.mode
        if best is None:
            return "aggregated", "no prefill engine can take it now (down, circuit open, or not serving the model)"
        if mode == "never":
            return "aggregated", "disaggregation.mode is never"
        if mode == "always":
            return "disaggregated", "disaggregation.mode is always"
        stall, gap, budget = whole["stall_ms"], whole["gap_ms"], self.stall_budget_ms
        if first.load <= 0:
            return "aggregated", f"nothing runs on {name} for its prefill to hold"
        if stall <= 0:
            return (
                "aggregated",
                f"{name} holds its whole prompt: no prefill there to hold the decodes running beside it",
            )
        step = f"a {gap - stall:.0f} ms step and {stall:.0f} ms of its prefill"
        held = f"a decode running on {name} would wait {gap:.0f} ms for its next token ({step})"
        if gap <= budget:
            return "aggregated", f"{held}, within {budget:g} ms"
        whole_ttft = whole["ttft_ms"] if whole["ttft_ms"] is not None else math.inf
        pair = f"prefilled on {best.prefill.name} ({best.link}) its first token comes in {best.ttft_ms:.0f} ms"
        spared = stall * first.load  # what running whole holds the requests on or queued for it, together
        later, allowed = best.ttft_ms - whole_ttft, max(budget, spared, self.config.ttft_slack * whole_ttft)
        if best.ttft_ms > target_ms >= whole_ttft:
            return "aggregated", f"{held}, past {budget:g} ms; but {pair}, past the class's {target_ms:g} ms target"
        if later > allowed:
            return "aggregated", (
                f"{held}, past {budget:g} ms; but {pair}, {later:.0f} ms later than whole ({whole_ttft:.0f} ms), "
                f"more than the {allowed:.0f} ms it may be ({stall:.0f} ms for each of {first.load:g} there)"
            )
        return "disaggregated", f"{held}, past {budget:g} ms; {pair} (whole: {whole_ttft:.0f} ms)"

    def _prefills(self, offers: list[Offer], view: ClusterView) -> list[tuple[Candidate, PoolConfig]]:
        """The prefill engines that may take this request's prompt now."""
        out = []
        cluster, shared = self.cluster, view.shared
        for offer in offers:
            for endpoint in offer.pool.endpoints:
                name = endpoint.name
                if self.roles[name] != "prefill" or view.down(name) or not cluster.breakers.available(name):
                    continue
                if not cluster.serves(name, offer.model):
                    continue
                load = view.loads.get(name)
                candidate = Candidate(
                    endpoint=endpoint,
                    prefix_blocks=shared.prefix_blocks.get(name, 0),
                    prompt_blocks=len(view.hashes),
                    waiting=load.waiting if load else 0.0,
                    running=cluster.running_now(name, load) if load else 0.0,
                    kv_usage=load.kv_usage if load else 0.0,
                    inflight=shared.inflight.get(name, 0),
                    session_match=False,
                    stale=view.stale(name),
                )
                out.append((candidate, offer.pool.config))
        return out

    def _whole(self, c: Candidate, pool: PoolConfig, tokens: int, ttft: dict[str, float]) -> dict[str, Any]:
        cached = min(tokens, int(c.prefix_blocks * self.tokens_per_block))
        busy = c.load > 0
        stall = 1000.0 * prefill_s(pool, tokens - cached) if busy else 0.0
        return {
            "ttft_ms": _ms(ttft.get(c.endpoint.name, math.inf)),
            "itl_ms": _ms(self._itl_ms(c.endpoint.name, pool)),
            "stall_ms": round(stall, 3),
            "gap_ms": round(pool.targets.tpot_ms + stall, 3),  # what a decode running there waits for its next token
        }

    def _pair(
        self, p: Candidate, pool: PoolConfig, d: Candidate, decode_pool: PoolConfig, view: ClusterView, tokens: int
    ) -> Pair:
        lanes, name = self.cluster.lanes, p.endpoint.name
        hits = lanes.computed(name, view.hashes, p.prefix_blocks)
        cached = int(min(tokens, hits * self.tokens_per_block))
        wait = lanes.wait_s(name)
        prefill_ttft = estimate(pool, tokens, cached, 1, p.waiting, wait).ttft_ms
        compute = 1000.0 * prefill_s(pool, tokens - cached)
        held = min(tokens, int(d.prefix_blocks * self.tokens_per_block))  # the decode engine pulls only the rest
        same = pool.zone is not None and pool.zone == decode_pool.zone
        rate = self.config.same_zone_gb_per_s if same else self.config.cross_zone_gb_per_s
        transfer = 1000.0 * (tokens - held) * self.config.kv_bytes_per_token / (rate * 1e9)
        ttft = prefill_ttft + transfer + decode_pool.targets.tpot_ms
        itl = self._itl_ms(d.endpoint.name, decode_pool)
        link = LINKS[0] if same else LINKS[1]
        return Pair(p.endpoint, d.endpoint.name, ttft, itl, transfer, link, cached, compute, prefill_ttft - compute)

    def _itl_ms(self, endpoint: str, pool: PoolConfig) -> float:
        """The decode engine's gap between tokens: a step, and the prefill placed there that it has yet to do."""
        return pool.targets.tpot_ms + 1000.0 * self.cluster.lanes.backlog_s(endpoint)


def _ms(value: float) -> float | None:
    return round(value, 3) if math.isfinite(value) else None
