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
from typing import Any

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

    def mint(self, spec: GrantSpec) -> tuple[str, float]:
        now = time.time()
        expires = now + self.config.ttl_s
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


class MemoryTaskStore:
    """Tasks and revocations of this replica; the oldest tasks are forgotten past `max_tasks`."""

    def __init__(self, max_tasks: int):
        self._tasks: OrderedDict[str, TaskInfo] = OrderedDict()
        self._revoked: dict[str, float] = {}
        self._max = max_tasks

    async def get(self, task: str) -> TaskInfo | None:
        return self._tasks.get(task)

    async def put(self, task: str, info: TaskInfo, ttl_s: float) -> TaskInfo:
        """Store `info` unless the task exists; returns what is stored."""
        existing = self._tasks.get(task)
        if existing is not None:
            return existing
        self._tasks[task] = info
        while len(self._tasks) > self._max:
            self._tasks.popitem(last=False)
        return info

    async def revoke(self, task: str, until: float) -> None:
        self._revoked[task] = until
        now = time.time()
        for key in [k for k, t in self._revoked.items() if t < now]:
            del self._revoked[key]

    async def revoked(self, task: str) -> bool:
        until = self._revoked.get(task)
        return until is not None and until >= time.time()

    async def close(self) -> None:
        return None


class RedisTaskStore:
    """Tasks and revocations in Redis, so every replica sees a revocation on its next call."""

    def __init__(self, url: str, prefix: str = "taskgate:task:"):
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self._prefix = prefix

    async def get(self, task: str) -> TaskInfo | None:
        raw = await self._redis.get(self._prefix + task)
        return TaskInfo(**json.loads(raw)) if raw else None

    async def put(self, task: str, info: TaskInfo, ttl_s: float) -> TaskInfo:
        key = self._prefix + task
        if await self._redis.set(key, json.dumps(asdict(info)), nx=True, ex=max(1, int(ttl_s))):
            return info
        return await self.get(task) or info

    async def revoke(self, task: str, until: float) -> None:
        await self._redis.set(self._prefix + task + ":revoked", "1", ex=max(1, int(until - time.time()) + 1))

    async def revoked(self, task: str) -> bool:
        return bool(await self._redis.exists(self._prefix + task + ":revoked"))

    async def close(self) -> None:
        await self._redis.aclose()


def new_task_id() -> str:
    return uuid.uuid4().hex


def token_claims(token: str) -> dict[str, Any]:
    """The unverified claims of a token, for messages only; never for decisions."""
    try:
        return dict(jwt.decode(token, options={"verify_signature": False}))
    except jwt.PyJWTError:
        return {}
