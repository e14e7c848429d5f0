"""Opening an upstream for a placed request, and what the answer's headers say about where it went.

Shared by the OpenAI surface and the calls taskgate makes itself (tool-loop
turns, workflow steps), so both count attempts, feed breakers and name the
placement the same way.
"""

from __future__ import annotations

import aiohttp

from taskgate.plugins import Endpoint, Placement

from .errors import UpstreamUnavailable
from .relay import CLIENT_LEFT, Dispatch, Timeouts, send
from .state import Gateway


async def open_upstream(
    gateway: Gateway, placement: Placement, path: str, body: bytes, headers: dict[str, str], log: Dispatch
) -> tuple[aiohttp.ClientResponse, Endpoint]:
    metrics = gateway.metrics
    log.timeouts = timeouts(gateway, placement)
    try:
        upstream, endpoint = await send(gateway.services.http, placement, path, body, headers, log)
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
