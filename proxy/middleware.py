"""The front door's one middleware: a request id and an evidence record for every request, every failure rendered
in the format of the surface it hit, the record published once the answer is out.

It knows no surface by path: a surface mounted as a sub-application renders
its own failures (`gateway.render.RENDER` on it), every other route gets the
OpenAI-compatible error body, and a path no route serves is answered with
the paths the router does serve.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Awaitable, Callable

from aiohttp import web

from taskgate.gateway.gateway import GATEWAY, Gateway
from taskgate.gateway.render import RENDER, Render, openai
from taskgate.plugins import EVIDENCE, FAILURES, Problem
from taskgate.plugins.evidence import Evidence

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
QUIET = frozenset({"/healthz", "/readyz", "/metrics"})
REQUEST_ID = "x-taskgate-request-id"
_PREFIX = os.urandom(8).hex()  # this process's; a counter after it: unique ids without a system call each
_COUNTER = itertools.count()


def new_id() -> str:
    """A request id unique across processes and restarts: 16 random hex digits, then a counter."""
    return f"{_PREFIX}{next(_COUNTER):016x}"


@web.middleware
async def front_door(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Give every request an id and an evidence record; turn every failure into its surface's error."""
    if request.path in QUIET and request.method in ("GET", "HEAD"):
        return await handler(request)  # probes and scrapes: no evidence, no noise
    engine = request.app[GATEWAY]
    evidence = request[EVIDENCE] = Evidence(new_id(), request.path)
    if engine.tracing is None:
        return await _served(request, handler, engine, evidence)
    with engine.tracing.request(request, evidence):  # its spans end when the record is finished
        return await _served(request, handler, engine, evidence)


async def _served(request: web.Request, handler: Handler, engine: Gateway, evidence: Evidence) -> web.StreamResponse:
    metrics = engine.metrics
    metrics.inflight += 1
    try:
        response = _oversized(request, engine, evidence) or await _guarded(request, handler, evidence)
    except asyncio.CancelledError:
        evidence.fail("client_disconnected", "the client went away before the answer ended")
        _finish(engine, evidence, 499)
        raise
    finally:
        metrics.inflight -= 1
    _finish(engine, evidence, response.status)
    return response


async def _guarded(request: web.Request, handler: Handler, evidence: Evidence) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as exc:
        return _http_error(request, exc, evidence)
    except Exception as exc:  # rendered from the failure table: never a traceback to a client
        return _renderer(request)(FAILURES.settle(exc, evidence), evidence)


def _renderer(request: web.Request) -> Render:
    """The renderer of the surface the request reached (the innermost application its route is on)."""
    return request.match_info.apps[-1].get(RENDER, openai) if request.match_info.apps else openai


def _oversized(request: web.Request, engine: Gateway, evidence: Evidence) -> web.Response | None:
    """A request header longer than `server.max_header_bytes`: 431 in the surface's format, the value not echoed."""
    limit = engine.config.server.max_header_bytes
    for name, value in request.raw_headers:
        if len(value) > limit:
            header = name.decode("latin-1")[:64]
            message = f"the {header!r} header is longer than {limit} bytes (server.max_header_bytes)"
            return _refused(request, evidence, Problem(431, "header_too_large", message))
    return None


def _http_error(request: web.Request, exc: web.HTTPException, evidence: Evidence) -> web.Response:
    if exc.status == 404:
        routes: tuple[str, ...] = request.app[ROUTES]
        served = ", ".join(routes)
        problem = Problem(404, "unknown_route", f"no route {evidence.path}; this gateway serves {served}")
    elif exc.status == 413:
        message = f"request body too large: {exc.text}; raise server.max_body_bytes to accept it"
        problem = Problem(413, "body_too_large", message)
    else:
        allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else {}  # 405 says which are allowed
        problem = Problem(exc.status, f"http_{exc.status}", exc.text or exc.reason, headers=allow)
    return _refused(request, evidence, problem)


def _refused(request: web.Request, evidence: Evidence, problem: Problem) -> web.Response:
    evidence.fail(problem.code, problem.message)
    return _renderer(request)(problem, evidence)


def _finish(engine: Gateway, evidence: Evidence, status: int) -> None:
    evidence.finish(status)
    engine.publish(evidence)
    engine.metrics.request_done(evidence.surface or "none", status, evidence.duration_ms / 1000.0)


async def stamp_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every answer carries its evidence record's id."""
    evidence = request.get(EVIDENCE)
    if evidence is not None:
        response.headers[REQUEST_ID] = evidence.request_id


def served_paths(app: web.Application) -> tuple[str, ...]:
    """Every path the router serves (a sub-application's included), for the answer to a path it does not."""
    paths: list[str] = []
    for resource in app.router.resources():
        info = resource.get_info()
        if "app" in info:  # a sub-application at a prefix
            paths.extend(served_paths(info["app"]))
        else:
            paths.append(info.get("path") or info.get("formatter") or info.get("prefix") or "")
    return tuple(dict.fromkeys(p for p in paths if p and p not in QUIET))


ROUTES: web.AppKey[tuple[str, ...]] = web.AppKey("taskgate.routes")
"""The paths the app serves, listed once its router is complete."""
