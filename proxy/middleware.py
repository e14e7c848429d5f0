"""The front door's one middleware: request id, error bodies, evidence, metrics."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiohttp import web
from mcp.types import INVALID_REQUEST

from taskgate.dag import Halt, StepFailed
from taskgate.dag.types import Outcome
from taskgate.plugins import Reject
from taskgate.plugins.evidence import Evidence

from .errors import ClientError, PlanIncomplete, TurnFailed, UpstreamUnavailable, error_response, rpc_error_response
from .openai import PATHS
from .state import EVIDENCE, GATEWAY, Gateway

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ROUTES = (*PATHS.values(), "/v1/models")
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
    except Reject as exc:
        evidence.fail(exc.code, exc.message, _halted_step(evidence), exc.details)
        response = error_response(exc.status, exc.code, exc.message, exc.kind)
        response.headers.update(exc.headers)
        return response
    except Halt as exc:
        step = _halted_step(evidence)
        evidence.fail("halted", str(exc), step)
        return error_response(403, "halted", f"step {step!r} stopped this request", "permission_error")
    except ClientError as exc:
        evidence.fail(exc.code, exc.message)
        return error_response(exc.status, exc.code, exc.message, param=exc.param)
    except StepFailed as exc:
        return _step_failed(exc, evidence)
    except UpstreamUnavailable as exc:
        evidence.fail(exc.code, str(exc))
        message = f"{exc.client_message} (request id {evidence.request_id})"
        return error_response(exc.status, exc.code, message, "upstream_error")
    except TurnFailed as exc:
        evidence.fail(exc.code, exc.message)
        return error_response(
            exc.status, exc.code, f"{exc.message} (request id {evidence.request_id})", "upstream_error"
        )
    except PlanIncomplete as exc:
        evidence.fail("no_placement", str(exc))
        message = f"no upstream was chosen for this request (request id {evidence.request_id})"
        return error_response(503, "no_placement", message, "api_error")
    except Exception as exc:  # the last line of defence: never a traceback to a client
        log.exception("unhandled_error", request_id=evidence.request_id, path=request.path)
        evidence.fail("internal_error", f"{type(exc).__name__}")
        return error_response(500, "internal_error", f"internal error; request id {evidence.request_id}", "api_error")


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


def _step_failed(exc: StepFailed, evidence: Evidence) -> web.Response:
    code = "step_timeout" if exc.outcome is Outcome.TIMEOUT else "step_failed"
    evidence.fail(code, str(exc), exc.step)
    status = 504 if exc.outcome is Outcome.TIMEOUT else 503
    message = f"step {exc.step!r} could not decide, so the request was not forwarded (request id {evidence.request_id})"
    return error_response(status, code, message, "api_error")


def _halted_step(evidence: Evidence) -> str | None:
    return next((r.name for r in evidence.steps if r.outcome is Outcome.HALTED), None)


def _finish(gateway: Gateway, evidence: Evidence, status: int) -> None:
    evidence.finish(status)
    publish(gateway, evidence.record())
    gateway.metrics.request_done(evidence.surface or "none", status, evidence.duration_ms / 1000.0)


def publish(gateway: Gateway, record: dict[str, Any]) -> None:
    """Keep an evidence record for inspection and write it as one log line (when configured)."""
    gateway.evidence.add(record)
    if gateway.config.core.logging.evidence:
        log.info("evidence", **record)


async def stamp_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every answer carries its evidence record's id."""
    evidence = request.get(EVIDENCE)
    if evidence is not None:
        response.headers[REQUEST_ID] = evidence.request_id
