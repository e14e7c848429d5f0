"""Built-in endpoint scorers. Each rates one candidate in [0, 1]; config weights them.

Affinity scorers (prefix, session) count only where load allows; the route step zeroes them elsewhere.
"""

from __future__ import annotations

from typing import ClassVar

from taskgate.plugins import AFFINITY, DISTRIBUTION, Candidate, Category, Scorer


class PrefixAffinity:
    """Share of the prompt's leading blocks the endpoint most likely holds."""

    type: ClassVar[str] = "prefix"
    category: ClassVar[Category] = AFFINITY

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float:
        return candidate.prefix_blocks / candidate.prompt_blocks if candidate.prompt_blocks else 0.0


class QueueDepth:
    """Fewer requests waiting in the engine's queue is better."""

    type: ClassVar[str] = "queue"
    category: ClassVar[Category] = DISTRIBUTION

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float:
        return 1.0 / (1.0 + candidate.waiting)


class KvUsage:
    """More free KV cache is better: new blocks will not evict someone's prefix."""

    type: ClassVar[str] = "kv"
    category: ClassVar[Category] = DISTRIBUTION

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float:
        return 1.0 - candidate.kv_usage


class InFlight:
    """Fewer requests running or queued on the endpoint, relative to its peers, is better."""

    type: ClassVar[str] = "inflight"
    category: ClassVar[Category] = DISTRIBUTION

    def __init__(self) -> None:
        self._peers: tuple[Candidate, ...] | None = None
        self._least = 0.0

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float:
        if peers is not self._peers:  # one minimum per ranking, not one per candidate
            self._peers, self._least = peers, min(p.load for p in peers)
        return 1.0 / (1.0 + candidate.load - self._least)


class SessionAffinity:
    """The endpoint that served this session's previous turn."""

    type: ClassVar[str] = "session"
    category: ClassVar[Category] = AFFINITY

    def score(self, candidate: Candidate, peers: tuple[Candidate, ...]) -> float:
        return 1.0 if candidate.session_match else 0.0


BUILTIN: tuple[type[Scorer], ...] = (PrefixAffinity, QueueDepth, KvUsage, InFlight, SessionAffinity)
