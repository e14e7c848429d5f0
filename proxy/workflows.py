"""Explicit task workflows (`/v1/tasks`): a client's steps, checked as a graph before anything runs.

A workflow is a list of steps, each a model call or a tool call. A step's
inputs may use another step's output by writing `${id}` in any string (and
may also list `after` explicitly); those references are the graph's edges.
The graph is validated with networkx before anything runs: an unknown
reference, a duplicate id or a cycle is a client error that names the steps.
Independent steps then run in the same layer, in parallel.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import networkx as nx
from pydantic import Field, ValidationError, model_validator

from taskgate.errors import TaskgateError
from taskgate.plugins import Params
from taskgate.plugins.params import problems

REFERENCE = re.compile(r"\$\{([A-Za-z][A-Za-z0-9_-]{0,63})\}")
MAX_STEPS = 1024  # an absolute cap; the operator's workflows.max_steps is usually lower


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


@dataclass(frozen=True)
class Workflow:
    spec: WorkflowSpec
    graph: nx.DiGraph[str]
    layers: tuple[tuple[str, ...], ...]  # steps that may run together, in order

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
    ids = [s.id for s in spec.steps]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise WorkflowError(f"two steps have the id {duplicate!r}", [duplicate], code="duplicate_step")
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(ids)
    for step in spec.steps:
        for ref in sorted(step.references()):
            if ref not in graph:
                raise WorkflowError(
                    f"step {step.id!r} refers to {ref!r}, which no step defines", [step.id], code="unknown_reference"
                )
            if ref == step.id:
                raise WorkflowError(f"step {step.id!r} refers to its own output", [step.id], code="workflow_cycle")
            graph.add_edge(ref, step.id)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        layers = tuple(tuple(sorted(layer)) for layer in nx.topological_generations(graph))
        return Workflow(spec, graph, layers)
    names = [edge[0] for edge in cycle]
    raise WorkflowError(f"steps form a cycle: {' -> '.join([*names, names[0]])}", names, code="workflow_cycle")


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
