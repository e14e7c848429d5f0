"""`routing.route`: filter the endpoints that may serve, rank them, pick one, then wait for admission.

The pools serving the model are looked up; filters (`routing/filters.py`:
allowed regions, context length, circuit state, and any a plugin adds) keep or
exclude each of their endpoints, and a pool with none left is refused.
Weighted scorers rank each pool's endpoints; affinity scorers count only on
endpoints within `load_slack` requests of the least loaded one and not
queueing work a peer could start now, so affinity never piles work onto one
endpoint while another idles. Ties go to the less loaded endpoint (scraped
load corrected by this replica's own dispatches since the scrape), then to the
one where the prompt displaces the least cache, then to the one holding fewer
cached blocks, so new conversations spread out instead of evicting each other.
The picker (`routing/pickers.py`; `scored` by default:
the cheapest pool that can meet the request class's TTFT target) chooses; the
placement is recorded at once. Filters, scorers and picker are built once, at
start-up (`routing/parts.py`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from taskgate.errors import TaskgateError
from taskgate.plugins import (
    ALLOWED_REGIONS,
    BATCH_HEADER,
    PLACEMENT,
    REQUEST,
    REQUEST_CLASS,
    Candidate,
    Inputs,
    Params,
    Placement,
    Prefill,
    Ranked,
    Reject,
    RequestContext,
    Services,
    Slate,
    Step,
    StepOptions,
    Surface,
)

from .admission import Gate
from .cluster import CLUSTER, ClusterState, ClusterView
from .config import RoutingConfig
from .disagg import Disaggregation, Pair, Split
from .filters import BUILTIN as FILTERS
from .filters import DEFAULT as DEFAULT_FILTERS
from .parts import TIE, TOTAL, PartSpec, ScorerSpec, build_filters, build_picker, build_scorers
from .pickers import BUILTIN as PICKERS
from .predict import decode_s, estimate, kv_tokens, prefill_s
from .scorers import BUILTIN as SCORERS
from .topology import Offer
from .tracker import Tracker

CLASSES = ("interactive", "batch", "background")
GENERATES = (Surface.CHAT, Surface.COMPLETIONS)  # where a prefill can hand its KV to a decode (vLLM's protocol)
BATCH_CLASSES = ("batch", "background")  # what a batch item may be: never interactive
NOT_IDLE_RETRY_S = 1
IDLE_PREFILL_SHARE = 0.05  # of the interactive target: the longest prefill idle work may start beside live work
NO_ROOM = "no idle capacity for batch work on this endpoint now"


class RouteParams(Params):
    filters: list[PartSpec] = Field(default_factory=lambda: [PartSpec(type=t) for t in DEFAULT_FILTERS])
    scorers: list[ScorerSpec] | None = None  # instances by name and type; absent: `weights`
    weights: dict[str, float] = Field(  # the older form: scorer type -> weight
        default_factory=lambda: {"prefix": 4.0, "session": 1.0, "inflight": 2.0, "queue": 1.0, "kv": 0.5}
    )
    picker: PartSpec = Field(default_factory=lambda: PartSpec(type="scored"))
    load_slack: float = Field(default=8.0, ge=0)
    class_header: Literal["off", "lower", "any"] = "lower"  # may a caller's header set its class?
    seed: int | None = None  # for a picker that takes one (random) and was not given its own

    @model_validator(mode="after")
    def _one_scorer_form(self) -> RouteParams:
        if self.scorers is not None and "weights" in self.model_fields_set:
            raise ValueError("give scorers (instances by name and type) or weights (type -> weight), not both")
        return self

    @model_serializer(mode="wrap")
    def _the_scorer_form_in_use(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        del data["weights" if self.scorers is not None else "scorers"]
        return data


@dataclass(slots=True)
class Decision(Slate):
    """Everything one placement is decided from; becomes the evidence."""

    fits: list[Offer] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # pool -> why none of its endpoints may serve
    excluded: dict[str, str] = field(default_factory=dict)  # endpoint of a pool that fits -> why not it
    reason: str = ""  # the picker's
    chosen: Offer | None = None  # the picked endpoint's pool
    order: Ranked | None = None  # its ranking, the picked endpoint first
    waited: float = 0.0
    idle_only: bool = False  # a batch item placed only into idle capacity
    every: list[Offer] = field(default_factory=list)  # every pool serving the model, prefill engines' too


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
        self.filters = build_filters(params.filters, services.filters or _by_type(FILTERS))
        self.scorers = build_scorers(params.scorers, params.weights, services.scorers or _by_type(SCORERS))
        self.picker = build_picker(params.picker, services.pickers or _by_type(PICKERS), params.seed)
        self.scored = getattr(self.picker, "scored", True)
        classes = self.cluster.config.classes
        given = self.cluster.config.admission.idle_prefill_ms
        self.idle_prefill_ms = given if given is not None else IDLE_PREFILL_SHARE * classes.interactive_ttft_ms
        topology = self.cluster.topology
        self.pd = Disaggregation(self.cluster, self._tokens_per_block()) if topology.disaggregated else None
        self.targets = {
            "interactive": classes.interactive_ttft_ms,
            "batch": classes.batch_ttft_ms,
            "background": classes.background_ttft_ms,
        }

    async def run(self, inputs: Inputs) -> Placement:
        request: RequestContext = inputs[REQUEST]
        view: ClusterView = inputs[CLUSTER]
        model = request.model or ""
        offers = self.cluster.topology.offers(model)
        if not offers:
            raise Reject(404, "model_not_found", f"The model {model!r} does not exist or is not served here.")
        everyone = offers
        if self.pd is not None:  # a prefill engine takes no whole request
            offers = self.pd.whole(offers)
        decision = self._decide(offers, inputs, request, view)
        decision.every = everyone
        assert decision.chosen is not None  # _decide always chooses or raises
        gate = self.cluster.gates[decision.chosen.pool.name]
        decision.waited = await gate.enter(decision.request_class)
        try:
            return self._place(decision, view, gate)
        except BaseException:
            gate.leave()
            raise

    def _decide(self, offers: list[Offer], inputs: Inputs, request: RequestContext, view: ClusterView) -> Decision:
        cls, idle_only = self._class(inputs, request)
        if idle_only:
            offers = self._idle(offers, request)
        prompt, answer = self._prompt_tokens(view), _max_tokens(request.json())
        tokens = prompt + answer
        _fits_some_context(offers, prompt, answer)
        regions, pools = inputs.get(ALLOWED_REGIONS), self.cluster.topology.facts
        decision = Decision(request, tokens, regions, pools, cls, self.targets[cls])
        decision.idle_only = idle_only
        usable: dict[str, tuple[Candidate, ...]] = {}
        fits = decision.fits
        for offer in offers:
            kept = usable[offer.pool.name] = self._eligible(offer, view, decision)
            if kept and idle_only:
                kept = usable[offer.pool.name] = self._with_room(offer, kept, decision, view)
            if kept:
                fits.append(offer)
        if not fits and idle_only and NO_ROOM in decision.refused.values():  # room may come: the item waits
            raise _not_idle(request)
        if not fits:
            reasons = "; ".join(f"pool {pool}: {why}" for pool, why in decision.refused.items())
            message = f"no pool can serve model {request.model!r}: {reasons}"
            raise Reject(503, "no_pool_satisfies", message, "api_error")
        self.cluster.turn += 1  # once per request: ties rotate across requests
        for offer in fits:
            ranked = decision.ranked[offer.pool.name] = self._rank(usable[offer.pool.name], view)
            decision.predicted_ttft_ms[offer.pool.name] = self._predict(offer, ranked, view, answer, decision)
        pick, decision.reason = self.picker.pick(decision)
        decision.chosen, decision.order = self._order(decision, pick)
        return decision

    def _class(self, inputs: Inputs, request: RequestContext) -> tuple[str, bool]:
        """The request's class, and whether it may only run in idle capacity.

        A batch job's item (BATCH_HEADER) has its job's class, idle capacity only until it is due. Otherwise:
        the classifier's class if it ran; else the caller's header where policy allows; else the default.
        With `class_header: lower` (the default) a caller may only ask for less urgency than the
        default, so a header cannot buy interactive priority.
        """
        item = request.headers.get(BATCH_HEADER)
        if item is not None:
            cls, _, due = item.partition(";")
            if cls.strip() in BATCH_CLASSES:
                return cls.strip(), due.strip() != "due"
        default = self.cluster.config.classes.default
        given = inputs.get(REQUEST_CLASS)
        if given in CLASSES:
            return str(given), False
        claimed = request.headers.get(self.cluster.config.classes.header) if self.params.class_header != "off" else None
        if claimed not in CLASSES:
            return default, False
        if self.params.class_header == "lower" and CLASSES.index(claimed) < CLASSES.index(default):
            return default, False
        return str(claimed), False

    def _idle(self, offers: list[Offer], request: RequestContext) -> list[Offer]:
        """The offers whose pool takes idle work now; none: the item waits (429 `pool_not_idle`, the batch
        room tries it again later)."""
        idle = [offer for offer in offers if self.cluster.idle_pool(offer.pool)]
        if not idle:
            raise _not_idle(request)
        return idle

    def _with_room(
        self, offer: Offer, candidates: tuple[Candidate, ...], decision: Decision, view: ClusterView
    ) -> tuple[Candidate, ...]:
        """The endpoints an idle-only item may take: nothing queued there, and its load under `idle_low` of its
        share of the pool's `max_inflight`, so an idle pool cannot fill one engine with batch work while the
        sessions that live there wait for a seat. An item whose uncached prefill would hold the engine longer
        than `idle_prefill_ms` (a document not cached there) takes only an engine no other request has used
        for `idle_quiet_s`: a request arriving during that prefill would wait for all of it."""
        pool, admission = offer.pool, self.cluster.config.admission
        room = admission.idle_low * pool.config.max_inflight / max(1, len(pool.endpoints))
        tokens, per_block = self._prompt_tokens(view), self._tokens_per_block()

        def fits(c: Candidate) -> bool:
            if c.waiting > 0 or c.load >= room:
                return False
            prefill_ms = 1000.0 * prefill_s(pool.config, tokens - min(tokens, c.prefix_blocks * per_block))
            return (
                prefill_ms <= self.idle_prefill_ms or self.cluster.quiet_for(c.endpoint.name) >= admission.idle_quiet_s
            )

        kept = tuple(c for c in candidates if fits(c))
        for candidate in candidates:
            if candidate not in kept:
                decision.excluded[candidate.endpoint.name] = NO_ROOM
        if not kept:
            for candidate in candidates:
                decision.excluded.pop(candidate.endpoint.name, None)
            decision.refused[pool.name] = NO_ROOM
        return kept

    def _eligible(self, offer: Offer, view: ClusterView, decision: Decision) -> tuple[Candidate, ...]:
        """The pool's endpoints every filter keeps. A pool with none left is refused, with the reason they share."""
        candidates = self._candidates(offer, view)
        excluded = decision.excluded
        out = 0
        for candidate in candidates:
            for rule in self.filters:  # the first that excludes it says why
                why = rule.filter(candidate, candidates, decision)
                if why is not None:
                    excluded[candidate.endpoint.name] = why
                    out += 1
                    break
        if not out:
            return candidates
        if out == len(candidates):
            reasons = {c.endpoint.name: excluded.pop(c.endpoint.name) for c in candidates}
            decision.refused[offer.pool.name] = _pool_reason(reasons)
            return ()
        return tuple(c for c in candidates if c.endpoint.name not in excluded)

    def _candidates(self, offer: Offer, view: ClusterView) -> tuple[Candidate, ...]:
        """Every endpoint of the pool. A failed scrape only ranks one last (metrics can be missing or wrong);
        the breaker acts on real failures."""
        shared = view.shared
        available, serves = self.cluster.breakers.available, self.cluster.serves
        out = []
        endpoints = offer.pool.endpoints if self.pd is None else self.pd.whole_endpoints[offer.pool.name]
        for endpoint in endpoints:
            load = view.loads.get(endpoint.name)
            out.append(
                Candidate(
                    endpoint=endpoint,
                    prefix_blocks=shared.prefix_blocks.get(endpoint.name, 0),
                    prompt_blocks=len(view.hashes),
                    waiting=load.waiting if load else 0.0,
                    running=self.cluster.running_now(endpoint.name, load) if load else 0.0,
                    kv_usage=load.kv_usage if load else 0.0,
                    inflight=shared.inflight.get(endpoint.name, 0),
                    session_match=shared.session_endpoint == endpoint.name,
                    stale=view.stale(endpoint.name),
                    circuit_open=not available(endpoint.name),
                    serves_model=serves(endpoint.name, offer.model),
                )
            )
        return tuple(out)

    def _rank(self, usable: tuple[Candidate, ...], view: ClusterView) -> Ranked:
        if not self.scored:
            return [(c, {}) for c in usable]
        least = min(c.load for c in usable)
        idle_queue = any(c.waiting == 0 for c in usable)
        scored = [(c, self._scores(c, usable, least, idle_queue)) for c in usable]
        rotation = {c.endpoint.name: (i - self.cluster.turn) % len(usable) for i, c in enumerate(usable)}
        held, cap = view.shared.held, self.cluster.store.cap_of

        def order(pair: tuple[Candidate, dict[str, float]]) -> tuple[Any, ...]:
            candidate, scores = pair
            name = candidate.endpoint.name
            blocks = held.get(name, 0)
            # a tie goes where the prompt displaces the least cache (free capacity first), then to fewer blocks
            displaced = max(0, blocks + candidate.prompt_blocks - candidate.prefix_blocks - cap(name))
            # totals closer than TIE are equal: a scrape's rounding dust (kv 0.00002) must not decide
            return (view.down(name), -round(scores[TOTAL] / TIE), candidate.load, displaced, blocks, rotation[name])

        return sorted(scored, key=order)

    def _scores(
        self, candidate: Candidate, peers: tuple[Candidate, ...], least: float, idle_queue: bool
    ) -> dict[str, float]:
        saturated = candidate.waiting > 0 and idle_queue  # it queues work while a peer would start it now
        yields = saturated or candidate.load > least + self.params.load_slack
        scores = {s.name: 0.0 if yields and s.affinity else s.scorer.score(candidate, peers) for s in self.scorers}
        scores[TOTAL] = sum(scores[s.name] * s.weight for s in self.scorers)
        return scores

    def _predict(self, offer: Offer, ranked: Ranked, view: ClusterView, answer: int, decision: Decision) -> float:
        """Each endpoint's predicted TTFT and cost for this request (`routing/predict.py`); the pool's best TTFT."""
        tokens, pool = self._prompt_tokens(view), offer.pool.config
        best = float("inf")
        for candidate, _ in ranked:
            name = candidate.endpoint.name
            lanes, capacity = self.cluster.lanes, pool.kv_capacity_tokens
            hits = lanes.computed(name, view.hashes, candidate.prefix_blocks)
            cached = lanes.resident(name, int(min(tokens, hits * self._tokens_per_block())), tokens, answer, capacity)
            in_use = candidate.kv_usage * capacity if capacity else 0.0
            wait = lanes.wait_s(name, kv_tokens(tokens, cached, answer), capacity, in_use)
            guess = estimate(pool, tokens, cached, answer, candidate.waiting, wait)
            decision.endpoint_cost[name] = guess.cost
            down = view.down(name)  # every endpoint down: never the fastest
            decision.endpoint_ttft_ms[name] = float("inf") if down else guess.ttft_ms
            best = min(best, decision.endpoint_ttft_ms[name])
        return best

    def _tokens_per_block(self) -> float:
        prefix = self.cluster.config.prefix
        return prefix.block_chars / prefix.chars_per_token

    def _prompt_tokens(self, view: ClusterView) -> int:
        return int(view.prompt_chars / self.cluster.config.prefix.chars_per_token)

    def _place(self, decision: Decision, view: ClusterView, gate: Gate) -> Placement:
        chosen, order = decision.chosen, decision.order
        assert chosen is not None  # _decide always chooses or raises
        assert order is not None
        first = order[0][0]
        others = [c.endpoint for c, _ in order[1:]]
        others += [
            c.endpoint
            for o in decision.fits
            if o is not chosen and o.model == chosen.model
            for c, _ in decision.ranked[o.pool.name]
        ]
        others = [e for e in others if not view.down(e.name)]  # a fallback the last scrape could not reach: none
        fallbacks = tuple(others[: self.cluster.config.fallback.max_attempts - 1])
        name = first.endpoint.name
        distance = self.cluster.store.distance(name, view.hashes, first.prefix_blocks)
        self.cluster.store.placed(name, view.hashes, view.session)
        pool, tokens, answer = chosen.pool.config, self._prompt_tokens(view), _max_tokens(decision.request.json())
        split = None
        if self.pd is not None and self.pd.decodes(first.endpoint) and decision.request.surface in GENERATES:
            ranked = [c for c, _ in order]
            split = self.pd.split(decision.every, ranked, view, tokens, decision.endpoint_ttft_ms, decision.target_ms)
        lanes = self.cluster.lanes
        hits = lanes.computed(name, view.hashes, first.prefix_blocks)
        cached = lanes.resident(
            name, int(min(tokens, hits * self._tokens_per_block())), tokens, answer, pool.kv_capacity_tokens
        )
        remote = split is not None and split.prefill is not None  # its prompt is computed elsewhere
        ticket = lanes.placed(
            name,
            0.0 if remote else prefill_s(pool, tokens - cached),
            kv_tokens(tokens, cached, answer),
            decode_s(pool, answer),
            pool.kv_capacity_tokens,
            first.kv_usage * pool.kv_capacity_tokens if pool.kv_capacity_tokens else 0.0,
        )
        lanes.bringing(name, view.hashes[hits:], ticket.prefill_done)
        tracker = Tracker(
            self.cluster, gate, name, view.hashes, view.session, first.prefix_blocks, distance, chosen.model
        )
        tracker.prompt_tokens, tracker.answer_tokens, tracker.tickets[name] = tokens, answer, ticket
        tracker.foreground = not decision.idle_only
        details = {"class": decision.request_class, "picker": self.params.picker.label}
        explain = functools.partial(self._details, decision, order[0][1], split)  # for the evidence, off the path
        placement = Placement(
            first.endpoint, chosen.model, decision.reason, fallbacks, details, cached, tracker, explain
        )
        if split is not None and split.chosen is not None and split.prefill is not None:
            placement.prefill = self._prefilled(split.chosen, tracker, view, tokens)
        return placement

    def _prefilled(self, pair: Pair, tracker: Tracker, view: ClusterView, tokens: int) -> Prefill:
        """The prefill half: its engine's lane and prefix index take the prompt, the tracker its attempt."""
        assert self.pd is not None  # only a disaggregating route step splits
        name = pair.prefill.name
        config = self.cluster.topology.by_name[pair.prefill.pool].config
        lanes = self.cluster.lanes
        fresh = tokens - pair.prefill_cached_tokens
        ticket = lanes.placed(
            name, prefill_s(config, fresh), kv_tokens(tokens, pair.prefill_cached_tokens, 1), 0.0,
            config.kv_capacity_tokens,
        )  # fmt: skip
        hits = int(pair.prefill_cached_tokens / self._tokens_per_block())
        lanes.bringing(name, view.hashes[hits:], ticket.prefill_done)
        tracker.tickets[name], tracker.prefill = ticket, name
        self.cluster.store.placed(name, view.hashes, None)
        return self.pd.prefill(pair)

    def _order(self, decision: Decision, pick: Candidate) -> tuple[Offer, Ranked]:
        """The picked endpoint's pool, and its ranking with the pick first."""
        for offer in decision.fits:
            ranked = decision.ranked[offer.pool.name]
            if ranked[0][0] is pick:
                return offer, ranked
            at = next((i for i, (c, _) in enumerate(ranked) if c is pick), None)
            if at is not None:
                return offer, [ranked[at], *ranked[:at], *ranked[at + 1 :]]
        chose = getattr(pick, "endpoint", pick)
        raise TaskgateError(f"picker {self.params.picker.label!r} chose {chose!r}, which is not an eligible endpoint")

    def _details(self, decision: Decision, scores: dict[str, float], split: Split | None = None) -> dict[str, Any]:
        pd = {"disaggregation": split.evidence()} if split is not None else {}
        return pd | {
            "scores": _rounded(scores),
            "candidates": {c.endpoint.name: _rounded(s) for ranked in decision.ranked.values() for c, s in ranked},
            "predicted_ttft_ms": {p: ms if math.isfinite(ms) else None for p, ms in decision.predicted_ttft_ms.items()},
            "predicted_by_endpoint": {
                name: {"ttft_ms": ms if math.isfinite(ms) else None, "cost": round(decision.endpoint_cost[name], 9)}
                for name, ms in decision.endpoint_ttft_ms.items()
            },
            "refused_pools": decision.refused,
            "refused_endpoints": decision.excluded,
            "queue_wait_ms": round(decision.waited * 1000.0, 3),
        }


def _not_idle(request: RequestContext) -> Reject:
    message = f"no pool serving {request.model!r} has idle capacity now; a batch item waits for it"
    return Reject(429, "pool_not_idle", message, "rate_limit_error", {"Retry-After": str(NOT_IDLE_RETRY_S)})


def _by_type(parts: tuple[Any, ...]) -> dict[str, Any]:
    """The built-in parts, where no registry handed the step its own (a step built outside an app)."""
    return {part.type: part for part in parts}


def _pool_reason(reasons: dict[str, str]) -> str:
    distinct = set(reasons.values())
    if len(distinct) == 1:
        return distinct.pop()
    return "no endpoint available (" + "; ".join(f"{name}: {why}" for name, why in reasons.items()) + ")"


def _rounded(scores: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in scores.items()}


def _fits_some_context(offers: list[Offer], prompt: int, answer: int) -> None:
    """A request longer than the context of every pool that serves its model is the client's to shorten (400, as
    OpenAI says it), never a 503: no capacity will ever fit it."""
    largest = max(offer.pool.config.max_context for offer in offers)
    if prompt + answer <= largest:
        return
    message = (
        f"This model's maximum context length is {largest} tokens. However, you requested about "
        f"{prompt + answer} tokens ({prompt} in the messages, {answer} in the completion). "
        "Please reduce the length of the messages or completion."
    )
    raise Reject(400, "context_length_exceeded", message, param="messages")


def _max_tokens(body: dict[str, Any]) -> int:
    value = body.get("max_completion_tokens") or body.get("max_tokens")
    return value if isinstance(value, int) and value > 0 else 256
