"""The front door's one middleware: request id, error bodies, evidence, metrics."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import structlog
from aiohttp import web
from mcp.types import INVALID_REQUEST

from taskgate.plugins import FAILURES
from taskgate.plugins.evidence import Evidence

from .errors import error_response, rpc_error_response
from .openai import PATHS
from .responses import PATH as RESPONSES_PATH
from .state import EVIDENCE, GATEWAY, Gateway

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ROUTES = (*PATHS.values(), RESPONSES_PATH, "/v1/models")
QUIET = frozenset({"/healthz", "/readyz", "/metrics"})
REQUEST_ID = "x-taskgate-request-id"
log = structlog.get_logger("taskgate")


@web.middleware
async def front_door(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Give every request an id and an evidence record; turn every failure into an OpenAI error."""
    if request.path in QUIET and request.method in ("GET", "HEAD"):
        return await handler(request)  # probes and scrapes: no evidence, no noise
    gateway = request.app[GATEWAY]
    evidence = request[EVIDENCE] = Evidence(uuid.uuid4().hex, request.path)
    if gateway.tracing is None:
        return await _served(request, handler, gateway, evidence)
    with gateway.tracing.request(request, evidence):  # its spans end when the record is finished
        return await _served(request, handler, gateway, evidence)


async def _served(request: web.Request, handler: Handler, gateway: Gateway, evidence: Evidence) -> web.StreamResponse:
    gateway.metrics.inflight.inc()
    try:
        oversized = _oversized_header(request, gateway.config.server.max_header_bytes)
        response = oversized or await _guarded(request, handler, evidence)
    except asyncio.CancelledError:
        evidence.fail("client_disconnected", "the client went away before the answer ended")
        _finish(gateway, evidence, 499)
        raise
    finally:
        gateway.metrics.inflight.dec()
    _finish(gateway, evidence, response.status)
    return response


async def _guarded(request: web.Request, handler: Handler, evidence: Evidence) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        return _http_error(exc, evidence)
    except Exception as exc:  # rendered from the failure table: never a traceback to a client
        problem = FAILURES.explain(exc, evidence)
        if problem.unexpected:
            log.exception("unhandled_error", request_id=evidence.request_id, path=request.path)
        problem.record(evidence)
        response = error_response(
            problem.status,
            problem.code,
            problem.cited(evidence.request_id),
            problem.kind,
            problem.param,
            problem.public,
        )
        response.headers.update(problem.headers)
        return response


def _oversized_header(request: web.Request, limit: int) -> web.Response | None:
    """A request header longer than `server.max_header_bytes`: 431 in the surface's format, the value not echoed."""
    for name, value in request.raw_headers:
        if len(value) > limit:
            header = name.decode("latin-1")[:64]
            message = f"the {header!r} header is longer than {limit} bytes (server.max_header_bytes)"
            request[EVIDENCE].fail("header_too_large", message)
            if request.path == "/mcp":
                return rpc_error_response(431, INVALID_REQUEST, message, {"reason": "header_too_large"})
            return error_response(431, "header_too_large", message)
    return None


def _http_error(exc: web.HTTPException, evidence: Evidence) -> web.Response:
    if exc.status == 404:
        message = f"no route {evidence.path}; the OpenAI surface serves {', '.join(ROUTES)}"
        code = "unknown_route"
    elif exc.status == 413:
        message = f"request body too large: {exc.text}; raise server.max_body_bytes to accept it"
        code = "body_too_large"
    else:
        message, code = exc.text or exc.reason, f"http_{exc.status}"
    evidence.fail(code, message)
    response = error_response(exc.status, code, message)
    if "Allow" in exc.headers:  # 405 must say which methods are allowed
        response.headers["Allow"] = exc.headers["Allow"]
    return response


def _finish(gateway: Gateway, evidence: Evidence, status: int) -> None:
    evidence.finish(status)
    gateway.publish(evidence)
    gateway.metrics.request_done(evidence.surface or "none", status, evidence.duration_ms / 1000.0)


async def stamp_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every answer carries its evidence record's id."""
    evidence = request.get(EVIDENCE)
    if evidence is not None:
        response.headers[REQUEST_ID] = evidence.request_id
