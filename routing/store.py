"""Cluster state that replicas share: in-flight counts, the prefix index, session placements.

`MemoryStore` is the local view and is always kept current. `RedisStore` adds
a shared view over it; when Redis cannot answer within its timeout, reads fall
back to the local view, say so, and Redis is left alone for a while so a dead
store never adds latency to every request.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from redis.exceptions import RedisError

from taskgate.plugins import describe
from taskgate.plugins.redis import connect

from .config import StateConfig
from .prefix import PrefixIndex


@dataclass(frozen=True, slots=True)
class View:
    """What one request sees of the shared state."""

    inflight: dict[str, int]
    prefix_blocks: dict[str, int]
    session_endpoint: str | None
    source: str  # "memory", "redis" or "local (redis unavailable: ...)"
    degraded: bool = False
    held: dict[str, int] = field(default_factory=dict)  # blocks each endpoint is believed to hold


class Store(Protocol):
    async def view(self, endpoints: list[str], hashes: list[str], session: str | None) -> View: ...

    def placed(self, endpoint: str, hashes: list[str], session: str | None) -> None: ...

    def inflight(self, endpoint: str, delta: int) -> None: ...

    def distance(self, endpoint: str, hashes: list[str], hit: int) -> int | None: ...

    def learn(self, endpoint: str, capacity_blocks: int) -> None: ...

    def confirm(self, endpoint: str, blocks: int) -> None: ...

    def cap_of(self, endpoint: str) -> int: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


@dataclass
class MemoryStore:
    """This replica's own view; bounded in every dimension."""

    index: PrefixIndex
    session_cap: int = 100_000
    counts: dict[str, int] = field(default_factory=dict)
    sessions: OrderedDict[str, str] = field(default_factory=OrderedDict)

    async def view(self, endpoints: list[str], hashes: list[str], session: str | None) -> View:
        return self.local_view(endpoints, hashes, session, "memory")

    def local_view(self, endpoints: list[str], hashes: list[str], session: str | None, source: str) -> View:
        inflight = {e: self.counts.get(e, 0) for e in endpoints}
        blocks = {e: self.index.hits(e, hashes) for e in endpoints}
        held = {e: self.index.size(e) for e in endpoints}
        session_endpoint = self.sessions.get(session) if session else None
        return View(inflight, blocks, session_endpoint, source, source != "memory", held)

    def placed(self, endpoint: str, hashes: list[str], session: str | None) -> None:
        self.index.record(endpoint, hashes)
        if session:
            self.sessions[session] = endpoint
            self.sessions.move_to_end(session)
            while len(self.sessions) > self.session_cap:
                self.sessions.popitem(last=False)

    def inflight(self, endpoint: str, delta: int) -> None:
        self.counts[endpoint] = max(0, self.counts.get(endpoint, 0) + delta)

    def distance(self, endpoint: str, hashes: list[str], hit: int) -> int | None:
        return self.index.distance(endpoint, hashes, hit)

    def learn(self, endpoint: str, capacity_blocks: int) -> None:
        self.index.learn(endpoint, capacity_blocks)

    def cap_of(self, endpoint: str) -> int:
        """The blocks the endpoint is believed to hold at most (learned from its misses)."""
        return self.index.cap_of(endpoint)

    def confirm(self, endpoint: str, blocks: int) -> None:
        self.index.grow(endpoint, blocks)

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisStore:
    """Shared state in Redis, written through from the local view.

    Writes never wait on Redis and never spawn a task each: one writer task
    sends, per wake-up, one pipeline of the net in-flight deltas, the latest
    placements and any learned bounds. While Redis is down the deltas keep
    accumulating locally and go out when it answers again, so shared in-flight
    counts do not drift because of an outage (a replica that dies mid-request
    still leaves its increments behind).
    """

    PENDING_LIMIT = 1024  # placements waiting to be written; older ones are dropped (they are only hints)

    def __init__(self, config: StateConfig, local: MemoryStore):
        self.local = local
        self.config = config
        timeout = config.timeout_ms / 1000.0
        self.redis: Any = connect(config.redis_url, timeout_s=timeout, decode_responses=True)
        self._down_until = 0.0
        self._down_reason = ""
        self._deltas: dict[str, int] = {}
        self._placements: deque[tuple[str, list[str], str | None]] = deque(maxlen=self.PENDING_LIMIT)
        self._trims: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    def _key(self, *parts: str) -> str:
        return ":".join((self.config.key_prefix, *parts))

    async def start(self) -> None:
        self._writer = asyncio.create_task(self._write_forever(), name="routing-redis-writer")

    async def view(self, endpoints: list[str], hashes: list[str], session: str | None) -> View:
        if not endpoints:  # a model nobody serves: nothing to ask Redis (and HMGET needs a field)
            return View({}, {}, None, "redis")
        if time.monotonic() < self._down_until:
            return self._fallback(endpoints, hashes, session)
        try:
            async with asyncio.timeout(self.config.timeout_ms / 1000.0):
                return await self._read(endpoints, hashes, session)
        except (RedisError, OSError, TimeoutError) as exc:
            self._mark_down(exc)
            return self._fallback(endpoints, hashes, session)

    async def _read(self, endpoints: list[str], hashes: list[str], session: str | None) -> View:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(self._key("inflight"), endpoints)
        for endpoint in endpoints:
            pipe.zmscore(self._key("prefix", endpoint), hashes) if hashes else pipe.exists(self._key("none"))
            pipe.zcard(self._key("prefix", endpoint))
        pipe.get(self._key("session", session)) if session else pipe.exists(self._key("none"))
        results = await pipe.execute()
        counts = {e: max(0, int(v or 0)) for e, v in zip(endpoints, results[0], strict=True)}
        pairs = results[1:-1]
        blocks = {e: _leading(pairs[2 * i]) if hashes else 0 for i, e in enumerate(endpoints)}
        held = {e: int(pairs[2 * i + 1]) for i, e in enumerate(endpoints)}
        session_endpoint = results[-1] if session and isinstance(results[-1], str) else None
        return View(counts, blocks, session_endpoint, "redis", False, held)

    def _fallback(self, endpoints: list[str], hashes: list[str], session: str | None) -> View:
        return self.local.local_view(endpoints, hashes, session, f"local (redis unavailable: {self._down_reason})")

    def _mark_down(self, exc: BaseException) -> None:
        self._down_until = time.monotonic() + self.config.retry_after_s
        self._down_reason = describe(exc) if not isinstance(exc, TimeoutError) else "timed out"

    def placed(self, endpoint: str, hashes: list[str], session: str | None) -> None:
        self.local.placed(endpoint, hashes, session)
        self._placements.append((endpoint, hashes[: self.local.index.cap_of(endpoint)], session))
        self._wake.set()

    def inflight(self, endpoint: str, delta: int) -> None:
        self.local.inflight(endpoint, delta)
        self._deltas[endpoint] = self._deltas.get(endpoint, 0) + delta
        self._wake.set()

    def distance(self, endpoint: str, hashes: list[str], hit: int) -> int | None:
        return self.local.distance(endpoint, hashes, hit)  # this replica's placements only: an estimate

    def learn(self, endpoint: str, capacity_blocks: int) -> None:
        self.local.learn(endpoint, capacity_blocks)
        self._trims[endpoint] = self.local.index.cap_of(endpoint)
        self._wake.set()

    def confirm(self, endpoint: str, blocks: int) -> None:
        self.local.confirm(endpoint, blocks)

    def cap_of(self, endpoint: str) -> int:
        return self.local.cap_of(endpoint)

    async def _write_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if time.monotonic() < self._down_until:
                await asyncio.sleep(max(0.0, self._down_until - time.monotonic()))
            await self.flush()

    async def flush(self) -> None:
        """Send what is pending in one pipeline; on failure keep the deltas for the next try."""
        deltas = {e: d for e, d in self._deltas.items() if d}
        placements, trims = list(self._placements), dict(self._trims)
        if not (deltas or placements or trims):
            return
        self._placements.clear()
        self._trims.clear()
        pipe = self.redis.pipeline(transaction=False)
        for endpoint, delta in deltas.items():
            pipe.hincrby(self._key("inflight"), endpoint, delta)
        for endpoint, hashes, session in placements:
            self._queue_placement(pipe, endpoint, hashes, session)
        for endpoint, cap in trims.items():
            pipe.zremrangebyrank(self._key("prefix", endpoint), 0, -(cap + 1))
        try:
            async with asyncio.timeout(self.config.timeout_ms / 1000.0 * 4):
                await pipe.execute()
        except (RedisError, OSError, TimeoutError) as exc:
            self._mark_down(exc)
            self._wake.set()  # try again when the store is due back
            return
        for endpoint, delta in deltas.items():
            self._deltas[endpoint] -= delta  # what changed meanwhile stays pending

    def _queue_placement(self, pipe: Any, endpoint: str, hashes: list[str], session: str | None) -> None:
        key = self._key("prefix", endpoint)
        if hashes:
            stamp = time.time()
            pipe.zadd(key, {h: stamp + i * 1e-6 for i, h in enumerate(hashes)})
            pipe.zremrangebyrank(key, 0, -(self.local.index.cap_of(endpoint) + 1))  # newest blocks, up to the bound
        if session:
            pipe.set(self._key("session", session), endpoint, ex=max(1, int(self.config.session_ttl_s)))

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            await self.flush()
        await self.redis.aclose()


def _leading(scores: list[Any] | None) -> int:
    count = 0
    for score in scores or []:
        if score is None:
            break
        count += 1
    return count
