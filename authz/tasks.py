"""Tasks and task tokens: short-lived JWTs taskgate signs, bound to subject, tenant and task, narrow-only.

A token carries its grant's definition (GrantSpec): profile, roles, tool
scopes and narrowing layers. Exchanging it adds a narrowing layer and never
removes one, so a token can only ever get narrower. The task store keeps each
task's owner, intent profile and trusted input (the user's instruction, for
provenance checks) and its revocation, in memory or in Redis for replicas.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import OrderedDict
from dataclasses import asdict, dataclass

import jwt

from taskgate.errors import TaskgateError

from .config import TaskConfig
from .grant import GrantSpec

AUDIENCE = "taskgate-task"


class TaskTokenError(TaskgateError):
    """A task token that cannot be used; `code` is stable, the message says why."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True, slots=True)
class TaskInfo:
    subject: str
    tenant: str
    profile: str
    purpose: str | None  # the task's trusted input: the user's own instruction
    created: float


class TaskTokens:
    def __init__(self, config: TaskConfig):
        self.config = config

    def mint(self, spec: GrantSpec, not_after: float | None = None) -> tuple[str, float]:
        """A token for `spec`, valid for ttl_s (and never past `not_after`: an exchange cannot extend a token)."""
        now = time.time()
        expires = now + self.config.ttl_s if not_after is None else min(now + self.config.ttl_s, not_after)
        claims = {
            "iss": self.config.issuer, "aud": AUDIENCE, "sub": spec.subject, "tenant": spec.tenant,
            "task": spec.task, "profile": spec.profile, "roles": list(spec.roles), "scopes": list(spec.scopes),
            "narrowing": [list(layer) for layer in spec.narrowing], "jti": uuid.uuid4().hex,
            "iat": int(now), "exp": int(expires),
        }  # fmt: skip
        return jwt.encode(claims, self.config.secret, algorithm="HS256"), expires

    def verify(self, token: str) -> tuple[GrantSpec, float]:
        try:
            claims = jwt.decode(
                token, self.config.secret, algorithms=["HS256"], audience=AUDIENCE, issuer=self.config.issuer,
                options={"require": ["exp", "iss", "aud", "sub", "task"]},
            )  # fmt: skip
        except jwt.ExpiredSignatureError:
            raise TaskTokenError(401, "task_token_expired", "the task token has expired") from None
        except jwt.PyJWTError as exc:
            raise TaskTokenError(
                401, "task_token_invalid", f"the task token is not valid ({type(exc).__name__})"
            ) from None
        try:
            spec = GrantSpec(
                str(claims["task"]), str(claims["sub"]), str(claims["tenant"]), str(claims["profile"]),
                tuple(claims.get("roles") or ()), tuple(claims.get("scopes") or ()),
                tuple(tuple(str(t) for t in layer) for layer in claims.get("narrowing") or ()),
            )  # fmt: skip
        except (KeyError, TypeError) as exc:
            raise TaskTokenError(401, "task_token_invalid", f"the task token lacks {exc}") from None
        return spec, float(claims["exp"])


def task_key(tenant: str, subject: str, task: str) -> str:
    """Task ids live in their owner's namespace: nobody can reach, claim or revoke another's task."""
    return json.dumps([tenant, subject, task], separators=(",", ":"))


class MemoryTaskStore:
    """Tasks and revocations of this replica; the oldest tasks are forgotten past `max_tasks`.

    Revocations are kept apart from tasks, until the tokens they cancel expire,
    so forgetting a task never forgets that it was revoked.
    """

    def __init__(self, max_tasks: int):
        self._tasks: OrderedDict[str, TaskInfo] = OrderedDict()
        self._revoked: dict[str, float] = {}
        self._max = max_tasks

    async def get(self, key: str) -> TaskInfo | None:
        return self._tasks.get(key)

    async def put(self, key: str, info: TaskInfo, ttl_s: float) -> bool:
        """Store `info` unless the task exists; whether this call created it."""
        if key in self._tasks:
            return False
        self._tasks[key] = info
        while len(self._tasks) > self._max:
            self._tasks.popitem(last=False)
        return True

    async def revoke(self, key: str, until: float) -> None:
        self._revoked[key] = until
        now = time.time()
        for stale in [k for k, t in self._revoked.items() if t < now]:
            del self._revoked[stale]

    async def revoked(self, key: str) -> bool:
        until = self._revoked.get(key)
        return until is not None and until >= time.time()

    async def close(self) -> None:
        return None


class RedisTaskStore:
    """Tasks and revocations in Redis, so every replica sees a revocation on its next call."""

    def __init__(self, url: str, prefix: str = "taskgate:task:"):
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._prefix = prefix

    async def get(self, key: str) -> TaskInfo | None:
        raw = await self._redis.get(self._prefix + key)
        return TaskInfo(**json.loads(raw)) if raw else None

    async def put(self, key: str, info: TaskInfo, ttl_s: float) -> bool:
        return bool(await self._redis.set(self._prefix + key, json.dumps(asdict(info)), nx=True, ex=max(1, int(ttl_s))))

    async def revoke(self, key: str, until: float) -> None:
        await self._redis.set(self._prefix + "revoked:" + key, "1", ex=max(1, int(until - time.time()) + 1))

    async def revoked(self, key: str) -> bool:
        return bool(await self._redis.exists(self._prefix + "revoked:" + key))

    async def close(self) -> None:
        await self._redis.aclose()


def new_task_id() -> str:
    return uuid.uuid4().hex
