"""/v1/chat/completions, /v1/completions, /v1/embeddings: run the surface's plan, send, relay the answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

from taskgate.gateway.body import read as read_body
from taskgate.gateway.decide import decide
from taskgate.gateway.errors import ClientError
from taskgate.gateway.gateway import GATEWAY
from taskgate.gateway.send import outgoing, send
from taskgate.gateway.usage import UsageKept, usage_override
from taskgate.plugins import EVIDENCE, RequestContext, Surface, Takeover, shapes
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.jsonbody import BodyError

from . import reask
from .relay import relay

MAX_MODEL_CHARS = 256
PATHS: dict[str, str] = {
    Surface.CHAT: "/v1/chat/completions",
    Surface.COMPLETIONS: "/v1/completions",
    Surface.EMBEDDINGS: "/v1/embeddings",
}


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
    # bodies pass through as sent, unless an output guard must read them or a budget count their usage
    encoding = "identity" if decision.filters or decision.meters else request.headers.get("Accept-Encoding")
    headers = outgoing(evidence, request.headers.get("Accept", "*/*"), encoding or "identity")
    async with send(gateway, evidence, decision, request.path, headers) as answer:
        if reask.wanted(decision):  # a step settles the answer (a task binds it) or asks the model again
            return await reask.answered(request, gateway, evidence, context, decision, answer)
        return await relay(request, answer)


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
