"""Every replica's evidence in one bounded Redis stream, so the dashboard shows the fleet (`ui.fleet.store: redis`).

Publishing stays off the answer's path: the gateway hands each flush's
records (their JSON bytes, rendered once for the log line) to `queue`, which
only keeps them; a writer task sends what was kept, per wake-up, as one
pipeline of XADDs capped at `max_records` (approximately: Redis trims whole
nodes). Each entry names the replica that served it. A store that cannot be
reached loses those records from the fleet's view (the replica keeps its
own, and logs them) and says so once per outage in the log.

The dashboard reads the newest entries after its cursor: the cursor is a
stream id, so a page polling any replica behind a balancer gets every
record once.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog

from taskgate.logs import loads
from taskgate.plugins.redis import connect

from .config import FleetConfig

log = structlog.get_logger("taskgate")
CURSOR = re.compile(r"\d{1,18}(-\d{1,18})?")
MAX_BATCH = 1000  # records queued while the store was slow beyond this are dropped from the fleet's view


class FleetLog:
    """The shared stream: written through from this replica's flushes, read for the page."""

    def __init__(self, config: FleetConfig, replica: str):
        self.config, self.replica = config, replica
        self._redis: Any = None
        self._queued: list[bytes] = []
        self._wake = asyncio.Event()
        self._failing = False

    def queue(self, records: list[bytes]) -> None:
        """A flush's records, kept for the writer (the gateway calls this right after answers go out)."""
        if len(self._queued) < MAX_BATCH:
            self._queued.extend(records[: MAX_BATCH - len(self._queued)])
            self._wake.set()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self._redis = connect(self.config.redis_url, decode_responses=False)
        writer = asyncio.create_task(self._write_forever(), name="ui-fleet-writer")
        try:
            yield
        finally:
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
            await self._send()  # what the last requests left
            await self._redis.aclose()

    async def _write_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._send()

    async def _send(self) -> None:
        records, self._queued = self._queued, []
        if not records:
            return
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for record in records:
                    pipe.xadd(self.config.key, {"r": self.replica, "e": record}, maxlen=self.config.max_records)
                await pipe.execute()
            self._failing = False
        except Exception as exc:  # the page misses these; the replica's own log and buffer keep them
            if not self._failing:
                log.warning("ui_fleet_unavailable", records=len(records), reason=f"{type(exc).__name__}: {exc}")
            self._failing = True

    async def since(self, cursor: str, limit: int) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
        """The newest `limit` records after `cursor` ("0": every one kept), oldest first, each with the replica
        that served it; and the cursor to send next."""
        after = cursor if cursor != "0" else "-"
        low = f"({after}" if after != "-" else "-"
        found = await self._redis.xrevrange(self.config.key, "+", low, count=limit)
        records = [(fields[b"r"].decode(), loads(fields[b"e"])) for _, fields in reversed(found)]
        return (found[0][0].decode() if found else cursor), records


def valid_cursor(raw: str) -> bool:
    """A cursor `since` gave (a stream id), or a number (the replica's own log's)."""
    return raw.isascii() and CURSOR.fullmatch(raw) is not None
