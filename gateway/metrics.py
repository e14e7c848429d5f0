"""Prometheus metrics of the gateway: counted cheaply per request, turned into metric families only when scraped.

A request updates plain counters and bucket arrays (a dict lookup, an
addition, a bisect); the collector builds the families the Prometheus text
format needs when `/metrics` is read. The registry is per app, so several
apps can share a process, and rooms add their own metrics to it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping
from itertools import accumulate
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from taskgate.dag import StepRecord
from taskgate.plugins import Usage

MAX_TENANTS = 1000  # distinct tenant label values; the rest are `other`, so a token issuer cannot blow up the series
LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
_BOUNDS = (*LATENCY, float("inf"))


class Histogram:
    """One labelled histogram's counts: a count per bucket (not cumulative until scraped) and the sum."""

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * len(_BOUNDS)
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(_BOUNDS, value)] += 1
        self.total += value

    def buckets(self) -> list[tuple[str, float]]:
        return [(_le(bound), float(n)) for bound, n in zip(_BOUNDS, accumulate(self.counts), strict=True)]


def _le(bound: float) -> str:
    """A bucket's bound as prometheus_client writes it (`0.0005`, `1.0`, `+Inf`)."""
    return "+Inf" if bound == float("inf") else repr(float(bound))


class Metrics:
    """Request, step and upstream metrics of one gateway.

    Label values come from config (surfaces, step and endpoint names), from the status code, or from callers'
    tenants (bounded by `max_tenants`), so cardinality is bounded.
    """

    def __init__(self, registry: CollectorRegistry | None = None, max_tenants: int = MAX_TENANTS) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.inflight = 0
        self.requests: dict[tuple[str, str], int] = {}
        self.latency: dict[str, Histogram] = {}
        self.steps: dict[tuple[str, str], Histogram] = {}
        self.ttfb: dict[str, Histogram] = {}
        self.attempts: dict[tuple[str, str], int] = {}
        self.tokens: dict[tuple[str, str, str, str], int] = {}
        self.cost: dict[tuple[str, str, str], float] = {}
        self.usage_missing = 0
        self._tenants: set[str] = set()
        self.max_tenants = max_tenants
        self.registry.register(_Families(self))

    def request_done(self, surface: str, status: int, seconds: float) -> None:
        key = (surface, str(status))
        self.requests[key] = self.requests.get(key, 0) + 1
        _histogram(self.latency, surface).observe(seconds)

    def observe_steps(self, records: list[StepRecord]) -> None:
        steps = self.steps
        for rec in records:
            _histogram(steps, (rec.name, rec.outcome.value)).observe(rec.duration_ms / 1000.0)

    def attempt(self, endpoint: str, result: str) -> None:
        key = (endpoint, result)
        self.attempts[key] = self.attempts.get(key, 0) + 1

    def first_byte(self, endpoint: str, seconds: float) -> None:
        _histogram(self.ttfb, endpoint).observe(seconds)

    def usage_done(self, tenant: str | None, model: str, pool: str, usage: Usage, cost: float | None) -> None:
        label = self._tenant(tenant)
        for kind, count in (("prompt", usage.prompt_tokens), ("cached", usage.cached_tokens or 0),
                            ("completion", usage.completion_tokens)):  # fmt: skip
            if count:
                key = (label, model, pool, kind)
                self.tokens[key] = self.tokens.get(key, 0) + count
        if cost:
            spent = (label, model, pool)
            self.cost[spent] = self.cost.get(spent, 0.0) + cost

    def _tenant(self, tenant: str | None) -> str:
        """Tenants come from callers' tokens: past `max_tenants` distinct ones, the rest count as `other`."""
        if tenant is None:
            return "none"
        if tenant not in self._tenants:
            if len(self._tenants) >= self.max_tenants:
                return "other"
            self._tenants.add(tenant)
        return tenant

    def render(self) -> bytes:
        return generate_latest(self.registry)


def _histogram(table: dict[Any, Histogram], key: Any) -> Histogram:
    found = table.get(key)
    if found is None:
        found = table[key] = Histogram()
    return found


class _Families(Collector):
    """The gateway's metrics as Prometheus families, built when scraped."""

    def __init__(self, metrics: Metrics):
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        yield _counter("taskgate_requests", "Requests by surface and status", ["surface", "status"], m.requests)
        yield _histograms("taskgate_request_seconds", "Time to response end", ["surface"], m.latency)
        in_flight = GaugeMetricFamily("taskgate_requests_in_flight", "Requests being handled")
        in_flight.add_metric([], m.inflight)
        yield in_flight
        yield _histograms("taskgate_step_seconds", "Step durations", ["step", "outcome"], m.steps)
        yield _histograms("taskgate_upstream_ttfb_seconds", "Upstream time to headers", ["endpoint"], m.ttfb)
        yield _counter("taskgate_upstream_attempts", "Dispatch attempts", ["endpoint", "result"], m.attempts)
        tokens = "Tokens answered, by kind: prompt (cached included), cached, completion"
        yield _counter("taskgate_tokens", tokens, ["tenant", "model", "pool", "kind"], m.tokens)
        yield _counter("taskgate_cost", "Cost of answers at their pools' prices", ["tenant", "model", "pool"], m.cost)
        missing = CounterMetricFamily(
            "taskgate_usage_missing", "Answers a budget meters whose upstream reported no usage"
        )
        missing.add_metric([], m.usage_missing)
        yield missing


def _counter(name: str, help: str, labels: list[str], values: Mapping[Any, float]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, help, labels=labels)
    for key, value in list(values.items()):
        family.add_metric(list(key), value)
    return family


def _histograms(name: str, help: str, labels: list[str], table: Mapping[Any, Histogram]) -> HistogramMetricFamily:
    family = HistogramMetricFamily(name, help, labels=labels)
    for key, histogram in list(table.items()):
        values = list(key) if isinstance(key, tuple) else [str(key)]
        family.add_metric(values, histogram.buckets(), histogram.total)
    return family
