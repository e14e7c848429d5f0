"""Built-in pickers: `scored` (the cheapest pool that meets the target, its best endpoint), `cheapest` (the
endpoint whose request costs least among those predicted to meet the target) and three baselines.

The baselines choose over every eligible endpoint of every pool, unscored;
benchmarks compare the scored picker against them.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import ClassVar

from pydantic import Field

from taskgate.plugins import Candidate, Params, Picker, PoolFacts, Slate

from .parts import TIE, TOTAL


class Scored:
    """The cheapest pool whose predicted TTFT meets the class's target (else the fastest), then its top endpoint."""

    type: ClassVar[str] = "scored"
    scored: ClassVar[bool] = True

    def pick(self, slate: Slate) -> tuple[Candidate, str]:
        pool = self._pool(slate)
        return slate.ranked[pool][0][0], self._reason(slate, pool)

    def _pool(self, slate: Slate) -> str:
        target, predicted, facts = slate.target_ms, slate.predicted_ttft_ms, slate.pools
        meets = [p for p in slate.ranked if facts[p].ttft_ms <= target and predicted[p] <= target]
        if meets:
            return min(meets, key=lambda p: (_price(facts[p]), predicted[p]))
        return min(slate.ranked, key=lambda p: predicted[p])

    def _reason(self, slate: Slate, pool: str) -> str:
        ranked = slate.ranked[pool]
        first, scores = ranked[0]
        target = slate.target_ms
        fit = "meets" if slate.predicted_ttft_ms[pool] <= target else "misses (fastest available)"
        chosen = f"pool {pool}: cheapest whose predicted TTFT {fit} the {slate.request_class} target {target:.0f} ms"
        why = f"highest score ({first.prefix_blocks} prefix blocks, load {first.load:g})"
        best = scores.get(TOTAL, 0.0)
        tied = [c.endpoint.name for c, s in ranked[1:] if s and round(s.get(TOTAL, 0.0) / TIE) == round(best / TIE)]
        if tied:
            why = (
                f"tied on score with {', '.join(tied)}; chosen for lower load, then less cache displaced, then fewer "
                "cached blocks held"
            )
        return f"{chosen}; endpoint {first.endpoint.name}: {why}"


class CheapestParams(Params):
    margin: float = Field(default=0.2, ge=0, lt=1)  # share of the target held back for what predictions miss


class Cheapest:
    """The cheapest endpoint whose predicted TTFT meets the class's target, else the fastest.

    Each pool offers the first endpoint of its ranking predicted within the target less `margin`; the
    offer whose request would cost least (cached prompt tokens at the cached price, so a conversation
    cached elsewhere costs its whole prefill here) wins, a tie to the sooner. A pool's advertised
    `targets.ttft_ms` is not consulted: the prediction is for this request, on this endpoint, now.
    """

    type: ClassVar[str] = "cheapest"
    scored: ClassVar[bool] = True
    Params = CheapestParams

    def __init__(self, params: CheapestParams) -> None:
        self.share = 1.0 - params.margin

    def pick(self, slate: Slate) -> tuple[Candidate, str]:
        limit = slate.target_ms * self.share
        ttft, cost = slate.endpoint_ttft_ms, slate.endpoint_cost
        offers = [
            next((c for c, _ in ranked if ttft.get(c.endpoint.name, math.inf) <= limit), None)
            for ranked in slate.ranked.values()
        ]
        meets = [c for c in offers if c is not None]
        target = f"the {slate.request_class} target {slate.target_ms:.0f} ms less {1 - self.share:.0%}"
        if meets:
            chosen = min(meets, key=lambda c: (cost.get(c.endpoint.name, 0.0), ttft[c.endpoint.name]))
            against = "; ".join(_offer(c, slate) for c in meets if c is not chosen)
            why = f"cheapest predicted within {target}: {_offer(chosen, slate)}"
            return chosen, why + (f" (against {against})" if against else "")
        chosen = min(everyone(slate), key=lambda c: ttft.get(c.endpoint.name, math.inf))
        return chosen, f"none predicted within {target}; the fastest: {_offer(chosen, slate)}"


def _offer(candidate: Candidate, slate: Slate) -> str:
    name = candidate.endpoint.name
    ms, cost = slate.endpoint_ttft_ms.get(name, math.inf), slate.endpoint_cost.get(name, 0.0)
    return f"pool {candidate.endpoint.pool} endpoint {name} {ms:.0f} ms, cost {cost:.6f}"


class RandomParams(Params):
    seed: int | None = None


class RandomPick:
    """Any eligible endpoint, uniformly; `seed` makes the sequence repeatable."""

    type: ClassVar[str] = "random"
    scored: ClassVar[bool] = False
    Params = RandomParams

    def __init__(self, params: RandomParams) -> None:
        self.random = random.Random(params.seed)

    def pick(self, slate: Slate) -> tuple[Candidate, str]:
        return self.random.choice(everyone(slate)), "random picker"


class RoundRobin:
    """Every eligible endpoint in turn, on its own counter: nothing else may step it."""

    type: ClassVar[str] = "round_robin"
    scored: ClassVar[bool] = False

    def __init__(self) -> None:
        self.rotation = itertools.count()

    def pick(self, slate: Slate) -> tuple[Candidate, str]:
        endpoints = everyone(slate)
        return endpoints[next(self.rotation) % len(endpoints)], "round_robin picker"


class LeastLoaded:
    """The endpoint with the fewest requests on or queued for it; ties: configuration order."""

    type: ClassVar[str] = "least_loaded"
    scored: ClassVar[bool] = False

    def pick(self, slate: Slate) -> tuple[Candidate, str]:
        return min(everyone(slate), key=lambda c: c.load), "least_loaded picker"


def everyone(slate: Slate) -> list[Candidate]:
    """Every eligible endpoint of every pool, pools in config order."""
    return [c for ranked in slate.ranked.values() for c, _ in ranked]


def _price(pool: PoolFacts) -> float:
    return pool.input_per_mtok + pool.output_per_mtok


BUILTIN: tuple[type[Picker], ...] = (Scored, Cheapest, RandomPick, RoundRobin, LeastLoaded)
