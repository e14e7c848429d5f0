"""GET /v1/models and /v1/models/{id}: the models taskgate routes, with what their endpoints report now.

Served by the routing plugin through the registry's route hook: the pools
and their models are routing's to know. The names it serves are also
shared (`SERVED_MODELS`) for callers that need a default model.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from taskgate.plugins import EVIDENCE, FRONT, SERVED_MODELS, Endpoint, Reject

from .config import RoutingConfig

TTL_S = 5.0
PROBE_TIMEOUT = aiohttp.ClientTimeout(total=2.0)


@dataclass(frozen=True)
class Served:
    """A name clients may use, the pools serving it, and their endpoints."""

    name: str
    engine_name: str  # what the engines call it; differs for an alias
    pools: tuple[str, ...]
    endpoints: tuple[Endpoint, ...]


@dataclass
class ModelCatalog:
    """Built once at start-up; endpoint reports cached briefly so one client
    request does not become one request per endpoint."""

    served: list[Served]
    endpoints: list[Endpoint]
    _body: dict[str, Any] | None = None
    _fresh_until: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @classmethod
    def from_config(cls, routing: RoutingConfig) -> ModelCatalog:
        names: dict[str, tuple[str, list[str], list[Endpoint]]] = {}
        endpoints: dict[str, Endpoint] = {}
        for pool in routing.pools:
            values = pool.endpoint_values()
            endpoints.update({e.name: e for e in values})
            for model in pool.models:
                for name in (model.name, *model.aliases):
                    _, pools, members = names.setdefault(name, (model.name, [], []))
                    pools.append(pool.name)
                    members.extend(values)
        served = [Served(n, m, tuple(p), tuple(e)) for n, (m, p, e) in names.items()]
        return cls(served, list(endpoints.values()))

    async def listing(self, session: aiohttp.ClientSession) -> dict[str, Any]:
        async with self._lock:  # concurrent callers share one refresh
            if self._body is None or time.monotonic() >= self._fresh_until:
                self._body = await self._refresh(session)
                self._fresh_until = time.monotonic() + TTL_S
            return self._body

    async def _refresh(self, session: aiohttp.ClientSession) -> dict[str, Any]:
        reports = await asyncio.gather(*(_probe(session, e) for e in self.endpoints))
        by_endpoint = {e.name: r for e, r in zip(self.endpoints, reports, strict=True)}
        return {"object": "list", "data": [_entry(s, by_endpoint) for s in self.served]}


async def _probe(session: aiohttp.ClientSession, endpoint: Endpoint) -> dict[str, Any]:
    try:
        async with session.get(endpoint.url + "/v1/models", headers=endpoint.headers, timeout=PROBE_TIMEOUT) as resp:
            payload = await resp.json(content_type=None) if resp.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return {}
    entries = payload.get("data") if isinstance(payload, dict) else None
    return {e["id"]: e for e in entries or [] if isinstance(e, dict) and isinstance(e.get("id"), str)}


def _entry(served: Served, reports: dict[str, dict[str, Any]]) -> dict[str, Any]:
    seen = [reports[e.name][served.engine_name] for e in served.endpoints if served.engine_name in reports[e.name]]
    first = seen[0] if seen else {}
    return {
        "id": served.name,
        "object": "model",
        "created": first.get("created", 0),
        "owned_by": first.get("owned_by", served.pools[0]),
        "taskgate": {"pools": list(served.pools), "endpoints": len(served.endpoints), "available": len(seen)},
    }


CATALOG = web.AppKey("taskgate.routing.models", ModelCatalog)


async def models(request: web.Request) -> web.Response:
    request[EVIDENCE].surface = "models"
    return web.json_response(await request.app[CATALOG].listing(request.app[FRONT].services.http))


async def model(request: web.Request) -> web.Response:
    """One served model (the SDK's `models.retrieve`); a name taskgate does not serve is OpenAI's 404."""
    evidence = request[EVIDENCE]
    evidence.surface, name = "models", request.match_info["model"]
    evidence.model = name[:256]
    listing = await request.app[CATALOG].listing(request.app[FRONT].services.http)
    found = next((entry for entry in listing["data"] if entry["id"] == name), None)
    if found is None:
        raise Reject(404, "model_not_found", f"The model {name[:256]!r} does not exist or is not served here.")
    return web.json_response(found)


def add_routes(app: web.Application) -> None:
    services = app[FRONT].services
    catalog = app[CATALOG] = ModelCatalog.from_config(services.section("routing", RoutingConfig))
    services.shared(SERVED_MODELS, lambda: tuple(s.name for s in catalog.served))
    app.router.add_get("/v1/models", models)
    app.router.add_get("/v1/models/{model:.+}", model)  # model names may hold a slash (org/name)
