"""Steps that decide who may do what: authentication, per-task grants, tool-call decisions, rate limits and budgets.

Built-in plugin, registered through the `taskgate.plugins` entry point like any other.
"""

from taskgate.plugins import GRANT, Registry

from . import routes
from .authenticate import AuthenticateStep, Authenticator
from .authorize import AuthorizeStep, TaskGrant
from .config import AuthzConfig
from .identity import IDENTITY, Identity
from .limits import LIMITS, LimitsStep

__all__ = [
    "GRANT",
    "IDENTITY",
    "LIMITS",
    "AuthenticateStep",
    "Authenticator",
    "AuthorizeStep",
    "AuthzConfig",
    "Identity",
    "LimitsStep",
    "TaskGrant",
    "register",
]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the authz section and its steps."""
    registry.add_section("authz", AuthzConfig)
    registry.add_step(AuthenticateStep)
    registry.add_step(AuthorizeStep)
    registry.add_step(LimitsStep)
    registry.add_routes(routes.add_routes)
