"""Per-endpoint circuit breakers: eject after consecutive failures, let one probe through to return."""

from __future__ import annotations

import time
from dataclasses import dataclass

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"


@dataclass
class Breaker:
    failures: int = 0
    state: str = CLOSED
    opened_at: float = 0.0
    probing: bool = False
    probe_started: float = 0.0


class Breakers:
    """Breakers of every endpoint; `available` is asked during placement."""

    def __init__(self, threshold: int, cooldown_s: float):
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self._by_endpoint: dict[str, Breaker] = {}

    def _get(self, endpoint: str) -> Breaker:
        return self._by_endpoint.setdefault(endpoint, Breaker())

    def available(self, endpoint: str) -> bool:
        """Closed, or open long enough that one probe request may try it."""
        breaker = self._get(endpoint)
        now = time.monotonic()
        if breaker.state == OPEN and now - breaker.opened_at >= self.cooldown_s:
            breaker.state, breaker.probing = HALF_OPEN, False
        if breaker.state == HALF_OPEN and breaker.probing and now - breaker.probe_started >= self.cooldown_s:
            breaker.probing = False  # a probe that never reported back does not block the endpoint forever
        if breaker.state == HALF_OPEN and not breaker.probing:
            return True
        return breaker.state == CLOSED

    def attempting(self, endpoint: str) -> None:
        breaker = self._get(endpoint)
        if breaker.state == HALF_OPEN:
            breaker.probing, breaker.probe_started = True, time.monotonic()  # only one probe at a time

    def success(self, endpoint: str) -> None:
        breaker = self._get(endpoint)
        breaker.failures, breaker.state, breaker.probing = 0, CLOSED, False

    def neutral(self, endpoint: str) -> None:
        """An attempt that says nothing about the endpoint's health (client left, 429): free the probe."""
        self._get(endpoint).probing = False

    def failure(self, endpoint: str) -> None:
        breaker = self._get(endpoint)
        breaker.failures += 1
        breaker.probing = False
        if breaker.state == HALF_OPEN or breaker.failures >= self.threshold:
            breaker.state, breaker.opened_at = OPEN, time.monotonic()

    def state(self, endpoint: str) -> str:
        return self._get(endpoint).state

    def current(self, endpoint: str) -> str:
        """The state as the next placement would find it (an open breaker past its cooldown is half open), for
        readers; nothing changes."""
        breaker = self._by_endpoint.get(endpoint)
        if breaker is None:
            return CLOSED
        if breaker.state == OPEN and time.monotonic() - breaker.opened_at >= self.cooldown_s:
            return HALF_OPEN
        return breaker.state
