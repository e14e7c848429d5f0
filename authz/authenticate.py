"""The `authz.authenticate` step: a Bearer JWT in, an Identity out, or a 401 that says why.

Algorithms come from an allowlist, keys from config (HMAC secrets from the
environment, PEM files), a JWKS file or a JWKS URL (jwks.py: fetched on the
event loop, kept fresh, failing closed); a key is only ever tried for its own
algorithm, so a token cannot pick HS256 and have an RSA public key used as
its secret. `iss`, `aud`, `exp` (and whatever `require` lists) must be
present; `nbf` is honoured; `leeway_s` absorbs clock skew. Verified tokens are
remembered by digest until they expire, so an agent's hundredth call does
not pay for an RSA verification again; one verified with a fetched key is
checked again when the fetched set changes, and refused while no set within
its time can be had. Every 401's challenge says what to send (`error`,
`error_description`) and names the resource's metadata (`resource_metadata`,
RFC 9728) when `authz.resource` is set.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from typing import Any

import jwt
import structlog
from pydantic import Field

from taskgate.errors import TaskgateError
from taskgate.plugins import REQUEST, Inputs, Params, Reject, Services, Step
from taskgate.plugins.principals import KEEPER

from .config import AuthzConfig, JwtConfig
from .identity import IDENTITY, Identity, IdentityKeeper, words
from .jwks import RETRY_S, JwksUnavailable, RemoteJwks
from .resource import challenge

log = structlog.get_logger("taskgate.authz")
ANONYMOUS = "anonymous"  # the issuer an anonymous caller's identity names, and its subject's namespace
MCP_PATH = "/mcp"  # the one place anonymous callers reach: tasks, Responses and the tool loop need a token

_REASONS: list[tuple[type[Exception], str, str]] = [
    (jwt.ExpiredSignatureError, "token_expired", "the token has expired"),
    (jwt.ImmatureSignatureError, "token_not_yet_valid", "the token is not valid yet (nbf or iat in the future)"),
    (jwt.InvalidAudienceError, "token_wrong_audience", "the token is not meant for this gateway (aud)"),
    (jwt.InvalidIssuerError, "token_wrong_issuer", "the token's issuer is not trusted (iss)"),
    (jwt.MissingRequiredClaimError, "token_missing_claim", "the token lacks a required claim"),
    (jwt.InvalidSignatureError, "token_bad_signature", "the token's signature does not verify"),
    (jwt.InvalidAlgorithmError, "token_algorithm_refused", "the token's algorithm is not accepted"),
    (jwt.InvalidKeyError, "token_algorithm_refused", "the token's algorithm does not fit its key"),
    (jwt.DecodeError, "token_malformed", "the token is not a well-formed JWT"),
]


class Unauthenticated(Reject):
    def __init__(self, code: str, message: str, detail: str, metadata_url: str | None = None):
        # RFC 6750 would leave a request that sent no token without an error code; a client that meets the 401 (an
        # agent runtime shows "HTTP 401" and nothing else) is better told what to send: invalid_request, and how
        error = "invalid_request" if code == "token_missing" else "invalid_token"
        super().__init__(
            401, code, message, "authentication_error",
            headers={"WWW-Authenticate": challenge(metadata_url, error, message)},
            details={"authentication": {"reason": detail}},
        )  # fmt: skip
        self.detail = detail

    def pointing_to(self, metadata_url: str | None) -> Unauthenticated:
        """The same refusal, its challenge naming the resource's metadata."""
        return Unauthenticated(self.code, self.message, self.detail, metadata_url)


def _keys_unavailable(exc: JwksUnavailable) -> Reject:
    return Reject(
        503, "token_keys_unavailable",
        f"the keys that verify tokens cannot be fetched right now; retry in {RETRY_S:g} s", "api_error",
        headers={"Retry-After": f"{RETRY_S:g}"}, details={"authentication": {"reason": f"jwks: {exc}"[:300]}},
    )  # fmt: skip


Cached = tuple[Identity, int | None]  # the identity, and the fetched set's generation that verified it (None: config)


class Authenticator:
    """Verifies tokens against one JwtConfig; shared by the OpenAI and MCP surfaces."""

    def __init__(self, config: JwtConfig, remote: RemoteJwks | None = None, metadata_url: str | None = None):
        self.config, self.remote, self.metadata_url = config, remote, metadata_url
        self._cache: OrderedDict[bytes, Cached] = OrderedDict()

    async def identify(self, authorization: str | None) -> Identity:
        try:
            return await self._identify(authorization)
        except Unauthenticated as refused:
            raise refused.pointing_to(self.metadata_url) from None
        except JwksUnavailable as exc:  # fail closed: nothing is verified against a key set past its time
            raise _keys_unavailable(exc) from None

    async def _identify(self, authorization: str | None) -> Identity:
        token = _bearer(authorization)
        digest = hashlib.blake2b(token.encode(), digest_size=16).digest()
        known = self._cache.get(digest)
        if known is not None and await self._current(known):
            return known[0]
        identity, generation = await self._verify(token)
        if self.config.cache_entries:
            self._cache[digest] = (identity, generation)
            while len(self._cache) > self.config.cache_entries:
                self._cache.popitem(last=False)
        return identity

    async def _current(self, known: Cached) -> bool:
        """Whether a remembered identity still holds: unexpired, and its key from config or an unchanged fetched set."""
        identity, generation = known
        if identity.expires_at + self.config.leeway_s <= time.time():
            return False
        return generation is None or (self.remote is not None and await self.remote.fresh() == generation)

    async def _verify(self, token: str) -> Cached:
        config = self.config
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise Unauthenticated("token_malformed", "the token is not a well-formed JWT", type(exc).__name__) from None
        algorithm, kid = str(header.get("alg")), header.get("kid")
        if algorithm not in config.algorithms:
            raise Unauthenticated(
                "token_algorithm_refused", "the token's algorithm is not accepted", f"alg {algorithm!r} not allowed"
            )
        key_id = kid if isinstance(kid, str) else None
        keys, generation = config.candidates(key_id, algorithm), None
        if not keys and self.remote is not None and algorithm != "HS256":  # a fetched set holds no secrets
            keys, generation = await self.remote.keys(key_id, algorithm)
        if not keys:
            raise Unauthenticated(
                "token_unknown_key", "no key verifies this token", f"no {algorithm} key for kid {kid!r}"
            )
        claims: dict[str, Any] | None = None
        error: Exception | None = None
        for key in keys:
            try:
                claims = jwt.decode(
                    token, key, algorithms=[algorithm], audience=config.audience, issuer=config.issuer,
                    leeway=config.leeway_s, options={"require": config.require},
                )  # fmt: skip
                break
            except jwt.InvalidSignatureError as exc:
                error = exc  # another key of the same algorithm may fit
            except jwt.PyJWTError as exc:
                error = exc
                break
        if claims is None:
            raise _refusal(error)
        return self._identity(claims, algorithm, key_id), generation

    def _identity(self, claims: dict[str, Any], algorithm: str, kid: str | None) -> Identity:
        names = self.config.claims
        subject = claims.get("sub")
        tenant = claims.get(names.tenant)
        if not isinstance(subject, str) or not subject:
            raise Unauthenticated("token_missing_claim", "the token names no subject", "sub missing or not a string")
        if subject.startswith(("role:", "profile:")):  # those names are the policy's principals, not people
            raise Unauthenticated(
                "token_bad_subject", "the token's subject is not a valid user name", f"sub {subject!r}"
            )
        if not isinstance(tenant, str) or not tenant:
            raise Unauthenticated("token_missing_claim", "the token names no tenant", f"{names.tenant} missing")
        labelled = tuple((name, value) for name in names.labelled for value in _claim_values(claims.get(name)))
        return Identity(
            subject, tenant, words(claims.get(names.roles)), words(claims.get(names.scopes)),
            str(claims.get("iss")), kid, algorithm, float(claims.get("exp", time.time())), labelled,
        )  # fmt: skip


def _bearer(authorization: str | None) -> str:
    if not authorization:
        raise Unauthenticated("token_missing", "send a bearer token in the Authorization header", "no Authorization")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(
            "token_missing", "the Authorization header must be 'Bearer <token>'", f"scheme {scheme!r}"
        )
    token = token.strip()
    if not (token.isascii() and token.isprintable()) or " " in token:
        raise Unauthenticated(
            "token_malformed", "the bearer token must be printable ASCII (a JWT)", "non-ASCII or control characters"
        )
    return token


def _refusal(error: Exception | None) -> Unauthenticated:
    for kind, code, message in _REASONS:
        if isinstance(error, kind):
            return Unauthenticated(code, message, f"{type(error).__name__}: {error}"[:200])
    return Unauthenticated("token_invalid", "the token is not valid", type(error).__name__ if error else "unknown")


def authenticator(services: Services) -> Authenticator:
    """The app's one Authenticator (its cache of verified tokens is shared by every surface)."""
    config = services.section("authz", AuthzConfig)
    if config.jwt is None:
        raise TaskgateError("authentication needs the `authz.jwt` section: issuer, audience, keys")
    jwt_config, resource = config.jwt, config.resource
    metadata = resource.metadata_url if resource is not None else None
    found: Authenticator = services.shared(
        "authz.authenticator", lambda: Authenticator(jwt_config, _remote(jwt_config, services), metadata)
    )
    if found.remote is not None:
        services.lifespan("authz.jwks", found.remote.running)
    services.shared(KEEPER, IdentityKeeper)  # how its callers are kept for later work (a batch job's items)
    return found


def _remote(config: JwtConfig, services: Services) -> RemoteJwks | None:
    """The identity provider's key set by URL, fetched with the app's HTTP session; none without `jwks_url`."""
    if config.jwks_url is None:
        return None
    return RemoteJwks(
        config.jwks_url, [a for a in config.algorithms if a != "HS256"], config.jwks_ttl_s,
        config.jwks_refetch_interval_s, config.jwks_timeout_s, lambda: services.http,
    )  # fmt: skip


class Anonymous(Params):
    """Who a caller that sends no token is, when an operator lets such callers in (off by default)."""

    subject: str = Field(min_length=1, max_length=256)  # served as anonymous:SUBJECT, never as a user
    tenant: str = Field(min_length=1, max_length=256)
    roles: list[str] = Field(default_factory=list)  # its tasks' profile: the policy's pin rows, else the default


class AuthenticateParams(Params):
    anonymous: Anonymous | None = None


class AuthenticateStep(Step[AuthenticateParams]):
    """Provides `identity` from the request's bearer token; refuses with 401 otherwise. With `anonymous`, a
    request to the MCP gateway with no Authorization header at all is that configured caller, its subject
    `anonymous:SUBJECT` so it is never a user a token names (a token that fails is still a 401)."""

    type = "authz.authenticate"
    requires = (REQUEST,)
    provides = IDENTITY
    Params = AuthenticateParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.authenticator = authenticator(self.services)
        caller = self.params.anonymous
        self.anonymous = (
            Identity(
                f"{ANONYMOUS}:{caller.subject}",
                caller.tenant,
                tuple(caller.roles),
                (),
                ANONYMOUS,
                None,
                "none",
                float("inf"),
            )
            if caller is not None
            else None
        )
        if caller is not None:
            log.warning("anonymous_callers", step=self.name, subject=caller.subject, tenant=caller.tenant)

    async def run(self, inputs: Inputs) -> Identity:
        context = inputs[REQUEST]
        authorization = context.headers.get("Authorization")
        if authorization is None and self.anonymous is not None and context.path == MCP_PATH:
            return self.anonymous
        return await self.authenticator.identify(authorization)


def _claim_values(claim: Any) -> list[str]:
    """A labelled claim's values: a string or number, or a list of them."""
    items = claim if isinstance(claim, list) else [claim]
    return [str(v) for v in items if isinstance(v, str | int) and not isinstance(v, bool)]
