"""Who is asking: the identity a verified token carries."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from taskgate.plugins import IDENTITY, Principal
from taskgate.plugins.principals import PlainKeeper

__all__ = ["IDENTITY", "Identity", "IdentityKeeper", "words"]


@dataclass(frozen=True, slots=True)
class Identity:
    """A verified caller: subject, tenant, roles and scopes, and which token said so (never the token)."""

    subject: str
    tenant: str
    roles: tuple[str, ...]
    scopes: tuple[str, ...]
    issuer: str
    key_id: str | None
    algorithm: str
    expires_at: float
    claims: tuple[tuple[str, str], ...] = ()  # the configured `labelled` claims: values tasks trust (`claims`)

    def evidence(self) -> Mapping[str, Any]:
        return {
            "subject": self.subject,
            "tenant": self.tenant,
            "roles": list(self.roles),
            "scopes": list(self.scopes),
            "issuer": self.issuer,
            "kid": self.key_id,
            "alg": self.algorithm,
        }


def words(value: Any) -> tuple[str, ...]:
    """A claim that is a list of strings or one space-separated string, as a tuple."""
    if isinstance(value, str):
        return tuple(v for v in value.split() if v)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if isinstance(v, str) and v)
    return ()


class IdentityKeeper:
    """How authz keeps its callers for later work (a batch job's items): every field, never the token."""

    def seal(self, caller: Principal) -> dict[str, Any]:
        if isinstance(caller, Identity):
            return {"kind": "authz.identity", **dataclasses.asdict(caller)}
        return PlainKeeper().seal(caller)  # a principal some other step vouched for: what the protocol says

    def unseal(self, sealed: Mapping[str, Any]) -> Principal:
        if sealed.get("kind") != "authz.identity" and "issuer" not in sealed:
            return PlainKeeper().unseal(sealed)
        try:
            fields = {k: v for k, v in sealed.items() if k != "kind"}
            fields |= {"roles": tuple(sealed["roles"]), "scopes": tuple(sealed["scopes"])}
            fields["claims"] = tuple((str(k), str(v)) for k, v in sealed.get("claims", ()))
            return Identity(**fields)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the kept caller cannot be restored: {exc}") from None


if TYPE_CHECKING:  # the hooks the gateway reads from the step's value (plugins.hooks)
    from taskgate.plugins import HasEvidence

    _: type[HasEvidence] = Identity
