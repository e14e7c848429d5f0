"""A real HTTP upstream on 127.0.0.1 that records what the proxy sent it."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Recorder:
    bodies: list[bytes] = field(default_factory=list)
    headers: list[Any] = field(default_factory=list)
    peers: set[Any] = field(default_factory=set)
    stream_cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    first_chunk_delay: float = 0.0
    gap: float = 0.0
    chunks: int = 3


def upstream_app(rec: Recorder) -> web.Application:
    """Echoes non-streaming requests; streams `chunks` SSE events with `gap` seconds between."""

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        rec.bodies.append(body)
        rec.headers.append(request.headers.copy())
        rec.peers.add(request.transport.get_extra_info("peername") if request.transport else None)
        if json.loads(body).get("stream"):
            return await _stream(request, rec)
        return web.json_response({"object": "chat.completion", "echo": body.decode()})

    async def models(request: web.Request) -> web.Response:
        return web.json_response(
            {"object": "list", "data": [{"id": "m", "object": "model", "created": 7, "owned_by": "lab"}]}
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_post("/v1/embeddings", chat)
    app.router.add_get("/v1/models", models)
    return app


async def _stream(request: web.Request, rec: Recorder) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    try:
        for i in range(rec.chunks):
            await response.write(f'data: {{"chunk": {i}}}\n\n'.encode())
            await asyncio.sleep(rec.gap)
        await response.write(b"data: [DONE]\n\n")
    except (asyncio.CancelledError, ConnectionResetError):
        rec.stream_cancelled.set()
        raise
    return response
