"""GET /v1/models: the models taskgate routes, with what each upstream reports now."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from taskgate.plugins import Endpoint
from taskgate.routing import RoutingConfig

from .state import EVIDENCE, GATEWAY

TTL_S = 5.0
PROBE_TIMEOUT = aiohttp.ClientTimeout(total=2.0)


@dataclass
class ModelCatalog:
    """Upstreams resolved once at start-up; their reports cached briefly so one
    client request does not become one request per upstream."""

    upstreams: list[tuple[Endpoint, list[str]]]
    _body: dict[str, Any] | None = None
    _fresh_until: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @classmethod
    def from_config(cls, routing: RoutingConfig) -> ModelCatalog:
        return cls([(up.endpoint(), list(up.models)) for up in routing.upstreams])

    async def listing(self, session: aiohttp.ClientSession) -> dict[str, Any]:
        async with self._lock:  # concurrent callers share one refresh
            if self._body is None or time.monotonic() >= self._fresh_until:
                self._body = await self._refresh(session)
                self._fresh_until = time.monotonic() + TTL_S
            return self._body

    async def _refresh(self, session: aiohttp.ClientSession) -> dict[str, Any]:
        reports = await asyncio.gather(*(_probe(session, endpoint) for endpoint, _ in self.upstreams))
        data = [
            _entry(endpoint, model, report)
            for (endpoint, models), report in zip(self.upstreams, reports, strict=True)
            for model in models
        ]
        return {"object": "list", "data": data}


async def _probe(session: aiohttp.ClientSession, endpoint: Endpoint) -> dict[str, Any]:
    try:
        async with session.get(endpoint.url + "/v1/models", headers=endpoint.headers, timeout=PROBE_TIMEOUT) as resp:
            payload = await resp.json(content_type=None) if resp.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return {}
    entries = payload.get("data") if isinstance(payload, dict) else None
    return {e["id"]: e for e in entries or [] if isinstance(e, dict) and isinstance(e.get("id"), str)}


def _entry(endpoint: Endpoint, model: str, report: dict[str, Any]) -> dict[str, Any]:
    seen = report.get(model, {})
    return {
        "id": model,
        "object": "model",
        "created": seen.get("created", 0),
        "owned_by": seen.get("owned_by", endpoint.name),
        "taskgate": {"upstream": endpoint.name, "pool": endpoint.pool, "available": bool(seen)},
    }


async def models(request: web.Request) -> web.Response:
    gateway = request.app[GATEWAY]
    request[EVIDENCE].surface = "models"
    return web.json_response(await gateway.catalog.listing(gateway.services.http))


def add_routes(app: web.Application) -> None:
    app.router.add_get("/v1/models", models)
