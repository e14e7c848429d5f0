"""Values steps hand each other, the context keys rooms share, and the small protocols around them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

PLACEMENT = "placement"
"""The key the OpenAI surfaces need: where the request is dispatched (a Placement)."""

PAYLOAD = "payload"
"""Optional key: a rewritten JSON body. Absent means the original bytes are sent."""

ALLOWED_REGIONS = "allowed_regions"
"""Optional key: a frozenset of regions this request may run in (the PII step sets it). Absent: any."""

REQUEST_CLASS = "request_class"
"""Optional key: 'interactive', 'batch' or 'background' (the classifier sets it). Absent: header or default."""

IDENTITY = "identity"
"""The key of who calls (a Principal); the authenticate step provides it."""

GRANT = "grant"
"""The key of what the caller's task may do (a ToolGate); the authorize step provides it."""


TASK_HEADERS = "task_headers"
"""The `Services.shared` key of where a task's id and token travel: (id header, token header), lower case.

The step that grants tasks sets it when it is built; absent, DEFAULT_TASK_HEADERS.
"""
DEFAULT_TASK_HEADERS = ("x-taskgate-task", "x-taskgate-task-token")

SESSION_HEADER = "session_header"
"""The `Services.shared` key of the header, lower case, that names a client's session: routing keeps a session's
turns together on one endpoint (routing sets it; absent, DEFAULT_SESSION_HEADER). The Responses surface sets it
on a translated request, so a follow-up runs where the response it continues ran."""
DEFAULT_SESSION_HEADER = "x-session-id"

BATCH_HEADER = "x-taskgate-batch"
"""The header that marks a batch job's item (the batch room sets it on the items it runs): its class, `background`
or `batch`, and `; due` once the job's deadline is near. Routing gives such an item that class whatever a
classifier said (it can only lower urgency), and places it only where a pool has idle capacity
(`IDLE_CAPACITY`) until it is due. A client that sends it only slows its own request."""
IDLE_CAPACITY = "idle_capacity"
"""The `Services.shared` key of a list of idle-capacity checks: each a callable taking a model name and returning
whether a pool that serves it is under its idle watermark now (None: it serves no such model). The batch room
releases an item only while one says True (routing adds its cluster's; none registered: always idle)."""

BATCH_JOBS = "batch_jobs"
"""The `Services.shared` key of the batch jobs as the dashboard shows them: an async callable taking a limit and
returning how many jobs are held and the newest that many, each a JSON-ready summary (the batch room sets it;
where replicas share jobs, every replica's)."""

EVIDENCE_SINKS = "evidence_sinks"
"""The `Services.shared` key of a list of evidence sinks: each a callable taking the records one flush of the gateway
wrote (their JSON bytes, the log line's), called right after answers go out. A sink only keeps them for a task of
its own to send (the dashboard's fleet stream does); it must not raise, block or do I/O there."""

SERVED_MODELS = "served_models"
"""The `Services.shared` key of the model names the gateway serves, in config order (routing sets it)."""
READINESS = "readiness"
"""The `Services.shared` key of a list of readiness checks: each a callable returning the problems that keep the
gateway from serving (`{"what": "why"}`; empty when ready). `/readyz` answers 503 while any reports one."""
ENDPOINT_READINGS = "endpoint_readings"
"""The `Services.shared` key of a list of endpoint readings: each a callable returning, per endpoint name, what it
reads there now (routing adds its cluster's: `pool`, `healthy`, `running`, `waiting`, `kv_usage`, `inflight`,
`breaker`, and the engine's cumulative `prefix_hits` and `prefix_queries` in tokens, None where it does not count
them). The dashboard samples them every few seconds (docs/dashboard.md); nothing reads them while it is off."""


class Principal(Protocol):
    """A verified caller, as other rooms read it."""

    @property
    def subject(self) -> str: ...

    @property
    def tenant(self) -> str: ...

    @property
    def roles(self) -> tuple[str, ...]: ...


class ToolGate(Protocol):
    """A task's grant, as other rooms read it: whether a tool (its arguments are judged per call), or an MCP
    `resource` or `prompt`, is in it at all."""

    def allows(self, name: str, kind: str = "tool") -> bool: ...


class ResponseFilter(Protocol):
    """Rewrites one answer on its way back to the client.

    A filter may also implement `plugins.hooks.Flushes` (it holds streamed
    text back and can release it when the next chunk is late) or
    `plugins.hooks.ChecksToolCalls` (it judges tool calls a client will run).
    """

    def whole(self, body: bytes) -> bytes:
        """A complete (non-streamed) answer in, the bytes to send out."""
        ...

    def chunk(self, data: bytes) -> bytes:
        """Streamed bytes as they arrive in; the bytes that may be sent now out (may hold some back)."""
        ...

    def end(self) -> bytes:
        """The stream ended: whatever was held back."""
        ...


@dataclass(frozen=True, slots=True)
class Usage:
    """The tokens an answer took, as its upstream reported them (OpenAI's `usage`); cached tokens are part of the
    prompt's."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None  # None: the upstream did not say (not the same as none cached)

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            (self.cached_tokens or 0) + (other.cached_tokens or 0),
        )


@dataclass(frozen=True, slots=True)
class TokenPrice:
    """A pool's price per million tokens; cached prompt tokens at their own price where the pool gives one."""

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    cached_input_per_mtok: float | None = None  # None: the input price

    def cost(self, usage: Usage) -> float:
        cached = min(usage.cached_tokens or 0, usage.prompt_tokens)
        cached_rate = self.input_per_mtok if self.cached_input_per_mtok is None else self.cached_input_per_mtok
        fresh = (usage.prompt_tokens - cached) * self.input_per_mtok
        return (fresh + cached * cached_rate + usage.completion_tokens * self.output_per_mtok) / 1_000_000


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One upstream inference server."""

    name: str
    url: str
    pool: str = "default"
    region: str | None = None
    hardware: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    price: TokenPrice | None = None  # what its tokens cost; None: unpriced (cost not known)


class DispatchObserver(Protocol):
    """Told what dispatch did with a placement: per attempt, and once at the end."""

    def attempt_started(self, endpoint: Endpoint) -> None: ...

    def attempt_ended(self, endpoint: Endpoint, ok: bool, status: int | None) -> None: ...

    def finished(self, endpoint: Endpoint | None, cached_tokens: int | None) -> None: ...


class KvTransport(Protocol):
    """How a disaggregated request's KV moves from its prefill engine to its decode engine (routing builds one:
    vLLM's `kv_transfer_params` exchange; SGLang's bootstrap handshake would be another)."""

    @property
    def name(self) -> str: ...

    def prefill_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """What the prefill engine is sent: the request, asking it to prefill only and keep the KV for a decode."""
        ...

    def decode_body(self, body: dict[str, Any], answer: Any) -> dict[str, Any] | None:
        """What the decode engine is sent, given the prefill engine's parsed answer; None: the answer hands over
        nothing (the request then runs whole, aggregated)."""
        ...


@dataclass(frozen=True, slots=True)
class Prefill:
    """A disaggregated placement's first half: the engine that prefills the prompt, and how its KV moves on."""

    endpoint: Endpoint
    transport: KvTransport


@dataclass(slots=True)
class Placement:
    """Where a request goes and why; `fallbacks` are tried in order before the first byte.

    `model` is the name the engine knows; when it differs from what the client
    asked for (an alias), the gateway rewrites the body's model field.
    `details` is what others read on the way (the request's `class`);
    `explain`, if given, adds what only the evidence needs (scores, candidates,
    predictions), computed when the record is written rather than on the path.
    `prefill`, if given, disaggregates it: the prompt is prefilled there first,
    and `endpoint` decodes with the KV handed over (whole, if the prefill fails).
    """

    endpoint: Endpoint
    model: str
    reason: str
    fallbacks: tuple[Endpoint, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)
    predicted_cached_tokens: int = 0
    observer: DispatchObserver | None = None
    explain: Callable[[], Mapping[str, Any]] | None = None
    prefill: Prefill | None = None

    def evidence(self) -> Mapping[str, Any]:
        return {
            "pool": self.endpoint.pool,
            "endpoint": self.endpoint.name,
            "model": self.model,
            "region": self.endpoint.region,
            "hardware": self.endpoint.hardware,
            "reason": self.reason,
            "predicted_cached_tokens": self.predicted_cached_tokens,
            "fallbacks": [e.name for e in self.fallbacks],
            **self.details,
            **(self.explain() if self.explain is not None else {}),
        }


if TYPE_CHECKING:  # the hooks the gateway reads from a placement (plugins.hooks)
    from .hooks import HasEvidence

    _: type[HasEvidence] = Placement
