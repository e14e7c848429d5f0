"""A minimal OpenAI-compatible upstream for overhead benchmarks: fixed answers, no work.

Run: python bench/upstream.py PORT. The cheaper the upstream, the more the
benchmark sees of the proxy in front of it.
"""

from __future__ import annotations

import json
import sys

from aiohttp import web

MODEL = "sim-model"
ANSWER = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok " * 16}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 32, "completion_tokens": 16, "total_tokens": 48},
    }
).encode()
CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"sim-model",'
    b'"choices":[{"index":0,"delta":{"content":"ok "}}]}\n\n'
)


async def chat(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    if not body.get("stream"):
        return web.Response(body=ANSWER, content_type="application/json")
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    for _ in range(16):
        await response.write(CHUNK)
    await response.write(b"data: [DONE]\n\n")
    return response


async def models(request: web.Request) -> web.Response:
    return web.json_response(
        {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}]}
    )


async def health(request: web.Request) -> web.Response:
    return web.Response(text="")


def app() -> web.Application:
    application = web.Application()
    application.router.add_post("/v1/chat/completions", chat)
    application.router.add_get("/v1/models", models)
    for path in ("/health", "/healthz", "/readiness", "/liveness", "/metrics"):
        application.router.add_get(path, health)
    return application


if __name__ == "__main__":
    web.run_app(app(), host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)
