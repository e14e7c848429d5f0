"""Reading a client's request body: bounded in time and size, decoded by taskgate itself.

aiohttp's own request decompression is turned off (`auto_decompress`), so a
body whose `Content-Encoding` lies (a gzip header on plain JSON) is a clear
400 here rather than an exception in the parser, and a compressed body can
never expand past `server.max_body_bytes`. A client that declares a body and
does not send it is cut off after `server.body_timeout_s` with a 408.
Every surface reads through `read` and renders its BodyError in its own format.
"""

from __future__ import annotations

import asyncio
import zlib

from aiohttp import web

from taskgate.plugins.jsonbody import BodyError

# Content-Encoding -> zlib wbits (gzip header, zlib header, either)
DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": 32 + zlib.MAX_WBITS}
ACCEPTED = ("identity", *DECODERS)


async def read(request: web.Request, max_bytes: int, timeout_s: float) -> bytes:
    """The request body, decoded; BodyError (with the status to answer) if it cannot be had."""
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower() or "identity"
    if encoding not in ACCEPTED:
        raise BodyError(
            "unsupported_encoding", f"Content-Encoding {encoding[:32]!r} is not accepted; send gzip, deflate or none",
            415,
        )  # fmt: skip
    try:
        if request.content.is_eof():  # the whole body came with the headers: nothing left to wait for
            raw = await request.read()
        else:
            async with asyncio.timeout(timeout_s):
                raw = await request.read()
    except TimeoutError:
        _drop_connection(request)
        raise BodyError(
            "body_timeout", f"the request body did not arrive within {timeout_s:g} s (server.body_timeout_s)", 408
        ) from None
    except web.HTTPRequestEntityTooLarge:
        raise _too_large(max_bytes) from None
    return raw if encoding == "identity" else _decode(raw, encoding, max_bytes)


def _decode(raw: bytes, encoding: str, max_bytes: int) -> bytes:
    decoder = zlib.decompressobj(DECODERS[encoding])
    try:
        out = decoder.decompress(raw, max_bytes + 1)
    except zlib.error:
        raise BodyError(
            "invalid_encoding", f"the body is not valid {encoding} data, as Content-Encoding says"
        ) from None
    if len(out) > max_bytes:
        raise _too_large(max_bytes)
    if not decoder.eof or decoder.unused_data:
        raise BodyError("invalid_encoding", f"the {encoding} data ends early or has bytes after its end")
    return out


def _too_large(max_bytes: int) -> BodyError:
    return BodyError(
        "body_too_large", f"the request body is larger than {max_bytes} bytes; raise server.max_body_bytes", 413
    )


def _drop_connection(request: web.Request) -> None:
    """Close the connection once the answer is written (after at most `lingering_time` for the body's rest)."""
    protocol = request.protocol
    if protocol is not None:
        protocol.close()
