"""Pools and endpoints resolved once at start-up: who serves which model, under which names."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from taskgate.plugins import Endpoint, PoolFacts

from .config import PoolConfig, RoutingConfig


@dataclass(frozen=True)
class Pool:
    """A pool's config and its endpoints as values."""

    config: PoolConfig
    endpoints: tuple[Endpoint, ...]

    @property
    def name(self) -> str:
        return self.config.name

    def facts(self) -> PoolFacts:
        c, price = self.config, self.config.price
        ttft = c.targets.ttft_ms
        return PoolFacts(c.name, c.region, c.hardware, c.max_context, ttft, price.input_per_mtok, price.output_per_mtok)


@dataclass(frozen=True)
class Offer:
    """A pool able to serve a requested model, and the name its engines know the model by."""

    pool: Pool
    model: str


class Topology:
    """Lookups the route step needs, built once."""

    def __init__(self, config: RoutingConfig):
        self.pools = tuple(Pool(p, tuple(p.endpoint_values())) for p in config.pools)
        self.endpoints = {e.name: e for pool in self.pools for e in pool.endpoints}
        self.by_name = {pool.name: pool for pool in self.pools}
        self.facts = MappingProxyType({pool.name: pool.facts() for pool in self.pools})  # what filters, pickers read
        # some engine takes one half of a disaggregated request (routing/disagg.py); else none of that runs
        self.disaggregated = any(p.role_of(e) != "both" for p in config.pools for e in p.endpoints)
        self._offers: dict[str, list[Offer]] = {}
        self._names: dict[str, list[str]] = {}
        for pool in self.pools:
            for model in pool.config.models:
                for name in (model.name, *model.aliases):
                    self._offers.setdefault(name, []).append(Offer(pool, model.name))

    def endpoint_names(self, model: str) -> list[str]:
        """Every endpoint of every pool serving `model`, computed once per served model."""
        names = self._names.get(model)
        if names is None and model in self._offers:  # only configured names: clients cannot grow this
            names = self._names[model] = [e.name for offer in self.offers(model) for e in offer.pool.endpoints]
        return names or []

    def offers(self, model: str) -> list[Offer]:
        """Pools serving `model` (by name or alias), in config order."""
        return self._offers.get(model, [])

    @property
    def models(self) -> list[str]:
        return list(self._offers)
