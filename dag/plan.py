"""Compile a set of steps into a checked, ordered plan, once, at start-up."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from .errors import PlanError
from .types import Runnable, StepSpec


@dataclass(frozen=True)
class Plan:
    """A validated step graph; per request it is only walked, never checked."""

    name: str
    steps: Mapping[str, Runnable]
    seeds: frozenset[str]
    consumers: Mapping[str, tuple[str, ...]]
    waits: Mapping[str, frozenset[str]]
    roots: tuple[str, ...]
    order: tuple[str, ...]
    generations: tuple[tuple[str, ...], ...]
    graph: nx.DiGraph[str]

    def describe(self) -> list[str]:
        """Human-readable lines: each step with what it needs and gives."""
        lines = [f"plan {self.name!r} (seeds: {', '.join(sorted(self.seeds)) or '-'})"]
        for level, names in enumerate(self.generations):
            for name in names:
                lines.append(f"  [{level}] {_line(self.steps[name].spec)}")
        return lines


def compile_plan(
    name: str,
    steps: Sequence[Runnable],
    seeds: Iterable[str] = (),
    outputs: Iterable[str] = (),
) -> Plan:
    """Check a plan and fix its order; every error names the steps involved."""
    seed_keys = frozenset(seeds)
    by_name = _index(name, steps)
    providers = _providers(name, by_name, seed_keys)
    _check_inputs(name, by_name, providers)
    _check_outputs(name, outputs, providers)
    graph = _graph(by_name, providers)
    _check_acyclic(name, graph)
    return Plan(
        name=name,
        steps=by_name,
        seeds=seed_keys,
        consumers=_consumers(by_name),
        waits=(waits := _waits(by_name, providers)),
        roots=tuple(n for n in nx.lexicographical_topological_sort(graph) if not waits[n]),
        order=tuple(nx.lexicographical_topological_sort(graph)),
        generations=tuple(tuple(sorted(g)) for g in nx.topological_generations(graph)),
        graph=graph,
    )


def _index(plan: str, steps: Sequence[Runnable]) -> dict[str, Runnable]:
    by_name: dict[str, Runnable] = {}
    for step in steps:
        if step.spec.name in by_name:
            raise PlanError(
                f"plan {plan!r}: two steps are named {step.spec.name!r}", [step.spec.name], "duplicate_step"
            )
        by_name[step.spec.name] = step
    return by_name


def _providers(plan: str, steps: Mapping[str, Runnable], seeds: frozenset[str]) -> dict[str, str]:
    providers: dict[str, str] = {}
    for name, step in steps.items():
        for key in step.spec.keys:
            if key in seeds:
                raise PlanError(
                    f"plan {plan!r}: step {name!r} provides {key!r}, which the request already provides",
                    [name],
                    "seed_overwritten",
                    key,
                )
            if key in providers:
                raise PlanError(
                    f"plan {plan!r}: steps {providers[key]!r} and {name!r} both provide {key!r}; "
                    "give one of them another key",
                    [providers[key], name],
                    "duplicate_key",
                    key,
                )
            providers[key] = name
    return providers | {key: "" for key in seeds}


def _check_inputs(plan: str, steps: Mapping[str, Runnable], providers: Mapping[str, str]) -> None:
    for name, step in steps.items():
        hard = step.spec.requires + ((step.spec.fan_out,) if step.spec.fan_out else ())
        for key in hard:
            if key not in providers:
                raise PlanError(
                    f"plan {plan!r}: step {name!r} requires {key!r}, but no step provides it; "
                    "add a step that provides it or remove the requirement",
                    [name],
                    "missing_input",
                    key,
                )


def _check_outputs(plan: str, outputs: Iterable[str], providers: Mapping[str, str]) -> None:
    missing = sorted(set(outputs) - set(providers))
    if missing:
        message = f"plan {plan!r}: no step provides {', '.join(map(repr, missing))}, which this surface needs"
        raise PlanError(message, kind="missing_output", key=missing[0])


def _graph(steps: Mapping[str, Runnable], providers: Mapping[str, str]) -> nx.DiGraph[str]:
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(steps)
    for name, step in steps.items():
        for key in step.spec.inputs:
            source = providers.get(key)
            if source:
                graph.add_edge(source, name, key=key)
    return graph


def _check_acyclic(plan: str, graph: nx.DiGraph[str]) -> None:
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return
    names = [edge[0] for edge in cycle]
    loop = " -> ".join([*names, names[0]])
    raise PlanError(f"plan {plan!r}: steps form a cycle: {loop}", names, "cycle")


def _consumers(steps: Mapping[str, Runnable]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for name, step in steps.items():
        for key in step.spec.inputs:
            out.setdefault(key, []).append(name)
    return {key: tuple(names) for key, names in out.items()}


def _waits(steps: Mapping[str, Runnable], providers: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Per step, the keys a run waits for: inputs that a step provides (seeds exist from the start)."""
    return {name: frozenset(k for k in step.spec.inputs if providers.get(k)) for name, step in steps.items()}


def _line(spec: StepSpec) -> str:
    needs = ", ".join(spec.requires + tuple(f"{k}?" for k in spec.optional)) or "-"
    fan = f" per item of {spec.fan_out}" if spec.fan_out else ""
    extra = [f"timeout {spec.timeout}s"] if spec.timeout else []
    extra.append(f"fail {spec.failure.value}")
    if spec.cpu_bound:
        extra.append("off-loop")
    gives = ", ".join(spec.keys) or "-"
    return f"{spec.name}{fan}: {needs} -> {gives} ({', '.join(extra)})"
