"""`routing.route`: choose the pool, wait for admission, then rank the pool's endpoints.

Stage one filters pools by hard constraints (model, context length, allowed
regions, a healthy endpoint) and picks the cheapest whose predicted TTFT for
the request's class meets its target. Stage two scores the pool's endpoints
with weighted scorers; affinity counts only on endpoints within `load_slack`
requests of the least loaded, so it never piles work onto one endpoint while
another idles. The placement is recorded in the prefix index at once.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field, field_validator

from taskgate.plugins import (
    ALLOWED_REGIONS,
    REQUEST,
    REQUEST_CLASS,
    Candidate,
    Inputs,
    Params,
    Placement,
    Reject,
    RequestContext,
    Services,
    Step,
    StepOptions,
)

from .cluster import CLUSTER, ClusterState, ClusterView
from .config import RoutingConfig
from .scorers import AFFINITY, BUILTIN
from .topology import Offer
from .tracker import Tracker

CLASSES = ("interactive", "batch", "background")


class RouteParams(Params):
    picker: Literal["scored", "random", "round_robin", "least_loaded"] = "scored"
    weights: dict[str, float] = Field(
        default_factory=lambda: {"prefix": 4.0, "session": 1.0, "inflight": 2.0, "queue": 1.0, "kv": 0.5}
    )
    load_slack: float = Field(default=2.0, ge=0)
    class_from_header: bool = True
    seed: int | None = None

    @field_validator("weights")
    @classmethod
    def _known(cls, weights: dict[str, float]) -> dict[str, float]:
        return weights  # names are checked against registered scorers when the step is built


class Route(Step[RouteParams]):
    type = "routing.route"
    requires = (REQUEST, CLUSTER)
    optional = (ALLOWED_REGIONS, REQUEST_CLASS)
    provides = "placement"
    Params = RouteParams

    def __init__(self, name: str, params: RouteParams, services: Services, options: StepOptions | None = None):
        super().__init__(name, params, services, options)
        config = services.section("routing", RoutingConfig)
        self.cluster: ClusterState = services.shared("routing.cluster", lambda: ClusterState(config))
        scorers = {s.type: s() for s in BUILTIN}
        unknown = sorted(set(params.weights) - set(scorers))
        if unknown:
            raise ValueError(f"unknown scorer(s) {', '.join(unknown)} in weights (known: {', '.join(sorted(scorers))})")
        self.scorers = [(scorers[n], w) for n, w in params.weights.items() if w]
        self.random = random.Random(params.seed)

    async def run(self, inputs: Inputs) -> Placement:
        request: RequestContext = inputs[REQUEST]
        view: ClusterView = inputs[CLUSTER]
        model = request.model or ""
        offers = self.cluster.topology.offers(model)
        if not offers:
            raise Reject(404, "model_not_found", f"The model {model!r} does not exist or is not served here.")
        cls = self._class(inputs, request)
        usable = {offer.pool.name: self._usable(offer, view) for offer in offers}
        fits, refused = self._eligible(offers, usable, inputs.get(ALLOWED_REGIONS), request, view)
        if not fits:
            reasons = "; ".join(f"pool {pool}: {why}" for pool, why in refused.items())
            raise Reject(503, "no_pool_satisfies", f"no pool can serve model {model!r}: {reasons}", "api_error")
        ranked = {offer.pool.name: self._rank(usable[offer.pool.name], view) for offer in fits}
        chosen, predictions = self._choose(fits, ranked, cls, view)
        gate = self.cluster.gates[chosen.pool.name]
        waited = await gate.enter(cls)
        return self._place(chosen, fits, ranked, view, cls, predictions, refused, waited, gate)

    def _class(self, inputs: Inputs, request: RequestContext) -> str:
        given = inputs.get(REQUEST_CLASS)
        if given is None and self.params.class_from_header:
            given = request.headers.get(self.cluster.config.classes.header)
        return given if given in CLASSES else self.cluster.config.classes.default

    def _eligible(
        self,
        offers: list[Offer],
        usable: dict[str, tuple[Candidate, ...]],
        regions: Any,
        request: RequestContext,
        view: ClusterView,
    ) -> tuple[list[Offer], dict[str, str]]:
        needed = _prompt_tokens(view, self.cluster) + _max_tokens(request.json())
        fits: list[Offer] = []
        refused: dict[str, str] = {}
        for offer in offers:
            pool = offer.pool.config
            if regions is not None and pool.region not in regions:
                refused[pool.name] = f"region {pool.region!r} is not among the allowed {sorted(regions)}"
            elif needed > pool.max_context:
                refused[pool.name] = f"needs about {needed} tokens of context, pool allows {pool.max_context}"
            elif not usable[pool.name]:
                refused[pool.name] = "no endpoint available (every circuit is open)"
            else:
                fits.append(offer)
        return fits, refused

    def _usable(self, offer: Offer, view: ClusterView) -> tuple[Candidate, ...]:
        """Endpoints whose circuit lets a request through. A failed scrape only ranks an endpoint last:
        metrics can be missing or wrong, and the breaker acts on real failures."""
        available = self.cluster.breakers.available
        return tuple(c for c in self._candidates(offer, view) if available(c.endpoint.name))

    @staticmethod
    def _down(endpoint: str, view: ClusterView) -> bool:
        load = view.loads.get(endpoint)
        return load is not None and not load.healthy and not view.stale(endpoint)

    def _candidates(self, offer: Offer, view: ClusterView) -> list[Candidate]:
        shared = view.shared
        out = []
        for endpoint in offer.pool.endpoints:
            load = view.loads.get(endpoint.name)
            out.append(
                Candidate(
                    endpoint=endpoint,
                    prefix_blocks=shared.prefix_blocks.get(endpoint.name, 0),
                    prompt_blocks=len(view.hashes),
                    waiting=load.waiting if load else 0.0,
                    running=load.running if load else 0.0,
                    kv_usage=load.kv_usage if load else 0.0,
                    inflight=shared.inflight.get(endpoint.name, 0),
                    session_match=shared.session_endpoint == endpoint.name,
                    stale=view.stale(endpoint.name),
                )
            )
        return out

    def _rank(self, usable: tuple[Candidate, ...], view: ClusterView) -> list[tuple[Candidate, dict[str, float]]]:
        if self.params.picker != "scored":
            return [(c, {}) for c in usable]
        least = min(c.load for c in usable)
        scored = [(c, self._scores(c, usable, least)) for c in usable]
        self.cluster.turn += 1
        spread = {c.endpoint.name: (i - self.cluster.turn) % len(usable) for i, c in enumerate(usable)}
        scored.sort(
            key=lambda pair: (
                self._down(pair[0].endpoint.name, view),
                -pair[1]["total"],
                pair[0].load,
                spread[pair[0].endpoint.name],
            )
        )
        return scored

    def _scores(self, candidate: Candidate, peers: tuple[Candidate, ...], least: float) -> dict[str, float]:
        yields = candidate.load > least + self.params.load_slack
        scores = {
            scorer.type: 0.0 if yields and scorer.type in AFFINITY else round(scorer.score(candidate, peers), 4)
            for scorer, _ in self.scorers
        }
        scores["total"] = round(sum(scores[s.type] * w for s, w in self.scorers), 4)
        return scores

    def _choose(
        self,
        fits: list[Offer],
        ranked: dict[str, list[tuple[Candidate, dict[str, float]]]],
        cls: str,
        view: ClusterView,
    ) -> tuple[Offer, dict[str, float]]:
        predictions = {o.pool.name: self._predict_ttft_ms(o, ranked[o.pool.name], view) for o in fits}
        if self.params.picker != "scored":
            everyone = [(o, c) for o in fits for c, _ in ranked[o.pool.name]]
            offer, _ = self._baseline(everyone)
            return offer, predictions
        target = self._target_ms(cls)
        meets = [o for o in fits if o.pool.config.targets.ttft_ms <= target and predictions[o.pool.name] <= target]
        if meets:
            return min(meets, key=lambda o: (_price(o), predictions[o.pool.name])), predictions
        return min(fits, key=lambda o: predictions[o.pool.name]), predictions

    def _baseline(self, everyone: list[tuple[Offer, Candidate]]) -> tuple[Offer, Candidate]:
        if self.params.picker == "random":
            return self.random.choice(everyone)
        if self.params.picker == "round_robin":
            self.cluster.turn += 1
            return everyone[self.cluster.turn % len(everyone)]
        return min(everyone, key=lambda pair: pair[1].load)  # ties: configuration order

    def _predict_ttft_ms(
        self, offer: Offer, ranked: list[tuple[Candidate, dict[str, float]]], view: ClusterView
    ) -> float:
        """Queue wait plus prefill of the uncached prompt on the pool's best endpoint."""
        tokens = _prompt_tokens(view, self.cluster)
        per_token_ms = 1000.0 / offer.pool.config.prefill_tokens_per_s
        best = float("inf")
        for candidate, _ in ranked:
            if self._down(candidate.endpoint.name, view):
                continue
            cached = candidate.prefix_blocks * self._tokens_per_block()
            queue = candidate.waiting + max(0.0, candidate.inflight - candidate.running)
            best = min(best, (max(0.0, tokens - cached) + queue * tokens) * per_token_ms)
        return round(best, 3) if best != float("inf") else 1e12

    def _target_ms(self, cls: str) -> float:
        classes = self.cluster.config.classes
        return {"batch": classes.batch_ttft_ms, "background": classes.background_ttft_ms}.get(
            cls, classes.interactive_ttft_ms
        )

    def _tokens_per_block(self) -> float:
        prefix = self.cluster.config.prefix
        return prefix.block_chars / prefix.chars_per_token

    def _place(
        self,
        chosen: Offer,
        fits: list[Offer],
        ranked: Any,
        view: ClusterView,
        cls: str,
        predictions: dict[str, float],
        refused: dict[str, str],
        waited: float,
        gate: Any,
    ) -> Placement:
        order = ranked[chosen.pool.name]
        if self.params.picker != "scored":
            pick = self._baseline([(chosen, c) for c, _ in order])[1]
            order = [(pick, {})] + [(c, s) for c, s in order if c is not pick]
        first, scores = order[0]
        others = [c.endpoint for c, _ in order[1:]]
        others += [
            c.endpoint for o in fits if o is not chosen and o.model == chosen.model for c, _ in ranked[o.pool.name]
        ]
        fallbacks = tuple(others[: self.cluster.config.fallback.max_attempts - 1])
        self.cluster.store.placed(first.endpoint.name, view.hashes, view.session)
        cached = int(first.prefix_blocks * self._tokens_per_block())
        details = {
            "class": cls,
            "scores": scores,
            "candidates": {c.endpoint.name: s for o in fits for c, s in ranked[o.pool.name]},
            "predicted_ttft_ms": predictions,
            "refused_pools": refused,
            "queue_wait_ms": round(waited * 1000.0, 3),
            "picker": self.params.picker,
        }
        reason = self._reason(chosen, cls, predictions, first)
        tracker = Tracker(self.cluster, gate, first.endpoint.name, view.hashes, view.session)
        return Placement(first.endpoint, chosen.model, reason, fallbacks, details, cached, tracker)

    def _reason(self, chosen: Offer, cls: str, predictions: dict[str, float], first: Candidate) -> str:
        if self.params.picker != "scored":
            return f"{self.params.picker} picker"
        target = self._target_ms(cls)
        fit = "meets" if predictions[chosen.pool.name] <= target else "misses (fastest available)"
        pool = f"pool {chosen.pool.name}: cheapest whose predicted TTFT {fit} the {cls} target {target:.0f} ms"
        why = f"highest score ({first.prefix_blocks} prefix blocks, load {first.load:g})"
        return f"{pool}; endpoint {first.endpoint.name}: {why}"


def _price(offer: Offer) -> float:
    price = offer.pool.config.price
    return price.input_per_mtok + price.output_per_mtok


def _prompt_tokens(view: ClusterView, cluster: ClusterState) -> int:
    return int(view.prompt_chars / cluster.config.prefix.chars_per_token)


def _max_tokens(body: dict[str, Any]) -> int:
    value = body.get("max_completion_tokens") or body.get("max_tokens")
    return value if isinstance(value, int) and value > 0 else 256
