"""Where inference runs: pools, endpoints and placement.

For now one upstream serves each model (`routing.static`).
"""

from taskgate.plugins import Registry

from .config import RoutingConfig, Upstream
from .static import StaticRoute

__all__ = ["RoutingConfig", "StaticRoute", "Upstream", "register"]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the routing section and its steps."""
    registry.add_section("routing", RoutingConfig)
    registry.add_step(StaticRoute)
