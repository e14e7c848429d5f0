"""Per-task assertions: what an upstream MCP server learns of a call, signed by taskgate, never the caller's token.

Each forwarded tools/call carries, in `params._meta` (`io.taskgate/assertion`),
a short-lived ES256 JWT whose audience is that upstream: the caller (`sub`,
`tenant`), the task (`task`, its `parents`, `profile`) and the call (`tool`,
and `call_sha256`, the digest of the tool and its arguments as holds.py
computes it: a server checks it against the call it received, and may keep
`jti`s for the token's short life to refuse a replay). A tool
server verifies it with the public keys taskgate publishes at
`/.well-known/jwks.json` (beside the keys of task tokens) and can tell
callers and tasks apart; a token meant for one upstream is refused by another
(the audience differs), and its `typ` tells it from a task token.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import structlog

from .config import AssertionConfig
from .errors import PolicyError
from .grant import GrantSpec
from .holds import call_digest
from .keys import KeyRing, SigningKey, asymmetric, generated, load_private

log = structlog.get_logger("taskgate.authz")
TYPE = "taskgate-task+jwt"


class Assertions:
    def __init__(self, config: AssertionConfig):
        self.config = config
        key = _key(config)
        self.ring = KeyRing([key], key.kid, TYPE)

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
        return self.ring.sign(claims)


def _key(config: AssertionConfig) -> SigningKey:
    """The configured EC P-256 key (its kid is its thumbprint), or one made now."""
    if config.private_key_file is None:
        log.warning(
            "assertion_key_ephemeral",
            effect="upstream assertions are signed with a key made at start-up; replicas need "
            "authz.assertions.private_key_file to publish one key set",
        )
        return generated("ES256")
    try:
        private = load_private(config.private_key_file.read_bytes(), "ES256")
    except OSError as exc:
        raise PolicyError(f"{config.private_key_file}: cannot read it: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PolicyError(f"{config.private_key_file}: the assertion key must be an EC P-256 key: {exc}") from None
    return asymmetric(None, "ES256", private)
