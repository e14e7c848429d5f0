"""Liveness, readiness and metrics endpoints."""

from __future__ import annotations

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from .state import GATEWAY


async def healthz(request: web.Request) -> web.Response:
    """Alive: the process answers."""
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready: plans are compiled and upstream connections can be opened."""
    ready = request.app[GATEWAY].ready
    return web.json_response({"status": "ready" if ready else "starting"}, status=200 if ready else 503)


async def metrics(request: web.Request) -> web.Response:
    body = request.app[GATEWAY].metrics.render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
