"""Per-task assertions: what an upstream MCP server learns of a call, signed by taskgate, never the caller's token.

Each forwarded tools/call carries, in `params._meta` (`io.taskgate/assertion`),
a short-lived ES256 JWT whose audience is that upstream: the caller (`sub`,
`tenant`), the task (`task`, its `parents`, `profile`) and the call (`tool`,
and `call_sha256`, the digest of the tool and its arguments as holds.py
computes it: a server checks it against the call it received, and may keep
`jti`s for the token's short life to refuse a replay). A tool
server verifies it with the public keys taskgate publishes at
`/.well-known/jwks.json` and can tell callers and tasks apart; a token meant
for one upstream is refused by another (the audience differs).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import jwt
import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from .config import AssertionConfig
from .errors import PolicyError
from .grant import GrantSpec
from .holds import call_digest

log = structlog.get_logger("taskgate.authz")
TYPE = "taskgate-task+jwt"


class Assertions:
    def __init__(self, config: AssertionConfig):
        self.config = config
        if config.private_key_file is not None:
            try:
                key = serialization.load_pem_private_key(config.private_key_file.read_bytes(), password=None)
            except (OSError, ValueError, TypeError) as exc:
                raise PolicyError(f"{config.private_key_file}: not a PEM private key: {exc}") from None
            if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
                raise PolicyError(f"{config.private_key_file}: the assertion key must be an EC P-256 key (ES256)")
        else:
            key = ec.generate_private_key(ec.SECP256R1())
            log.warning(
                "assertion_key_ephemeral",
                effect="upstream assertions are signed with a key made at start-up; replicas need "
                "authz.assertions.private_key_file to publish one key set",
            )
        self._key = key
        public = json.loads(ECAlgorithm.to_jwk(key.public_key()))
        self.kid = jwt.PyJWK(public, "ES256").key_id or _thumbprint(public)
        self._jwk = {**public, "kid": self.kid, "alg": "ES256", "use": "sig"}

    def mint(self, spec: GrantSpec, audience: str, tool: str, arguments: Any) -> str:
        """An assertion for one call: who, which task, and which call (its tool and the digest of its arguments,
        so an upstream that echoes it cannot have it replayed for another call)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.config.issuer, "aud": audience, "sub": spec.subject, "tenant": spec.tenant,
            "task": spec.task, "profile": spec.profile, "parents": list(spec.parents), "tool": tool,
            "call_sha256": call_digest(tool, arguments), "iat": now, "exp": now + self.config.ttl_s,
            "jti": uuid.uuid4().hex,
        }  # fmt: skip
        return jwt.encode(claims, self._key, algorithm="ES256", headers={"kid": self.kid, "typ": TYPE})

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self._jwk]}


def _thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638: the SHA-256 of the key's required members, base64url."""
    import base64
    import hashlib

    members = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(members.encode()).digest()).rstrip(b"=").decode()
