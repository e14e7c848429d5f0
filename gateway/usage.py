"""Token usage: read from an upstream's answer, asked for on streams, kept from clients that did not ask, priced.

Every answer's `usage` (prompt, cached and completion tokens) goes to the
evidence with its cost at the answering pool's price, to the
`taskgate_tokens` and `taskgate_cost` metrics by tenant, model and pool, and to
the step outputs that meter it (a budget). A stream says nothing of its usage
unless the request asked (`stream_options.include_usage`), so taskgate asks
for a client that did not and takes the usage out of what that client
receives: its stream looks as it would have without taskgate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from taskgate.plugins import Endpoint, Usage, sse

_USAGE = re.compile(rb'"usage"\s*:\s*(\{(?:[^{}]|\{[^{}]*\})*\})')
_NULL_USAGE = re.compile(rb',\s*"usage"\s*:\s*null|"usage"\s*:\s*null\s*,?\s*')
MAX_TRIES = 8
STREAMED_SURFACES = frozenset({"chat", "completions"})  # those whose streams carry usage when asked


def usage_of(data: bytes) -> Usage | None:
    """The last `usage` object in an answer's bytes (a whole answer, or a window of a stream), if any.

    Occurrences that are not one (`"usage": null`, the word inside a token's
    text where it is not escaped, one cut off at the window's end, which the
    next window holds whole) are passed over, back to the `MAX_TRIES`-th.
    """
    end = len(data)
    for _ in range(MAX_TRIES):
        at = data.rfind(b'"usage"', 0, end)
        if at < 0:
            return None
        found = _USAGE.match(data, at)
        if found is not None:
            try:
                usage = json.loads(found.group(1))
            except ValueError:
                usage = None
            if isinstance(usage, dict) and (usable := counted(usage)) is not None:
                return usable
        end = at
    return None


def counted(usage: Mapping[str, Any]) -> Usage | None:
    """An OpenAI `usage` object as counts; None if it does not count prompt and completion tokens."""
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens") or 0
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(prompt, completion, cached if isinstance(cached, int) else None)


def usage_override(surface: str, body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The body change that makes a stream report its usage, when the client did not ask; None otherwise."""
    if surface not in STREAMED_SURFACES or body.get("stream") is not True:
        return None
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage") is True:
        return None
    return {"stream_options": {**(options if isinstance(options, dict) else {}), "include_usage": True}}


class UsageKept(sse.EventRewriter):
    """A ResponseFilter for a stream whose usage taskgate asked for: the client, who did not, never sees it.

    The event that carries only the usage (no choices) is dropped; an event
    that carries usage beside choices loses the usage; `"usage": null`, which
    every chunk of such a stream may carry, is taken out.
    """

    marker = b'"usage"'

    def event(self, event: bytes) -> bytes:
        if _USAGE.search(event) is None:  # `"usage": null`, which every chunk may carry: taken out unparsed
            return _NULL_USAGE.sub(b"", event)
        fields, payload = sse.parse(event)
        if payload is None:
            return event
        try:
            parsed = json.loads(payload)
        except (ValueError, RecursionError):
            return event
        if not isinstance(parsed, dict) or "usage" not in parsed:
            return event
        if parsed["usage"] is None:
            return _NULL_USAGE.sub(b"", event)
        if not parsed.get("choices"):
            return b""  # the usage chunk itself
        del parsed["usage"]
        return b"".join(f + b"\n" for f in fields) + b"data: " + json.dumps(parsed).encode() + b"\n\n"


def splice(raw: bytes, fields: Mapping[str, Any]) -> bytes:
    """`fields` added to the bytes of a JSON object that has none of them (as parsed), without writing it out again."""
    start = raw.index(b"{")
    return b"{" + json.dumps(dict(fields))[1:-1].encode() + b"," + raw[start + 1 :]


def priced(usage: Usage, endpoint: Endpoint | None) -> float | None:
    """What `usage` cost at the answering endpoint's pool's price; None where it has none."""
    if endpoint is None or endpoint.price is None:
        return None
    return endpoint.price.cost(usage)


def described(usage: Usage, cost: float | None) -> dict[str, Any]:
    """The evidence's `usage`."""
    out: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cached_tokens": usage.cached_tokens or 0,
    }
    if cost is not None:
        out["cost"] = round(cost, 8)
    return out
