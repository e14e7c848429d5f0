"""The gateway's errors, their entries in the failure table, and OpenAI-compatible error bodies (what engines and
the OpenAI surfaces speak)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from taskgate.errors import ConfigError, TaskgateError
from taskgate.plugins import FAILURES, ClientError, Evidence, Problem

__all__ = ["ClientError", "ConfigError", "PlanIncomplete", "UpstreamUnavailable"]


UPSTREAM_MESSAGES = {
    "upstream_unavailable": "no upstream could answer this request",
    "upstream_timeout": "the upstream did not answer in time",
    "upstream_auth_failed": "the upstream refused taskgate's own credential; the operator must fix it",
    "upstream_encoded": "the upstream compressed an answer that an output guard must read",
    "output_refused": "an output guard could not check the answer, so it was withheld",
    "upstream_malformed": "the upstream's answer could not be read",
}


class UpstreamUnavailable(TaskgateError):
    """No candidate endpoint gave a usable answer.

    The message (addresses, exception text) is for the evidence record only;
    clients get the fixed sentence for `code`.
    """

    def __init__(self, message: str, timed_out: bool = False, code: str | None = None):
        super().__init__(message)
        self.code = code or ("upstream_timeout" if timed_out else "upstream_unavailable")
        self.status = 504 if self.code == "upstream_timeout" else 502

    @property
    def client_message(self) -> str:
        return UPSTREAM_MESSAGES[self.code]


class PlanIncomplete(TaskgateError):
    """The plan ran but did not produce what the surface needs (e.g. no placement)."""


@FAILURES.explains(UpstreamUnavailable)
def _unavailable(exc: UpstreamUnavailable, evidence: Evidence) -> Problem:
    return Problem(exc.status, exc.code, exc.client_message, "upstream_error", detail=str(exc), cite=True)


@FAILURES.explains(PlanIncomplete)
def _incomplete(exc: PlanIncomplete, evidence: Evidence) -> Problem:
    message = "no upstream was chosen for this request"
    return Problem(503, "no_placement", message, "api_error", detail=str(exc), cite=True)


UPSTREAM_CODES = {
    400: "upstream_bad_request",
    403: "upstream_forbidden",
    404: "upstream_not_found",
    408: "upstream_timeout",
    409: "upstream_conflict",
    413: "upstream_too_large",
    422: "upstream_bad_request",
    429: "upstream_rate_limited",
}
_OWN_CODE = re.compile(r"[a-z][a-z0-9_]{2,63}")
MAX_UPSTREAM_MESSAGE = 300


def upstream_error(status: int, body: bytes) -> tuple[str, str]:
    """A stable code and a client-safe message for an upstream's error answer.

    A 4xx is about the request (a context too long, a bad parameter): the
    engine's own message is kept when its body is an OpenAI-style error. A 5xx,
    and any body that is not such an error (a traceback, an HTML page), gets a
    fixed sentence; the upstream's text stays in the evidence.
    """
    error = _error_object(body)
    own = error.get("code")
    code = own if isinstance(own, str) and _OWN_CODE.fullmatch(own) else None
    if status >= 500:
        return code or "upstream_error", f"the upstream failed ({status})"
    code = code or UPSTREAM_CODES.get(status, "upstream_refused")
    message = error.get("message")
    if not isinstance(message, str) or not message.strip() or "Traceback (most recent call last)" in message:
        return code, f"the upstream refused the request ({status})"
    return code, " ".join(message.split())[:MAX_UPSTREAM_MESSAGE]


def _error_object(body: bytes) -> dict[str, Any]:
    """The error object of an OpenAI (`{"error": {...}}`) or vLLM (`{"object": "error", ...}`) error body."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    inner = parsed.get("error")
    if isinstance(inner, dict):
        return inner
    return parsed if parsed.get("object") == "error" else {}


KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "invalid_request_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_error",
    431: "invalid_request_error",
}


def error_body(
    status: int,
    code: str,
    message: str,
    kind: str | None = None,
    param: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> bytes:
    """The JSON bytes of an OpenAI-compatible error; `extra` adds fields (an approval to ask for)."""
    error = {"message": message, "type": kind or KINDS.get(status, "api_error"), "param": param, "code": code}
    return json.dumps({"error": {**(extra or {}), **error}}).encode()


def error_response(
    status: int,
    code: str,
    message: str,
    kind: str | None = None,
    param: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> web.Response:
    body = error_body(status, code, message, kind, param, extra)
    return web.Response(status=status, body=body, content_type="application/json")


def sse_error(code: str, message: str) -> bytes:
    """An error event for a stream that already started: the client sees why it ended."""
    return b"data: " + error_body(502, code, message, "upstream_error") + b"\n\n"
