"""Batch tests: simulated engines that record when each request came and went, and SDK helpers."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import openai
from aiohttp import web

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from tests.authz.conftest import key_pairs, keys  # noqa: F401  (fixtures the authenticated tests use)

ENDED = ("completed", "failed", "expired", "cancelled")


@dataclass
class Seen:
    """One inference request an engine received: its body, and when it came and was answered (monotonic)."""

    body: dict[str, Any]
    came: float
    went: float | None = None
    answer: str | None = None  # the id of the completion it answered (a whole answer's)

    @property
    def text(self) -> str:
        return json.dumps(self.body)


@dataclass
class Recorder:
    url: str = ""
    seen: list[Seen] = field(default_factory=list)

    def bodies_with(self, marker: str) -> list[Seen]:
        return [s for s in self.seen if marker in s.text]


def recording(seen: list[Seen]) -> Callable[..., Awaitable[web.StreamResponse]]:
    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.method != "POST":
            response: web.StreamResponse = await handler(request)
            return response
        entry = Seen(json.loads(await request.read()), time.monotonic())
        seen.append(entry)
        try:
            answered: web.StreamResponse = await handler(request)
            if isinstance(answered, web.Response) and isinstance(answered.body, bytes):
                entry.answer = json.loads(answered.body).get("id")
            return answered
        finally:
            entry.went = time.monotonic()

    return record


async def engine(aiohttp_server: Any, **profile: Any) -> Recorder:
    """A simulated engine serving `m` on 127.0.0.1 (profile fields override `instant`), recording requests."""
    recorder = Recorder()
    app = create_sim(dataclasses.replace(PROFILES["instant"], models=("m",), **profile), "sim")
    app.middlewares.append(recording(recorder.seen))
    server = await aiohttp_server(app)
    recorder.url = str(server.make_url("")).rstrip("/")
    return recorder


async def until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Wait for a condition on something outside this process's control (an engine's log, a file)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.005)


def records(client: Any) -> list[dict[str, Any]]:
    """The evidence records a test gateway kept."""
    found: list[dict[str, Any]] = client.server.app[GATEWAY].evidence.records()
    return found


def line(custom_id: str, text: str, url: str = "/v1/chat/completions", **body: Any) -> str:
    if url == "/v1/embeddings":
        payload: dict[str, Any] = {"model": "m", "input": text}
    else:
        payload = {"model": "m", "messages": [{"role": "user", "content": text}]}
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": url, "body": payload | body})


def jsonl(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


async def until_ended(api: openai.AsyncOpenAI, batch_id: str, seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        batch = await api.batches.retrieve(batch_id)
        if batch.status in ENDED:
            return batch
        await asyncio.sleep(0.05)
    raise AssertionError(f"batch {batch_id} did not end within {seconds}s: {batch}")


async def lines_of(api: openai.AsyncOpenAI, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    content = await api.files.content(file_id)
    return [json.loads(raw) for raw in content.text.splitlines() if raw.strip()]
