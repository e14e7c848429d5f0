"""One failure table: what an exception means for the caller, looked up along its class hierarchy.

Every surface renders the same `Problem` in its own format (an OpenAI error
body, a JSON-RPC error, a tool result a model reads, a workflow step's
error), so a refusal reads the same wherever it happens. A room adds the
exceptions it raises:

    from taskgate.plugins import FAILURES, Problem

    @FAILURES.explains(QuotaSpent)
    def _quota(exc: QuotaSpent, evidence: Evidence) -> Problem:
        return Problem(429, "quota_spent", str(exc), headers={"Retry-After": "60"})

As with Starlette's exception handlers, the closest class in the exception's
MRO wins; anything no entry explains is an internal error (logged, never
shown to the client).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import structlog

from taskgate.dag import Halt, Outcome, StepFailed
from taskgate.errors import TaskgateError

from .errors import Reject
from .evidence import Evidence

E = TypeVar("E", bound=BaseException)
log = structlog.get_logger("taskgate")
Explain = Callable[[Any, Evidence], "Problem"]


@dataclass(frozen=True, slots=True)
class Problem:
    """A failure as the caller is told it, and as the evidence keeps it.

    `message` is safe for the client; `detail` (addresses, exception text) is
    for the evidence only. `cite` asks the renderer to name the request id (a
    failure on taskgate's side, worth quoting to the operator); `unexpected`
    marks a bug, logged with its traceback.
    """

    status: int
    code: str
    message: str
    kind: str | None = None  # the OpenAI error type; None: derived from the status
    param: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    detail: str | None = None
    step: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    cite: bool = False
    unexpected: bool = False
    public: Mapping[str, Any] = field(default_factory=dict)  # for the client, beside the message (an approval)

    def record(self, evidence: Evidence) -> None:
        """Write the failure into `evidence`, unless a step already said more."""
        if evidence.error is None:
            evidence.fail(self.code, self.detail or self.message, self.step, dict(self.details) or None)

    def cited(self, request_id: str) -> str:
        """The client's message, with the request id when the problem asks for it."""
        return f"{self.message} (request id {request_id})" if self.cite else self.message


class Failures:
    """Exception classes and how each is explained; `explain` looks one up along the MRO."""

    def __init__(self) -> None:
        self._table: dict[type[BaseException], Explain] = {}

    def explains(self, cls: type[E]) -> Callable[[Callable[[E, Evidence], Problem]], Callable[[E, Evidence], Problem]]:
        """Register the decorated function as the explanation of `cls` and its subclasses."""

        def add(explain: Callable[[E, Evidence], Problem]) -> Callable[[E, Evidence], Problem]:
            self._table[cls] = explain
            return explain

        return add

    def explain(self, exc: BaseException, evidence: Evidence) -> Problem:
        for cls in type(exc).__mro__:
            found = self._table.get(cls)
            if found is not None:
                return found(exc, evidence)
        return Problem(500, "internal_error", "internal error", "api_error", detail=type(exc).__name__, cite=True,
                       unexpected=True)  # fmt: skip

    def settle(self, exc: BaseException, evidence: Evidence) -> Problem:
        """Every surface's failure prologue, called in its `except` block: `exc` explained, logged with its
        traceback if it is a bug, and recorded in `evidence` (unless a step said more); the Problem to render."""
        problem = self.explain(exc, evidence)
        if problem.unexpected:
            log.exception("unhandled_error", request_id=evidence.request_id, path=evidence.path)
        problem.record(evidence)
        return problem


FAILURES = Failures()


class ClientError(TaskgateError):
    """A request taskgate refuses before any step runs (bad JSON, a missing model, an unknown task)."""

    def __init__(self, status: int, code: str, message: str, param: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param


def halted_step(evidence: Evidence) -> str | None:
    """The step that stopped the request on purpose, if one did."""
    return next((r.name for r in evidence.steps if r.outcome is Outcome.HALTED), None)


@FAILURES.explains(ClientError)
def _client(exc: ClientError, evidence: Evidence) -> Problem:
    return Problem(exc.status, exc.code, exc.message, param=exc.param)


@FAILURES.explains(Reject)
def _reject(exc: Reject, evidence: Evidence) -> Problem:
    return Problem(exc.status, exc.code, exc.message, exc.kind, exc.param, exc.headers, None, halted_step(evidence),
                   exc.details, public=exc.public)  # fmt: skip


@FAILURES.explains(Halt)
def _halt(exc: Halt, evidence: Evidence) -> Problem:
    step = halted_step(evidence)
    return Problem(403, "halted", f"step {step!r} stopped this request", "permission_error", detail=str(exc), step=step)


@FAILURES.explains(StepFailed)
def _step_failed(exc: StepFailed, evidence: Evidence) -> Problem:
    timed_out = exc.outcome is Outcome.TIMEOUT
    return Problem(
        504 if timed_out else 503,
        "step_timeout" if timed_out else "step_failed",
        f"step {exc.step!r} could not decide, so the request was not forwarded",
        "api_error",
        detail=str(exc),
        step=exc.step,
        cite=True,
    )
