"""OpenAI-style error bodies: what every client of the /v1 surface gets on failure."""

from __future__ import annotations

import json

from aiohttp import web

from taskgate.errors import TaskgateError


class ConfigError(TaskgateError):
    """The config is wrong; the message says where and why."""

    def __init__(self, source: str, path: str, reason: str):
        super().__init__(f"{source}: {path}: {reason}" if path else f"{source}: {reason}")
        self.source = source
        self.path = path
        self.reason = reason


UPSTREAM_MESSAGES = {
    "upstream_unavailable": "no upstream could answer this request",
    "upstream_timeout": "the upstream did not answer in time",
    "upstream_auth_failed": "the upstream refused taskgate's own credential; the operator must fix it",
    "upstream_encoded": "the upstream compressed an answer that an output guard must read",
    "output_refused": "an output guard could not check the answer, so it was withheld",
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


class TurnFailed(TaskgateError):
    """A model call taskgate made itself (a tool-loop turn, a workflow step) ended without an answer.

    `status`, `code` and `message` are safe to show the client: an upstream's
    own refusal (a context too long, say) keeps its message.
    """

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class PlanIncomplete(TaskgateError):
    """The plan ran but did not produce what the surface needs (e.g. no placement)."""


class ClientError(TaskgateError):
    """A request taskgate refuses before any step runs (bad JSON, missing model)."""

    def __init__(self, status: int, code: str, message: str, param: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param


KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
}


def error_body(status: int, code: str, message: str, kind: str | None = None, param: str | None = None) -> bytes:
    """The JSON bytes of an OpenAI-compatible error."""
    error = {"message": message, "type": kind or KINDS.get(status, "api_error"), "param": param, "code": code}
    return json.dumps({"error": error}).encode()


def error_response(
    status: int, code: str, message: str, kind: str | None = None, param: str | None = None
) -> web.Response:
    body = error_body(status, code, message, kind, param)
    return web.Response(status=status, body=body, content_type="application/json")


def sse_error(code: str, message: str) -> bytes:
    """An error event for a stream that already started: the client sees why it ended."""
    return b"data: " + error_body(502, code, message, "upstream_error") + b"\n\n"
