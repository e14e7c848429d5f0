"""A workflow run taken over from a replica that stopped: rebuilt from what the shared store recorded of it.

The store holds what was submitted (the workflow), the headers its steps
run with (the caller's and the task's token), who owns it, and its view:
each step's status and output. Steps that completed keep their outputs and
are not run again. A step that was running when its replica stopped may
have done its work, or part of it: it runs again only if its kind says that
is safe (`repeatable`); otherwise the run ends `interrupted`, that step
`cancelled` with a message saying why, the steps not started `skipped`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

from multidict import CIMultiDict

from taskgate.plugins import Evidence

from .config import WorkflowsConfig
from .run import Run, StepState
from .types import Caller
from .workflows import StepSpec, parse

RESTORED = ("status", "output", "error", "started_ms", "duration_ms", "where")


def repeatable(step: StepSpec, tools: Sequence[str]) -> bool:
    """Whether a step cut off mid-way may simply run again: a model step changes nothing; a tool step only if
    the operator names its tool safe to call twice (`workflows.repeatable_tools`, patterns)."""
    return step.kind == "model" or any(fnmatch.fnmatchcase(step.tool or "", pattern) for pattern in tools)


def resumed(caller: Caller, limits: WorkflowsConfig, record: dict[str, Any]) -> Run:
    """The run `record` (the shared store's) describes, ready to execute here: settled steps kept, steps cut off
    mid-way pending again where that is safe, or the run ended `interrupted` where it is not."""
    view = record["view"]
    evidence = Evidence(str(view["request_id"]), "/v1/tasks", surface="tasks")
    evidence.started -= float(view.get("duration_ms") or 0.0) / 1000.0  # the run's clock goes on from where it was
    run = Run(caller, limits, parse(record["spec"]), evidence)
    run.task, run.headers = str(view["task"]), CIMultiDict(record["headers"])
    owner = record.get("owner")
    run.owner = (str(owner[0]), str(owner[1])) if isinstance(owner, list) else None
    for sid, shown in view.get("steps", {}).items():
        state = run.steps.get(sid)
        if state is not None:
            _restore(state, shown)
    cut = [sid for sid, state in run.steps.items() if state.status == "running"]
    unsafe = [sid for sid in cut if not repeatable(run.specs[sid], limits.repeatable_tools)]
    if unsafe:
        interrupt(run, unsafe)
        return run
    for sid in cut:
        state = run.steps[sid]
        state.status, state.started_ms, state.duration_ms, state.where = "pending", None, None, {}
    return run


def _restore(state: StepState, shown: dict[str, Any]) -> None:
    for name in RESTORED:
        if name in shown:
            setattr(state, name, shown[name])


def interrupt(run: Run, unsafe: list[str]) -> None:
    """End the run: the steps cut off mid-way that are not safe to repeat `cancelled`, with why; those not
    started `skipped`; what completed kept."""
    message = (
        "the step was running on a replica that stopped, and a {kind} step that may have done its work is not "
        "run twice (workflows.repeatable_tools names tools that may be)"
    )
    for sid, state in run.steps.items():
        if sid in unsafe:
            state.status = "cancelled"
            state.error = {"code": "interrupted", "message": message.format(kind=state.kind)}
        elif state.status in ("pending", "running"):
            state.status, state.error = "skipped", {"code": "interrupted"}
    run.status = "interrupted"
    run.end()
