"""The endpoints' last minutes, for the dashboard: the rooms' readings (`ENDPOINT_READINGS`) sampled on a timer.

A sample holds, per endpoint, what its room reads there (routing: the last
scrape's load, this replica's in-flight count, the breaker) and the prefix
cache's hit rate since the sample before, from the engine's own counters.
Samples live in a ring of `ui.history_minutes`; a reader asks for those after
its cursor, so a page polling every few seconds is sent only what is new.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import islice
from typing import Any

import structlog

log = structlog.get_logger("taskgate")
Readings = Callable[[], Mapping[str, Mapping[str, Any]]]
FIELDS = ("running", "waiting", "inflight", "kv_usage", "cache_hit_rate", "breaker", "healthy")
"""A sample's values per endpoint, in this order (`cache_hit_rate`: None while the engine looked nothing up)."""
COUNTERS = ("prefix_hits", "prefix_queries")


@dataclass(frozen=True, slots=True)
class Sample:
    number: int
    at: float  # wall clock, seconds
    values: dict[str, list[Any]]  # endpoint -> FIELDS


class History:
    """A bounded ring of samples; `sample` takes one now, `running` takes one every `interval_s`."""

    def __init__(self, sources: Sequence[Readings], interval_s: float, minutes: float):
        self.sources = sources  # the shared list: rooms add to it while the app is built
        self.interval_s = interval_s
        self.window_s = minutes * 60.0
        self._samples: deque[Sample] = deque(maxlen=max(1, round(self.window_s / interval_s)))
        self._counters: dict[str, tuple[float, float]] = {}  # per endpoint, prefix hits and queries last sampled
        self.pools: dict[str, str] = {}
        self.taken = 0
        """Samples ever taken: a reader's cursor for `since`."""

    def sample(self) -> None:
        readings: dict[str, Mapping[str, Any]] = {}
        for source in self.sources:
            readings.update(source())
        self.pools = {name: str(reading.get("pool", "")) for name, reading in readings.items()}
        values = {name: self._values(name, reading) for name, reading in readings.items()}
        self.taken += 1
        self._samples.append(Sample(self.taken, round(time.time(), 3), values))

    def _values(self, endpoint: str, reading: Mapping[str, Any]) -> list[Any]:
        point = {**reading, "cache_hit_rate": self._hit_rate(endpoint, reading)}
        return [_rounded(point.get(name)) for name in FIELDS]

    def _hit_rate(self, endpoint: str, reading: Mapping[str, Any]) -> float | None:
        """Hits over queries since the last sample; None without counters, lookups, or after a counter reset."""
        hits, queries = (reading.get(name) for name in COUNTERS)
        if not isinstance(hits, int | float) or not isinstance(queries, int | float):
            self._counters.pop(endpoint, None)
            return None
        before = self._counters.get(endpoint)
        self._counters[endpoint] = (hits, queries)
        if before is None or queries <= before[1] or hits < before[0]:
            return None
        return min(1.0, (hits - before[0]) / (queries - before[1]))

    def since(self, cursor: int) -> dict[str, Any]:
        """The samples taken after `cursor` (an earlier `taken`; any other number: every sample kept), JSON-ready."""
        kept = len(self._samples)
        new = kept if not 0 <= cursor <= self.taken else min(self.taken - cursor, kept)
        return {
            "cursor": self.taken,
            "interval_s": self.interval_s,
            "window_s": self.window_s,
            "fields": FIELDS,
            "pools": self.pools,
            "samples": [[s.at, s.values] for s in islice(self._samples, kept - new, None)],
        }

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        task = asyncio.create_task(self._sample_forever(), name="ui-history")
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _sample_forever(self) -> None:
        while True:
            try:
                self.sample()
            except Exception:  # a room's reading that breaks must not stop the samples
                log.exception("ui_history_sample_failed")
            await asyncio.sleep(self.interval_s)


def _rounded(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value
