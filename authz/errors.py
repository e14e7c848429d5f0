"""The authz room's errors: a policy that cannot be used, a task token that cannot be used, a task store away."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskgate.errors import TaskgateError
from taskgate.plugins import Reject


class PolicyError(TaskgateError):
    """A policy file that cannot be used; the message names the file, the row and the fix."""


class TaskTokenError(TaskgateError):
    """A task token (or task) that cannot be used; `code` is stable, the message (for the caller) says why.

    `headers` go to the client with the refusal; `details` only to the evidence record.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
        details: Mapping[str, Any] | None = None,
    ):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = dict(headers or {})
        self.details = dict(details or {})

    def reject(self) -> Reject:
        """The refusal every surface renders in its own format (OpenAI error body, JSON-RPC error)."""
        kind = "api_error" if self.status >= 500 else "permission_error"
        return Reject(self.status, self.code, self.message, kind, self.headers, self.details)


RETRY_AFTER_S = 2


class TaskStoreUnavailable(TaskTokenError):
    """The task store did not answer: nothing about a task can be decided, so the call is refused (503)."""

    def __init__(self, operation: str, cause: BaseException):
        super().__init__(
            503,
            "task_store_unavailable",
            f"the task store is unavailable, so the task cannot be checked; retry in {RETRY_AFTER_S} s",
            {"Retry-After": str(RETRY_AFTER_S)},
            {"task_store": {"operation": operation, "error": f"{type(cause).__name__}: {cause}"[:300]}},
        )
