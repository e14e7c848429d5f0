"""The OpenAI-compatible surface: /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aiohttp
from aiohttp import web

from taskgate.plugins import RequestContext, ResponseFilter, Takeover, shapes
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.jsonbody import BodyError

from .body import read as read_body
from .dispatch import decide, send
from .errors import ClientError
from .relay import (
    Dispatch,
    FilterChain,
    record_failure,
    refuse_encoded,
    relay_error,
    relay_stream,
    relay_whole,
    response_headers,
)
from .state import EVIDENCE, GATEWAY
from .stream_errors import StreamErrors
from .usage import UsageKept, usage_override

MAX_MODEL_CHARS = 256
PATHS = {"chat": "/v1/chat/completions", "completions": "/v1/completions", "embeddings": "/v1/embeddings"}


def add_routes(app: web.Application, takeovers: Mapping[str, Mapping[str, Takeover]]) -> None:
    for surface, path in PATHS.items():
        app.router.add_post(path, _handler(surface, takeovers.get(surface, {})))


def _handler(surface: str, takeovers: Mapping[str, Takeover]) -> Any:
    async def handle(request: web.Request) -> web.StreamResponse:
        return await serve(request, surface, takeovers)

    handle.__name__ = f"serve_{surface}"
    return handle


async def serve(request: web.Request, surface: str, takeovers: Mapping[str, Takeover]) -> web.StreamResponse:
    """Run the surface's plan, then dispatch where it placed the request (unless a room takes the request over)."""
    gateway, evidence = request.app[GATEWAY], request[EVIDENCE]
    evidence.surface = surface
    context = await read_context(request, surface, evidence)
    for field, takeover in takeovers.items():
        if field in context.json():
            return await takeover(request, context)
    asked = usage_override(surface, context.json()) if gateway.config.core.usage.stream_usage else None
    decision = await decide(gateway, surface, context, evidence, asked)
    if asked is not None:  # the client did not ask for the stream's usage: it does not get it
        decision.filters.insert(0, UsageKept())
    headers = {
        "Content-Type": "application/json",
        "Accept": request.headers.get("Accept", "*/*"),
        # bodies pass through as sent, unless an output guard must read them or a budget count their usage
        "Accept-Encoding": "identity"
        if decision.filters or decision.meters
        else request.headers.get("Accept-Encoding", "identity"),
        "X-Request-Id": evidence.request_id,
    }

    async def relay(upstream: aiohttp.ClientResponse, ours: dict[str, str], log: Dispatch) -> web.StreamResponse:
        response = await _relay(request, upstream, ours, log, decision.filters)
        record_failure(evidence, log)
        return response

    return await send(gateway, evidence, decision, request.path, headers, relay)


async def read_context(request: web.Request, surface: str, evidence: Evidence) -> RequestContext:
    """The request's body, read within the server's bounds and parsed once: a JSON object naming a model."""
    server = request.app[GATEWAY].config.server
    try:
        raw = await read_body(request, server.max_body_bytes, server.body_timeout_s)
        context = RequestContext(evidence.request_id, surface, request.path, request.headers, raw)
        parsed = context.json()
    except BodyError as exc:
        raise ClientError(exc.status, exc.code, exc.message) from None
    if not isinstance(parsed, dict):
        raise ClientError(400, "invalid_request", "the request body must be a JSON object")
    model = parsed.get("model")
    if not isinstance(model, str) or not model:
        raise ClientError(400, "missing_model", "you must provide a model parameter as a string", param="model")
    if len(model) > MAX_MODEL_CHARS:
        raise ClientError(400, "invalid_model", f"model names are at most {MAX_MODEL_CHARS} characters", param="model")
    evidence.model = context.model
    shapes.check(surface, parsed)
    return context


async def _relay(
    request: web.Request,
    upstream: aiohttp.ClientResponse,
    headers: dict[str, str],
    log: Dispatch,
    filters: list[ResponseFilter],
) -> web.StreamResponse:
    if upstream.status >= 400:
        return await relay_error(upstream, headers, log)
    out_headers = response_headers(upstream, headers)
    if filters:
        refuse_encoded(upstream, log)
    chain = FilterChain(filters) if filters else None
    if upstream.content_type != "text/event-stream":
        return await relay_whole(upstream, out_headers, log, chain)
    if "Content-Encoding" not in upstream.headers:  # an engine's error event gets a stable code
        chain = FilterChain([StreamErrors(log), *filters])
    return await relay_stream(request, upstream, out_headers, log, chain)
