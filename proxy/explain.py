"""Offline inspection. `taskgate check`: a config's plugins, step instances and plans. `taskgate explain`: the plan
a request would run and what each step would decide, calling no upstream.

The request (a JSON body, from a file or stdin) runs through its surface's
plan in a process that never opens an HTTP session: no engine is scraped, no
model is called (a model-mode classifier falls back to its local model and
says so), nothing is dispatched. What comes out is the plan, each step's
outcome and timing, and every decision: identity, intent, PII findings,
grant, and the placement with its candidates and scores; for a refused MCP
tools/call, the decision: its rule, the labels it accepts and where the
refused value was seen.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from multidict import CIMultiDict

from taskgate import mcp_gateway
from taskgate.agent import toolloop
from taskgate.agent.config import ToolLoopConfig
from taskgate.dag import Execution, Halt, StepFailed
from taskgate.errors import TaskgateError
from taskgate.gateway.config import Config, load_config
from taskgate.gateway.gateway import GATEWAY, Gateway, release
from taskgate.gateway.plans import Wanted, build_plans
from taskgate.llm.routes import PATHS
from taskgate.mcp_gateway.config import SECTION as MCP_SECTION
from taskgate.mcp_gateway.config import McpConfig
from taskgate.plugins import PLACEMENT, REQUEST, HasEvidence, Reject, RequestContext, hooks_of

from .app import create_app, default_registry


def check(path: str) -> list[str]:
    """Lines describing the plugins, step instances and compiled plans."""
    registry = default_registry()
    config = load_config(path, registry)
    plans = build_plans(config, registry, registry.services(config.sections), _wanted(config))
    instances: dict[str, Any] = {name: step for plan in plans.values() for name, step in plan.steps.items()}
    lines = [f"{path}: ok"]
    types = sorted({(registry.origin(t), t) for t in registry.steps})
    lines.append("step types: " + ", ".join(f"{t} ({origin})" for origin, t in types))
    lines.append("step instances:")
    for name, step in instances.items():
        lines.append(f"  {name}: {step.type} {json.dumps(step.params.model_dump(mode='json'), sort_keys=True)}")
    lines.extend(line for plan in plans.values() for line in plan.describe())
    return lines


def _wanted(config: Config) -> list[Wanted]:
    return mcp_gateway.wanted(config.section(MCP_SECTION, McpConfig))


def probe(path: str) -> tuple[list[str], int]:
    """Each routing endpoint's answer to /v1/models against its pool's models: report lines, and how many
    endpoints do not serve a model they are configured for (or could not say)."""
    from taskgate.routing.config import RoutingConfig

    registry = default_registry()
    config = load_config(path, registry)
    routing = registry.services(config.sections).section("routing", RoutingConfig)
    return asyncio.run(_probe(routing))


async def _probe(routing: Any) -> tuple[list[str], int]:
    import aiohttp

    from taskgate.routing.scrape import served_models

    lines, problems = ["endpoints (GET /v1/models):"], 0
    async with aiohttp.ClientSession() as session:
        for pool in routing.pools:
            endpoints = pool.endpoint_values()
            listings = await asyncio.gather(*(served_models(session, e, 5.0) for e in endpoints))
            for endpoint, listed in zip(endpoints, listings, strict=True):
                wanted = [m.name for m in pool.models]
                if listed is None:
                    problems += 1
                    lines.append(f"  {pool.name}/{endpoint.name} {endpoint.url}: could not list its models")
                    continue
                missing = [m for m in wanted if m not in listed]
                problems += bool(missing)
                said = f"does not serve {', '.join(missing)} (it lists: {', '.join(sorted(listed)) or 'nothing'})"
                lines.append(f"  {pool.name}/{endpoint.name} {endpoint.url}: {said if missing else 'ok'}")
    return lines, problems


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
    loop = _tool_loop(gateway, context.json()) if surface == "chat" else None
    if loop is not None:
        report["tool_loop"] = loop
    run = Execution(plan, {REQUEST: context})
    try:
        asyncio.run(run.run())
        report["outcome"] = "would be dispatched" if surface != "mcp" else "would be forwarded"
    except Reject as exc:
        report["outcome"] = f"refused: {exc.status} {exc.code}: {exc.message}"
        if exc.details:  # a tool call's decision: the rule, the labels, where the refused value was seen
            report["refusal"] = exc.details
    except Halt as exc:
        report["outcome"] = f"stopped: {exc}"
    except StepFailed as exc:
        report["outcome"] = f"step {exc.step!r} could not decide: {exc}"
    report["steps"] = [r.as_dict() for r in run.records]
    report["decisions"] = {
        key: dict(value.evidence()) for key, value in run.values.items() if HasEvidence in hooks_of(type(value))
    }
    release(run.values.get(PLACEMENT))  # nothing was sent: release what placing reserved
    return report


def _tool_loop(gateway: Gateway, body: Any) -> dict[str, Any] | None:
    """What the tool loop would do with this request (when the agent room is installed)."""
    asked = body.get(toolloop.FIELD) if isinstance(body, dict) else None
    settings = gateway.services.sections.get("tool_loop")
    if asked is None or not isinstance(settings, ToolLoopConfig):
        return None
    servers = gateway.config.section(MCP_SECTION, McpConfig).servers
    return toolloop.preview(asked, settings, [s.name for s in servers])


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
