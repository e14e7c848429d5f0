"""Handshake clients' MCP sessions: bound to their caller, bounded, in memory (one replica) or in Redis (all).

A handshake client's `initialize` opens a session; each later request names
it in `Mcp-Session-Id`. A session remembers what the client declared
(its revision and capabilities), the task its calls last carried on and the
log level it asked for. In memory it is this replica's alone; with
`mcp.session_store: redis` every replica finds it, so a load balancer needs
no stickiness. Either way a session expires `session_ttl_s` after it opened,
a caller's oldest go past `sessions_per_caller`, and anyone's oldest past
`max_sessions`. A store that cannot be reached is a 503 in JSON-RPC's words
(`session_store_unavailable`): a session is never made up or taken as found.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from taskgate.errors import TaskgateError
from taskgate.plugins import FAILURES, Evidence, Principal, Problem
from taskgate.plugins.redis import connect

Remembered = Literal["task_token", "log_level"]  # what a session learns after it opened


@dataclass
class Session:
    """A handshake client's session, bound to its caller; a modern request's is its own, for that request only."""

    version: str
    subject: str | None  # None: a modern request's, which belongs to whoever its plan authenticates
    tenant: str | None
    capabilities: Mapping[str, Any] = field(default_factory=dict)  # the client's, as it declared them
    created: float = field(default_factory=time.time)
    task_token: str | None = None  # the task the session's calls last carried on: a bare listing is in it
    log_level: str | None = None  # what the client asked to hear of the upstreams' logs (none: nothing)
    sid: str | None = None  # a handshake session's id

    @property
    def elicits_url(self) -> bool:
        """The client declared URL elicitation: an approval is asked for as one."""
        elicitation = self.capabilities.get("elicitation")
        return isinstance(elicitation, dict) and isinstance(elicitation.get("url"), dict)


class SessionStoreUnavailable(TaskgateError):
    """The shared store of MCP sessions cannot be reached: a session can be neither opened nor found."""


@FAILURES.explains(SessionStoreUnavailable)
def _unavailable(exc: SessionStoreUnavailable, evidence: Evidence) -> Problem:
    message = "the MCP session store is unavailable; retry shortly"
    return Problem(
        503, "session_store_unavailable", message, "api_error", headers={"Retry-After": "1"}, detail=str(exc),
        cite=True,
    )  # fmt: skip


class Sessions(Protocol):
    async def open(self, version: str, identity: Principal, capabilities: Mapping[str, Any]) -> str: ...

    async def get(self, sid: str) -> Session | None: ...

    async def remember(self, session: Session, name: Remembered, value: str | None) -> None: ...

    async def close(self, sid: str, identity: Principal) -> bool: ...

    async def aclose(self) -> None: ...


class MemorySessions:
    """This replica's sessions; they expire, and one caller cannot crowd out the others."""

    def __init__(self, limit: int, ttl_s: float, per_caller: int):
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._limit, self._ttl, self._per_caller = limit, ttl_s, per_caller

    async def open(self, version: str, identity: Principal, capabilities: Mapping[str, Any]) -> str:
        mine = [
            sid for sid, s in self._sessions.items() if (s.subject, s.tenant) == (identity.subject, identity.tenant)
        ]
        for sid in mine[: max(0, len(mine) - self._per_caller + 1)]:  # a caller's oldest go first
            del self._sessions[sid]
        sid = uuid.uuid4().hex
        self._sessions[sid] = Session(version, identity.subject, identity.tenant, capabilities, sid=sid)
        while len(self._sessions) > self._limit:
            self._sessions.popitem(last=False)
        return sid

    async def get(self, sid: str) -> Session | None:
        session = self._sessions.get(sid)
        if session is not None and time.time() - session.created > self._ttl:
            del self._sessions[sid]
            return None
        return session

    async def remember(self, session: Session, name: Remembered, value: str | None) -> None:
        setattr(session, name, value)  # the object is the store's own

    async def close(self, sid: str, identity: Principal) -> bool:
        session = self._sessions.get(sid)
        if session is None or (session.subject, session.tenant) != (identity.subject, identity.tenant):
            return False
        del self._sessions[sid]
        return True

    async def aclose(self) -> None:
        return None


class RedisSessions:
    """Sessions in Redis, so any replica serves any request of a session; each operation is one round trip.

    Keys, under `prefix`: `session:SID` (a hash, expiring `ttl_s` after the
    session opened), `caller:OWNER` (a caller's sessions by age, for
    `per_caller`) and `sessions` (everyone's, for `limit`). The indexes expire
    with the newest session they list.
    """

    def __init__(self, url: str, prefix: str, limit: int, ttl_s: float, per_caller: int):
        self._redis = connect(url, decode_responses=True)
        self._prefix, self._limit, self._ttl, self._per_caller = prefix, limit, ttl_s, per_caller
        self._open = self._redis.register_script(_OPEN)
        self._remember = self._redis.register_script(_REMEMBER)
        self._close = self._redis.register_script(_CLOSE)

    def _keys(self, sid: str, identity: Principal) -> list[str]:
        return [self._prefix + "session:" + sid, self._prefix + "caller:" + _owner(identity), self._prefix + "sessions"]

    async def open(self, version: str, identity: Principal, capabilities: Mapping[str, Any]) -> str:
        sid = uuid.uuid4().hex
        record = {
            "version": version, "owner": json.dumps([identity.tenant, identity.subject]),
            "capabilities": json.dumps(dict(capabilities)), "created": repr(time.time()),
        }  # fmt: skip
        flat = [item for pair in record.items() for item in pair]
        args = [sid, time.time(), self._ttl, self._per_caller, self._limit, self._prefix, *flat]
        with _reached("open"):
            await self._open(keys=self._keys(sid, identity), args=args)
        return sid

    async def get(self, sid: str) -> Session | None:
        if not sid or len(sid) > 64:
            return None
        with _reached("read"):
            found = await self._redis.hgetall(self._prefix + "session:" + sid)
        return _session(sid, found, self._ttl)

    async def remember(self, session: Session, name: Remembered, value: str | None) -> None:
        if getattr(session, name) == value or session.sid is None:
            return
        setattr(session, name, value)
        with _reached("write"):  # only a session that still exists: an expired one is not brought back
            await self._remember(keys=[self._prefix + "session:" + session.sid], args=[name, value or ""])

    async def close(self, sid: str, identity: Principal) -> bool:
        if not sid or len(sid) > 64:
            return False
        owner = json.dumps([identity.tenant, identity.subject])
        with _reached("close"):
            return bool(await self._close(keys=self._keys(sid, identity), args=[sid, owner]))

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):  # closing a connection to a Redis that went away
            await self._redis.aclose()


def _owner(identity: Principal) -> str:
    return hashlib.blake2b(f"{identity.tenant}\x00{identity.subject}".encode(), digest_size=16).hexdigest()


def _session(sid: str, found: Mapping[str, str], ttl_s: float) -> Session | None:
    """A stored session; one that cannot be read, or is past its time, counts as gone."""
    try:
        tenant, subject = json.loads(found["owner"])
        capabilities = json.loads(found.get("capabilities") or "{}")
        created = float(found["created"])
        session = Session(str(found["version"]), subject, tenant, capabilities, created, sid=sid)
    except (KeyError, ValueError, TypeError):
        return None
    session.task_token, session.log_level = found.get("task_token") or None, found.get("log_level") or None
    return session if time.time() - created <= ttl_s and isinstance(capabilities, dict) else None


@contextlib.contextmanager
def _reached(operation: str) -> Iterator[None]:
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise SessionStoreUnavailable(f"could not {operation} an MCP session: {type(exc).__name__}: {exc}") from None


def open_sessions(
    store: str, url: str, prefix: str, limit: int, ttl_s: float, per_caller: int
) -> MemorySessions | RedisSessions:
    if store == "redis":
        return RedisSessions(url, prefix, limit, ttl_s, per_caller)
    return MemorySessions(limit, ttl_s, per_caller)


# KEYS: the session, its caller's index, everyone's index.
# ARGV: sid, now, ttl, per caller, limit, key prefix, then the session's fields and values.
_OPEN = """
local sid, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local per_caller, limit, prefix = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local life = math.max(1, math.ceil(ttl))
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('EXPIRE', KEYS[1], life)
for i = 2, 3 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - ttl)
  redis.call('ZADD', KEYS[i], now, sid)
  redis.call('EXPIRE', KEYS[i], life)
end
local function trim(index, keep)
  local excess = redis.call('ZCARD', index) - keep
  if excess > 0 then
    for _, old in ipairs(redis.call('ZRANGE', index, 0, excess - 1)) do
      redis.call('DEL', prefix .. 'session:' .. old)
      redis.call('ZREM', KEYS[2], old)
      redis.call('ZREM', KEYS[3], old)
    end
  end
end
trim(KEYS[2], per_caller)
trim(KEYS[3], limit)
return 1
"""

_REMEMBER = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
"""

# KEYS as for _OPEN; ARGV: sid, the owner it must have.
_CLOSE = """
if redis.call('HGET', KEYS[1], 'owner') == ARGV[2] then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 1
end
return 0
"""
