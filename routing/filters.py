"""Built-in endpoint filters: the hard constraints a placement may never break.

Each keeps an endpoint (None) or excludes it with a sentence. A pool none of
whose endpoints is left is refused with the reason they share.
"""

from __future__ import annotations

from typing import ClassVar

from taskgate.plugins import Candidate, Demand, Filter

EVERY_CIRCUIT_OPEN = "no endpoint available (every circuit is open)"


class Region:
    """The request may only run in its allowed regions (the PII step's `allowed_regions`)."""

    type: ClassVar[str] = "region"

    def filter(self, candidate: Candidate, peers: tuple[Candidate, ...], demand: Demand) -> str | None:
        regions, region = demand.regions, candidate.endpoint.region
        if regions is None or region in regions:
            return None
        return f"region {region!r} is not among the allowed {sorted(regions)}"


class ContextLength:
    """The prompt and the answer must fit the engine's context."""

    type: ClassVar[str] = "context"

    def filter(self, candidate: Candidate, peers: tuple[Candidate, ...], demand: Demand) -> str | None:
        allowed = demand.pools[candidate.endpoint.pool].max_context
        if demand.tokens <= allowed:
            return None
        return f"needs about {demand.tokens} tokens of context, pool allows {allowed}"


class BreakerState:
    """An endpoint whose circuit is open gets no request until its cool-down lets one probe through."""

    type: ClassVar[str] = "breaker"

    def filter(self, candidate: Candidate, peers: tuple[Candidate, ...], demand: Demand) -> str | None:
        if not candidate.circuit_open:
            return None
        return EVERY_CIRCUIT_OPEN if all(p.circuit_open for p in peers) else "its circuit is open"


class ServesModel:
    """An endpoint whose `/v1/models` does not list the model, or that answered 404 for it, gets none of its
    requests (an endpoint that has not said is kept)."""

    type: ClassVar[str] = "model"

    def filter(self, candidate: Candidate, peers: tuple[Candidate, ...], demand: Demand) -> str | None:
        return None if candidate.serves_model else "it does not serve the model (its /v1/models, or a 404)"


BUILTIN: tuple[type[Filter], ...] = (Region, ServesModel, ContextLength, BreakerState)
DEFAULT = ("region", "model", "context", "breaker")
"""The filters a route step runs unless its config lists others; `region` may never be left out."""
