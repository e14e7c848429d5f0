"""Dispatch to an upstream and relay its answer: bytes as they arrive, never buffered."""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import structlog
from aiohttp import web
from multidict import CIMultiDict

from taskgate.dag.errors import describe
from taskgate.plugins import Endpoint, Evidence, OutputRefused, Placement, ResponseFilter, Usage

from .errors import UpstreamUnavailable, error_response, sse_error, upstream_error
from .usage import usage_of

logger = structlog.get_logger("taskgate")
RETRYABLE = frozenset({429, 500, 502, 503, 504})
NOT_HERE = 404  # before the first byte: this endpoint does not serve the model (or the route); another may
CLIENT_LEFT = 499  # the status recorded for an attempt the client abandoned
# Hop-by-hop headers (RFC 9110 7.6.1) and those aiohttp sets itself for the client connection.
HOP_HEADERS = frozenset(
    {
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade", "content-length", "date", "server",
    }
)  # fmt: skip
OURS = "x-taskgate-"
MAX_ERROR_BYTES = 64 * 1024  # read of an upstream's error answer
MAX_KEPT_ERROR = 1000  # of which the evidence keeps this much
USAGE_WINDOW = 1024  # of a stream's bytes kept across chunks, so a usage object split between two is still read


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long an upstream may be silent: to its first byte (headers, then a stream's first chunk), then between
    two chunks. A silence past either is a stall: it fails the attempt (a 504, or an error event once the stream
    has begun) and counts against the endpoint's breaker."""

    first_byte_s: float
    idle_s: float


UNBOUNDED = Timeouts(first_byte_s=float("inf"), idle_s=float("inf"))


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
    usage: Usage | None = None  # the answer's, as its upstream reported it (the evidence's top-level `usage`)
    usage_missing: bool | None = None  # a metered answer whose upstream reported no usage (nothing was charged)
    upstream_error: dict[str, Any] | None = None  # an error answer: its code, and the upstream's own text
    timeouts: Timeouts = field(default=UNBOUNDED, repr=False)
    first_byte_by: float = field(default=float("inf"), repr=False)  # loop time by which the answer must have begun

    def evidence(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None and k not in _INTERNAL}

    def record_usage(self, usage: Usage) -> None:
        self.usage, self.engine_cached_tokens = usage, usage.cached_tokens


_INTERNAL = frozenset({"timeouts", "first_byte_by", "usage"})


async def send_attempts(
    session: aiohttp.ClientSession,
    placement: Placement,
    path: str,
    body: bytes,
    headers: Mapping[str, str],
    log: Dispatch,
) -> tuple[aiohttp.ClientResponse, Endpoint]:
    """Open the response of the first candidate that answers; fall back before the first byte."""
    candidates = (placement.endpoint, *placement.fallbacks)
    observer = placement.observer
    loop = asyncio.get_running_loop()
    for position, endpoint in enumerate(candidates):
        last = position == len(candidates) - 1
        started = time.perf_counter()
        if observer is not None:
            observer.attempt_started(endpoint)
        log.first_byte_by = loop.time() + log.timeouts.first_byte_s
        try:
            async with asyncio.timeout_at(finite(log.first_byte_by)):
                response = await session.post(endpoint.url + path, data=body, headers={**headers, **endpoint.headers})
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


def finite(when: float) -> float | None:
    return when if math.isfinite(when) else None


class Stalled(TimeoutError):
    """The upstream went silent for longer than its timeouts allow."""


_ENDED = re.compile(rb'"finish_reason"\s*:\s*"|data:\s*\[DONE\]')


class Chunks:
    """An upstream's answer, chunk by chunk: the first by the first-byte deadline, each next within the idle gap.

    `ended` says whether the stream said it was complete (a finish_reason or
    `[DONE]`): an engine that closes a stream without either has cut it short.
    """

    def __init__(self, upstream: aiohttp.ClientResponse, log: Dispatch):
        self._content, self._log = upstream.content, log
        self._loop = asyncio.get_running_loop()
        self._started = time.perf_counter()
        self._tail = b""
        self.ended = False

    async def next(self) -> bytes:
        """The next chunk; b"" once the upstream has sent everything. Stalled if it is silent too long."""
        log = self._log
        first = log.first_chunk_ms is None
        deadline = log.first_byte_by if first else self._loop.time() + log.timeouts.idle_s
        try:
            async with asyncio.timeout_at(finite(deadline)):
                chunk = await self._content.readany()
        except TimeoutError:
            wait = log.timeouts.first_byte_s if first else log.timeouts.idle_s
            raise Stalled(f"the upstream sent nothing for {wait:g} s") from None
        if not chunk:
            return chunk
        if first:
            log.first_chunk_ms = round((log.ttfb_ms or 0.0) + (time.perf_counter() - self._started) * 1000.0, 3)
        log.bytes += len(chunk)
        window = self._tail + chunk
        self._tail = window[-USAGE_WINDOW:]
        if not self.ended:
            self.ended = _ENDED.search(window) is not None
        if b'"usage"' in window and (usage := usage_of(window)) is not None:  # found without parsing the stream
            log.record_usage(usage)
        return chunk


class Paced:
    """Chunks for output guards that hold text back: when the next chunk is later than `flush_after_s`, `flush`
    runs meanwhile (once per chunk), so held text is not kept waiting on a slow engine.

    The read goes on all the while, under Chunks' own deadlines: it is never
    cancelled for a flush, so no byte is lost; it is cancelled only when the
    relay itself ends (the client left, a flush failed).
    """

    def __init__(self, chunks: Chunks, flush_after_s: float | None, flush: Callable[[], Awaitable[None]]):
        self._chunks, self._after, self._flush = chunks, flush_after_s, flush
        self._fed = False  # a chunk went to the guards since the last flush: they may hold some of it

    async def next(self) -> bytes:
        """As Chunks.next()."""
        if self._after is None or not self._fed:
            chunk = await self._chunks.next()
        else:
            chunk = await self._flushing(self._after)
        self._fed = bool(chunk)
        return chunk

    async def _flushing(self, after_s: float) -> bytes:
        reading = asyncio.ensure_future(self._chunks.next())
        try:
            done, _ = await asyncio.wait({reading}, timeout=after_s)
            if not done:
                await self._flush()
            return await reading
        finally:
            if not reading.done():
                reading.cancel()
            elif not reading.cancelled():
                reading.exception()  # an error a failed flush cut short is not reported as never retrieved


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


DEFAULT_FLUSH_AFTER_S = 0.05  # for a filter with `flush` that does not say how long it may hold


class FilterChain:
    """Output guards in plan order; each sees what the one before it let through.

    `flush_after_s` is the shortest wait any of them allows held text (None:
    none can flush, held text waits for the next chunk); `flush` releases
    what those hold, through the guards after each.
    """

    def __init__(self, filters: list[ResponseFilter]):
        self.filters = filters
        self._flushing: list[tuple[int, Callable[[], bytes]]] = []
        waits = []
        for position, f in enumerate(filters):
            flush = getattr(f, "flush", None)  # optional: a filter without it is not flushed early
            after = getattr(f, "flush_after_s", DEFAULT_FLUSH_AFTER_S)
            if callable(flush) and after is not None:
                self._flushing.append((position, flush))
                waits.append(float(after))
        self.flush_after_s = min(waits) if waits else None

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

    def flush(self) -> bytes:
        """The next chunk is late: what the filters that can flush hold, released now (b"" if nothing)."""
        out = b""
        for position, flush in self._flushing:
            try:
                released = flush()
            except OutputRefused as exc:
                exc.partial = out + (self._through(exc.partial, position + 1) if exc.partial else b"")
                raise
            if not released:
                continue
            try:
                out += self._through(released, position + 1)
            except OutputRefused as exc:
                exc.partial = out + exc.partial
                raise
        return out


def refuse_encoded(upstream: aiohttp.ClientResponse, log: Dispatch) -> None:
    """An answer an output guard must read arrived compressed (taskgate asked for identity): it goes no further."""
    if "Content-Encoding" in upstream.headers:
        upstream.close()
        message = f"upstream {log.endpoint!r} compressed its answer, which an output guard must read"
        raise UpstreamUnavailable(message, code="upstream_encoded")


def record_failure(evidence: Evidence, log: Dispatch) -> None:
    """An answer relayed as an error (a stream that broke off, an upstream's error answer) fails the evidence."""
    if (broken := failed_stream(log.outcome)) is not None:
        evidence.fail(broken, log.outcome)
    elif log.upstream_error is not None:
        evidence.fail(log.upstream_error["code"], log.upstream_error["message"])


def refused(exc: Exception, log: Dispatch, otherwise: str = "") -> str:
    """An output guard could not let the answer through: recorded (a guard's bug logged); what the client is told."""
    log.outcome = f"output_refused: {describe(exc)}"
    if not isinstance(exc, OutputRefused):
        logger.exception("output_guard_failed")
        return otherwise
    return str(exc)


async def relay_error(upstream: aiohttp.ClientResponse, headers: Mapping[str, str], log: Dispatch) -> web.Response:
    """An upstream's error answer as an OpenAI error with a stable code; its own text goes to the evidence only."""
    try:
        async with upstream, asyncio.timeout(finite(log.timeouts.idle_s)):
            body = await upstream.content.read(MAX_ERROR_BYTES)
    except (aiohttp.ClientError, TimeoutError):
        body = b""
    log.bytes, log.outcome = len(body), "completed"
    code, message = upstream_error(upstream.status, body)
    log.upstream_error = {"code": code, "message": message, "body": body[:MAX_KEPT_ERROR].decode("utf-8", "replace")}
    kind = "upstream_error" if upstream.status >= 500 else None
    response = error_response(upstream.status, code, message, kind)
    response.headers.update(headers)
    if "Retry-After" in upstream.headers:
        response.headers["Retry-After"] = upstream.headers["Retry-After"]
    return response


async def relay_whole(
    upstream: aiohttp.ClientResponse, headers: CIMultiDict[str], log: Dispatch, chain: FilterChain | None = None
) -> web.Response:
    """A non-streamed answer: read it and pass the same bytes on (through output guards, if any)."""
    try:
        async with upstream, asyncio.timeout(finite(log.timeouts.idle_s)):
            body = await upstream.read()
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.outcome = f"upstream_broke: {describe(exc)}"
        message = f"upstream {log.endpoint!r} failed while sending its answer: {describe(exc)}"
        raise UpstreamUnavailable(message, isinstance(exc, TimeoutError)) from exc
    except asyncio.CancelledError:
        log.outcome = "client_disconnected"
        raise
    log.bytes, log.outcome = len(body), "completed"
    if (usage := usage_of(body)) is not None:
        log.record_usage(usage)
    if chain is not None:
        try:
            body = chain.whole(body)
        except Exception as exc:  # a guard that cannot check the answer withholds it, never passes it on
            refused(exc, log)
            raise UpstreamUnavailable(str(exc), code="output_refused") from None
    return web.Response(status=upstream.status, body=body, headers=headers)


ErrorEvent = Callable[[str, str], bytes]
"""An error event in the stream's own format, from a stable code and a client-safe message."""
Settle = Callable[[], Awaitable[None]]
"""Awaited once a finished answer is complete, before its last bytes go out; it must not raise."""


async def relay_stream(
    request: web.Request,
    upstream: aiohttp.ClientResponse,
    headers: CIMultiDict[str],
    log: Dispatch,
    chain: FilterChain | None = None,
    error_event: ErrorEvent = sse_error,
    settle: Settle | None = None,
) -> web.StreamResponse:
    """Relay each chunk as it arrives. A client that leaves cancels the upstream request.

    Output guards may hold a bounded window back; what they hold is sent with the next chunk, when the stream
    ends, or once the next chunk is later than the guards allow (`FilterChain.flush_after_s`). A stream that
    breaks off ends with `error_event` (chat's error chunk unless the surface speaks another format);
    `settle`, if given, is awaited once a finished answer is complete, before its last bytes go out (the
    Responses surface keeps the response there, so a client's follow-up finds it).
    """
    out = web.StreamResponse(status=upstream.status, headers=headers)
    chunks = Chunks(upstream, log)

    async def flush() -> None:
        if chain is not None and (released := chain.flush()):
            await out.write(released)

    paced = Paced(chunks, chain.flush_after_s if chain is not None else None, flush)
    try:
        await out.prepare(request)
        while chunk := await paced.next():
            if chain is not None:
                chunk = chain.chunk(chunk)
            if chunk:
                await out.write(chunk)
        rest = chain.end() if chain is not None else b""
        if settle is not None and chunks.ended:
            await settle()
        if rest:
            await out.write(rest)
        log.outcome = "completed" if chunks.ended else TRUNCATED
        if not chunks.ended and "Content-Encoding" not in upstream.headers:
            await out.write(error_event(*STREAM_ERRORS[TRUNCATED]))
    except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, TimeoutError) as exc:
        if request.transport is None or request.transport.is_closing():
            log.outcome = "client_disconnected"
            return out
        stalled = broke_off(exc, log)
        if "Content-Encoding" not in upstream.headers:  # a plain event would corrupt an encoded stream
            await out.write(error_event(*STREAM_ERRORS[STALLED if stalled else BROKE]))
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
        message = refused(exc, log, "an output guard failed; the rest was withheld")
        checked = exc.partial if isinstance(exc, OutputRefused) else b""
        with contextlib.suppress(ConnectionResetError):
            await out.write(checked + error_event("output_refused", message))
    finally:
        if log.outcome == "completed":
            upstream.release()
        else:
            upstream.close()  # drop the connection: the upstream stops generating
    with contextlib.suppress(ConnectionResetError):  # the client left right after the last event
        await out.write_eof()
    return out


BROKE, STALLED, TRUNCATED = "upstream_broke", "upstream_stalled", "upstream_truncated"
STREAM_ERRORS = {
    BROKE: ("upstream_stream_broken", "the upstream stream ended early; the answer is incomplete"),
    STALLED: ("upstream_stalled", "the upstream went silent; the answer is incomplete"),
    TRUNCATED: ("upstream_truncated", "the upstream ended the stream without finishing it; the answer is incomplete"),
}  # the outcome of a stream that began and then failed -> its code and what the client is told
FAILED_OUTCOMES = {outcome: code for outcome, (code, _) in STREAM_ERRORS.items()}


def broke_off(exc: BaseException, log: Dispatch) -> bool:
    """Record that the upstream's stream stalled or broke; whether it stalled."""
    stalled = isinstance(exc, Stalled)
    log.outcome = f"{STALLED}: {exc}" if stalled else f"{BROKE}: {describe(exc)}"
    return stalled


def failed_stream(outcome: str) -> str | None:
    """The evidence code of a stream that began and then failed (broke, stalled, truncated); None otherwise."""
    return FAILED_OUTCOMES.get(outcome.partition(":")[0])
