"""Decide: run a surface's plan, check it placed the request, prepare the body, gather the answer's guards.

The plan decides; this reads what its steps provided through their hooks
(plugins.hooks: `Outputs`): every `BodyEdit` edits one shallow copy of the body, in
plan order (unchanged: the client's bytes go as sent); every `OutputGuard`
gives a filter for the answer; `AddsHeaders` add the answer's headers;
`Meter`s are charged with its usage. A placement not dispatched after all
is released.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taskgate.plugins import (
    IDENTITY,
    PAYLOAD,
    PLACEMENT,
    AsksAgain,
    BodyEdit,
    Meter,
    Outputs,
    Placement,
    Principal,
    RequestContext,
    ResponseFilter,
    Settles,
)
from taskgate.plugins.evidence import Evidence

from .errors import PlanIncomplete
from .gateway import Gateway, release
from .usage import splice


@dataclass(slots=True)
class Decision:
    """What a surface's plan decided for one request: where it goes, what is sent, what guards the answer."""

    placement: Placement
    body: bytes
    filters: list[ResponseFilter]  # a surface may add its own (first or last) before it sends
    headers: dict[str, str]  # what the plan's steps add to the answer
    tenant: str | None = None  # who pays: the caller's tenant, for usage metrics
    meters: list[Meter] = field(default_factory=list)  # step outputs told what the answer took (budgets)
    settlers: list[Settles] = field(default_factory=list)  # told the client's answer once complete (authz binds it)
    askers: list[AsksAgain] = field(default_factory=list)  # after a whole chat answer: what to ask the model again


async def decide(
    gateway: Gateway,
    surface: str,
    context: RequestContext,
    evidence: Evidence,
    overrides: Mapping[str, Any] | None = None,
    caller: Principal | None = None,
    seeded: bool = False,
) -> Decision:
    """Run the plan and prepare the body; `overrides` are set on the body last (the calls taskgate makes stream).

    `seeded`: the plan runs as `caller`, who was authenticated before (a batch job's items), in its variant
    without the authenticate step."""
    values = await gateway.run_plan(surface, context, evidence, caller, seeded)
    placement = values.get(PLACEMENT)
    if not isinstance(placement, Placement):
        raise PlanIncomplete(f"plan {surface!r} gave no placement (got {type(placement).__name__})")
    outputs = gateway.outputs(surface, values)
    try:
        body = _body(context, values.get(PAYLOAD), placement, outputs, overrides)
    except BaseException:
        release(placement)
        raise
    identity: Principal | None = values.get(IDENTITY)
    return Decision(
        placement,
        body,
        filters(outputs, surface),
        added_headers(outputs),
        identity.tenant if identity is not None else None,
        outputs.meters,
        outputs.settlers,
        outputs.askers,
    )


def _body(
    context: RequestContext, payload: Any, placement: Placement, outputs: Outputs, overrides: Mapping[str, Any] | None
) -> bytes:
    """The bytes to send: the client's own unless a step edited the body, the model is an alias, or overrides apply."""
    edits = outputs.edits
    if payload is None and not edits and placement.model == context.model and not overrides:
        return context.body  # the hot path: nothing to copy, nothing to encode
    body = dict(payload if isinstance(payload, dict) else context.json())
    edited = apply_edits(body, edits) or payload is not None
    if not edited and placement.model == context.model:
        if not overrides:
            return context.body
        if not any(name in body for name in overrides):  # as parsed: a key may be spelled with escapes
            return splice(context.body, overrides)  # no second serialisation
    body["model"] = placement.model
    return json.dumps(body | dict(overrides or {})).encode()


def apply_edits(body: dict[str, Any], edits: list[BodyEdit]) -> bool:
    """Every edit, in plan order, applied to `body`; whether anything changed."""
    edited = False
    for edit in edits:
        edited = bool(edit.edit_body(body)) or edited
    return edited


def filters(outputs: Outputs, surface: str) -> list[ResponseFilter]:
    """The filters the plan's output guards give this answer, in plan order."""
    return [f for guard in outputs.guards if (f := guard.response_filter(surface)) is not None]


def added_headers(outputs: Outputs) -> dict[str, str]:
    """What the plan's steps add to an answer's headers."""
    found: dict[str, str] = {}
    for adds in outputs.headers:
        found.update(adds.response_headers())
    return found
