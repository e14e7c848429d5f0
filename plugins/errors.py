"""Errors of the plugin SDK: refused plugins, bad parameters, deliberate rejections."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskgate.dag import Halt
from taskgate.errors import TaskgateError


class PluginError(TaskgateError):
    """A plugin could not be loaded or registered; the message names it."""


class ParamsError(TaskgateError):
    """A step's parameters are invalid; `path` locates the bad key under the step."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


class Reject(Halt):
    """A step refuses the request on purpose; carries what the client is told.

    `status` is the HTTP status, `code` a stable machine-readable reason,
    `message` a sentence for the caller (never a secret or a matched value),
    `details` what the evidence record keeps about the decision (never sent to the client),
    `public` what the client is given beside the message (an approval to ask for, say), `param` the field of the
    request it is about.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        kind: str = "invalid_request_error",
        headers: Mapping[str, str] | None = None,
        details: Mapping[str, Any] | None = None,
        public: Mapping[str, Any] | None = None,
        param: str | None = None,
    ):
        super().__init__(message)
        self.param = param  # the request field the refusal is about, where one is
        self.status = status
        self.code = code
        self.message = message
        self.kind = kind
        self.headers = dict(headers or {})
        self.details = dict(details or {})
        self.public = dict(public or {})


class OutputRefused(TaskgateError):
    """An output guard cannot let the answer through as it is; the message, for the client, says why.

    Raised from a ResponseFilter: a streamed answer ends with an error event,
    a whole one becomes an error response. Nothing unchecked is passed on;
    `partial` carries what the filter had already checked and let through.
    """

    def __init__(self, message: str, partial: bytes = b""):
        super().__init__(message)
        self.partial = partial
