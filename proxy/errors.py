"""OpenAI-style error bodies: what every client of the /v1 surface gets on failure."""

from __future__ import annotations

import json

from aiohttp import web

from taskgate.errors import TaskgateError


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
