"""Shared helpers for the simulated-engine tests."""

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient

from taskgate.sim import PROFILES, EngineProfile

INSTANT = replace(PROFILES["instant"], name="test-instant", models=("sim-a", "sim-b"))
SimClient = TestClient[web.Request, web.Application]


def timed(**overrides: object) -> EngineProfile:
    """A profile that really sleeps, fast enough for tests."""
    base = EngineProfile(name="test-timed", models=("sim-a",), tpot_s=0.001, prefill_tokens_per_s=10_000.0)
    return replace(base, **overrides)  # type: ignore[arg-type]


def long_text(words: int, tag: str = "w") -> str:
    """A prompt of ``words`` distinct one-token words."""
    return " ".join(f"{tag}{index}" for index in range(words))


def metric(text: str, name: str) -> float:
    """Sum of every sample of ``name`` in a Prometheus exposition."""
    pattern = re.compile(rf"^{re.escape(name)}(?:\{{[^}}]*\}})? (\S+)$", re.MULTILINE)
    return sum(float(value) for value in pattern.findall(text))


async def scrape(client: SimClient) -> str:
    """The current ``/metrics`` text."""
    response = await client.get("/metrics")
    return await response.text()


async def eventually(check: Callable[[], Awaitable[bool]], timeout_s: float = 3.0) -> None:
    """Poll ``check`` until it holds or fail after ``timeout_s``."""
    for _ in range(int(timeout_s / 0.01)):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


async def sse_events(response: ClientResponse) -> list[str]:
    """The ``data:`` payloads of a server-sent event stream, in order."""
    events = []
    async for line in response.content:
        if line.startswith(b"data: "):
            events.append(line[len(b"data: ") :].decode().strip())
    return events


def chunks(events: list[str]) -> list[dict[str, Any]]:
    """The JSON chunks of a stream, without the final ``[DONE]``."""
    assert events[-1] == "[DONE]"
    return [json.loads(event) for event in events[:-1]]
