"""The floor for a Python proxy: aiohttp on uvloop, reading a request and relaying it to one upstream, nothing else.

Run: python bench/passthrough.py PORT UPSTREAM_URL. No routing, no plan, no
evidence, no metrics: what taskgate adds over this is its own work; what this
adds over a direct call is the Python HTTP stack's.
"""

from __future__ import annotations

import asyncio
import sys

import aiohttp
import uvloop
from aiohttp import web

CLIENT: web.AppKey[aiohttp.ClientSession] = web.AppKey("client", aiohttp.ClientSession)


async def relay(request: web.Request) -> web.StreamResponse:
    body = await request.read()
    headers = {"Content-Type": "application/json"}
    async with request.app[CLIENT].post(request.app["upstream"] + request.path, data=body, headers=headers) as up:
        if up.content_type != "text/event-stream":
            return web.Response(body=await up.read(), status=up.status, content_type=up.content_type)
        response = web.StreamResponse(status=up.status, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        async for chunk in up.content.iter_any():
            await response.write(chunk)
        await response.write_eof()
        return response


async def ready(request: web.Request) -> web.Response:
    return web.Response(text="ok")


async def main(port: int, upstream: str) -> None:
    app = web.Application()
    app["upstream"] = upstream.rstrip("/")
    app[CLIENT] = aiohttp.ClientSession()
    app.router.add_post("/v1/chat/completions", relay)
    app.router.add_get("/readyz", ready)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    await asyncio.Event().wait()


if __name__ == "__main__":
    uvloop.run(main(int(sys.argv[1]), sys.argv[2]))
