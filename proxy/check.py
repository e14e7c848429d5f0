"""`taskgate check`: validate a config and show what it compiles to."""

from __future__ import annotations

import json
from typing import Any

from .app import default_registry
from .config import load_config
from .plans import build_plans


def check(path: str) -> list[str]:
    """Lines describing the plugins, step instances and compiled plans."""
    from taskgate.plugins import Services

    registry = default_registry()
    config = load_config(path, registry)
    services = Services(
        sections=config.sections, scorers=registry.scorers, filters=registry.filters, pickers=registry.pickers
    )
    plans = build_plans(config, registry, services)
    lines = [f"{path}: ok"]
    types = sorted({(registry.origin(t), t) for t in registry.steps})
    lines.append("step types: " + ", ".join(f"{t} ({origin})" for origin, t in types))
    lines.append("step instances:")
    lines.extend(f"  {name}: {s.type} {_params(s)}" for name, s in _instances(plans).items())
    lines.extend(line for plan in plans.values() for line in plan.describe())
    return lines


def _instances(plans: dict[str, Any]) -> dict[str, Any]:
    return {name: step for plan in plans.values() for name, step in plan.steps.items()}


def _params(step: Any) -> str:
    return json.dumps(step.params.model_dump(mode="json"), sort_keys=True)
