"""Build step instances from config and compile one plan per surface, at start-up."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from taskgate.dag import Failure, Plan, PlanError, compile_plan
from taskgate.dag.errors import describe
from taskgate.errors import TaskgateError
from taskgate.plugins import (
    IDENTITY,
    INFERENCE,
    PLACEMENT,
    REQUEST,
    ParamsError,
    Registry,
    Services,
    Step,
    StepOptions,
    Surface,
)

from .config import Config, StepConfig
from .errors import ConfigError
from .gateway import IDENTIFY


@dataclass(frozen=True, slots=True)
class Wanted:
    """A plan a surface needs beside the inference surfaces': what it must provide, and, when the default steps
    cannot do, why a pipeline must be configured for it."""

    surface: str
    outputs: tuple[str, ...]
    configure: str | None = None


def build_plans(
    config: Config, registry: Registry, services: Services, wanted: Sequence[Wanted] = ()
) -> dict[str, Plan]:
    """Every inference surface's plan and each `wanted` one, compiled; any problem is a ConfigError with its key
    path."""
    steps = _build_steps(config, registry, services)
    plans = {surface: _compile(config, surface, steps) for surface in INFERENCE}
    for want in wanted:
        plans[want.surface] = _compile_wanted(config, steps, want)
    identify = _identify(plans)
    if identify is not None:
        plans[IDENTIFY] = identify
    return plans


def seeded_plans(plans: Mapping[str, Plan]) -> dict[str, Plan]:
    """Each OpenAI surface's plan without the step that authenticates, its `identity` a seed instead: for work
    whose caller was authenticated before it runs (a batch job's items). Where no step authenticates, the plan."""
    seeded = {}
    for surface in INFERENCE:
        plan = plans[surface]
        provider = next((n for n, s in plan.steps.items() if s.spec.provides == IDENTITY), None)
        if provider is None:
            seeded[surface] = plan
            continue
        steps = [step for name, step in plan.steps.items() if name != provider]
        seeded[surface] = compile_plan(surface, steps, seeds=[REQUEST, IDENTITY], outputs=[PLACEMENT])
    return seeded


def _compile_wanted(config: Config, steps: Mapping[str, Step[Any]], want: Wanted) -> Plan:
    if want.configure is not None and want.surface not in config.core.pipelines:
        raise ConfigError(config.source, f"pipelines.{want.surface}", want.configure)
    return _compile(config, want.surface, steps, outputs=want.outputs)


def _identify(plans: Mapping[str, Plan]) -> Plan | None:
    """The plan that only says who calls: the step providing `identity` (MCP's first, else chat's...) and its inputs.

    Every surface that must know its caller before, or instead of, its own
    plan (an MCP session, a token exchange, a task's owner) runs this one, so
    authentication happens in the authenticate step and nowhere else.
    """
    for surface in (Surface.MCP, *INFERENCE):
        plan = plans.get(surface)
        provider = next((n for n, s in plan.steps.items() if IDENTITY in s.spec.keys), None) if plan else None
        if plan is not None and provider is not None:
            names = sorted(nx.ancestors(plan.graph, provider) | {provider})
            return compile_plan(IDENTIFY, [plan.steps[n] for n in names], seeds=[REQUEST], outputs=[IDENTITY])
    return None


def _build_steps(config: Config, registry: Registry, services: Services) -> dict[str, Step[Any]]:
    steps: dict[str, Step[Any]] = {}
    for index, entry in config.steps():
        path = f"steps[{index}]" if index is not None else f"(built-in step {entry.name!r})"
        if entry.name in steps:
            raise ConfigError(config.source, f"{path}.name", f"another step is already named {entry.name!r}")
        steps[entry.name] = _build_step(config, registry, services, path, entry)
    return steps


def _build_step(config: Config, registry: Registry, services: Services, path: str, entry: StepConfig) -> Step[Any]:
    options = StepOptions(entry.timeout, entry.on_error, entry.fallback)
    try:
        return registry.build(entry.name, entry.type, entry.params, services, options)
    except ParamsError as exc:
        raise ConfigError(config.source, f"{path}.{exc.path}", exc.reason) from None
    except TaskgateError as exc:
        raise ConfigError(config.source, path, f"step {entry.name!r} ({entry.type}) refused to start: {exc}") from None
    except Exception as exc:
        reason = f"step {entry.name!r} ({entry.type}) failed to start: {describe(exc)}"
        raise ConfigError(config.source, path, reason) from None


def _compile(
    config: Config, surface: str, steps: Mapping[str, Step[Any]], outputs: tuple[str, ...] | list[str] = (PLACEMENT,)
) -> Plan:
    names = config.pipeline(surface)
    for position, name in enumerate(names):
        if name not in steps:
            defined = ", ".join(sorted(steps))
            raise ConfigError(
                config.source, f"pipelines.{surface}[{position}]", f"no step named {name!r} (defined: {defined})"
            )
    try:
        plan = compile_plan(surface, [steps[n] for n in names], seeds=[REQUEST], outputs=outputs)
    except PlanError as exc:
        raise ConfigError(config.source, f"pipelines.{surface}", str(exc)) from None
    _check_certain(config, surface, plan)
    return plan


def _check_certain(config: Config, surface: str, plan: Plan) -> None:
    """The step that provides the surface's placement may not be skipped or fail open."""
    for step in plan.steps.values():
        spec = step.spec
        if spec.provides == PLACEMENT and (spec.failure is not Failure.CLOSED or spec.when is not None):
            reason = (
                f"step {spec.name!r} provides {PLACEMENT!r}, which this surface cannot do without; "
                "it must fail closed (on_error: closed) and may not skip requests"
            )
            raise ConfigError(config.source, f"pipelines.{surface}", reason)
