"""Write an opened answer to the client, as it came: bytes as they arrive, never buffered.

An upstream's error answer becomes an OpenAI error with a stable code (its
own text stays in the evidence); a whole answer goes out as one body; a
stream goes out piece by piece, and a stream that cannot go on ends with an
error event in its own format (chat's error chunk, unless the surface speaks
another). A client that leaves ends the read: the upstream connection is
dropped, so the engine stops generating.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from aiohttp import web
from multidict import CIMultiDict

from taskgate.gateway.answer import Answer, Settle, StreamFailed, UpstreamError
from taskgate.gateway.errors import error_response, sse_error

ErrorEvent = Callable[[str, str], bytes]
"""An error event in the stream's own format, from a stable code and a client-safe message."""


async def relay(
    request: web.Request, answer: Answer, error_event: ErrorEvent = sse_error, settle: Settle | None = None
) -> web.StreamResponse:
    """The answer to the client: an error, the whole of it, or its stream (`settle`: see `Answer.stream`)."""
    if answer.status >= 400:
        return error_answer(await answer.error(), answer.headers)
    if not answer.streamed:
        body = await answer.whole()
        if settle is not None:
            await settle()
        return web.Response(status=answer.status, body=body, headers=answer.client_headers())
    return await stream(request, answer, error_event, settle)


def error_answer(failed: UpstreamError, headers: dict[str, str]) -> web.Response:
    """An upstream's error answer in OpenAI words: its status, a stable code, a client-safe message."""
    kind = "upstream_error" if failed.status >= 500 else None
    response = error_response(failed.status, failed.code, failed.message, kind)
    response.headers.update(headers)
    if failed.retry_after is not None:
        response.headers["Retry-After"] = failed.retry_after
    return response


async def stream(
    request: web.Request,
    answer: Answer,
    error_event: ErrorEvent = sse_error,
    settle: Settle | None = None,
    headers: CIMultiDict[str] | None = None,
) -> web.StreamResponse:
    """Each checked piece as it arrives; a stream that cannot go on ends with `error_event`. `headers`: the
    answer's client headers, where the surface changed them."""
    out = web.StreamResponse(status=answer.status, headers=headers or answer.client_headers())
    try:
        await out.prepare(request)
        async for piece in answer.stream(settle=settle):
            await out.write(piece)
    except StreamFailed as exc:
        if request.transport is None or request.transport.is_closing():
            answer.client_left()
            return out
        if exc.told:
            with contextlib.suppress(ConnectionResetError):
                await out.write(exc.checked + error_event(exc.code, exc.message))
    except ConnectionResetError:
        answer.client_left()
        return out
    with contextlib.suppress(ConnectionResetError):  # the client left right after the last event
        await out.write_eof()
    return out
