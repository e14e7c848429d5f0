"""The dispatch log: what happened on the way upstream and back, the evidence's `dispatch`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from taskgate.plugins import Usage

MAX_KEPT_ERROR = 1000  # of an upstream's error text, what the evidence keeps
CLIENT_LEFT = 499  # the status recorded for an attempt the client abandoned
BROKE, STALLED, TRUNCATED, MALFORMED = "upstream_broke", "upstream_stalled", "upstream_truncated", "upstream_malformed"
STREAM_ERRORS = {
    BROKE: ("upstream_stream_broken", "the upstream stream ended early; the answer is incomplete"),
    STALLED: ("upstream_stalled", "the upstream went silent; the answer is incomplete"),
    TRUNCATED: ("upstream_truncated", "the upstream ended the stream without finishing it; the answer is incomplete"),
}  # the outcome of a stream that began and then failed -> its code and what the client is told
FAILED_OUTCOMES = {outcome: code for outcome, (code, _) in STREAM_ERRORS.items()}


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long an upstream may be silent: to its first byte (headers, then a stream's first chunk), then between
    two chunks. A silence past either is a stall: it fails the attempt (a 504, or an error event once the stream
    has begun) and counts against the endpoint's breaker."""

    first_byte_s: float
    idle_s: float


UNBOUNDED = Timeouts(first_byte_s=float("inf"), idle_s=float("inf"))


def finite(when: float) -> float | None:
    """A deadline for asyncio.timeout: None where there is none."""
    return when if math.isfinite(when) else None


@dataclass(slots=True)
class Dispatch:
    """What happened on the way upstream; becomes the evidence's `dispatch`."""

    started_ms: float | None = None  # the gateway's own time before dispatch
    attempts: list[dict[str, Any]] = field(default_factory=list)
    endpoint: str | None = None
    status: int | None = None
    ttfb_ms: float | None = None  # to the upstream's response headers
    first_chunk_ms: float | None = None  # to the first body bytes of a stream: the first token
    bytes: int = 0
    outcome: str = "pending"
    engine_cached_tokens: int | None = None  # what the engine reported in usage
    usage: Usage | None = None  # the answer's, as its upstream reported it (the evidence's top-level `usage`)
    usage_missing: bool | None = None  # a metered answer whose upstream reported no usage (nothing was charged)
    upstream_error: dict[str, Any] | None = None  # an error answer: its code, and the upstream's own text
    prefill: dict[str, Any] | None = None  # a disaggregated request's first half: engine, status, ms, outcome
    timeouts: Timeouts = field(default=UNBOUNDED, repr=False)
    first_byte_by: float = field(default=float("inf"), repr=False)  # loop time by which the answer must have begun

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.started_ms is None else {"started_ms": self.started_ms}
        out["attempts"] = self.attempts
        for name in _REPORTED:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def record_usage(self, usage: Usage) -> None:
        self.usage, self.engine_cached_tokens = usage, usage.cached_tokens

    def failure(self) -> tuple[str, str] | None:
        """The evidence's error for an answer relayed as one (a stream that broke off, an upstream's error answer,
        one that could not be read): its code and message; None when it completed."""
        broken = FAILED_OUTCOMES.get(self.outcome.partition(":")[0])
        if broken is not None:
            return broken, self.outcome
        if self.upstream_error is not None:
            return self.upstream_error["code"], self.upstream_error["message"]
        return None

    def ok(self) -> tuple[bool, int | None]:
        """How the answering attempt ended, for breakers: ok, or the status that says why not."""
        if self.outcome == "completed":
            return (self.status or 0) < 500, self.status
        if self.outcome == "client_disconnected":
            return False, CLIENT_LEFT
        return False, None  # the upstream broke mid-answer, or sent what cannot be read


_REPORTED = (
    "endpoint", "status", "ttfb_ms", "first_chunk_ms", "bytes", "outcome", "engine_cached_tokens", "usage_missing",
    "upstream_error", "prefill",
)  # fmt: skip
