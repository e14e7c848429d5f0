"""A disaggregated request's first half: its prompt to the prefill engine, the KV's handover into the decode body.

The placement's `prefill` names the engine and the transport (routing builds
both; vLLM's `kv_transfer_params` exchange today). The prefill engine's
answer is read whole (it is one token), never relayed; what the client sees
is the decode engine's answer. Any failure of this half (no answer within the
class's first-byte bound, an error status, an answer that hands nothing over)
comes before the first byte: the request then runs whole on the decode engine
and its fallbacks, and the dispatch log says why.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson

from taskgate.plugins import Placement, Prefill, describe

from .dispatch import CLIENT_LEFT, Dispatch, finite

MAX_PREFILL_ANSWER = 4 * 1024 * 1024  # bytes: a one-token answer and its block ids
HANDED_OVER, SENT_WHOLE = "handed_over", "failed: sent whole"


async def prefilled(
    session: aiohttp.ClientSession, placement: Placement, path: str, body: bytes, headers: Mapping[str, str],
    log: Dispatch,
) -> bytes | None:  # fmt: skip
    """The decode engine's body, with the KV's handover; None: the prefill failed, the request goes whole."""
    prefill = placement.prefill
    assert prefill is not None  # send calls this only for a disaggregated placement
    record: dict[str, Any] = {"endpoint": prefill.endpoint.name, "transport": prefill.transport.name}
    log.prefill = record
    try:
        request = orjson.loads(body)
    except orjson.JSONDecodeError:
        record |= {"outcome": SENT_WHOLE, "error": "the request body is not a JSON object"}
        return None
    if not isinstance(request, dict):
        record |= {"outcome": SENT_WHOLE, "error": "the request body is not a JSON object"}
        return None
    decode = await _ask(session, placement, prefill, path, request, headers, log, record)
    record["outcome"] = SENT_WHOLE if decode is None else HANDED_OVER
    return None if decode is None else orjson.dumps(decode)


async def _ask(
    session: aiohttp.ClientSession, placement: Placement, prefill: Prefill, path: str, request: dict[str, Any],
    headers: Mapping[str, str], log: Dispatch, record: dict[str, Any],
) -> dict[str, Any] | None:  # fmt: skip
    endpoint, observer = prefill.endpoint, placement.observer
    sent = orjson.dumps(prefill.transport.prefill_body(request))
    by = asyncio.get_running_loop().time() + log.timeouts.first_byte_s
    started, status, ok = time.perf_counter(), None, False
    if observer is not None:
        observer.attempt_started(endpoint)
    try:
        async with asyncio.timeout_at(finite(by)):
            async with session.post(endpoint.url + path, data=sent, headers={**headers, **endpoint.headers}) as got:
                status = record["status"] = got.status
                raw = await got.content.read(MAX_PREFILL_ANSWER)
        if status != 200:
            record["error"] = f"answered {status}"
            return None
        decode = prefill.transport.decode_body(request, orjson.loads(raw))
        if decode is None:
            record["error"] = "its answer handed no KV over"
            return None
        ok = True
        return decode
    except (aiohttp.ClientError, TimeoutError, orjson.JSONDecodeError) as exc:
        timed_out = isinstance(exc, TimeoutError)
        record["error"] = f"no answer within {log.timeouts.first_byte_s:g} s" if timed_out else describe(exc)
        return None
    except asyncio.CancelledError:
        status = CLIENT_LEFT  # a client that left says nothing about the engine
        record["error"] = "cancelled: the client went away"
        raise
    finally:
        record["ms"] = round((time.perf_counter() - started) * 1000.0, 3)
        if observer is not None:
            observer.attempt_ended(endpoint, ok, status)
