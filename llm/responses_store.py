"""Where Responses are kept: for `previous_response_id` and `GET /v1/responses/{id}`, in memory or in Redis.

A kept response belongs to the caller that created it (tenant and subject;
one owner for all when no plan authenticates): another caller asking for it
is told it does not exist. Each holds what its follow-up continues, the
conversation as the engine saw it, so a chain costs one read per turn.
Records expire after `ttl_s`. In memory, at most `max_responses` are kept
and at most `per_caller` of one caller's, the oldest forgotten first; a
conversation longer than `max_chars` is answered but not kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from pydantic import Field

from taskgate.errors import TaskgateError
from taskgate.plugins import FAILURES, Evidence, Params, Principal, Problem
from taskgate.plugins.redis import RedisUrl, connect

SECTION = "responses"


class ResponsesConfig(Params):
    """The `responses` section: how long and how many Responses are kept, and where."""

    store: Literal["memory", "redis"] = "memory"
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"
    key_prefix: str = "taskgate:response:"
    ttl_s: float = Field(default=3600.0, gt=0)
    max_responses: int = Field(default=4096, ge=1)  # memory: kept at once, the oldest forgotten first
    per_caller: int = Field(default=256, ge=1)  # memory: of those, one caller's; their own oldest go first
    max_chars: int = Field(default=2_000_000, ge=1024)  # a longer conversation is answered, not kept


@dataclass(frozen=True)
class Kept:
    """A response as kept: what GET returns, and the conversation a follow-up continues."""

    id: str
    chain: str  # the id of the chain's first response: routing keeps the chain's turns on one endpoint
    response: dict[str, Any]
    messages: list[dict[str, Any]]  # chat messages as the engine saw them, this answer included; no instructions
    endpoint: str | None  # where it ran
    task: str | None  # the task it ran under, if one was granted


class ResponseStoreUnavailable(TaskgateError):
    """The store of kept responses cannot be reached."""


@FAILURES.explains(ResponseStoreUnavailable)
def _unavailable(exc: ResponseStoreUnavailable, evidence: Evidence) -> Problem:
    message = "the store of kept responses is unavailable; retry, or resend the conversation without it"
    return Problem(503, "response_store_unavailable", message, "api_error", detail=str(exc), cite=True)


def owner_of(identity: Principal | None) -> str:
    """The key of whom a response belongs to: a hash of tenant and subject, or one owner if none authenticated."""
    if identity is None:
        return "anonymous"
    who = f"{identity.tenant}\x00{identity.subject}".encode()
    return hashlib.blake2b(who, digest_size=16).hexdigest()


class Store(Protocol):
    async def get(self, owner: str, response_id: str) -> Kept | None: ...

    async def put(self, owner: str, kept: Kept) -> None: ...

    async def close(self) -> None: ...


class MemoryStore:
    """Kept responses in this process, bounded in count (overall and per caller) and in time."""

    def __init__(self, config: ResponsesConfig):
        self.ttl_s, self.limit, self.per_caller = config.ttl_s, config.max_responses, config.per_caller
        self._kept: OrderedDict[str, tuple[float, str, Kept]] = OrderedDict()  # id -> (expires, owner, kept)
        self._owned: dict[str, OrderedDict[str, None]] = {}  # owner -> their ids, oldest first

    async def get(self, owner: str, response_id: str) -> Kept | None:
        self._expire(time.monotonic())
        found = self._kept.get(response_id)
        return found[2] if found is not None and found[1] == owner else None

    async def put(self, owner: str, kept: Kept) -> None:
        self._expire(time.monotonic())
        self._kept[kept.id] = (time.monotonic() + self.ttl_s, owner, kept)
        mine = self._owned.setdefault(owner, OrderedDict())
        mine[kept.id] = None
        while len(mine) > self.per_caller:
            self._forget(next(iter(mine)))
        while len(self._kept) > self.limit:
            self._forget(next(iter(self._kept)))

    def _expire(self, now: float) -> None:
        while self._kept and next(iter(self._kept.values()))[0] <= now:  # kept in order of expiry: one TTL
            self._forget(next(iter(self._kept)))

    def _forget(self, response_id: str) -> None:
        _, owner, _ = self._kept.pop(response_id)
        mine = self._owned[owner]
        del mine[response_id]
        if not mine:
            del self._owned[owner]

    async def close(self) -> None:
        return None


class RedisStore:
    """Kept responses in Redis, so any replica continues a chain; each record expires on its own (no count bound)."""

    def __init__(self, config: ResponsesConfig):
        self._redis = connect(config.redis_url)  # retried once on a pooled connection a restart closed
        self.prefix, self.ttl_s = config.key_prefix, config.ttl_s

    async def get(self, owner: str, response_id: str) -> Kept | None:
        with _reached("read"):
            raw = await self._redis.get(self._key(owner, response_id))
        return _loaded(raw)

    async def put(self, owner: str, kept: Kept) -> None:
        with _reached("write"):
            await self._redis.set(self._key(owner, kept.id), json.dumps(asdict(kept)), ex=max(1, int(self.ttl_s)))

    def _key(self, owner: str, response_id: str) -> str:
        return f"{self.prefix}{owner}:{response_id[:128]}"  # the owner in the key: no one reads another's

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a connection to a Redis that went away
            await self._redis.aclose()


@contextlib.contextmanager
def _reached(operation: str) -> Iterator[None]:
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise ResponseStoreUnavailable(f"could not {operation} a kept response: {exc}") from None


def _loaded(raw: bytes | str | None) -> Kept | None:
    """A kept record; one that cannot be read counts as gone."""
    if not raw:
        return None
    try:
        return Kept(**json.loads(raw))
    except (ValueError, TypeError):
        return None


def open_store(config: ResponsesConfig) -> Store:
    return RedisStore(config) if config.store == "redis" else MemoryStore(config)


def too_long(kept: Kept, max_chars: int) -> bool:
    """Whether a record is longer than the store keeps (its JSON, counted in characters)."""
    return len(json.dumps(kept.messages)) + len(json.dumps(kept.response)) > max_chars
