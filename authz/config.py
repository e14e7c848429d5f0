"""The `authz` config section: who signs the tokens callers present, the resource they name, the policy, tasks
and the keys of task tokens."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import jwt
from pydantic import Field, PrivateAttr, field_validator, model_validator

from taskgate.plugins import Params
from taskgate.plugins.redis import RedisUrl

from .conversations import ConversationConfig
from .jwks import JwksError, Key, usable_keys
from .keys import SigningAlgorithm, SigningKey, asymmetric, load_private, load_public, secret
from .resource import ResourceConfig

Algorithm = Literal["HS256", "RS256", "ES256"]
_FAMILY = {"HS256": "oct", "RS256": "RSA", "ES256": "EC"}
DEFAULT_ALGORITHMS: tuple[Algorithm, ...] = ("RS256", "ES256")


class KeyConfig(Params):
    """One verification key: an HMAC secret from the environment, or a PEM public key file."""

    kid: str | None = None  # matched against the token header's kid; none: tried for every token of its algorithm
    algorithm: Algorithm
    secret_env: str | None = None  # HS256: the environment variable holding the secret
    public_key_file: Path | None = None  # RS256 / ES256: PEM

    _key: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _load(self) -> KeyConfig:
        if self.algorithm == "HS256":
            if not self.secret_env or self.public_key_file is not None:
                raise ValueError("an HS256 key needs `secret_env` (and no public_key_file)")
            self._key = env_secret(self.secret_env)
            return self
        if self.public_key_file is None or self.secret_env is not None:
            raise ValueError(f"an {self.algorithm} key needs `public_key_file` (and no secret_env)")
        try:
            pem = self.public_key_file.read_bytes()
            self._key = jwt.algorithms.get_default_algorithms()[self.algorithm].prepare_key(pem)
        except OSError as exc:
            raise ValueError(f"cannot read {self.public_key_file}: {exc.strerror or exc}") from None
        except (ValueError, TypeError, jwt.InvalidKeyError) as exc:
            raise ValueError(f"{self.public_key_file} is not a PEM {self.algorithm} public key: {exc}") from None
        return self

    @property
    def key(self) -> Any:
        return self._key


class ClaimNames(Params):
    """Where the identity is in the token's claims."""

    tenant: str = "tenant"
    roles: str = "roles"  # a list of role names, or a space-separated string
    scopes: str = "scope"  # OAuth style: space-separated; a list works too
    labelled: list[str] = Field(default_factory=list)  # claims whose values tasks trust (label `claims`): email


class JwtConfig(Params):
    issuer: str | list[str]
    audience: str | None = None  # default: authz.resource.id, which it must equal when both are given
    algorithms: list[Algorithm] = Field(default_factory=lambda: list(DEFAULT_ALGORITHMS), min_length=1)
    keys: list[KeyConfig] = Field(default_factory=list)
    jwks_file: Path | None = None
    jwks_url: str | None = None  # the identity provider's JWKS, fetched and kept fresh (jwks.py)
    jwks_ttl_s: float = Field(default=600, gt=0, le=86_400)  # a fetched set's life at most (max-age may shorten it)
    jwks_refetch_interval_s: float = Field(default=30, gt=0, le=3600)  # at most one refetch per this for a new kid
    jwks_timeout_s: float = Field(default=5, gt=0, le=60)
    leeway_s: float = Field(default=30.0, ge=0, le=300)
    require: list[str] = Field(default_factory=lambda: ["exp", "iss", "aud", "sub"])
    claims: ClaimNames = Field(default_factory=ClaimNames)
    cache_entries: int = Field(default=10_000, ge=0)  # verified tokens remembered until they expire

    _jwks: list[Key] = PrivateAttr(default_factory=list)

    @field_validator("jwks_file")
    @classmethod
    def _readable(cls, path: Path | None) -> Path | None:
        if path is not None and not path.is_file():
            raise ValueError(f"{path} is not a readable file")
        return path

    @field_validator("jwks_url")
    @classmethod
    def _url(cls, url: str | None) -> str | None:
        if url is None:
            return url
        parts = urlsplit(url)
        if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"jwks_url {url!r}: keys that verify callers come over https (plain http: loopback only)")
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError(f"jwks_url must be an https URL, not {url!r}")
        return url

    @model_validator(mode="after")
    def _keys(self) -> JwtConfig:
        if self.audience is None:
            raise ValueError("give `audience` (what callers' tokens must name in aud) or set authz.resource.id")
        if self.jwks_file is not None:
            try:
                document = json.loads(self.jwks_file.read_text(encoding="utf-8"))
                self._jwks.extend(usable_keys(document, set(_FAMILY), secrets=True))
            except (OSError, ValueError, JwksError) as exc:
                raise ValueError(f"jwks_file {self.jwks_file}: {exc}") from None
        if not self.keys and not self._jwks and self.jwks_url is None:
            raise ValueError("give at least one verification key (`keys`, `jwks_file` or `jwks_url`)")
        allowed = set(self.algorithms)
        for index, key in enumerate(self.keys):
            if key.algorithm not in allowed:
                raise ValueError(f"keys[{index}] is {key.algorithm}, which `algorithms` does not allow")
        return self

    def candidates(self, kid: str | None, algorithm: str) -> list[Any]:
        """The configured keys that may verify a token with this header: its algorithm, and its kid if it has one."""
        found = [k.key for k in self.keys if k.algorithm == algorithm and (kid is None or k.kid in (None, kid))]
        found += [k.key for k in self._jwks if k.algorithm == algorithm and (kid is None or k.kid == kid)]
        return found

    def issuers(self) -> list[str]:
        return [self.issuer] if isinstance(self.issuer, str) else list(self.issuer)


class PolicyConfig(Params):
    """The Casbin model and policy files; reloaded when the policy file changes."""

    model: Path | None = None  # default: the documented model shipped with taskgate (authz/model.conf)
    file: Path
    # the file must end with its seal (`taskgate policy seal FILE`); false only where every writer renames into place
    require_seal: bool = True
    reload_interval_s: float = Field(default=1.0, ge=0)  # how often the file's mtime is checked; 0: never
    redis_url: RedisUrl | None = None  # replicas announce reloads on a channel; each reloads its own file
    channel: str = "taskgate:policy"

    @field_validator("file", "model")
    @classmethod
    def _exists(cls, path: Path | None) -> Path | None:
        if path is not None and not path.is_file():
            raise ValueError(f"{path} is not a readable file")
        return path


_KEY_SOURCES = ("private_key_file", "private_key_env", "public_key_file", "secret_env")


class TaskKeyConfig(Params):
    """A key of task tokens: ES256 or EdDSA from a PEM (a file or an environment variable), or an HS256 secret."""

    kid: str = Field(pattern=r"^[A-Za-z0-9._:-]{1,64}$")
    algorithm: SigningAlgorithm = "ES256"
    private_key_file: Path | None = None  # PEM: EC P-256 (ES256) or Ed25519 (EdDSA)
    private_key_env: str | None = None  # the same PEM in an environment variable
    public_key_file: Path | None = None  # a retired key: it verifies the tokens it signed, and signs none
    secret_env: str | None = None  # HS256: 32+ characters; never published, so only taskgate can check the tokens

    _key: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _load(self) -> TaskKeyConfig:
        given = [n for n in _KEY_SOURCES if getattr(self, n)]
        if self.algorithm == "HS256":
            if given != ["secret_env"]:
                raise ValueError("an HS256 key needs `secret_env` and nothing else")
            self._key = secret(self.kid, env_secret(str(self.secret_env)))
            return self
        if len(given) != 1 or given == ["secret_env"]:
            raise ValueError(
                f"an {self.algorithm} key needs one of private_key_file, private_key_env or public_key_file"
            )
        self._key = self._asymmetric(given[0])
        return self

    def _asymmetric(self, source: str) -> SigningKey:
        where = f"{source} {getattr(self, source)}"
        try:
            if source == "private_key_env":
                pem = os.environ.get(str(self.private_key_env), "").replace("\\n", "\n").encode()
                if not pem:
                    raise ValueError("the environment variable is not set")
                return asymmetric(self.kid, self.algorithm, private=load_private(pem, self.algorithm))
            pem = Path(getattr(self, source)).read_bytes()
            if source == "private_key_file":
                return asymmetric(self.kid, self.algorithm, private=load_private(pem, self.algorithm))
            return asymmetric(self.kid, self.algorithm, public=load_public(pem, self.algorithm))
        except OSError as exc:
            raise ValueError(f"cannot read {where}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    @property
    def key(self) -> SigningKey:
        found: SigningKey = self._key
        return found


class TaskConfig(Params):
    """Task ids, task tokens (signed by taskgate) and where revocations live."""

    header: str = "x-taskgate-task"  # a caller-chosen task id; absent: taskgate mints one
    token_header: str = "x-taskgate-task-token"  # where a task token is presented and returned
    narrow_header: str = "x-taskgate-tools"  # comma-separated tool patterns the caller narrows the grant to
    keys: list[TaskKeyConfig] = Field(default_factory=list)  # none: an ES256 key made at start-up (one replica)
    signer: str | None = None  # the kid that signs new tokens; default: the first key; the others only verify
    signing_secret_env: str | None = None  # shorthand for one HS256 key (kid `hs256`) whose secret is there
    issuer: str = "taskgate"
    ttl_s: int = Field(default=900, ge=10, le=86_400)
    store: Literal["memory", "redis"] = "memory"
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = Field(default="taskgate:task:", min_length=1)  # of its keys: one per deployment sharing a Redis
    timeout_ms: float = Field(default=500.0, gt=0, le=60_000)  # a store slower than this cannot decide: 503
    max_tasks: int = Field(default=100_000, ge=1)  # memory store: oldest tasks forgotten first
    approval_header: str = "x-taskgate-approval"  # an approved hold's id, on the retried call (or `_meta`)
    approval_scope: str | None = "taskgate:approve"  # a hold is answered only with a token carrying it; None: any
    hold_ttl_s: float = Field(default=600, gt=0, le=86_400)  # a held call waits this long for its user's answer
    public_url: str | None = None  # where clients reach taskgate, for approval links; default: the request's host
    conversations: ConversationConfig = Field(default_factory=ConversationConfig)  # runtimes' tasks recognised

    _keys: list[SigningKey] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _ring(self) -> TaskConfig:
        if self.signing_secret_env is not None and self.keys:
            raise ValueError("give `keys` or `signing_secret_env` (one HS256 key), not both")
        keys = [k.key for k in self.keys]
        if self.signing_secret_env is not None:
            keys = [secret("hs256", env_secret(self.signing_secret_env))]
        kids = [k.kid for k in keys]
        for index, kid in enumerate(kids):
            if kid in kids[:index]:
                raise ValueError(f"keys[{index}].kid: {kid!r} is used twice; each key needs its own kid")
        if self.signer is not None and self.signer not in kids:
            raise ValueError(f"signer: no key has the kid {self.signer!r} (keys: {kids})")
        chosen = next((k for k in keys if k.kid == (self.signer or kids[0])), None) if keys else None
        if chosen is not None and chosen.signer is None:
            raise ValueError(f"signer: key {chosen.kid!r} has only a public_key_file; the signer needs its private key")
        self._keys = keys
        return self

    @property
    def signing_keys(self) -> list[SigningKey]:
        """The configured keys of task tokens (empty: taskgate makes one at start-up)."""
        return list(self._keys)

    @property
    def signer_kid(self) -> str | None:
        return self.signer or (self._keys[0].kid if self._keys else None)


class AssertionConfig(Params):
    """The per-task assertions upstream MCP servers receive: ES256 JWTs, verifiable from /.well-known/jwks.json."""

    enabled: bool = True
    private_key_file: Path | None = None  # PEM EC P-256; none: a key made at start-up (one replica only)
    issuer: str = "taskgate"
    ttl_s: int = Field(default=60, ge=5, le=3600)

    @field_validator("private_key_file")
    @classmethod
    def _readable_key(cls, path: Path | None) -> Path | None:
        if path is not None and not path.is_file():
            raise ValueError(f"{path} is not a readable file")
        return path


class AuthzConfig(Params):
    jwt: JwtConfig | None = None
    resource: ResourceConfig | None = None
    policy: PolicyConfig | None = None
    tasks: TaskConfig | None = None
    assertions: AssertionConfig = Field(default_factory=AssertionConfig)

    @model_validator(mode="before")
    @classmethod
    def _audience_is_the_resource(cls, data: Any) -> Any:
        """jwt.audience defaults to resource.id: the tokens taskgate accepts are the ones issued for it (RFC 8707)."""
        if not isinstance(data, dict):
            return data
        jwt_section, resource = data.get("jwt"), data.get("resource")
        resource_id = resource.get("id") if isinstance(resource, dict) else None
        if isinstance(jwt_section, dict) and "audience" not in jwt_section and isinstance(resource_id, str):
            return {**data, "jwt": {**jwt_section, "audience": resource_id}}
        return data

    @model_validator(mode="after")
    def _resource_is_the_audience(self) -> AuthzConfig:
        if self.resource is None:
            return self
        if self.jwt is None:
            raise ValueError("resource needs the `jwt` section: it says who issues the tokens for the resource")
        if self.jwt.audience != self.resource.id:
            raise ValueError(
                f"jwt.audience ({self.jwt.audience!r}) must be resource.id ({self.resource.id!r}): tokens are "
                "issued for the resource (RFC 8707); leave jwt.audience out and it is the resource id"
            )
        return self

    @model_validator(mode="after")
    def _distinct_secrets(self) -> AuthzConfig:
        """taskgate's own signing secret must not also verify callers' tokens (or the reverse)."""
        jwt_keys = self.jwt.keys if self.jwt is not None else []
        task_secrets = [k.verifier for k in self.tasks.signing_keys if k.algorithm == "HS256"] if self.tasks else []
        if any(k.algorithm == "HS256" and k.key in task_secrets for k in jwt_keys):
            raise ValueError("a task key's secret (tasks) is also an HS256 key of jwt.keys; use another")
        return self


def env_secret(name: str) -> bytes:
    """An HMAC secret from the environment: 32 characters at least."""
    value = os.environ.get(name, "")
    if len(value) < 32:
        raise ValueError(f"environment variable {name} must hold a secret of at least 32 characters")
    return value.encode()
