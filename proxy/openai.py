"""The OpenAI-compatible surface: /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/models."""

from __future__ import annotations

import json
import time
from typing import Any

import aiohttp
from aiohttp import web

from taskgate.plugins import PAYLOAD, PLACEMENT, Placement, RequestContext, ResponseFilter
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.jsonbody import BodyError

from . import shapes, toolloop
from .body import read as read_body
from .errors import ClientError, PlanIncomplete, UpstreamUnavailable
from .outputs import added_headers, apply_edits, release, response_filters, run_plan, step_outputs
from .relay import Dispatch, FilterChain, failed_stream, relay_error, relay_stream, relay_whole, response_headers
from .state import EVIDENCE, GATEWAY, Gateway
from .upstream import attempt_outcome, open_upstream, placement_headers

MAX_MODEL_CHARS = 256
PATHS = {"chat": "/v1/chat/completions", "completions": "/v1/completions", "embeddings": "/v1/embeddings"}


def add_routes(app: web.Application) -> None:
    for surface, path in PATHS.items():
        app.router.add_post(path, _handler(surface))


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
    if surface == "chat" and toolloop.FIELD in context.json():
        return await toolloop.serve(request, context)
    values = await run_plan(gateway, surface, context, evidence)
    placement = values.get(PLACEMENT)
    if not isinstance(placement, Placement):
        raise PlanIncomplete(f"plan {surface!r} gave no placement (got {type(placement).__name__})")
    outputs = step_outputs(gateway, surface, values)
    try:
        body = _body(context, values.get(PAYLOAD), placement, outputs)
    except BaseException:
        release(placement)
        raise
    filters = response_filters(outputs, surface)
    return await _dispatch(request, gateway, evidence, placement, body, filters, added_headers(outputs))


def _body(context: RequestContext, payload: Any, placement: Placement, outputs: list[Any]) -> bytes:
    """The bytes to send: the client's own unless a step edited the body or the model is an alias."""
    body = dict(payload if isinstance(payload, dict) else context.json())
    edited = apply_edits(body, outputs) or payload is not None
    if not edited and placement.model == context.model:
        return context.body
    body["model"] = placement.model
    return json.dumps(body).encode()


async def _read(request: web.Request, surface: str, evidence: Evidence) -> RequestContext:
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


async def _dispatch(
    request: web.Request,
    gateway: Gateway,
    evidence: Evidence,
    placement: Placement,
    body: bytes,
    filters: list[ResponseFilter],
    extra_headers: dict[str, str],
) -> web.StreamResponse:
    log = Dispatch(started_ms=round((time.perf_counter() - evidence.started) * 1000.0, 3))
    evidence.dispatch = log  # filled in as the relay proceeds
    headers = {
        "Content-Type": "application/json",
        "Accept": request.headers.get("Accept", "*/*"),
        # bodies pass through as sent, unless an output guard must read them
        "Accept-Encoding": "identity" if filters else request.headers.get("Accept-Encoding", "identity"),
        "X-Request-Id": evidence.request_id,
    }
    observer, endpoint = placement.observer, None
    try:
        upstream, endpoint = await open_upstream(gateway, placement, request.path, body, headers, log)
        ours = {**extra_headers, **placement_headers(placement, endpoint, log)}
        response = await _relay(request, upstream, ours, log, filters)
        if (broken := failed_stream(log.outcome)) is not None:
            evidence.fail(broken, log.outcome)
        elif log.upstream_error is not None:
            evidence.fail(log.upstream_error["code"], log.upstream_error["message"])
        return response
    finally:
        if observer is not None:
            if endpoint is not None:
                observer.attempt_ended(endpoint, *attempt_outcome(log))
            observer.finished(endpoint, log.engine_cached_tokens)


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
    if filters and "Content-Encoding" in upstream.headers:  # a filter cannot read compressed bytes
        upstream.close()
        raise UpstreamUnavailable(
            f"upstream {log.endpoint!r} compressed its answer, which an output guard must read",
            code="upstream_encoded",
        )
    chain = FilterChain(filters) if filters else None
    if upstream.content_type != "text/event-stream":
        return await relay_whole(upstream, out_headers, log, chain)
    return await relay_stream(request, upstream, out_headers, log, chain)
