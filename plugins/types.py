"""Values steps hand each other, and the small protocols around them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

PLACEMENT = "placement"
"""The key the OpenAI surfaces need: where the request is dispatched."""

PAYLOAD = "payload"
"""Optional key: a rewritten JSON body. Absent means the original bytes are sent."""


@runtime_checkable
class HasEvidence(Protocol):
    """A step output that can describe itself in the evidence record."""

    def evidence(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One upstream inference server."""

    name: str
    url: str
    pool: str = "default"
    region: str | None = None
    hardware: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a request goes and why; `fallbacks` are tried in order on failure."""

    endpoint: Endpoint
    model: str
    reason: str
    fallbacks: tuple[Endpoint, ...] = ()

    def evidence(self) -> Mapping[str, Any]:
        return {
            "pool": self.endpoint.pool,
            "endpoint": self.endpoint.name,
            "model": self.model,
            "region": self.endpoint.region,
            "hardware": self.endpoint.hardware,
            "reason": self.reason,
            "fallbacks": [e.name for e in self.fallbacks],
        }
