"""Tasks and task tokens: short-lived JWTs taskgate signs, bound to subject, tenant and task, narrow-only.

A token carries its grant's definition (GrantSpec): profile, roles, tool
scopes and narrowing layers. It is signed with the active key of the task
key ring (ES256 by default, with a kid; keys.py), and verified with whichever
key of the ring its kid names, so a rotated key keeps the tokens it signed
valid until they expire or it is removed. The ring's public keys are
published at /.well-known/jwks.json: a tool server or a sub-agent can check
a grant offline. Exchanging it adds a narrowing layer and never
removes one, so a token can only ever get narrower. The task store keeps each
task's owner, intent profile and trusted input (the user's instruction, for
provenance checks) and its revocation, in memory or in Redis for replicas.

A store that loses its data must not turn a revoked task into a valid one.
Each store has an epoch, made on first use (Redis: SET NX, so replicas share
it) and carried in every token it issues; a token whose epoch is not the
store's, or whose task the store no longer has, is refused. A Redis that
restarts empty, or a taskgate restarted with the memory store, therefore
refuses every earlier token: its tasks start again, fail closed. A store that
cannot be reached refuses with TaskStoreUnavailable (503, retry later).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import jwt
import structlog

from taskgate.plugins.redis import connect

from .config import TaskConfig
from .errors import TaskStoreUnavailable, TaskTokenError
from .grant import GrantSpec
from .keys import KeyRing, UnknownKey, generated

__all__ = [
    "AUDIENCE",
    "MemoryTaskStore",
    "RedisTaskStore",
    "TaskInfo",
    "TaskState",
    "TaskStoreUnavailable",
    "TaskToken",
    "TaskTokenError",
    "TaskTokens",
    "new_task_id",
    "task_key",
]
AUDIENCE = "taskgate-task"
TYPE = "taskgate-task-token+jwt"
log = structlog.get_logger("taskgate.authz")


@dataclass(frozen=True, slots=True)
class TaskInfo:
    subject: str
    tenant: str
    profile: str
    purpose: str | None  # the task's trusted input: the user's own instruction
    created: float


@dataclass(frozen=True, slots=True)
class TaskToken:
    """A verified task token: the grant it carries, when it expires, the store epoch it was issued in."""

    spec: GrantSpec
    expires: float
    epoch: str


@dataclass(frozen=True, slots=True)
class TaskState:
    """What the store knows of one task, read in one round trip."""

    epoch: str | None  # the store's epoch; None: it has none (it restarted empty and no task started since)
    revoked: bool  # the task, or one of its parents
    info: TaskInfo | None  # None: the store does not have the task (never, forgotten, or lost)
    data: tuple[str, ...] = ()  # what the task has seen (JSON records, oldest first): tool results, user turns


class TaskTokens:
    def __init__(self, config: TaskConfig):
        self.config = config
        self.ring = _ring(config)

    def mint(self, spec: GrantSpec, epoch: str, not_after: float | None = None) -> tuple[str, float]:
        """A token for `spec`, valid for ttl_s (and never past `not_after`: an exchange cannot extend a token)."""
        now = time.time()
        expires = now + self.config.ttl_s if not_after is None else min(now + self.config.ttl_s, not_after)
        claims = {
            "iss": self.config.issuer, "aud": AUDIENCE, "sub": spec.subject, "tenant": spec.tenant,
            "task": spec.task, "profile": spec.profile, "roles": list(spec.roles), "scopes": list(spec.scopes),
            "narrowing": [list(layer) for layer in spec.narrowing], "epoch": epoch, "jti": uuid.uuid4().hex,
            "iat": int(now), "exp": int(expires),
        }  # fmt: skip
        if spec.labels:
            claims["labels"] = list(spec.labels)
        if spec.parents:
            claims["parents"] = list(spec.parents)
        return self.ring.sign(claims), expires

    def verify(self, token: str) -> TaskToken:
        try:
            claims = self.ring.decode(
                token, AUDIENCE, self.config.issuer, ["exp", "iss", "aud", "sub", "task", "epoch"]
            )  # fmt: skip
        except jwt.ExpiredSignatureError:
            raise TaskTokenError(401, "task_token_expired", "the task token has expired") from None
        except UnknownKey:
            raise TaskTokenError(
                401, "task_token_invalid", "the task token is signed with a key taskgate no longer accepts"
            ) from None
        except jwt.PyJWTError as exc:
            raise TaskTokenError(
                401, "task_token_invalid", f"the task token is not valid ({type(exc).__name__})"
            ) from None
        try:
            spec = GrantSpec(
                str(claims["task"]), str(claims["sub"]), str(claims["tenant"]), str(claims["profile"]),
                tuple(claims.get("roles") or ()), tuple(claims.get("scopes") or ()),
                tuple(tuple(str(t) for t in layer) for layer in claims.get("narrowing") or ()),
                tuple(str(label) for label in claims.get("labels") or ()),
                tuple(str(parent) for parent in claims.get("parents") or ()),
            )  # fmt: skip
        except (KeyError, TypeError) as exc:
            raise TaskTokenError(401, "task_token_invalid", f"the task token lacks {exc}") from None
        return TaskToken(spec, float(claims["exp"]), str(claims["epoch"]))


def _ring(config: TaskConfig) -> KeyRing:
    """The configured keys of task tokens; without any, a key made now, and a log line saying so."""
    keys, signer = config.signing_keys, config.signer_kid
    if signer is None:
        if os.environ.get(OLD_SECRET_ENV):  # taskgate once read it by default; now only when configured
            log.warning(
                "task_secret_not_used", variable=OLD_SECRET_ENV,
                effect="it is set but no longer read unless authz.tasks.signing_secret_env names it; task tokens "
                "are signed with a key made at start-up",
            )  # fmt: skip
        made = generated()
        keys, signer = [made], made.kid
        log.warning(
            "task_key_ephemeral", kid=made.kid,
            effect="task tokens are signed with a key made at start-up: they fail on other replicas and after "
            "a restart; set authz.tasks.keys (PEM files) where replicas run",
        )  # fmt: skip
    return KeyRing(keys, signer, TYPE)


OLD_SECRET_ENV = "TASKGATE_TASK_KEY"
MAX_STORED_CHARS = 32 << 20  # instructions the memory store keeps in all (about 32-128 MB): its oldest tasks go first
MAX_RECORDS = 256  # of what one task has seen (tool results, user turns): its newest are kept
MAX_RECORD_CHARS = 16_384  # of one record; the caller cuts a longer one
MAX_HOLDS = 100_000  # the memory store's holds in all: the oldest are forgotten first (their calls never run)


def task_key(tenant: str, subject: str, task: str) -> str:
    """Task ids live in their owner's namespace: nobody can reach, claim or revoke another's task."""
    return json.dumps([tenant, subject, task], separators=(",", ":"))


class MemoryTaskStore:
    """Tasks and revocations of this replica; the oldest tasks are forgotten past `max_tasks`.

    Revocations are kept apart from tasks, until the tokens they cancel expire,
    so forgetting a task never forgets that it was revoked. The epoch is this
    process's own: tokens from before a restart, whose revocations it cannot
    remember, are refused.
    """

    def __init__(self, max_tasks: int, max_chars: int = MAX_STORED_CHARS):
        self._tasks: OrderedDict[str, tuple[TaskInfo, float]] = OrderedDict()  # key -> (task, when it expires)
        self._revoked: dict[str, float] = {}
        self._data: dict[str, list[str]] = {}  # key -> what the task has seen
        self._holds: dict[str, tuple[str, float]] = {}  # hold key -> (record, when it expires)
        self._max, self._max_chars = max_tasks, max_chars
        self._chars = 0  # of the instructions kept
        self.epoch = uuid.uuid4().hex

    async def begin(self, key: str) -> tuple[str, bool]:
        """Before a task starts: the store's epoch, and whether the task id was revoked."""
        return self.epoch, self._is_revoked(key)

    async def state(self, key: str, parents: tuple[str, ...] = ()) -> TaskState:
        revoked = any(self._is_revoked(k) for k in (key, *parents))
        return TaskState(self.epoch, revoked, self._live(key), tuple(self._data.get(key, ())))

    async def observe(self, key: str, records: list[str], ttl_s: float) -> None:
        """Add what the task has seen; the newest MAX_RECORDS are kept, and count towards the store's budget."""
        if self._live(key) is None:
            return
        kept = self._data.setdefault(key, [])
        kept += records
        self._chars += sum(len(r) for r in records)
        while len(kept) > MAX_RECORDS:
            self._chars -= len(kept.pop(0))
        while self._tasks and self._chars > self._max_chars:
            self._forget(next(iter(self._tasks)))

    async def put_hold(self, key: str, record: str, ttl_s: float) -> None:
        """Keep a hold; the oldest go past MAX_HOLDS (holds are kept in order and live equally long)."""
        now = time.time()
        self._holds[key] = (record, now + ttl_s)
        while self._holds and (len(self._holds) > MAX_HOLDS or next(iter(self._holds.values()))[1] < now):
            del self._holds[next(iter(self._holds))]

    async def get_hold(self, key: str) -> str | None:
        found = self._holds.get(key)
        return found[0] if found is not None and found[1] >= time.time() else None

    async def swap_hold(self, key: str, old: str, new: str) -> bool:
        """Replace the hold's record with `new` if it is still `old` (one approval, one run); whether it was."""
        found = self._holds.get(key)
        if found is None or found[0] != old or found[1] < time.time():
            return False
        self._holds[key] = (new, found[1])
        return True

    async def put(self, key: str, info: TaskInfo, ttl_s: float) -> bool:
        """Store `info` for `ttl_s` unless the task exists; whether this call created it.

        Tasks past their time are dropped as new ones arrive (they were stored in
        order and live equally long), and the oldest go past `max_tasks` or past
        `max_chars` of instructions kept in all.
        """
        if self._live(key) is not None:
            return False
        now = time.time()
        self._forget(key)
        self._tasks[key] = (info, now + ttl_s)
        self._chars += len(info.purpose or "")
        while self._tasks and (
            len(self._tasks) > self._max or self._chars > self._max_chars or next(iter(self._tasks.values()))[1] < now
        ):
            self._forget(next(iter(self._tasks)))
        return True

    def _forget(self, key: str) -> None:
        found = self._tasks.pop(key, None)
        if found is not None:
            self._chars -= len(found[0].purpose or "")
        self._chars -= sum(len(r) for r in self._data.pop(key, ()))

    def _live(self, key: str) -> TaskInfo | None:
        found = self._tasks.get(key)
        return found[0] if found is not None and found[1] >= time.time() else None

    async def revoke(self, key: str, until: float) -> bool:
        """Revoke the task until `until`; whether the store had the task."""
        self._revoked[key] = until
        now = time.time()
        for stale in [k for k, t in self._revoked.items() if t < now]:
            del self._revoked[stale]
        return self._live(key) is not None

    def _is_revoked(self, key: str) -> bool:
        until = self._revoked.get(key)
        return until is not None and until >= time.time()

    async def close(self) -> None:
        return None


class RedisTaskStore:
    """Tasks and revocations in Redis, so every replica sees a revocation on its next call.

    Every operation is one round trip (a pipeline); a Redis that cannot be
    reached, or answers with an error, is a TaskStoreUnavailable.
    """

    def __init__(self, url: str, prefix: str = "taskgate:task:", timeout_s: float = 0.5):
        # one retry on a broken connection (a pooled one that a Redis restart or failover closed); none on a timeout
        self._redis = connect(url, timeout_s=timeout_s, retries=1)
        self._prefix = prefix
        self._epoch = prefix + "epoch"
        self._swap = self._redis.register_script(_SWAP)

    async def begin(self, key: str) -> tuple[str, bool]:
        """The store's epoch (made now if it has none) and whether the task id was revoked."""
        with _reached("start"):
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(self._epoch, uuid.uuid4().hex, nx=True)
                pipe.get(self._epoch)
                pipe.exists(self._prefix + "revoked:" + key)
                _, epoch, revoked = await pipe.execute()
        return epoch.decode(), bool(revoked)

    async def state(self, key: str, parents: tuple[str, ...] = ()) -> TaskState:
        with _reached("check"):
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.get(self._epoch)
                pipe.exists(*(self._prefix + "revoked:" + k for k in (key, *parents)))
                pipe.get(self._prefix + key)
                pipe.lrange(self._prefix + "data:" + key, 0, -1)
                epoch, revoked, raw, data = await pipe.execute()
        seen = tuple(item.decode() for item in data)
        return TaskState(epoch.decode() if epoch else None, bool(revoked), _info(raw), seen)

    async def observe(self, key: str, records: list[str], ttl_s: float) -> None:
        if not records:
            return
        name = self._prefix + "data:" + key
        with _reached("record"):
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.rpush(name, *records)
                pipe.ltrim(name, -MAX_RECORDS, -1)
                pipe.expire(name, max(1, int(ttl_s)))
                await pipe.execute()

    async def put_hold(self, key: str, record: str, ttl_s: float) -> None:
        with _reached("hold"):
            await self._redis.set(self._prefix + "hold:" + key, record, ex=max(1, int(ttl_s)))

    async def get_hold(self, key: str) -> str | None:
        with _reached("hold"):
            raw = await self._redis.get(self._prefix + "hold:" + key)
        return raw.decode() if isinstance(raw, bytes) else raw

    async def swap_hold(self, key: str, old: str, new: str) -> bool:
        with _reached("hold"):
            swapped = await self._swap(keys=[self._prefix + "hold:" + key], args=[old, new])
        return bool(swapped)

    async def put(self, key: str, info: TaskInfo, ttl_s: float) -> bool:
        with _reached("start"):
            record = json.dumps(asdict(info))
            return bool(await self._redis.set(self._prefix + key, record, nx=True, ex=max(1, int(ttl_s))))

    async def revoke(self, key: str, until: float) -> bool:
        with _reached("revoke"):
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(self._prefix + "revoked:" + key, "1", ex=max(1, int(until - time.time()) + 1))
                pipe.exists(self._prefix + key)
                _, known = await pipe.execute()
        return bool(known)

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a connection to a Redis that went away
            await self._redis.aclose()


_SWAP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
"""


@contextlib.contextmanager
def _reached(operation: str) -> Iterator[None]:
    """Redis errors (down, timed out, refusing writes) as the one exception every surface renders as 503."""
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise TaskStoreUnavailable(operation, exc) from None


def _info(raw: bytes | None) -> TaskInfo | None:
    """A stored task record; one that cannot be read counts as lost."""
    if not raw:
        return None
    try:
        return TaskInfo(**json.loads(raw))
    except (ValueError, TypeError):
        return None


def new_task_id() -> str:
    return uuid.uuid4().hex
