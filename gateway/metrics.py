"""Prometheus metrics, on a registry per app so several apps can share a process."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from taskgate.dag import StepRecord
from taskgate.plugins import Usage

MAX_TENANTS = 1000  # distinct tenant label values; the rest are `other`, so a token issuer cannot blow up the series
_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    """Request, step and upstream metrics of one proxy.

    Label values come from config (surfaces, step and endpoint names) or from
    the status code, so cardinality is bounded; the labelled children are
    memoised because `labels()` costs a lock and a tuple build per call.
    """

    def __init__(self, registry: CollectorRegistry | None = None, max_tenants: int = MAX_TENANTS) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "taskgate_requests", "Requests by surface and status", ["surface", "status"], registry=r
        )
        self.latency = Histogram(
            "taskgate_request_seconds", "Time to response end", ["surface"], buckets=_LATENCY, registry=r
        )
        self.inflight = Gauge("taskgate_requests_in_flight", "Requests being handled", registry=r)
        self.steps = Histogram(
            "taskgate_step_seconds", "Step durations", ["step", "outcome"], buckets=_LATENCY, registry=r
        )
        self.ttfb = Histogram(
            "taskgate_upstream_ttfb_seconds", "Upstream time to headers", ["endpoint"], buckets=_LATENCY, registry=r
        )
        self.attempts = Counter("taskgate_upstream_attempts", "Dispatch attempts", ["endpoint", "result"], registry=r)
        self.tokens = Counter(
            "taskgate_tokens", "Tokens answered, by kind: prompt (cached included), cached, completion",
            ["tenant", "model", "pool", "kind"], registry=r,
        )  # fmt: skip
        self.cost = Counter(
            "taskgate_cost", "Cost of answers at their pools' prices", ["tenant", "model", "pool"], registry=r
        )
        self.usage_missing = Counter(
            "taskgate_usage_missing", "Answers a budget meters whose upstream reported no usage", registry=r
        )
        self._children: dict[tuple[Any, ...], Any] = {}
        self._tenants: set[str] = set()
        self.max_tenants = max_tenants

    def child(self, metric: Any, *labels: str) -> Any:
        key = (id(metric), *labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*labels)
        return found

    def request_done(self, surface: str, status: int, seconds: float) -> None:
        self.child(self.requests, surface, str(status)).inc()
        self.child(self.latency, surface).observe(seconds)

    def usage_done(self, tenant: str | None, model: str, pool: str, usage: Usage, cost: float | None) -> None:
        label = self._tenant(tenant)
        for kind, count in (("prompt", usage.prompt_tokens), ("cached", usage.cached_tokens or 0),
                            ("completion", usage.completion_tokens)):  # fmt: skip
            if count:
                self.child(self.tokens, label, model, pool, kind).inc(count)
        if cost:
            self.child(self.cost, label, model, pool).inc(cost)

    def _tenant(self, tenant: str | None) -> str:
        """Tenants come from callers' tokens: past `max_tenants` distinct ones, the rest count as `other`."""
        if tenant is None:
            return "none"
        if tenant not in self._tenants:
            if len(self._tenants) >= self.max_tenants:
                return "other"
            self._tenants.add(tenant)
        return tenant

    def observe_steps(self, records: list[StepRecord]) -> None:
        for rec in records:
            self.child(self.steps, rec.name, rec.outcome.value).observe(rec.duration_ms / 1000.0)

    def render(self) -> bytes:
        return generate_latest(self.registry)
