"""How a verified caller is kept as data, for work that outlives the token that proved it (a batch job's items).

The room whose step authenticates callers owns how its principals are kept:
it sets its `Keeper` in `Services.shared(KEEPER, ...)` when that step is
built (authz does, for its `Identity`). Where none is set, any `Principal`
is kept by what the protocol says of it (subject, tenant, roles) and comes
back as a `KeptPrincipal`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .services import Services
from .types import Principal

KEEPER = "principal_keeper"
"""The `Services.shared` key of the `Keeper` of this gateway's principals."""


class Keeper(Protocol):
    """Keeps a caller as JSON-ready data and restores it."""

    def seal(self, caller: Principal) -> dict[str, Any]: ...

    def unseal(self, sealed: Mapping[str, Any]) -> Principal:
        """The caller `seal` kept; ValueError if it cannot be restored."""
        ...


@dataclass(frozen=True, slots=True)
class KeptPrincipal:
    """A caller restored from what the Principal protocol says of it."""

    subject: str
    tenant: str
    roles: tuple[str, ...] = ()


class PlainKeeper:
    """Keeps any Principal by its subject, tenant and roles."""

    def seal(self, caller: Principal) -> dict[str, Any]:
        return {"subject": caller.subject, "tenant": caller.tenant, "roles": list(caller.roles)}

    def unseal(self, sealed: Mapping[str, Any]) -> Principal:
        subject, tenant, roles = sealed.get("subject"), sealed.get("tenant"), sealed.get("roles", [])
        if not isinstance(subject, str) or not isinstance(tenant, str) or not isinstance(roles, list):
            raise ValueError("a kept caller needs a subject and a tenant (strings) and a list of roles")
        return KeptPrincipal(subject, tenant, tuple(str(r) for r in roles))


def keeper(services: Services) -> Keeper:
    """This gateway's Keeper: the authenticating room's, else the plain one."""
    found: Keeper = services.shared(KEEPER, PlainKeeper)
    return found
