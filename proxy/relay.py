"""Dispatch to an upstream and relay its answer: bytes as they arrive, never buffered."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import structlog
from aiohttp import web
from multidict import CIMultiDict

from taskgate.dag.errors import describe
from taskgate.plugins import DispatchObserver, Endpoint, OutputRefused, Placement, ResponseFilter

from .errors import UpstreamUnavailable, sse_error

logger = structlog.get_logger("taskgate")
RETRYABLE = frozenset({429, 500, 502, 503, 504})
CLIENT_LEFT = 499  # the status recorded for an attempt the client abandoned
# Hop-by-hop headers (RFC 9110 7.6.1) and those aiohttp sets itself for the client connection.
HOP_HEADERS = frozenset(
    {
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade", "content-length", "date", "server",
    }
)  # fmt: skip
OURS = "x-taskgate-"
_CACHED = re.compile(rb'"cached_tokens"\s*:\s*(\d+)')


def cached_tokens(data: bytes) -> int | None:
    """`usage.prompt_tokens_details.cached_tokens` from an answer's bytes, if present."""
    found = _CACHED.search(data)
    return int(found.group(1)) if found else None


class _Quiet:
    def attempt_started(self, endpoint: Endpoint) -> None:
        return None

    def attempt_ended(self, endpoint: Endpoint, ok: bool, status: int | None) -> None:
        return None

    def finished(self, endpoint: Endpoint | None, cached_tokens: int | None) -> None:
        return None


_NO_OBSERVER: DispatchObserver = _Quiet()


@dataclass
class Dispatch:
    """What happened on the way upstream; becomes the evidence's `dispatch`."""

    started_ms: float | None = None  # the proxy's own time before dispatch
    attempts: list[dict[str, Any]] = field(default_factory=list)
    endpoint: str | None = None
    status: int | None = None
    ttfb_ms: float | None = None  # to the upstream's response headers
    first_chunk_ms: float | None = None  # to the first body bytes of a stream: the first token
    bytes: int = 0
    outcome: str = "pending"
    engine_cached_tokens: int | None = None  # what the engine reported in usage

    def evidence(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


async def send(
    session: aiohttp.ClientSession,
    placement: Placement,
    path: str,
    body: bytes,
    headers: Mapping[str, str],
    log: Dispatch,
) -> tuple[aiohttp.ClientResponse, Endpoint]:
    """Open the response of the first candidate that answers; fall back before the first byte."""
    candidates = (placement.endpoint, *placement.fallbacks)
    observer = placement.observer or _NO_OBSERVER
    for position, endpoint in enumerate(candidates):
        last = position == len(candidates) - 1
        started = time.perf_counter()
        observer.attempt_started(endpoint)
        try:
            response = await session.post(endpoint.url + path, data=body, headers={**headers, **endpoint.headers})
        except (aiohttp.ClientError, TimeoutError) as exc:
            observer.attempt_ended(endpoint, False, None)
            log.attempts.append(_attempt(endpoint, started, error=describe(exc), timeout=isinstance(exc, TimeoutError)))
            continue
        except asyncio.CancelledError:
            observer.attempt_ended(endpoint, False, CLIENT_LEFT)  # says nothing about the endpoint
            log.attempts.append(_attempt(endpoint, started, error="cancelled: the client went away"))
            log.outcome = "client_disconnected"
            raise
        log.attempts.append(_attempt(endpoint, started, status=response.status))
        if response.status in RETRYABLE and not last:
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


def response_headers(upstream: aiohttp.ClientResponse, extra: Mapping[str, str]) -> CIMultiDict[str]:
    """Upstream end-to-end headers (repeats such as Set-Cookie kept), then taskgate's own.

    Hop-by-hop headers, headers the upstream's Connection header names, and
    any x-taskgate-* header an upstream sends (it must not speak for us) are dropped.
    """
    named = {token.strip().lower() for value in upstream.headers.getall("Connection", []) for token in value.split(",")}
    out: CIMultiDict[str] = CIMultiDict()
    for key, value in upstream.headers.items():
        lower = key.lower()
        if lower not in HOP_HEADERS and lower not in named and not lower.startswith(OURS):
            out.add(key, value)
    out.extend(extra)
    return out


class FilterChain:
    """Output guards in plan order; each sees what the one before it let through."""

    def __init__(self, filters: list[ResponseFilter]):
        self.filters = filters

    def whole(self, body: bytes) -> bytes:
        for f in self.filters:
            body = f.whole(body)
        return body

    def chunk(self, data: bytes) -> bytes:
        return self._through(data, 0)

    def _through(self, data: bytes, start: int) -> bytes:
        for position in range(start, len(self.filters)):
            try:
                data = self.filters[position].chunk(data)
            except OutputRefused as exc:  # what this guard let through still passes the guards after it
                exc.partial = self._through(exc.partial, position + 1) if exc.partial else b""
                raise
        return data

    def end(self) -> bytes:
        out = b""
        for f in self.filters:
            out = f.chunk(out) + f.end() if out else f.end()
        return out


async def relay_whole(
    upstream: aiohttp.ClientResponse, headers: CIMultiDict[str], log: Dispatch, chain: FilterChain | None = None
) -> web.Response:
    """A non-streamed answer: read it and pass the same bytes on (through output guards, if any)."""
    try:
        async with upstream:
            body = await upstream.read()
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.outcome = f"upstream_broke: {describe(exc)}"
        message = f"upstream {log.endpoint!r} failed while sending its answer: {describe(exc)}"
        raise UpstreamUnavailable(message, isinstance(exc, TimeoutError)) from exc
    except asyncio.CancelledError:
        log.outcome = "client_disconnected"
        raise
    log.bytes, log.outcome = len(body), "completed"
    log.engine_cached_tokens = cached_tokens(body)
    if chain is not None:
        try:
            body = chain.whole(body)
        except Exception as exc:  # a guard that cannot check the answer withholds it, never passes it on
            log.outcome = f"output_refused: {describe(exc)}"
            if not isinstance(exc, OutputRefused):
                logger.exception("output_guard_failed")
            raise UpstreamUnavailable(str(exc), code="output_refused") from None
    return web.Response(status=upstream.status, body=body, headers=headers)


async def relay_stream(
    request: web.Request,
    upstream: aiohttp.ClientResponse,
    headers: CIMultiDict[str],
    log: Dispatch,
    chain: FilterChain | None = None,
) -> web.StreamResponse:
    """Relay each chunk as it arrives. A client that leaves cancels the upstream request.

    Output guards may hold a bounded window back; what they hold is sent when the stream ends.
    """
    out = web.StreamResponse(status=upstream.status, headers=headers)
    started = time.perf_counter()
    try:
        await out.prepare(request)
        async for chunk in upstream.content.iter_any():
            if log.first_chunk_ms is None:
                log.first_chunk_ms = round((log.ttfb_ms or 0.0) + (time.perf_counter() - started) * 1000.0, 3)
            log.bytes += len(chunk)
            if b"cached_tokens" in chunk:  # the usage chunk; looked for without parsing the stream
                log.engine_cached_tokens = cached_tokens(chunk)
            if chain is not None:
                chunk = chain.chunk(chunk)
            if chunk:
                await out.write(chunk)
        if chain is not None and (rest := chain.end()):
            await out.write(rest)
        log.outcome = "completed"
    except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, TimeoutError) as exc:
        if request.transport is None or request.transport.is_closing():
            log.outcome = "client_disconnected"
            return out
        log.outcome = f"upstream_broke: {describe(exc)}"
        if "Content-Encoding" not in upstream.headers:  # a plain event would corrupt an encoded stream
            await out.write(BROKEN_EVENT)
    except ConnectionResetError:
        log.outcome = "client_disconnected"
        return out
    except asyncio.CancelledError:
        log.outcome = "client_disconnected"
        raise
    except Exception as exc:
        if chain is None:
            raise
        # an output guard that cannot check the rest of the answer ends it: nothing unchecked goes out
        log.outcome = f"output_refused: {describe(exc)}"
        if not isinstance(exc, OutputRefused):
            logger.exception("output_guard_failed")
        message = str(exc) if isinstance(exc, OutputRefused) else "an output guard failed; the rest was withheld"
        checked = exc.partial if isinstance(exc, OutputRefused) else b""
        with contextlib.suppress(ConnectionResetError):
            await out.write(checked + sse_error("output_refused", message))
    finally:
        if log.outcome == "completed":
            upstream.release()
        else:
            upstream.close()  # drop the connection: the upstream stops generating
    with contextlib.suppress(ConnectionResetError):  # the client left right after the last event
        await out.write_eof()
    return out


BROKEN_EVENT = sse_error("upstream_stream_broken", "the upstream stream ended early; the answer is incomplete")
