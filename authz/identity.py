"""Who is asking: the identity a verified token carries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from taskgate.plugins import IDENTITY

__all__ = ["IDENTITY", "Identity", "words"]


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
