"""A small load generator: sequential latency and closed-loop throughput over aiohttp."""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass

import aiohttp

BODY = b'{"model":"sim-model","messages":[{"role":"user","content":"Say ok sixteen times."}],"max_tokens":16}'
STREAM_BODY = BODY[:-1] + b',"stream":true}'


@dataclass
class Latency:
    p50_ms: float
    p99_ms: float
    mean_ms: float
    errors: int


def summarise(samples: list[float], errors: int) -> Latency:
    ordered = sorted(samples) or [float("nan")]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Latency(statistics.median(ordered) * 1000, p99 * 1000, statistics.fmean(ordered) * 1000, errors)


async def _one(session: aiohttp.ClientSession, url: str, stream: bool) -> float | None:
    started = time.perf_counter()
    async with session.post(url, data=STREAM_BODY if stream else BODY) as resp:
        if resp.status != 200:
            await resp.read()
            return None
        if stream:
            await resp.content.readuntil(b"\n\n")  # time to the first event
            elapsed = time.perf_counter() - started
            await resp.read()
            return elapsed
        await resp.read()
    return time.perf_counter() - started


def _session(limit: int, headers: dict[str, str]) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit=limit)
    return aiohttp.ClientSession(connector=connector, headers={"Content-Type": "application/json", **headers})


async def latency(base_url: str, requests: int, warmup: int, stream: bool, headers: dict[str, str]) -> Latency:
    """One request at a time; for streams, the time to the first event."""
    url = base_url + "/v1/chat/completions"
    async with _session(1, headers) as session:
        for _ in range(warmup):
            await _one(session, url, stream)
        samples, errors = [], 0
        for _ in range(requests):
            result = await _one(session, url, stream)
            if result is None:
                errors += 1
            else:
                samples.append(result)
    return summarise(samples, errors)


async def throughput(base_url: str, concurrency: int, seconds: float, headers: dict[str, str]) -> tuple[float, int]:
    """Closed loop: `concurrency` clients send back to back for `seconds`; returns (req/s, errors)."""
    url = base_url + "/v1/chat/completions"
    done, errors = 0, 0
    deadline = time.perf_counter() + seconds

    async def client(session: aiohttp.ClientSession) -> None:
        nonlocal done, errors
        while time.perf_counter() < deadline:
            if await _one(session, url, False) is None:
                errors += 1
            else:
                done += 1

    async with _session(concurrency, headers) as session:
        await _one(session, url, False)
        started = time.perf_counter()
        await asyncio.gather(*(client(session) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return done / elapsed, errors
