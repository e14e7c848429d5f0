"""The one path out: decide (run the plan, check the placement, apply body edits, collect output guards), then send.

A client's request and a task's model turn take it alike; only the sink differs (the relay streams to
the client, the agent room's caller assembles a Turn). Attempts are counted, breakers fed, the
placement named in the answer's headers, and a placement not dispatched after all is released.
Step outputs speak through duck-typed protocols (plugins.types): `edit_body`, `response_filter`,
`response_headers`, `evidence`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiohttp

from taskgate.plugins import (
    IDENTITY,
    PAYLOAD,
    PLACEMENT,
    Endpoint,
    Meter,
    Placement,
    RequestContext,
    ResponseFilter,
)
from taskgate.plugins.evidence import Evidence

from . import usage
from .errors import PlanIncomplete, UpstreamUnavailable
from .relay import CLIENT_LEFT, Dispatch, Timeouts, send_attempts
from .state import Gateway, release

T = TypeVar("T")
Sink = Callable[[aiohttp.ClientResponse, dict[str, str], Dispatch], Awaitable[T]]
"""Consumes the answering upstream's response, given the headers taskgate adds and the dispatch log."""


@dataclass
class Decision:
    """What a surface's plan decided for one request: where it goes, what is sent, what guards the answer."""

    placement: Placement
    body: bytes
    filters: list[ResponseFilter]
    headers: dict[str, str]  # what the plan's steps add to the answer
    tenant: str | None = None  # who pays: the caller's tenant, for usage metrics
    meters: list[Meter] = field(default_factory=list)  # step outputs told what the answer took (budgets)


async def decide(
    gateway: Gateway,
    surface: str,
    context: RequestContext,
    evidence: Evidence,
    overrides: Mapping[str, Any] | None = None,
    caller: Any = None,
    seeded: bool = False,
) -> Decision:
    """Run the plan and prepare the body; `overrides` are set on the body last (the calls taskgate makes stream).

    `seeded`: the plan runs as `caller`, who was authenticated before (a batch job's items)."""
    values = await gateway.run_plan(surface, context, evidence, caller, seeded)
    placement = values.get(PLACEMENT)
    if not isinstance(placement, Placement):
        raise PlanIncomplete(f"plan {surface!r} gave no placement (got {type(placement).__name__})")
    outputs = step_outputs(gateway, surface, values)
    try:
        body = _body(context, values.get(PAYLOAD), placement, outputs, overrides)
    except BaseException:
        release(placement)
        raise
    identity = values.get(IDENTITY)
    tenant = getattr(identity, "tenant", None)  # a Principal; duck-typed: isinstance on a Protocol is slow
    meters = [value for value in outputs if callable(getattr(value, "charge", None))]
    return Decision(placement, body, response_filters(outputs, surface), added(outputs), tenant, meters)


def _body(
    context: RequestContext, payload: Any, placement: Placement, outputs: list[Any], overrides: Mapping[str, Any] | None
) -> bytes:
    """The bytes to send: the client's own unless a step edited the body, the model is an alias, or overrides apply."""
    body = dict(payload if isinstance(payload, dict) else context.json())
    edited = apply_edits(body, outputs) or payload is not None
    if not edited and placement.model == context.model:
        if not overrides:
            return context.body
        if not any(name in body for name in overrides):  # as parsed: a key may be spelled with escapes
            return usage.splice(context.body, overrides)  # no second serialisation
    body["model"] = placement.model
    return json.dumps(body | dict(overrides or {})).encode()


async def send(
    gateway: Gateway, evidence: Evidence, decision: Decision, path: str, headers: dict[str, str], sink: Sink[T]
) -> T:
    """Send the decided request (with fallback before the first byte) and hand the answer to `sink`."""
    log = Dispatch(started_ms=round((time.perf_counter() - evidence.started) * 1000.0, 3))
    evidence.dispatch = log  # filled in as the answer proceeds
    placement, endpoint = decision.placement, None
    if gateway.tracing is not None:  # the model call's span, and its traceparent for the engine
        headers = gateway.tracing.dispatching(evidence, placement, headers)
    try:
        upstream, endpoint = await _open(gateway, placement, path, decision.body, headers, log)
        return await sink(upstream, {**decision.headers, **placement_headers(placement, endpoint, log)}, log)
    except asyncio.CancelledError:  # the loop's bound or the client ended it: nothing the endpoint did wrong
        if log.outcome == "pending":
            log.outcome = "client_disconnected"
        raise
    finally:
        if placement.observer is not None:
            if endpoint is not None:
                placement.observer.attempt_ended(endpoint, *attempt_outcome(log))
            placement.observer.finished(endpoint, log.engine_cached_tokens)
        _account(gateway, evidence, decision, endpoint, log)


def _account(
    gateway: Gateway, evidence: Evidence, decision: Decision, endpoint: Endpoint | None, log: Dispatch
) -> None:
    """What the answer took: into the evidence and the metrics by tenant, model and pool; every meter is charged
    in the background, so no answer waits for a budget's store."""
    used = log.usage
    if used is None:
        if decision.meters and log.outcome == "completed" and (log.status or 0) < 400:
            log.usage_missing = True  # the upstream said nothing a budget can count: visible, not silent
            gateway.metrics.usage_missing.inc()
        return
    cost = usage.priced(used, endpoint)
    evidence.usage = usage.described(used, cost)
    pool = endpoint.pool if endpoint is not None else decision.placement.endpoint.pool
    gateway.metrics.usage_done(decision.tenant, decision.placement.model, pool, used, cost)
    for meter in decision.meters:
        gateway.spawn(meter.charge(used, cost))


async def _open(
    gateway: Gateway, placement: Placement, path: str, body: bytes, headers: dict[str, str], log: Dispatch
) -> tuple[aiohttp.ClientResponse, Endpoint]:
    metrics = gateway.metrics
    log.timeouts = timeouts(gateway, placement)
    try:
        upstream, endpoint = await send_attempts(gateway.services.http, placement, path, body, headers, log)
    finally:
        for attempt in log.attempts:
            metrics.child(metrics.attempts, attempt["endpoint"], str(attempt.get("status", "error"))).inc()
    if upstream.status == 401:  # clients' credentials are never forwarded, so this is taskgate's own
        upstream.release()
        log.outcome = "upstream_auth_failed"
        if placement.observer is not None:
            placement.observer.attempt_ended(endpoint, False, 401)
        message = f"upstream {endpoint.name!r} answered 401 to taskgate's credential"
        raise UpstreamUnavailable(message, code="upstream_auth_failed")
    metrics.child(metrics.ttfb, endpoint.name).observe((log.ttfb_ms or 0.0) / 1000.0)
    return upstream, endpoint


def timeouts(gateway: Gateway, placement: Placement) -> Timeouts:
    """The silences an upstream is allowed for this request: the first byte by the request's class, then the gap."""
    server = gateway.config.server
    first = getattr(server.first_byte_timeout_s, str(placement.details.get("class")), None)
    return Timeouts(
        first if isinstance(first, float) else server.first_byte_timeout_s.interactive, server.read_timeout_s
    )


def attempt_outcome(log: Dispatch) -> tuple[bool, int | None]:
    """How the answering attempt ended, for breakers: ok, or the status that says why not."""
    if log.outcome == "completed":
        return (log.status or 0) < 500, log.status
    if log.outcome == "client_disconnected":
        return False, CLIENT_LEFT
    return False, None  # the upstream broke mid-answer


def placement_headers(placement: Placement, endpoint: Endpoint, log: Dispatch) -> dict[str, str]:
    return {
        "x-taskgate-pool": endpoint.pool,
        "x-taskgate-endpoint": endpoint.name,
        "x-taskgate-model": placement.model,
        "x-taskgate-region": endpoint.region or "",
        "x-taskgate-prefix-hit": str(placement.predicted_cached_tokens if endpoint is placement.endpoint else 0),
        "x-taskgate-fallbacks": str(len(log.attempts) - 1),
    }


def step_outputs(gateway: Gateway, surface: str, values: dict[str, Any]) -> list[Any]:
    """The values the plan's steps provided, in plan order."""
    return [values[key] for key in gateway.outputs[surface] if key in values]


def apply_edits(body: dict[str, Any], outputs: list[Any]) -> bool:
    """Every BodyEdit among `outputs`, applied in plan order to `body`; whether anything changed."""
    edited = False
    for value in outputs:
        edit = getattr(value, "edit_body", None)  # duck-typed: isinstance on a Protocol is slow
        if callable(edit):
            edited = bool(edit(body)) or edited
    return edited


def response_filters(outputs: list[Any], surface: str) -> list[ResponseFilter]:
    filters = []
    for value in outputs:
        make = getattr(value, "response_filter", None)  # OutputGuard
        found = make(surface) if callable(make) else None
        if found is not None:
            filters.append(found)
    return filters


def added(outputs: list[Any], hook: str = "response_headers") -> dict[str, str]:
    """What step outputs add to an answer: headers (`response_headers`), an MCP result's `_meta` (`response_meta`)."""
    found: dict[str, str] = {}
    for value in outputs:
        make = getattr(value, hook, None)
        if callable(make):
            found.update(make())
    return found
