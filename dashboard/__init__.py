"""The dashboard at /ui: recent requests with their timelines and decisions, the endpoints' last minutes, batch
jobs; a static page and the JSON it polls (docs/dashboard.md). Its section is `ui`."""

from __future__ import annotations

from taskgate.plugins import Registry

from .config import SECTION, UiConfig
from .routes import add_routes


def register(registry: Registry) -> None:
    registry.add_section(SECTION, UiConfig)


__all__ = ["add_routes", "register"]
