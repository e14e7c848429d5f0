"""Errors of plan compilation and execution."""

from __future__ import annotations

from collections.abc import Sequence

from taskgate.errors import TaskgateError

from .types import Outcome, StepRecord


class PlanError(TaskgateError):
    """A plan cannot be compiled; raised at start-up, never per request.

    `kind` says which check refused it (`duplicate_step`, `duplicate_key`,
    `seed_overwritten`, `missing_input`, `missing_output`, `cycle`) and `key`
    the key involved, so a caller can word the problem in its own terms.
    """

    def __init__(self, message: str, steps: Sequence[str] = (), kind: str = "invalid_plan", key: str | None = None):
        super().__init__(message)
        self.steps = tuple(steps)
        self.kind = kind
        self.key = key


class Halt(TaskgateError):
    """A step stops the run on purpose (a deny, a block).

    Not a failure: the step's failure policy does not apply and the run
    ends at once. Subclasses carry what the caller should be told.
    """


class StepFailed(TaskgateError):
    """A fail-closed step failed or timed out, so the run was abandoned."""

    def __init__(self, step: str, outcome: Outcome, cause: BaseException | None):
        detail = "timed out" if outcome is Outcome.TIMEOUT else f"failed: {describe(cause)}"
        super().__init__(f"step {step!r} {detail}")
        self.step = step
        self.outcome = outcome
        self.cause = cause
        self.records: list[StepRecord] = []


def describe(exc: BaseException | None) -> str:
    """A one-line account of an exception, without a traceback."""
    if exc is None:
        return "unknown error"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
