"""Explicit task workflows (`/v1/tasks`): a client's steps, checked as a graph before anything runs.

A workflow is a list of steps, each a model call or a tool call. A step's
inputs may use another step's output by writing `${id}` in any string (and
may also list `after` explicitly); those references are the graph's edges.
Each step becomes a runnable of the DAG engine (it requires the steps it
references and provides its own id), so `compile_plan` checks the graph
before anything runs: an unknown reference, a duplicate id or a cycle is a
client error that names the steps. `dag.Execution` then runs it: a step
starts the moment the steps it references are done.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from taskgate.dag import Failure, Inputs, Plan, PlanError, compile_plan
from taskgate.dag import StepSpec as Declaration
from taskgate.errors import TaskgateError
from taskgate.plugins import Params
from taskgate.plugins.params import problems

REFERENCE = re.compile(r"\$\{([A-Za-z][A-Za-z0-9_-]{0,63})\}")
MAX_STEPS = 1024  # an absolute cap; the operator's workflows.max_steps is usually lower
RUN = "@run"
"""The seed key of the running workflow (a step id cannot hold '@', so no step can claim it)."""


class WorkflowError(TaskgateError):
    """A workflow that cannot run; `steps` names those involved."""

    def __init__(
        self, message: str, steps: list[str] | None = None, field: str | None = None, code: str = "invalid_workflow"
    ):
        super().__init__(message)
        self.message, self.steps, self.field, self.code = message, steps or [], field, code


class StepSpec(Params):
    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    model: str | None = None  # a model call: `messages` (chat) go to the chat plan
    messages: list[dict[str, Any]] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    tool: str | None = None  # a tool call through the MCP gateway: SERVER__TOOL
    arguments: dict[str, Any] = Field(default_factory=dict)
    after: list[str] = Field(default_factory=list)  # explicit dependencies, beyond ${id} references

    @model_validator(mode="after")
    def _one_kind(self) -> StepSpec:
        if (self.model is None) == (self.tool is None):
            raise ValueError("a step is a model call (model, messages) or a tool call (tool, arguments), not both")
        if self.model is not None and not self.messages:
            raise ValueError("a model step needs messages")
        return self

    @property
    def kind(self) -> Literal["model", "tool"]:
        return "model" if self.model is not None else "tool"

    def references(self) -> set[str]:
        found = set(self.after)
        for text in _strings(self.messages or []):
            found.update(REFERENCE.findall(text))
        for text in _strings(self.arguments):
            found.update(REFERENCE.findall(text))
        return found


class Limits(Params):
    """What a workflow asks for; the operator's `workflows` bounds cap them."""

    max_parallel: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)


class WorkflowSpec(Params):
    purpose: str = Field(min_length=1, max_length=20_000)  # the user's instruction: the task's trusted input
    steps: list[StepSpec] = Field(min_length=1, max_length=MAX_STEPS)
    limits: Limits = Field(default_factory=Limits)
    wait: bool = True  # false: answer 202 at once and let the client poll GET /v1/tasks/{task}


class Node:
    """One workflow step as the engine runs it: it waits for the steps it references, then asks the run to do it.

    A step that does not complete raises, and as an optional step its output
    is then absent: the engine skips every step that references it.
    """

    def __init__(self, step: StepSpec):
        refs = tuple(sorted(step.references()))
        self.spec = Declaration(step.id, requires=(RUN, *refs), provides=step.id, failure=Failure.OPTIONAL)

    async def run(self, inputs: Inputs) -> str:
        output: str = await inputs[RUN].step(self.spec.name)
        return output

    def run_blocking(self, inputs: Inputs) -> str:
        raise NotImplementedError("a workflow step runs on the event loop")


@dataclass(frozen=True)
class Workflow:
    spec: WorkflowSpec
    plan: Plan

    @property
    def layers(self) -> tuple[tuple[str, ...], ...]:
        """Steps that may run together, in order."""
        return self.plan.generations

    @property
    def steps(self) -> dict[str, StepSpec]:
        return {s.id: s for s in self.spec.steps}


def parse(raw: Any) -> Workflow:
    """Validate a workflow body and its graph; every problem is a WorkflowError naming the step or field."""
    try:
        spec = WorkflowSpec.model_validate(raw)
    except ValidationError as exc:
        path, reason = problems(exc, ())[0]
        raise WorkflowError(f"{path}: {reason}", field=path) from None
    try:
        plan = compile_plan("workflow", [Node(step) for step in spec.steps], seeds=[RUN])
    except PlanError as exc:
        raise _refusal(exc) from None
    return Workflow(spec, plan)


def _refusal(exc: PlanError) -> WorkflowError:
    """The engine's verdict on the graph, in the words of a workflow."""
    names = list(exc.steps)
    if exc.kind == "duplicate_step":
        return WorkflowError(f"two steps have the id {names[0]!r}", names, code="duplicate_step")
    if exc.kind == "missing_input":
        message = f"step {names[0]!r} refers to {exc.key!r}, which no step defines"
        return WorkflowError(message, names, code="unknown_reference")
    if exc.kind == "cycle" and len(names) == 1:
        return WorkflowError(f"step {names[0]!r} refers to its own output", names, code="workflow_cycle")
    if exc.kind == "cycle":
        return WorkflowError(f"steps form a cycle: {' -> '.join([*names, names[0]])}", names, code="workflow_cycle")
    return WorkflowError(str(exc), names)


def resolve(value: Any, outputs: Mapping[str, str]) -> Any:
    """`value` with every `${id}` replaced by that step's output (a string)."""
    if isinstance(value, str):
        return REFERENCE.sub(lambda m: outputs[m.group(1)], value)
    if isinstance(value, list):
        return [resolve(v, outputs) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, outputs) for k, v in value.items()}
    return value


def resolved_chars(value: Any, outputs: Mapping[str, str]) -> int:
    """How many characters `resolve(value, outputs)` would hold, counted without building it."""
    total = 0
    for text in _strings(value):
        total += len(text)
        for found in REFERENCE.finditer(text):
            total += len(outputs.get(found.group(1), "")) - len(found.group(0))
    return total


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
