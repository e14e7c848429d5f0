"""Where inference runs: pools, cluster state, prefix-aware placement, admission, fallback.

Built-in steps: `routing.cluster_state` (provides `cluster`) and `routing.route`
(provides `placement`); built-in filters: region, context, breaker; scorers:
prefix, session (affinity), inflight, queue, kv (distribution); pickers:
scored, random, round_robin, least_loaded.
"""

from taskgate.plugins import Registry

from . import models
from .cluster import CLUSTER, ClusterState, ClusterStateStep, ClusterView
from .config import PoolConfig, RoutingConfig
from .filters import BUILTIN as FILTERS
from .pickers import BUILTIN as PICKERS
from .route import Route
from .scorers import BUILTIN as SCORERS

__all__ = [
    "CLUSTER",
    "ClusterState",
    "ClusterStateStep",
    "ClusterView",
    "PoolConfig",
    "Route",
    "RoutingConfig",
    "register",
]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the routing section, its steps, filters, scorers and pickers."""
    registry.add_section("routing", RoutingConfig)
    registry.add_step(ClusterStateStep)
    registry.add_step(Route)
    registry.add_routes(models.add_routes)
    registry.add_default("state", ClusterStateStep.type)  # a config that names no pipeline routes by these
    registry.add_default("route", Route.type)
    for rule in FILTERS:
        registry.add_filter(rule)
    for scorer in SCORERS:
        registry.add_scorer(scorer)
    for picker in PICKERS:
        registry.add_picker(picker)
