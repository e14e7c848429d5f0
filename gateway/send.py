"""Send a decided request: candidates in order, falling back before the first byte; the answer handed back opened.

    async with send(gateway, evidence, decision, path, headers) as answer:
        ...  # read it (gateway/answer.py) and write it to the client in the surface's format

On the way in, the dispatch log becomes the evidence's `dispatch`, each
attempt is counted and told to the placement's observer (in-flight counts,
breakers), and the answering endpoint is named in the answer's headers. On
the way out, however the block ends: the connection is released or dropped,
the observer hears how the answer ended, a failure the surface relayed is
written into the evidence, and the usage is priced, counted and charged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import aiohttp

from taskgate.plugins import Endpoint, Evidence, Placement, describe

from .answer import Answer
from .decide import Decision
from .dispatch import CLIENT_LEFT, Dispatch, Timeouts, finite
from .errors import UpstreamUnavailable
from .gateway import Gateway
from .prefill import HANDED_OVER, prefilled
from .usage import described, priced

RETRYABLE = frozenset({429, 500, 502, 503, 504})
NOT_HERE = 404  # before the first byte: this endpoint does not serve the model (or the route); another may


def send(gateway: Gateway, evidence: Evidence, decision: Decision, path: str, headers: Mapping[str, str]) -> Sending:
    """The answer of the first candidate that answers, as an async context manager (see the module)."""
    return Sending(gateway, evidence, decision, path, headers)


class Sending:
    """One dispatch: entered, it opens the answer; left, it settles the dispatch (see the module)."""

    __slots__ = ("_answer", "_decision", "_endpoint", "_evidence", "_gateway", "_headers", "_log", "_path")

    def __init__(
        self, gateway: Gateway, evidence: Evidence, decision: Decision, path: str, headers: Mapping[str, str]
    ) -> None:
        self._gateway, self._evidence, self._decision = gateway, evidence, decision
        self._path, self._headers = path, headers
        self._log = Dispatch(started_ms=round((time.perf_counter() - evidence.started) * 1000.0, 3))
        self._endpoint: Endpoint | None = None
        self._answer: Answer | None = None

    async def __aenter__(self) -> Answer:
        gateway, decision, log = self._gateway, self._decision, self._log
        self._evidence.dispatch = log  # filled in as the answer proceeds
        headers = self._headers
        if gateway.tracing is not None:  # the model call's span, and its traceparent for the engine
            headers = gateway.tracing.dispatching(self._evidence, decision.placement, dict(headers))
        try:
            upstream, self._endpoint = await _open(gateway, decision.placement, self._path, decision.body, headers, log)
        except BaseException as exc:
            await self.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        ours = {**decision.headers, **_placed(decision.placement, self._endpoint, log)}
        self._answer = Answer(upstream, self._endpoint, ours, log, decision.filters)
        return self._answer

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        log, placement = self._log, self._decision.placement
        if kind is not None and issubclass(kind, asyncio.CancelledError) and log.outcome == "pending":
            log.outcome = "client_disconnected"  # the loop's bound or the client ended it: nothing the endpoint did
        if self._answer is not None:
            self._answer.close()
        if placement.observer is not None:
            if self._endpoint is not None:
                placement.observer.attempt_ended(self._endpoint, *log.ok())
            placement.observer.finished(self._endpoint, log.engine_cached_tokens)
        if (failure := log.failure()) is not None and self._evidence.error is None:
            self._evidence.fail(*failure)
        _account(self._gateway, self._evidence, self._decision, self._endpoint, log)


async def _open(
    gateway: Gateway, placement: Placement, path: str, body: bytes, headers: Mapping[str, str], log: Dispatch
) -> tuple[aiohttp.ClientResponse, Endpoint]:
    metrics = gateway.metrics
    log.timeouts = timeouts(gateway, placement)
    first: bytes | None = None
    try:
        if placement.prefill is not None:  # disaggregated: the prompt first, to its prefill engine
            first = await prefilled(gateway.services.http, placement, path, body, headers, log)
        upstream, endpoint = await _attempts(gateway.services.http, placement, path, body, headers, log, first)
    finally:
        for attempt in log.attempts:
            metrics.attempt(attempt["endpoint"], str(attempt.get("status", "error")))
        if log.prefill is not None:
            metrics.attempt(log.prefill["endpoint"], str(log.prefill.get("status", "error")))
    if upstream.status == 401:  # clients' credentials are never forwarded, so this is taskgate's own
        upstream.release()
        log.outcome = "upstream_auth_failed"
        if placement.observer is not None:
            placement.observer.attempt_ended(endpoint, False, 401)
        message = f"upstream {endpoint.name!r} answered 401 to taskgate's credential"
        raise UpstreamUnavailable(message, code="upstream_auth_failed")
    metrics.first_byte(endpoint.name, (log.ttfb_ms or 0.0) / 1000.0)
    return upstream, endpoint


async def _attempts(
    session: aiohttp.ClientSession, placement: Placement, path: str, body: bytes, headers: Mapping[str, str],
    log: Dispatch, first: bytes | None = None,
) -> tuple[aiohttp.ClientResponse, Endpoint]:  # fmt: skip
    """Open the response of the first candidate that answers; fall back before the first byte. `first`: what the
    first candidate is sent instead of `body` (a decode with the KV handed over; the others run it whole)."""
    candidates = (placement.endpoint, *placement.fallbacks)
    observer = placement.observer
    loop = asyncio.get_running_loop()
    for position, endpoint in enumerate(candidates):
        last = position == len(candidates) - 1
        started = time.perf_counter()
        if observer is not None:
            observer.attempt_started(endpoint)
        log.first_byte_by = loop.time() + log.timeouts.first_byte_s
        sent = {**headers, **endpoint.headers} if endpoint.headers else headers
        try:
            async with asyncio.timeout_at(finite(log.first_byte_by)):
                data = first if position == 0 and first is not None else body
                response = await session.post(endpoint.url + path, data=data, headers=sent)
        except (aiohttp.ClientError, TimeoutError) as exc:
            if observer is not None:
                observer.attempt_ended(endpoint, False, None)
            timed_out = isinstance(exc, TimeoutError)
            error = f"no answer within {log.timeouts.first_byte_s:g} s" if timed_out else describe(exc)
            log.attempts.append(_attempt(endpoint, started, error=error, timeout=timed_out))
            continue
        except asyncio.CancelledError:
            if observer is not None:  # a client that left says nothing about the endpoint
                observer.attempt_ended(endpoint, False, CLIENT_LEFT)
            log.attempts.append(_attempt(endpoint, started, error="cancelled: the client went away"))
            log.outcome = "client_disconnected"
            raise
        log.attempts.append(_attempt(endpoint, started, status=response.status))
        if (response.status in RETRYABLE or response.status == NOT_HERE) and not last:
            if observer is not None:
                observer.attempt_ended(endpoint, False, response.status)
            response.release()
            continue
        log.endpoint, log.status = endpoint.name, response.status
        log.ttfb_ms = log.attempts[-1]["ms"]
        return response, endpoint
    tried = "; ".join(f"{a['endpoint']}: {a.get('error', a.get('status'))}" for a in log.attempts)
    log.outcome = "no_upstream_answered"
    raise UpstreamUnavailable(f"no upstream answered ({tried})", all(a.get("timeout") for a in log.attempts))


def _attempt(endpoint: Endpoint, started: float, **result: Any) -> dict[str, Any]:
    return {"endpoint": endpoint.name, "ms": round((time.perf_counter() - started) * 1000.0, 3), **result}


def timeouts(gateway: Gateway, placement: Placement) -> Timeouts:
    """The silences an upstream is allowed for this request: the first byte by the request's class, then the gap."""
    server = gateway.config.server
    first = server.first_byte_timeout_s.of(placement.details.get("class"))
    return Timeouts(first, server.read_timeout_s)


def _placed(placement: Placement, endpoint: Endpoint, log: Dispatch) -> dict[str, str]:
    """The answer's headers that name where it ran (and, disaggregated, where its prompt was prefilled)."""
    named = {
        "x-taskgate-pool": endpoint.pool,
        "x-taskgate-endpoint": endpoint.name,
        "x-taskgate-model": placement.model,
        "x-taskgate-region": endpoint.region or "",
        "x-taskgate-prefix-hit": str(placement.predicted_cached_tokens if endpoint is placement.endpoint else 0),
        "x-taskgate-fallbacks": str(len(log.attempts) - 1),
    }
    if log.prefill is not None and log.prefill.get("outcome") == HANDED_OVER and endpoint is placement.endpoint:
        named["x-taskgate-prefill-endpoint"] = log.prefill["endpoint"]
    return named


def _account(
    gateway: Gateway, evidence: Evidence, decision: Decision, endpoint: Endpoint | None, log: Dispatch
) -> None:
    """What the answer took: into the evidence and the metrics by tenant, model and pool; every meter is charged
    in the background, so no answer waits for a budget's store."""
    used = log.usage
    if used is None:
        if decision.meters and log.outcome == "completed" and (log.status or 0) < 400:
            log.usage_missing = True  # the upstream said nothing a budget can count: visible, not silent
            gateway.metrics.usage_missing += 1
        return
    cost = priced(used, endpoint)
    evidence.usage = described(used, cost)
    pool = endpoint.pool if endpoint is not None else decision.placement.endpoint.pool
    gateway.metrics.usage_done(decision.tenant, decision.placement.model, pool, used, cost)
    for meter in decision.meters:
        gateway.spawn(meter.charge(used, cost))


def outgoing(evidence: Evidence, accept: str = "*/*", encoding: str = "identity") -> dict[str, str]:
    """The headers taskgate sends an engine (the client's own, credentials above all, stay behind)."""
    return {
        "Content-Type": "application/json",
        "Accept": accept,
        "Accept-Encoding": encoding,
        "X-Request-Id": evidence.request_id,
    }
