"""Play a workload against one base URL and record what each request saw, client side."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import aiohttp
from workload import Session, Turn, body, follow, opening

ENGINE_HEADER = "x-sim-engine"


@dataclass
class Record:
    """One request as the client saw it; times in wall seconds."""

    session: str
    turn: int
    kind: str
    start_s: float  # since the run started
    status: int = 0
    ttft_s: float | None = None  # first content chunk of a stream; the whole answer otherwise
    total_s: float = 0.0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    engine: str | None = None  # from x-sim-engine, when the router relays it
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.error is None


@dataclass
class Run:
    records: list[Record]
    elapsed_s: float  # the first request's start to the last answer
    unfinished_sessions: int


class Driver:
    """Sends each session's turns in order; sessions start at their (scaled) arrival times."""

    def __init__(self, base_url: str, model: str, scale: float, request_timeout_s: float, fresh_connections: bool):
        self.url = base_url.rstrip("/") + "/v1/chat/completions"
        self.model = model
        self.scale = scale
        self.timeout = aiohttp.ClientTimeout(total=request_timeout_s)
        self.fresh_connections = fresh_connections
        self.records: list[Record] = []
        self._t0 = 0.0

    async def run(self, sessions: list[Session], deadline_s: float) -> Run:
        """Play every session; whatever is still running after `deadline_s` is cancelled."""
        connector = aiohttp.TCPConnector(limit=0, force_close=self.fresh_connections)
        async with aiohttp.ClientSession(connector=connector, timeout=self.timeout) as http:
            self._t0 = time.perf_counter()
            tasks = [asyncio.create_task(self._session(http, session)) for session in sessions]
            done, pending = await asyncio.wait(tasks, timeout=deadline_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for task in done:
                task.result()  # surface bugs in the driver itself
        records = sorted(self.records, key=lambda r: r.start_s)
        elapsed = max((r.start_s + r.total_s for r in records), default=0.0) - (records[0].start_s if records else 0.0)
        return Run(records, elapsed, len(pending))

    async def _session(self, http: aiohttp.ClientSession, session: Session) -> None:
        await asyncio.sleep(max(0.0, self._t0 + session.arrival_s * self.scale - time.perf_counter()))
        messages = opening(session)
        reply = ""
        for index, turn in enumerate(session.turns):
            if index:
                await asyncio.sleep(turn.think_s * self.scale)
                follow(messages, reply, turn, f"call_{session.id}_{index}")
            record, reply = await self._request(http, session, index, turn, messages)
            self.records.append(record)
            if not record.ok:
                return  # without an answer the conversation cannot go on

    async def _request(
        self, http: aiohttp.ClientSession, session: Session, index: int, turn: Turn, messages: list[dict[str, Any]]
    ) -> tuple[Record, str]:
        payload = json.dumps(body(session, messages, turn, self.model))
        headers = {"Content-Type": "application/json", "x-session-id": session.id, "x-taskgate-class": session.cls}
        started = time.perf_counter()
        record = Record(session.id, index, session.kind, started - self._t0)
        reply = ""
        try:
            async with http.post(self.url, data=payload, headers=headers) as resp:
                record.status = resp.status
                record.engine = resp.headers.get(ENGINE_HEADER)
                if resp.status != 200:
                    record.error = (await resp.text())[:300]
                elif session.stream:
                    reply = await _read_stream(resp, record, started)
                else:
                    reply = _read_whole(await resp.json(), record)
                    record.ttft_s = time.perf_counter() - started
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            record.error = f"{type(exc).__name__}: {exc}"[:300]
        record.total_s = time.perf_counter() - started
        return record, reply


async def _read_stream(resp: aiohttp.ClientResponse, record: Record, started: float) -> str:
    pieces: list[str] = []
    usage: dict[str, Any] | None = None
    async for raw in resp.content:
        line = raw.strip()
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            continue  # read on to the end of the body, so the connection can be reused
        chunk = json.loads(data)
        for choice in chunk.get("choices") or ():
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                if record.ttft_s is None:
                    record.ttft_s = time.perf_counter() - started
                pieces.append(piece)
        usage = chunk.get("usage") or usage
    _usage(usage, record)
    if usage is None:
        record.error = "stream ended without a usage chunk"
    return "".join(pieces)


def _read_whole(answer: dict[str, Any], record: Record) -> str:
    _usage(answer.get("usage"), record)
    message = (answer.get("choices") or [{}])[0].get("message") or {}
    return str(message.get("content") or "")


def _usage(usage: dict[str, Any] | None, record: Record) -> None:
    if not usage:
        return
    record.prompt_tokens = int(usage.get("prompt_tokens") or 0)
    record.completion_tokens = int(usage.get("completion_tokens") or 0)
    details = usage.get("prompt_tokens_details") or {}
    record.cached_tokens = int(details.get("cached_tokens") or 0)


async def drive(
    base_url: str,
    sessions: list[Session],
    model: str,
    scale: float,
    deadline_s: float,
    request_timeout_s: float = 120.0,
    fresh_connections: bool = False,
) -> Run:
    """Play `sessions` against `base_url`; see Driver."""
    driver = Driver(base_url, model, scale, request_timeout_s, fresh_connections)
    return await driver.run(sessions, deadline_s)
