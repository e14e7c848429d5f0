"""`routing.route`: choose the pool, wait for admission, then rank the pool's endpoints.

Stage one filters pools by hard constraints (model, allowed regions, context
length, an endpoint whose circuit lets requests through) and picks the
cheapest pool that can meet the request class's TTFT target. Stage two scores
the pool's endpoints with weighted scorers; affinity counts only on endpoints
within `load_slack` requests of the least loaded one and not queueing work a
peer could start now, so it never piles work onto one endpoint while another
idles. Ties go to the less loaded endpoint,
then to the one holding fewer cached blocks, so new conversations spread out
instead of evicting each other. The placement is recorded at once.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from taskgate.plugins import (
    ALLOWED_REGIONS,
    PLACEMENT,
    REQUEST,
    REQUEST_CLASS,
    Candidate,
    Inputs,
    Params,
    Placement,
    Reject,
    RequestContext,
    Scorer,
    Services,
    Step,
    StepOptions,
)

from .admission import Gate
from .cluster import CLUSTER, ClusterState, ClusterView
from .config import RoutingConfig
from .scorers import AFFINITY, BUILTIN
from .topology import Offer
from .tracker import Tracker

CLASSES = ("interactive", "batch", "background")
Ranked = list[tuple[Candidate, dict[str, float]]]


class RouteParams(Params):
    picker: Literal["scored", "random", "round_robin", "least_loaded"] = "scored"
    weights: dict[str, float] = Field(
        default_factory=lambda: {"prefix": 4.0, "session": 1.0, "inflight": 2.0, "queue": 1.0, "kv": 0.5}
    )
    load_slack: float = Field(default=8.0, ge=0)
    class_header: Literal["off", "lower", "any"] = "lower"  # may a caller's header set its class?
    seed: int | None = None


@dataclass
class Decision:
    """Everything one placement is decided from; becomes the evidence."""

    cls: str
    fits: list[Offer]
    ranked: dict[str, Ranked]
    refused: dict[str, str]
    predictions: dict[str, float] = field(default_factory=dict)
    chosen: Offer | None = None
    pick: Candidate | None = None  # set by a baseline picker
    waited: float = 0.0


class Route(Step[RouteParams]):
    type = "routing.route"
    requires = (REQUEST, CLUSTER)
    optional = (ALLOWED_REGIONS, REQUEST_CLASS)
    provides = PLACEMENT
    Params = RouteParams

    def __init__(self, name: str, params: RouteParams, services: Services, options: StepOptions | None = None):
        super().__init__(name, params, services, options)
        config = services.section("routing", RoutingConfig)
        self.cluster: ClusterState = services.shared("routing.cluster", lambda: ClusterState(config))
        self.scorers = _scorers(params.weights, services)
        self.random = random.Random(params.seed)
        self.rotation = itertools.count()

    async def run(self, inputs: Inputs) -> Placement:
        request: RequestContext = inputs[REQUEST]
        view: ClusterView = inputs[CLUSTER]
        model = request.model or ""
        offers = self.cluster.topology.offers(model)
        if not offers:
            raise Reject(404, "model_not_found", f"The model {model!r} does not exist or is not served here.")
        decision = self._decide(offers, inputs, request, view)
        assert decision.chosen is not None  # _decide always chooses or raises
        gate = self.cluster.gates[decision.chosen.pool.name]
        decision.waited = await gate.enter(decision.cls)
        try:
            return self._place(decision, view, gate)
        except BaseException:
            gate.leave()
            raise

    def _decide(self, offers: list[Offer], inputs: Inputs, request: RequestContext, view: ClusterView) -> Decision:
        usable = {offer.pool.name: self._usable(offer, view) for offer in offers}
        fits, refused = self._eligible(offers, usable, inputs.get(ALLOWED_REGIONS), request, view)
        if not fits:
            reasons = "; ".join(f"pool {pool}: {why}" for pool, why in refused.items())
            message = f"no pool can serve model {request.model!r}: {reasons}"
            raise Reject(503, "no_pool_satisfies", message, "api_error")
        self.cluster.turn += 1  # once per request: ties rotate across requests
        ranked = {offer.pool.name: self._rank(usable[offer.pool.name], view) for offer in fits}
        decision = Decision(self._class(inputs, request), fits, ranked, refused)
        decision.predictions = {o.pool.name: self._predict_ttft_ms(o, ranked[o.pool.name], view) for o in fits}
        if self.params.picker == "scored":
            decision.chosen = self._cheapest_meeting_target(decision)
        else:
            decision.chosen, decision.pick = self._baseline([(o, c) for o in fits for c, _ in ranked[o.pool.name]])
        return decision

    def _class(self, inputs: Inputs, request: RequestContext) -> str:
        """The classifier's class if it ran; else the caller's header where policy allows; else the default.

        With `class_header: lower` (the default) a caller may only ask for less urgency than the
        default, so a header cannot buy interactive priority.
        """
        default = self.cluster.config.classes.default
        given = inputs.get(REQUEST_CLASS)
        if given in CLASSES:
            return str(given)
        claimed = request.headers.get(self.cluster.config.classes.header) if self.params.class_header != "off" else None
        if claimed not in CLASSES:
            return default
        if self.params.class_header == "lower" and CLASSES.index(claimed) < CLASSES.index(default):
            return default
        return str(claimed)

    def _eligible(
        self,
        offers: list[Offer],
        usable: dict[str, tuple[Candidate, ...]],
        regions: Any,
        request: RequestContext,
        view: ClusterView,
    ) -> tuple[list[Offer], dict[str, str]]:
        needed = self._prompt_tokens(view) + _max_tokens(request.json())
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

    def _rank(self, usable: tuple[Candidate, ...], view: ClusterView) -> Ranked:
        if self.params.picker != "scored":
            return [(c, {}) for c in usable]
        least = min(c.load for c in usable)
        idle_queue = any(c.waiting == 0 for c in usable)
        scored = [(c, self._scores(c, usable, least, idle_queue)) for c in usable]
        rotation = {c.endpoint.name: (i - self.cluster.turn) % len(usable) for i, c in enumerate(usable)}
        held = view.shared.held

        def order(pair: tuple[Candidate, dict[str, float]]) -> tuple[Any, ...]:
            candidate, scores = pair
            name = candidate.endpoint.name
            return (view.down(name), -scores["total"], candidate.load, held.get(name, 0), rotation[name])

        return sorted(scored, key=order)

    def _scores(
        self, candidate: Candidate, peers: tuple[Candidate, ...], least: float, idle_queue: bool
    ) -> dict[str, float]:
        saturated = candidate.waiting > 0 and idle_queue  # it queues work while a peer would start it now
        yields = saturated or candidate.load > least + self.params.load_slack
        scores = {
            scorer.type: 0.0 if yields and scorer.type in AFFINITY else scorer.score(candidate, peers)
            for scorer, _ in self.scorers
        }
        scores["total"] = sum(scores[s.type] * w for s, w in self.scorers)
        return scores

    def _cheapest_meeting_target(self, decision: Decision) -> Offer:
        target = self._target_ms(decision.cls)
        predictions = decision.predictions
        meets = [
            o for o in decision.fits if o.pool.config.targets.ttft_ms <= target and predictions[o.pool.name] <= target
        ]
        if meets:
            return min(meets, key=lambda o: (_price(o), predictions[o.pool.name]))
        return min(decision.fits, key=lambda o: predictions[o.pool.name])

    def _baseline(self, everyone: list[tuple[Offer, Candidate]]) -> tuple[Offer, Candidate]:
        """The comparison pickers: one choice over every eligible endpoint of every pool."""
        if self.params.picker == "random":
            return self.random.choice(everyone)
        if self.params.picker == "round_robin":
            return everyone[next(self.rotation) % len(everyone)]  # its own counter: nothing else may step it
        return min(everyone, key=lambda pair: pair[1].load)  # least_loaded; ties: configuration order

    def _predict_ttft_ms(self, offer: Offer, ranked: Ranked, view: ClusterView) -> float:
        """Queue wait plus prefill of the uncached prompt, on the pool's best reachable endpoint."""
        tokens = self._prompt_tokens(view)
        per_token_ms = 1000.0 / offer.pool.config.prefill_tokens_per_s
        best = float("inf")
        for candidate, _ in ranked:
            if view.down(candidate.endpoint.name):
                continue
            cached = min(tokens, candidate.prefix_blocks * self._tokens_per_block())
            queue = candidate.waiting + max(0.0, candidate.inflight - candidate.running)
            best = min(best, (tokens - cached + queue * tokens) * per_token_ms)
        return round(best, 3) if best != float("inf") else 1e12

    def _target_ms(self, cls: str) -> float:
        classes = self.cluster.config.classes
        targets = {"batch": classes.batch_ttft_ms, "background": classes.background_ttft_ms}
        return targets.get(cls, classes.interactive_ttft_ms)

    def _tokens_per_block(self) -> float:
        prefix = self.cluster.config.prefix
        return prefix.block_chars / prefix.chars_per_token

    def _prompt_tokens(self, view: ClusterView) -> int:
        return int(view.prompt_chars / self.cluster.config.prefix.chars_per_token)

    def _place(self, decision: Decision, view: ClusterView, gate: Gate) -> Placement:
        assert decision.chosen is not None
        chosen = decision.chosen
        order = decision.ranked[chosen.pool.name]
        if decision.pick is not None:
            order = [(decision.pick, {})] + [(c, s) for c, s in order if c is not decision.pick]
        first = order[0][0]
        others = [c.endpoint for c, _ in order[1:]]
        others += [
            c.endpoint
            for o in decision.fits
            if o is not chosen and o.model == chosen.model
            for c, _ in decision.ranked[o.pool.name]
        ]
        fallbacks = tuple(others[: self.cluster.config.fallback.max_attempts - 1])
        name = first.endpoint.name
        distance = self.cluster.store.distance(name, view.hashes, first.prefix_blocks)
        self.cluster.store.placed(name, view.hashes, view.session)
        cached = int(min(self._prompt_tokens(view), first.prefix_blocks * self._tokens_per_block()))
        tracker = Tracker(self.cluster, gate, name, view.hashes, view.session, first.prefix_blocks, distance)
        details = self._details(decision, order[0][1])
        tied = [c.endpoint.name for c, s in order[1:] if s and s.get("total") == order[0][1].get("total")]
        reason = self._reason(decision, first, tied)
        return Placement(first.endpoint, chosen.model, reason, fallbacks, details, cached, tracker)

    def _details(self, decision: Decision, scores: dict[str, float]) -> dict[str, Any]:
        return {
            "class": decision.cls,
            "picker": self.params.picker,
            "scores": _rounded(scores),
            "candidates": {
                c.endpoint.name: _rounded(s) for o in decision.fits for c, s in decision.ranked[o.pool.name]
            },
            "predicted_ttft_ms": decision.predictions,
            "refused_pools": decision.refused,
            "queue_wait_ms": round(decision.waited * 1000.0, 3),
        }

    def _reason(self, decision: Decision, first: Candidate, tied: list[str]) -> str:
        if decision.pick is not None:
            return f"{self.params.picker} picker"
        assert decision.chosen is not None
        target = self._target_ms(decision.cls)
        predicted = decision.predictions[decision.chosen.pool.name]
        fit = "meets" if predicted <= target else "misses (fastest available)"
        pool = f"pool {decision.chosen.pool.name}: cheapest whose predicted TTFT {fit}"
        pool += f" the {decision.cls} target {target:.0f} ms"
        why = f"highest score ({first.prefix_blocks} prefix blocks, load {first.load:g})"
        if tied:
            why = f"tied on score with {', '.join(tied)}; chosen for lower load, then fewer cached blocks held"
        return f"{pool}; endpoint {first.endpoint.name}: {why}"


def _scorers(weights: dict[str, float], services: Services) -> list[tuple[Scorer, float]]:
    known = dict(services.scorers) or {s.type: s for s in BUILTIN}
    unknown = sorted(set(weights) - set(known))
    if unknown:
        raise ValueError(f"unknown scorer(s) {', '.join(unknown)} in weights (known: {', '.join(sorted(known))})")
    return [(known[name](), weight) for name, weight in weights.items() if weight]


def _rounded(scores: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in scores.items()}


def _price(offer: Offer) -> float:
    price = offer.pool.config.price
    return price.input_per_mtok + price.output_per_mtok


def _max_tokens(body: dict[str, Any]) -> int:
    value = body.get("max_completion_tokens") or body.get("max_tokens")
    return value if isinstance(value, int) and value > 0 else 256
