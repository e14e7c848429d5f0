"""`taskgate explain`: the plan a request would run and what each step would decide, calling no upstream.

The request (a JSON body, from a file or stdin) runs through its surface's
plan in a process that never opens an HTTP session: no engine is scraped, no
model is called (a model-mode classifier falls back to its local model and
says so), nothing is dispatched. What comes out is the plan, each step's
outcome and timing, and every decision: identity, intent, PII findings,
grant, and the placement with its candidates and scores.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from multidict import CIMultiDict

from taskgate.dag import Execution, Halt, StepFailed
from taskgate.errors import TaskgateError
from taskgate.plugins import PLACEMENT, REQUEST, Placement, Reject, RequestContext

from .app import create_app, default_registry
from .config import load_config
from .openai import PATHS
from .state import GATEWAY


def explain(config_path: str, request: str, surface: str, headers: dict[str, str]) -> dict[str, Any]:
    """Run `request` through the plan of `surface` without any upstream; return the report."""
    body = _read(request)
    registry = default_registry()
    config = load_config(config_path, registry)
    app = create_app(config, registry)
    gateway = app[GATEWAY]
    if surface not in gateway.plans:
        raise TaskgateError(f"no plan for surface {surface!r} (plans: {', '.join(sorted(gateway.plans))})")
    plan = gateway.plans[surface]
    context = RequestContext("explain", surface, PATHS.get(surface, "/mcp"), CIMultiDict(headers), body)
    try:
        context.json()
    except (ValueError, RecursionError) as exc:
        raise TaskgateError(f"the request is not JSON: {exc}") from None
    report: dict[str, Any] = {"surface": surface, "plan": plan.describe()}
    run = Execution(plan, {REQUEST: context})
    try:
        asyncio.run(run.run())
        report["outcome"] = "would be dispatched" if surface != "mcp" else "would be forwarded"
    except Reject as exc:
        report["outcome"] = f"refused: {exc.status} {exc.code}: {exc.message}"
    except Halt as exc:
        report["outcome"] = f"stopped: {exc}"
    except StepFailed as exc:
        report["outcome"] = f"step {exc.step!r} could not decide: {exc}"
    report["steps"] = [r.as_dict() for r in run.records]
    report["decisions"] = {
        key: dict(value.evidence()) for key, value in run.values.items() if callable(getattr(value, "evidence", None))
    }
    placement = run.values.get(PLACEMENT)
    if isinstance(placement, Placement) and placement.observer is not None:
        placement.observer.finished(None, None)  # nothing was sent: release what placing reserved
    return report


def _read(source: str) -> bytes:
    if source == "-":
        import sys

        return sys.stdin.buffer.read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise TaskgateError(f"cannot read the request {source}: {exc.strerror or exc}") from None


def render(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, default=str)
