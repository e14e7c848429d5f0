"""The OpenAI-compatible surface: /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/models."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
from aiohttp import web

from taskgate.dag import Execution
from taskgate.plugins import PAYLOAD, PLACEMENT, REQUEST, Placement, RequestContext
from taskgate.routing import RoutingConfig, Upstream

from .errors import ClientError
from .evidence import Evidence
from .relay import Dispatch, relay_stream, relay_whole, response_headers, send
from .state import EVIDENCE, GATEWAY, Gateway

PATHS = {"chat": "/v1/chat/completions", "completions": "/v1/completions", "embeddings": "/v1/embeddings"}


def add_routes(app: web.Application) -> None:
    for surface, path in PATHS.items():
        app.router.add_post(path, _handler(surface))
    app.router.add_get("/v1/models", models)


def _handler(surface: str) -> Any:
    async def handle(request: web.Request) -> web.StreamResponse:
        return await serve(request, surface)

    handle.__name__ = f"serve_{surface}"
    return handle


async def serve(request: web.Request, surface: str) -> web.StreamResponse:
    """Run the surface's plan, then dispatch where it placed the request."""
    gateway, evidence = request.app[GATEWAY], request[EVIDENCE]
    evidence.surface = surface
    context = await _read(request, surface, evidence)
    run = Execution(gateway.plans[surface], {REQUEST: context}, gateway.pool)
    try:
        values = await run.run()
    finally:
        evidence.steps = run.records
        gateway.metrics.observe_steps(run.records)
    evidence.add_decisions(values)
    body = json.dumps(values[PAYLOAD]).encode() if PAYLOAD in values else context.body
    return await _dispatch(request, gateway, evidence, values[PLACEMENT], body)


async def _read(request: web.Request, surface: str, evidence: Evidence) -> RequestContext:
    context = RequestContext(evidence.request_id, surface, request.path, request.headers, await request.read())
    try:
        body = context.json()
    except ValueError as exc:
        raise ClientError(400, "invalid_json", f"the request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ClientError(400, "invalid_request", "the request body must be a JSON object")
    if not context.model:
        raise ClientError(400, "missing_model", "you must provide a model parameter", param="model")
    evidence.model = context.model
    return context


async def _dispatch(
    request: web.Request, gateway: Gateway, evidence: Evidence, placement: Placement, body: bytes
) -> web.StreamResponse:
    log = Dispatch(started_ms=round((time.perf_counter() - evidence.started) * 1000.0, 3))
    evidence.dispatch = log.__dict__  # filled in as the relay proceeds
    headers = {
        "Content-Type": "application/json",
        "Accept": request.headers.get("Accept", "*/*"),
        "Accept-Encoding": request.headers.get("Accept-Encoding", "identity"),  # bodies pass through as sent
        "X-Request-Id": evidence.request_id,
    }
    upstream, endpoint = await send(gateway.services.http, placement, request.path, body, headers, log)
    gateway.metrics.ttfb.labels(endpoint.name).observe((log.ttfb_ms or 0.0) / 1000.0)
    for attempt in log.attempts:
        gateway.metrics.attempts.labels(attempt["endpoint"], str(attempt.get("status", "error"))).inc()
    ours = {"x-taskgate-pool": endpoint.pool, "x-taskgate-endpoint": endpoint.name, "x-taskgate-model": placement.model}
    out_headers = response_headers(upstream, ours)
    if upstream.content_type == "text/event-stream":
        return await relay_stream(request, upstream, out_headers, log)
    return await relay_whole(upstream, out_headers, log)


async def models(request: web.Request) -> web.Response:
    """The models this proxy routes, enriched with what each upstream reports now."""
    gateway = request.app[GATEWAY]
    request[EVIDENCE].surface = "models"
    upstreams = gateway.services.section("routing", RoutingConfig).upstreams
    reports = await asyncio.gather(*(_upstream_models(gateway, up) for up in upstreams))
    data = [
        _model_entry(up, model, report) for up, report in zip(upstreams, reports, strict=True) for model in up.models
    ]
    return web.json_response({"object": "list", "data": data})


async def _upstream_models(gateway: Gateway, upstream: Upstream) -> dict[str, Any] | None:
    endpoint = upstream.endpoint()
    timeout = aiohttp.ClientTimeout(total=2.0)
    try:
        async with gateway.services.http.get(
            endpoint.url + "/v1/models", headers=endpoint.headers, timeout=timeout
        ) as resp:
            payload = await resp.json(content_type=None) if resp.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None
    entries = payload.get("data") if isinstance(payload, dict) else None
    return {e["id"]: e for e in entries or [] if isinstance(e, dict) and isinstance(e.get("id"), str)}


def _model_entry(upstream: Upstream, model: str, report: dict[str, Any] | None) -> dict[str, Any]:
    seen = (report or {}).get(model, {})
    return {
        "id": model,
        "object": "model",
        "created": seen.get("created", 0),
        "owned_by": seen.get("owned_by", upstream.name),
        "taskgate": {"upstream": upstream.name, "pool": upstream.pool, "available": bool(seen)},
    }
