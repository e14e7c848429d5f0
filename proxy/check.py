"""`taskgate check`: validate a config and show what it compiles to."""

from __future__ import annotations

from .app import default_registry
from .config import load_config
from .plans import build_plans


def check(path: str) -> list[str]:
    """Lines describing the plugins, step instances and compiled plans."""
    from taskgate.plugins import Services

    registry = default_registry()
    config = load_config(path, registry)
    plans = build_plans(config, registry, Services(sections=config.sections))
    lines = [f"{path}: ok"]
    types = sorted({(registry.origin(t), t) for t in registry.steps})
    lines.append("step types: " + ", ".join(f"{t} ({origin})" for origin, t in types))
    lines.extend(line for plan in plans.values() for line in plan.describe())
    return lines
