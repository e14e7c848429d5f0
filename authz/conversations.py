"""Bindings: what taskgate answered, remembered so a runtime's next call is recognised as the same task.

Agent runtimes send no task token. What they do send back is what taskgate
answered them: the conversation so far, ending in the assistant turns
taskgate emitted, and tool calls those turns asked for. A binding maps a
digest of such a thing to the task it belongs to:

- a **conversation turn**: the digest of the whole conversation up to and
  including an assistant turn taskgate answered (every message, in order:
  user turns, assistant turns with their tool-call ids and arguments, tool
  results; system messages, which runtimes rewrite, are left out), chained
  from the caller's principal. A later
  request whose messages start with that prefix continues the task; change
  one message, reorder two, invent a tool-call id, or send it as another
  caller, and the digest is another;
- a **model turn's tool call**: the digest of the principal, the tool's name
  and its arguments, for `call_ttl_s`: an MCP call the runtime makes with
  them runs in the task whose model turn emitted it;
- a **stated purpose**: the digest of the principal and the purpose an MCP
  client states (`x-taskgate-purpose`, `_meta`), so a runtime whose MCP client
  opens a session per call still has one task.

Each entry records the task, the task store's epoch and the session hint seen
(a session header a runtime or a peer gateway sends): hints only narrow, an
entry whose hint differs from the request's is passed over. Bindings live in
memory (bounded, oldest first) or in Redis beside the task store, so every
replica recognises every conversation; all expire.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from pydantic import Field

from taskgate.plugins import Params
from taskgate.plugins.redis import connect

from .errors import TaskStoreUnavailable

MAX_PER_KEY = 8  # tasks one key remembers (the same call emitted by several tasks); the newest are kept
MAX_HINT_CHARS = 256
SESSION_HEADERS = ("x-session-id", "session-id", "x-claude-code-session-id", "x-dynamo-session-id")


class ConversationConfig(Params):
    """`authz.tasks.conversations`: recognising a runtime's task from what it sends back."""

    enabled: bool = True
    ttl_s: float = Field(default=3600, gt=0, le=7 * 86_400)  # a conversation turn's binding, after its answer
    call_ttl_s: float = Field(default=300, gt=0, le=86_400)  # a model turn's tool call binds an MCP call this long
    max_entries: int = Field(default=100_000, ge=1)  # memory store: the oldest bindings go first
    session_headers: list[str] = Field(default_factory=lambda: list(SESSION_HEADERS), max_length=16)


Kind = Literal["conversation", "model_turn", "purpose"]
Entry = tuple[str, str, float]  # a key, its entry (Bound.dump), how long the key lives from now


@dataclass(frozen=True, slots=True)
class Bound:
    """One binding entry: the task, the task store's epoch then, and the session hint seen (None: none)."""

    task: str
    epoch: str
    hint: str | None = None

    def dump(self) -> str:
        return json.dumps([self.task, self.epoch, self.hint], separators=(",", ":"))

    @classmethod
    def load(cls, raw: str | bytes) -> Bound | None:
        try:
            task, epoch, hint = json.loads(raw)
        except (ValueError, TypeError):
            return None
        if not isinstance(task, str) or not isinstance(epoch, str) or not isinstance(hint, str | None):
            return None
        return cls(task, epoch, hint)


def matching(entries: Iterable[Bound], hint: str | None) -> list[Bound]:
    """The entries a request with `hint` may join, one per task (newest first): an entry bound under another
    hint is passed over; a request without one passes none over. Hints only ever narrow."""
    seen: dict[str, Bound] = {}
    for entry in reversed(list(entries)):
        if hint is not None and entry.hint is not None and entry.hint != hint:
            continue
        seen.setdefault(entry.task, entry)
    return list(seen.values())


# Digests: chained from the principal, over canonical forms of what a runtime sends back.


def principal_digest(tenant: str, subject: str) -> bytes:
    return _digest(b"taskgate-conversation\0", json.dumps([tenant, subject]).encode())


def extend(digest: bytes, message: Mapping[str, Any]) -> bytes:
    """The conversation digest `digest` followed by `message`; a system (or developer) message leaves it as it is:
    runtimes rewrite their instructions from turn to turn (a date, dynamic context), a Responses follow-up sends
    its own or none, and they are not the user's words (never labelled `instruction`)."""
    if message.get("role") in ("system", "developer"):
        return digest
    return _digest(digest, canonical_message(message))


def conversation_key(digest: bytes) -> str:
    return "c:" + digest.hex()


def call_key(tenant: str, subject: str, tool: str, arguments: Any) -> str:
    text = json.dumps([tenant, subject, tool, canonical_arguments(arguments)]).encode()
    return "x:" + _digest(b"taskgate-call\0", text).hex()


def purpose_key(tenant: str, subject: str, purpose: str) -> str:
    return "p:" + _digest(b"taskgate-purpose\0", json.dumps([tenant, subject, purpose.strip()]).encode()).hex()


def canonical_message(message: Mapping[str, Any]) -> bytes:
    """A chat message as runtimes send it back, in one form: role (`developer` is `system`), its text, its tool
    calls (id, name, arguments as canonical JSON) and the call a tool result answers. Whitespace around text,
    `null` or empty content, the order of argument keys and extra fields make no difference."""
    role = message.get("role")
    role = "system" if role == "developer" else str(role or "")
    calls = [_call(c) for c in message.get("tool_calls") or () if isinstance(c, Mapping)]
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping):
        calls.append(["", str(legacy.get("name") or ""), canonical_arguments(legacy.get("arguments"))])
    answered = message.get("tool_call_id")
    parts = [role, text_of(message.get("content")).strip(), calls, answered if isinstance(answered, str) else ""]
    return orjson.dumps(parts)


def _call(call: Mapping[str, Any]) -> list[str]:
    function = call.get("function")
    function = function if isinstance(function, Mapping) else {}
    return [str(call.get("id") or ""), str(function.get("name") or ""), canonical_arguments(function.get("arguments"))]


def canonical_arguments(arguments: Any) -> str:
    """Arguments as canonical JSON (sorted keys, no spaces); a string that is not JSON as it is."""
    if isinstance(arguments, str):
        if not arguments.strip():
            return "{}"
        text = arguments
        try:
            arguments = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
    if arguments is None:
        return "{}"
    try:
        return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # not JSON (too deep, a key that is not a string): as Python prints it
        return str(arguments)


def text_of(content: Any) -> str:
    """A message's text: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    return ""


def _digest(*parts: bytes) -> bytes:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part)
    return digest.digest()


def session_hint(headers: Mapping[str, str], names: Iterable[str]) -> str | None:
    """The first session header a request carries (a runtime's or a peer gateway's), if any."""
    for name in names:
        value = headers.get(name)
        if value and len(value) <= MAX_HINT_CHARS and value.isprintable():
            return f"{name.lower()}={value}"
    return None


# Stores: the same two shapes as the task store, one round trip per lookup.


class MemoryBindings:
    """This replica's bindings: at most `max_entries` keys, each expiring; the oldest forgotten first."""

    def __init__(self, max_entries: int):
        self._keys: OrderedDict[str, tuple[list[str], float]] = OrderedDict()
        self._max = max_entries

    async def get(self, keys: list[str]) -> list[list[str]]:
        now = time.time()
        out = []
        for key in keys:
            found = self._keys.get(key)
            out.append(list(found[0]) if found is not None and found[1] >= now else [])
        return out

    async def add(self, entries: list[Entry]) -> None:
        now = time.time()
        for key, entry, ttl_s in entries:
            found = self._keys.pop(key, None)
            kept = [e for e in found[0] if e != entry] if found is not None and found[1] >= now else []
            self._keys[key] = ([*kept, entry][-MAX_PER_KEY:], now + ttl_s)
        while self._keys and len(self._keys) > self._max:
            self._keys.popitem(last=False)
        while self._keys and next(iter(self._keys.values()))[1] < now:
            self._keys.popitem(last=False)

    async def close(self) -> None:
        return None


class RedisBindings:
    """Bindings in Redis, shared by every replica: a list per key, trimmed and expiring; one pipeline per call."""

    def __init__(self, url: str, prefix: str, timeout_s: float = 0.5):
        self._redis = connect(url, timeout_s=timeout_s, retries=1)
        self._prefix = prefix

    async def get(self, keys: list[str]) -> list[list[str]]:
        if not keys:
            return []
        with _reached("recognise"):
            async with self._redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.lrange(self._prefix + key, 0, -1)
                found = await pipe.execute()
        return [[item.decode() for item in entries] for entries in found]

    async def add(self, entries: list[Entry]) -> None:
        if not entries:
            return
        with _reached("bind"):
            async with self._redis.pipeline(transaction=False) as pipe:
                for key, entry, ttl_s in entries:
                    name = self._prefix + key
                    pipe.lrem(name, 0, entry)
                    pipe.rpush(name, entry)
                    pipe.ltrim(name, -MAX_PER_KEY, -1)
                    pipe.expire(name, max(1, int(ttl_s)))
                await pipe.execute()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._redis.aclose()


@contextlib.contextmanager
def _reached(operation: str) -> Any:
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise TaskStoreUnavailable(operation, exc) from None


Bindings = MemoryBindings | RedisBindings
