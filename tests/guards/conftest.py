"""A real upstream on 127.0.0.1 that records bodies and answers with scripted text, whole or in chosen pieces."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

PII_PROMPT = (
    "My name is Maria Gonzalez. Email me at maria.gonzalez@example.com or call 212-555-0147; "
    "charge the card 4111 1111 1111 1111 for the renewal."
)


@dataclass
class Scripted:
    """Answers every chat call with `pieces` (one SSE event each when streamed; joined when whole)."""

    pieces: list[str] = field(default_factory=lambda: ["Done."])
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> web.Application:
        async def chat(request: web.Request) -> web.StreamResponse:
            body = json.loads(await request.read())
            self.bodies.append(body)
            head = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": body["model"]}
            if not body.get("stream"):
                message = {"role": "assistant", "content": "".join(self.pieces)}
                choice = {"index": 0, "message": message, "finish_reason": "stop"}
                return web.json_response({**head, "object": "chat.completion", "choices": [choice]})
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            for i, piece in enumerate(self.pieces):
                delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                last = i == len(self.pieces) - 1
                event = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if last else None}]}
                await response.write(b"data: " + json.dumps(event).encode() + b"\n\n")
            await response.write(b"data: [DONE]\n\n")
            return response

        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        return app


@pytest.fixture
async def scripted(aiohttp_server: Any) -> tuple[Scripted, str]:
    upstream = Scripted()
    server = await aiohttp_server(upstream.app())
    return upstream, str(server.make_url("")).rstrip("/")


def pii_config(url: str, params: dict[str, Any] | None = None, **step: Any) -> dict[str, Any]:
    """A proxy with the pii step before routing, one pool `default` in region eu at `url`, model m."""
    pool = {"name": "default", "region": "eu", "endpoints": [{"name": "up", "url": url}], "models": [{"name": "m"}]}
    return {
        "routing": {"pools": [pool]},
        "steps": [{"name": "pii", "type": "guards.pii", "params": params or {}, **step}],
        "pipelines": {"chat": ["pii", "state", "route"]},
        "logging": {"evidence": False},
    }
