"""A real upstream on 127.0.0.1 that answers with tool calls, whole or streamed in pieces, and records bodies."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class ToolCaller:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def app(self) -> web.Application:
        async def chat(request: web.Request) -> web.StreamResponse:
            body = json.loads(await request.read())
            self.bodies.append(body)
            head = {"id": "c1", "created": 1, "model": body["model"]}
            calls: list[dict[str, Any]] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in enumerate(self.calls)
            ]
            if not body.get("stream"):
                message = {"role": "assistant", "content": None, "tool_calls": calls}
                choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
                return web.json_response({**head, "object": "chat.completion", "choices": [choice]})
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)

            async def send(delta: dict[str, Any], finish: str | None = None) -> None:
                chunk = {
                    **head,
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
                await response.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")

            await send({"role": "assistant", "content": None})
            for i, call in enumerate(calls):
                first = {
                    "index": i,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""},
                }
                await send({"tool_calls": [first]})
                arguments = call["function"]["arguments"]
                for start in range(0, len(arguments), 7):
                    await send({"tool_calls": [{"index": i, "function": {"arguments": arguments[start : start + 7]}}]})
            await send({}, "tool_calls")
            await response.write(b"data: [DONE]\n\n")
            return response

        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        return app
