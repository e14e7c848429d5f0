"""The routing contracts: Filter, Scorer and Picker, one verb each, and the values they read."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Protocol

from .context import RequestContext
from .types import Endpoint

Category = Literal["affinity", "distribution"]
"""An affinity scorer pulls work to where it ran before and yields to load; a distribution scorer spreads it."""
AFFINITY: Category = "affinity"
DISTRIBUTION: Category = "distribution"


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
    circuit_open: bool = False  # its breaker lets no request through now (open, or its one probe is out)
    serves_model: bool = True  # its /v1/models lists the model (or it has not said), and it has not 404ed it
    load: float = field(init=False)  # requests on or queued for the endpoint, as best known

    def __post_init__(self) -> None:
        object.__setattr__(self, "load", max(float(self.inflight), self.running) + self.waiting)


class Scorer(Protocol):
    """Rates a candidate in [0, 1]; higher is better. Named by `type`, weighted in config.

    `category` (default "distribution"): an "affinity" scorer counts only on endpoints
    that are not much busier than the least busy one, so affinity yields to load.
    """

    type: ClassVar[str]
    category: ClassVar[Category]

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float: ...


@dataclass(frozen=True, slots=True)
class PoolFacts:
    """What filters and pickers may read about a pool; built once at start-up."""

    name: str
    region: str | None
    hardware: str | None
    max_context: int  # tokens of prompt plus answer its engines accept
    ttft_ms: float  # the time to first token it can meet (its targets.ttft_ms)
    input_per_mtok: float
    output_per_mtok: float


@dataclass(slots=True)
class Demand:
    """What one request asks of an endpoint, when filters run."""

    request: RequestContext
    tokens: int  # estimated prompt tokens plus the answer's max tokens
    regions: Collection[str] | None  # where it may run (the `allowed_regions` key); None: anywhere
    pools: Mapping[str, PoolFacts]  # every configured pool, by name


Ranked = list[tuple[Candidate, dict[str, float]]]
"""A pool's endpoints, best first, each with its scores by scorer name and their weighted "total"."""


@dataclass(slots=True)
class Slate(Demand):
    """What a picker chooses from: the endpoints of every eligible pool, ranked."""

    request_class: str  # interactive, batch or background
    target_ms: float  # the class's time-to-first-token target
    ranked: dict[str, Ranked] = field(default_factory=dict)  # eligible pools in config order
    predicted_ttft_ms: dict[str, float] = field(default_factory=dict)  # by pool, on its best endpoint
    endpoint_ttft_ms: dict[str, float] = field(default_factory=dict)  # by endpoint (inf: down at its last scrape)
    endpoint_cost: dict[str, float] = field(default_factory=dict)  # by endpoint: this request at its pool's prices


class Filter(Protocol):
    """Keeps an endpoint (None) or excludes it for this request, saying why in a sentence the evidence keeps.

    `peers` are the endpoints of the candidate's pool, before any filter ran.
    """

    type: ClassVar[str]

    def filter(self, candidate: Candidate, peers: tuple[Candidate, ...], demand: Demand) -> str | None: ...


class Picker(Protocol):
    """Chooses the endpoint from the slate and says why; the rest of its pool's ranking become fallbacks.

    `scored` (default True): False leaves the endpoints unscored, in config order, and skips the scorers.
    """

    type: ClassVar[str]
    scored: ClassVar[bool]

    def pick(self, slate: Slate) -> tuple[Candidate, str]: ...
