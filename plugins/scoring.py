"""The endpoint Scorer contract: one `score` method, weighted in config."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from .types import Endpoint


@dataclass(frozen=True, slots=True)
class Candidate:
    """What is known about one endpoint for one request, when scorers run."""

    endpoint: Endpoint
    prefix_blocks: int  # leading prompt blocks this endpoint most likely holds
    prompt_blocks: int  # blocks in this request's prompt
    waiting: float  # engine queue depth (scraped)
    running: float  # engine running sequences (scraped)
    kv_usage: float  # 0..1 (scraped)
    inflight: int  # the proxy's own in-flight requests to it (shared across replicas with Redis)
    session_match: bool  # the request's session was last placed here
    stale: bool  # scraped numbers are older than the staleness limit
    load: float = field(init=False)  # requests on or queued for the endpoint, as best known

    def __post_init__(self) -> None:
        object.__setattr__(self, "load", max(float(self.inflight), self.running) + self.waiting)


class Scorer(Protocol):
    """Rates a candidate in [0, 1]; higher is better. Named by `type`, weighted in config."""

    type: ClassVar[str]

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float: ...
