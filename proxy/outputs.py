"""Running a surface's plan, and what its step outputs ask of the proxy, for every surface alike.

Step outputs speak through duck-typed protocols (plugins.types): `edit_body`
changes the body sent upstream, `response_filter` guards the answer,
`response_headers` adds to it, `evidence` describes a decision.
"""

from __future__ import annotations

from typing import Any

from taskgate.dag import Execution
from taskgate.plugins import PLACEMENT, REQUEST, Placement, RequestContext, ResponseFilter
from taskgate.plugins.evidence import Evidence

from .state import Gateway


async def run_plan(gateway: Gateway, surface: str, context: RequestContext, evidence: Evidence) -> dict[str, Any]:
    """Run `surface`'s plan; the steps, decisions and metrics are recorded whether it finishes or stops."""
    run = Execution(gateway.plans[surface], {REQUEST: context}, gateway.pool)
    try:
        return await run.run()
    except BaseException:
        release(run.values.get(PLACEMENT))  # placed, then a later step stopped the request
        raise
    finally:
        evidence.steps = run.records
        evidence.add_decisions(run.values)  # also when a step stopped the request: what was decided so far
        gateway.metrics.observe_steps(run.records)


def release(placement: Any) -> None:
    """Tell routing a placement will not be dispatched after all."""
    if isinstance(placement, Placement) and placement.observer is not None:
        placement.observer.finished(None, None)


def step_outputs(gateway: Gateway, surface: str, values: dict[str, Any]) -> list[Any]:
    """The values the plan's steps provided, in plan order."""
    return [values[key] for key in gateway.outputs[surface] if key in values]


def apply_edits(body: dict[str, Any], outputs: list[Any]) -> bool:
    """Every BodyEdit among `outputs`, applied in plan order to `body`; whether anything changed."""
    edited = False
    for value in outputs:
        edit = getattr(value, "edit_body", None)  # duck-typed: isinstance on a Protocol is slow
        if callable(edit):
            edited = bool(edit(body)) or edited
    return edited


def response_filters(outputs: list[Any], surface: str) -> list[ResponseFilter]:
    filters = []
    for value in outputs:
        make = getattr(value, "response_filter", None)  # OutputGuard
        found = make(surface) if callable(make) else None
        if found is not None:
            filters.append(found)
    return filters


def added_headers(outputs: list[Any]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in outputs:
        make = getattr(value, "response_headers", None)
        if callable(make):
            headers.update(make())
    return headers
