"""An upstream's answer, opened, and the one reader of each kind: its error, the whole of it, or its stream.

`send` (gateway/send.py) hands a surface an `Answer` whose status and headers
are known and whose body is not yet read. The surface reads it once, with
the reader its client needs, and writes what it gets in its own format:

    async with send(gateway, evidence, decision, path, headers) as answer:
        if answer.status >= 400:
            failed = await answer.error()          # an UpstreamError: code and a client-safe message
        elif not answer.streamed:
            body = await answer.whole()            # through the output guards
        else:
            async for piece in answer.stream():    # chunk by chunk, through the output guards
                ...

Every reader keeps to the request's silences (`Timeouts`), reads the
answer's usage on the way, and records the outcome in the dispatch log. A
stream that cannot go on raises `StreamFailed`, which carries what was
checked before it and what the client may be told; a whole answer that
cannot be read, or that a guard cannot check, raises UpstreamUnavailable.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp
import orjson
import structlog
from multidict import CIMultiDict

from taskgate.plugins import Endpoint, OutputRefused, ResponseFilter, describe

from .dispatch import BROKE, MALFORMED, MAX_KEPT_ERROR, STALLED, STREAM_ERRORS, TRUNCATED, Dispatch, finite
from .errors import UpstreamUnavailable, upstream_error
from .filters import FilterChain
from .stream_errors import StreamErrors
from .usage import counted, usage_of

logger = structlog.get_logger("taskgate")
MAX_ERROR_BYTES = 64 * 1024  # read of an upstream's error answer
USAGE_WINDOW = 1024  # of a stream's bytes kept across chunks, so a usage object split between two is still read
# Hop-by-hop headers (RFC 9110 7.6.1) and those aiohttp sets itself for the client connection.
HOP_HEADERS = frozenset(
    {
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade", "content-length", "date", "server",
    }
)  # fmt: skip
OURS = "x-taskgate-"
Settle = Callable[[], Awaitable[None]]
"""Awaited once a finished stream is complete, before its last bytes go out; it must not raise."""


@dataclass(frozen=True, slots=True)
class UpstreamError:
    """An upstream's error answer as a client may be told it: its status, a stable code, a client-safe message."""

    status: int
    code: str
    message: str
    retry_after: str | None = None


class StreamFailed(Exception):
    """A stream that began could not go on: `checked` (already through the guards) may still go to the client,
    then an error in the client's format with `code` and `message`, unless the stream is compressed (`told`
    False), where an event of ours would corrupt it."""

    def __init__(self, code: str, message: str, checked: bytes = b"", told: bool = True):
        super().__init__(message)
        self.code, self.message, self.checked, self.told = code, message, checked, told


class Answer:
    """The answering upstream's response: read it once, with `error`, `whole` or `stream`."""

    def __init__(
        self,
        upstream: aiohttp.ClientResponse,
        endpoint: Endpoint,
        headers: dict[str, str],
        log: Dispatch,
        filters: list[ResponseFilter],
    ):
        self.upstream, self.endpoint, self.log = upstream, endpoint, log
        self.headers = headers
        """What taskgate adds to the client's answer: the placement and the plan's steps' headers."""
        self.filters = filters
        self._stream: Stream | None = None

    @property
    def status(self) -> int:
        return self.upstream.status

    @property
    def streamed(self) -> bool:
        return self.upstream.content_type == "text/event-stream"

    @property
    def encoded(self) -> bool:
        """The upstream compressed its answer (an answer no guard reads passes through as it came)."""
        return "Content-Encoding" in self.upstream.headers

    def client_headers(self) -> CIMultiDict[str]:
        """The upstream's end-to-end headers (repeats such as Set-Cookie kept), then taskgate's own.

        Hop-by-hop headers, headers the upstream's Connection header names, and
        any x-taskgate-* header an upstream sends (it must not speak for us) are dropped.
        """
        upstream = self.upstream.headers
        named = {t.strip().lower() for value in upstream.getall("Connection", []) for t in value.split(",")}
        out: CIMultiDict[str] = CIMultiDict()
        for key, value in upstream.items():
            lower = key.lower()
            if lower not in HOP_HEADERS and lower not in named and not lower.startswith(OURS):
                out.add(key, value)
        out.extend(self.headers)
        return out

    async def error(self) -> UpstreamError:
        """An error answer (status >= 400): a stable code and a client-safe message; its own text goes to the
        evidence only."""
        log, upstream = self.log, self.upstream
        try:
            async with asyncio.timeout(finite(log.timeouts.idle_s)):
                body = await upstream.content.read(MAX_ERROR_BYTES)
        except (aiohttp.ClientError, TimeoutError):
            body = b""
        log.bytes, log.outcome = len(body), "completed"
        code, message = upstream_error(upstream.status, body)
        kept = body[:MAX_KEPT_ERROR].decode("utf-8", "replace")
        log.upstream_error = {"code": code, "message": message, "body": kept}
        return UpstreamError(upstream.status, code, message, upstream.headers.get("Retry-After"))

    async def whole(self, limit: int | None = None) -> bytes:
        """The whole answer, read within the idle gap and passed through the output guards.

        An answer that breaks off, is not JSON (unless compressed), is longer
        than `limit`, or that a guard cannot check is an upstream failure.
        """
        log, content = self.log, self.upstream.content
        try:
            if content.is_eof():  # every byte has arrived: nothing left to wait for
                body = await (self.upstream.read() if limit is None else content.read(limit))
            else:
                async with asyncio.timeout(finite(log.timeouts.idle_s)):
                    body = await (self.upstream.read() if limit is None else content.read(limit))
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.outcome = f"{BROKE}: {describe(exc)}"
            message = f"upstream {log.endpoint!r} failed while sending its answer: {describe(exc)}"
            raise UpstreamUnavailable(message, isinstance(exc, TimeoutError)) from exc
        except asyncio.CancelledError:
            log.outcome = "client_disconnected"
            raise
        log.bytes = len(body)
        if not self.encoded:
            self._read_json(body)
        log.outcome = "completed"
        if not self.filters:
            return body
        self._refuse_encoded()
        try:
            return FilterChain(self.filters).whole(body)
        except Exception as exc:  # a guard that cannot check the answer withholds it, never passes it on
            refused(exc, log)
            raise UpstreamUnavailable(str(exc), code="output_refused") from None

    def _read_json(self, body: bytes) -> None:
        """A whole answer is JSON: its usage is read from it; one that is not is the upstream's failure."""
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            self.log.outcome = f"{MALFORMED}: the answer is not JSON"
            raise UpstreamUnavailable(f"upstream {self.log.endpoint!r} answered with a body that is not JSON",
                                      code=MALFORMED) from None  # fmt: skip
        usage = parsed.get("usage") if isinstance(parsed, dict) else None
        found = counted(usage) if isinstance(usage, dict) else None
        if found is not None:
            self.log.record_usage(found)

    def stream(self, flushing: bool = True, settle: Settle | None = None) -> Stream:
        """The answer as a stream of checked pieces (see `Stream`); `flushing`: release what guards hold when
        the next chunk is late; `settle` is awaited once a finished stream is complete, before its last bytes."""
        if self.filters:
            self._refuse_encoded()
        filters = self.filters if self.encoded else [StreamErrors(self.log), *self.filters]
        self._stream = Stream(self, FilterChain(filters) if filters else None, flushing, settle)
        return self._stream

    def _refuse_encoded(self) -> None:
        """An answer an output guard must read arrived compressed (taskgate asked for identity): it goes no further."""
        if self.encoded:
            self.upstream.close()
            message = f"upstream {self.log.endpoint!r} compressed its answer, which an output guard must read"
            raise UpstreamUnavailable(message, code="upstream_encoded")

    def client_left(self) -> None:
        """The client went away while its answer was read: nothing the endpoint did wrong."""
        self.log.outcome = "client_disconnected"

    def close(self) -> None:
        """Release the connection of an answer read to its end; drop it otherwise (the engine stops generating)."""
        if self._stream is not None:
            self._stream.close()
        if self.log.outcome == "completed":
            self.upstream.release()
        else:
            self.upstream.close()


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


class Stalled(TimeoutError):
    """The upstream went silent for longer than its timeouts allow."""


class Stream:
    """An answer's stream as checked pieces: `async for piece in answer.stream()`.

    Each piece has passed the output guards. Guards may hold a bounded window
    back; what they hold comes with a later piece, at the end, or, once the
    next chunk is later than the guards allow (`FilterChain.flush_after_s`),
    as a piece of its own while the read goes on (it is never cancelled for a
    flush, so no byte is lost). A stream that breaks off, stalls, ends without
    finishing, or that a guard cannot check raises `StreamFailed` (the outcome
    recorded); an engine's error event is rewritten with a stable code.
    """

    def __init__(self, answer: Answer, chain: FilterChain | None, flushing: bool, settle: Settle | None):
        self._log, self._chain, self._settle = answer.log, chain, settle
        self._encoded = answer.encoded
        self._chunks = Chunks(answer.upstream, answer.log)
        self._flush_after = chain.flush_after_s if chain is not None and flushing else None
        self._reading: asyncio.Future[bytes] | None = None
        self._fed = False  # a chunk went to the guards since the last flush: they may hold some of it
        self._end: StreamFailed | None = None  # raised once the last piece is out
        self._done = False

    def __aiter__(self) -> Stream:
        return self

    async def __anext__(self) -> bytes:
        while not self._done:
            try:
                raw = await self._next()
                piece = self._checked(raw) if raw is not None else self._flushed()
                if raw == b"":
                    piece += await self._finish()
            except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, TimeoutError) as exc:
                raise self._broke(exc) from None
            except StreamFailed:
                raise
            except Exception as exc:  # an output guard that cannot check the rest ends it: nothing unchecked goes out
                raise self._withheld(exc) from None
            if piece:
                return piece
        if self._end is not None:
            failed, self._end = self._end, None
            raise failed
        raise StopAsyncIteration

    async def _next(self) -> bytes | None:
        """The next raw chunk (b"": the end), or None when it is late and the guards hold text to release."""
        if self._reading is None:
            if self._flush_after is None or not self._fed:
                return await self._chunks.next()
            self._reading = asyncio.ensure_future(self._chunks.next())
        reading = self._reading
        if self._fed and self._flush_after is not None:
            done, _ = await asyncio.wait({reading}, timeout=self._flush_after)
            if not done:
                self._fed = False
                return None
        self._reading = None
        return await reading

    def _checked(self, raw: bytes) -> bytes:
        self._fed = bool(raw)
        return self._chain.chunk(raw) if self._chain is not None and raw else raw

    def _flushed(self) -> bytes:
        return self._chain.flush() if self._chain is not None else b""

    async def _finish(self) -> bytes:
        """The upstream sent everything: what the guards held, after `settle` if the answer finished."""
        self._done = True
        rest = self._chain.end() if self._chain is not None else b""
        if self._chunks.ended:
            if self._settle is not None:
                await self._settle()
            self._log.outcome = "completed"
        else:
            self._log.outcome = TRUNCATED
            self._end = StreamFailed(*STREAM_ERRORS[TRUNCATED], b"", not self._encoded)
        return rest

    def _broke(self, exc: BaseException) -> StreamFailed:
        self._done = True
        stalled = isinstance(exc, Stalled)
        self._log.outcome = f"{STALLED}: {exc}" if stalled else f"{BROKE}: {describe(exc)}"
        code, message = STREAM_ERRORS[STALLED if stalled else BROKE]
        return StreamFailed(code, message, b"", not self._encoded)

    def _withheld(self, exc: Exception) -> StreamFailed:
        self._done = True
        message = refused(exc, self._log, "an output guard failed; the rest was withheld")
        checked = exc.partial if isinstance(exc, OutputRefused) else b""
        return StreamFailed("output_refused", message, checked, True)

    def close(self) -> None:
        """The reader is done with the stream (however it ended): a read still pending is dropped."""
        reading, self._reading = self._reading, None
        if reading is None:
            return
        if not reading.done():
            reading.cancel()
        elif not reading.cancelled():
            reading.exception()  # an error a failed flush cut short is not reported as never retrieved


def refused(exc: Exception, log: Dispatch, otherwise: str = "") -> str:
    """An output guard could not let the answer through: recorded (a guard's bug logged); what the client is told."""
    log.outcome = f"output_refused: {describe(exc)}"
    if not isinstance(exc, OutputRefused):
        logger.exception("output_guard_failed")
        return otherwise
    return str(exc)
