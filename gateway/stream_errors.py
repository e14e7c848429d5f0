"""An error event an engine sends mid-stream, given a stable code before it reaches the client.

vLLM and others end a failing stream with `data: {"error": {...}}`, whose
`code` may be a number or absent and whose message may be a traceback. The
client gets the same as for an upstream's 5xx before the stream began: the
engine's own code when it is a snake_case one, else `upstream_error`, and a
fixed sentence; the engine's event goes to the evidence
(`dispatch.upstream_error`).

Every chat and completions stream passes through this filter first. It
holds back only the part of a chunk after its last complete event (which no
SSE client could read yet anyway) and parses nothing unless an event
mentions `"error"`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from taskgate.plugins import sse

from .dispatch import MAX_KEPT_ERROR, Dispatch
from .errors import sse_error

MARKER = b'"error"'
MESSAGE = "the upstream failed while answering; the answer is incomplete"
_OWN_CODE = re.compile(r"[a-z][a-z0-9_]{2,63}")


def stable_code(error: Any) -> str:
    """An engine's error code if it is a stable, snake_case one; else `upstream_error`."""
    own = error.get("code") if isinstance(error, dict) else None
    return own if isinstance(own, str) and _OWN_CODE.fullmatch(own) else "upstream_error"


class StreamErrors(sse.EventRewriter):
    """A ResponseFilter for streams: error events rewritten, every other byte passed on as it came."""

    marker = MARKER

    def __init__(self, log: Dispatch):
        super().__init__()
        self.log = log

    def event(self, event: bytes) -> bytes:
        payload = sse.parse(event)[1]
        if payload is None or MARKER not in payload:
            return event
        try:
            parsed = json.loads(payload)
        except (ValueError, RecursionError):
            return event
        if not isinstance(parsed, dict) or "error" not in parsed or parsed.get("choices"):
            return event
        code = stable_code(parsed["error"])
        body = payload[:MAX_KEPT_ERROR].decode("utf-8", "replace")
        self.log.upstream_error = {"code": code, "message": MESSAGE, "body": body}
        return sse_error(code, MESSAGE)
