"""`routing.cluster_state`: what the cluster looks like for this request.

One ClusterState per app holds the topology, scraped engine load, the store
(memory or Redis), breakers and admission gates. The step reads it, computes
the prompt's block hashes once, and hands the route step a snapshot.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from taskgate.plugins import (
    ENDPOINT_READINGS,
    IDLE_CAPACITY,
    READINESS,
    REQUEST,
    SESSION_HEADER,
    Endpoint,
    Inputs,
    RequestContext,
    Services,
    Step,
    StepOptions,
    Surface,
)
from taskgate.plugins.params import NoParams

from .admission import Gate
from .breaker import Breakers
from .config import RoutingConfig
from .predict import Lanes
from .prefix import PrefixIndex, block_hashes, canonical
from .scrape import Load, scrape, served_models
from .store import MemoryStore, RedisStore, Store, View
from .topology import Pool, Topology

CLUSTER = "cluster"
"""The key under which cluster_state hands its ClusterView to route."""
SCRAPED = ("healthy", "running", "waiting", "kv_usage", "prefix_hits", "prefix_queries")
"""What an endpoint's reading takes from its last scrape."""
SCRAPE_LIMIT_S = (0.5, 2.0)
"""The bounds of a scrape's time limit (twice `scrape_interval_s`); past it, the engine reads as down."""


class ClusterState:
    """Shared by the routing steps of one app; background scraping runs while the app runs."""

    def __init__(self, config: RoutingConfig):
        self.config = config
        self.topology = Topology(config)
        self.local = MemoryStore(PrefixIndex(config.prefix.max_blocks_per_endpoint, _kv_caps(config)))
        self.store: Store = RedisStore(config.state, self.local) if config.state.store == "redis" else self.local
        self.loads: dict[str, Load] = {}
        self.breakers = Breakers(config.breaker.failures, config.breaker.cooldown_s)
        self.gates = {p.name: Gate(p.name, p.config.max_inflight, config.admission) for p in self.topology.pools}
        self.lanes = Lanes()  # when each endpoint's prefill lane is next free, by this replica's placements
        self.turn = 0  # round-robin position, for the round_robin picker and tie-breaks
        # per endpoint, the models its /v1/models lists (absent: it has not said); a 404 for a model takes
        # that model off until the next listing
        self.served: dict[str, frozenset[str]] = {}
        self.refused: dict[str, frozenset[str]] = {}  # models an endpoint answered 404 for since its last listing
        # per endpoint, this replica's dispatches started and ended since its last scrape: what the scrape
        # cannot know yet, so its numbers are corrected by them (an engine that just finished is idle)
        self.since_scrape: dict[str, list[int]] = {}
        self.idle_open: dict[str, bool] = {}  # per pool, whether it takes idle work (between the two watermarks)
        # per endpoint, requests other than batch items in flight, and since when none has been (monotonic)
        self.foreground: dict[str, int] = {}
        self.quiet_since: dict[str, float] = {}

    def dispatched(self, endpoint: str) -> None:
        self.since_scrape.setdefault(endpoint, [0, 0])[0] += 1

    def completed(self, endpoint: str) -> None:
        self.since_scrape.setdefault(endpoint, [0, 0])[1] += 1

    def took(self, fresh: Mapping[str, Load]) -> None:
        """Keep the endpoints' new scrapes; what this replica started or ended before them is in them."""
        self.loads = {**self.loads, **fresh}  # swapped whole: views hold the old dict, never a changing one
        for name in fresh:
            self.since_scrape.pop(name, None)

    def running_now(self, endpoint: str, load: Load) -> float:
        """The scraped running count, corrected by what this replica started and saw end after the scrape."""
        started, ended = self.since_scrape.get(endpoint, (0, 0))
        return max(0.0, load.running + started - ended)

    def serves(self, endpoint: str, model: str) -> bool:
        """Whether the endpoint serves `model`, as far as it has said: one that has not said is given the benefit,
        unless it answered 404 for that model since its last listing."""
        if model in self.refused.get(endpoint, ()):
            return False
        listed = self.served.get(endpoint)
        return listed is None or model in listed

    def not_serving(self, endpoint: str, model: str) -> None:
        """The endpoint answered 404 for `model`: no request for it goes there until its next listing."""
        self.refused = {**self.refused, endpoint: self.refused.get(endpoint, frozenset()) | {model}}

    def unserved(self) -> dict[str, list[str]]:
        """Configured models no endpoint can take now (down, circuit open, or not serving it), with their pools."""
        pools: dict[str, list[str]] = {}
        usable: set[str] = set()
        for pool in self.topology.pools:
            for model in pool.config.models:
                pools.setdefault(model.name, []).append(pool.name)
                if any(self._usable(e.name, model.name) for e in pool.endpoints):
                    usable.add(model.name)
        return {model: names for model, names in pools.items() if model not in usable}

    def readiness(self) -> dict[str, str]:
        """What keeps the gateway from serving: each configured model no endpoint can take now."""
        return {
            f"model {model}": f"no endpoint of pool(s) {', '.join(pools)} can serve it (down, circuit open, or "
            "its /v1/models does not list it)"
            for model, pools in self.unserved().items()
        }

    def readings(self) -> dict[str, dict[str, Any]]:
        """Each endpoint now, as the dashboard samples it (`ENDPOINT_READINGS`): its last scrape, this replica's
        in-flight count, its breaker."""
        return {name: self._reading(endpoint) for name, endpoint in self.topology.endpoints.items()}

    def _reading(self, endpoint: Endpoint) -> dict[str, Any]:
        name, load = endpoint.name, self.loads.get(endpoint.name)
        reading = {"pool": endpoint.pool, "inflight": self.local.counts.get(name, 0)}
        reading["breaker"] = self.breakers.current(name)
        if load is None:  # not scraped yet: nothing is known of it
            return reading | dict.fromkeys(SCRAPED)
        return reading | {
            "healthy": load.healthy,
            "running": self.running_now(name, load),
            "waiting": load.waiting,
            "kv_usage": load.kv_usage,
            "prefix_hits": load.prefix_hits,
            "prefix_queries": load.prefix_queries,
        }

    def foreground_started(self, endpoint: str) -> None:
        self.foreground[endpoint] = self.foreground.get(endpoint, 0) + 1

    def foreground_ended(self, endpoint: str) -> None:
        left = self.foreground[endpoint] = max(0, self.foreground.get(endpoint, 1) - 1)
        if not left:
            self.quiet_since[endpoint] = time.monotonic()

    def quiet_for(self, endpoint: str) -> float:
        """Seconds since a request other than a batch item last ran on the endpoint (0 while one does)."""
        if self.foreground.get(endpoint, 0):
            return 0.0
        since = self.quiet_since.get(endpoint)
        return float("inf") if since is None else time.monotonic() - since

    def idle_load(self, pool: Pool) -> float:
        """How busy the pool is, as idle work judges it: 1 while a request waits for it (here or at an engine),
        else the larger of its in-flight share of `max_inflight` and its fullest endpoint's KV usage."""
        gate = self.gates[pool.name]
        if gate.queued:
            return 1.0
        load = gate.inflight / gate.watermark
        for endpoint in pool.endpoints:
            reading = self.loads.get(endpoint.name)
            if reading is not None and reading.healthy:
                if reading.waiting > 0:
                    return 1.0
                load = max(load, reading.kv_usage)
        return load

    def idle_pool(self, pool: Pool) -> bool:
        """Whether the pool takes idle work now: it opens under `idle_low` and closes at `idle_high`."""
        admission, load = self.config.admission, self.idle_load(pool)
        was_open = self.idle_open.get(pool.name, True)
        now_open = load < admission.idle_low or (was_open and load < admission.idle_high)
        self.idle_open[pool.name] = now_open
        return now_open

    def idle(self, model: str) -> bool | None:
        """Whether a pool serving `model` takes idle work now (`IDLE_CAPACITY`); None if none serves it."""
        offers = self.topology.offers(model)
        return any(self.idle_pool(offer.pool) for offer in offers) if offers else None

    def _usable(self, endpoint: str, model: str) -> bool:
        load = self.loads.get(endpoint)
        healthy = load is None or load.healthy
        return healthy and self.serves(endpoint, model) and self.breakers.available(endpoint)

    @asynccontextmanager
    async def running(self, services: Services) -> AsyncIterator[None]:
        await self.store.start()
        task = asyncio.create_task(self._scrape_forever(services), name="routing-scraper")
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await self.store.close()

    async def _scrape_forever(self, services: Services) -> None:
        interval = self.config.state.scrape_interval_s
        # twice the interval, within bounds: an engine that answers its metrics in 150 ms under load is not
        # down, however short the interval, and one that hangs is down within 2 s however long it is
        limit = min(SCRAPE_LIMIT_S[1], max(SCRAPE_LIMIT_S[0], interval * 2))
        paths = {e.name: e.metrics_path for p in self.config.pools for e in p.endpoints}
        listed_by = 0.0
        while True:
            endpoints = list(self.topology.endpoints.values())
            results = await asyncio.gather(*(scrape(services.http, e, paths[e.name], limit) for e in endpoints))
            self.took({e.name: load for e, load in zip(endpoints, results, strict=True)})
            if time.monotonic() >= listed_by:
                await self._list_models(services, endpoints, limit)
                listed_by = time.monotonic() + self.config.state.models_interval_s
            await asyncio.sleep(interval)

    async def _list_models(self, services: Services, endpoints: list[Endpoint], limit_s: float) -> None:
        listings = await asyncio.gather(*(served_models(services.http, e, limit_s) for e in endpoints))
        served, refused = dict(self.served), dict(self.refused)
        for endpoint, listed in zip(endpoints, listings, strict=True):
            if listed is None:
                served.pop(endpoint.name, None)  # it cannot say now: not filtered on an old listing
            else:
                served[endpoint.name] = listed
                refused.pop(endpoint.name, None)  # what it lists now is what it serves
        self.served, self.refused = served, refused


def _kv_caps(config: RoutingConfig) -> dict[str, int]:
    """Blocks an endpoint's KV cache can hold, where its pool declares a capacity."""
    per_block = config.prefix.block_chars / config.prefix.chars_per_token
    return {
        endpoint.name: max(1, int(pool.kv_capacity_tokens / per_block))
        for pool in config.pools
        if pool.kv_capacity_tokens
        for endpoint in pool.endpoints
    }


@dataclass(frozen=True, slots=True)
class ClusterView:
    """A snapshot for one request: prompt blocks, engine loads, the shared view."""

    hashes: list[str]
    prompt_chars: int
    session: str | None
    loads: Mapping[str, Load]
    shared: View
    now: float
    stale_after_s: float

    def stale(self, endpoint: str) -> bool:
        load = self.loads.get(endpoint)
        return load is None or load.age(self.now) > self.stale_after_s

    def down(self, endpoint: str) -> bool:
        """The last fresh scrape failed to reach the engine."""
        load = self.loads.get(endpoint)
        return load is not None and not load.healthy and not self.stale(endpoint)

    def evidence(self) -> Mapping[str, Any]:
        endpoints = sorted(self.shared.inflight)
        return {
            "state": self.shared.source,
            "degraded": self.shared.degraded,
            "stale": [e for e in endpoints if self.stale(e)],
            "blocks": len(self.hashes),
            "engines": {e: self._engine(e) for e in endpoints},
        }

    def _engine(self, endpoint: str) -> dict[str, Any]:
        load = self.loads.get(endpoint)
        if load is None:
            return {"scraped": False}
        seen = {"healthy": load.healthy, "age_s": round(load.age(self.now), 3)}
        numbers = {"waiting": load.waiting, "running": load.running, "kv_usage": load.kv_usage}
        return seen | numbers | ({"note": load.error} if load.error else {})


def session_key(raw: str | None) -> str | None:
    """A bounded key for a client's session id: long ids are hashed, so clients cannot grow the store's memory."""
    if not raw:
        return None
    return raw if len(raw) <= 64 else "h:" + hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()


class ClusterStateStep(Step[NoParams]):
    """Reads the cluster for this request's model; never blocks on a dead store."""

    type = "routing.cluster_state"
    requires = (REQUEST,)
    provides = CLUSTER
    default_timeout = 1.0

    def __init__(self, name: str, params: NoParams, services: Services, options: StepOptions | None = None):
        super().__init__(name, params, services, options)
        config = services.section("routing", RoutingConfig)
        self.cluster = services.shared("routing.cluster", lambda: ClusterState(config))
        services.lifespan("routing.cluster", lambda: self.cluster.running(services))
        services.shared(SESSION_HEADER, lambda: config.classes.session_header.lower())
        checks: list[Callable[[], Mapping[str, str]]] = services.shared(READINESS, list)
        if self.cluster.readiness not in checks:
            checks.append(self.cluster.readiness)
        readings: list[Callable[[], Mapping[str, Mapping[str, Any]]]] = services.shared(ENDPOINT_READINGS, list)
        if self.cluster.readings not in readings:
            readings.append(self.cluster.readings)
        idle: list[Callable[[str], bool | None]] = services.shared(IDLE_CAPACITY, list)
        if self.cluster.idle not in idle:
            idle.append(self.cluster.idle)

    async def run(self, inputs: Inputs) -> ClusterView:
        request: RequestContext = inputs[REQUEST]
        body = request.json()
        classes = self.cluster.config.classes
        text = canonical(body) if request.surface in (Surface.CHAT, Surface.COMPLETIONS) else ""
        hashes = block_hashes(text, self.cluster.config.prefix.block_chars)
        session = session_key(request.headers.get(classes.session_header))
        endpoints = self.cluster.topology.endpoint_names(request.model or "")
        shared = await self.cluster.store.view(endpoints, hashes, session)
        state = self.cluster.config.state
        return ClusterView(
            hashes, len(text), session, self.cluster.loads, shared, time.monotonic(), state.stale_after_s
        )


if TYPE_CHECKING:  # the hooks the gateway reads from the step's value (plugins.hooks)
    from taskgate.plugins import HasEvidence

    _: type[HasEvidence] = ClusterView
