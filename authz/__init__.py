"""Steps that decide who may do what: authentication, per-task grants, tool-call decisions.

Built-in plugin, registered through the `taskgate.plugins` entry point like any other.
"""

from taskgate.plugins import Registry

from .authenticate import AuthenticateStep, Authenticator
from .config import AuthzConfig
from .identity import IDENTITY, Identity

__all__ = ["IDENTITY", "AuthenticateStep", "Authenticator", "AuthzConfig", "Identity", "register"]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the authz section and its steps."""
    registry.add_section("authz", AuthzConfig)
    registry.add_step(AuthenticateStep)
