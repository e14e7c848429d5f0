"""The request as steps see it: identity, raw body, parsed JSON on demand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .hooks import CallsAs
from .jsonbody import loads
from .surfaces import Surface

REQUEST = "request"
"""The seed key under which every plan receives the RequestContext."""

META_PURPOSE = "io.taskgate/purpose"
"""The `params._meta` key of an MCP request that states the task's purpose (the user's instruction)."""
META_TASK = "io.taskgate/task"
"""The `params._meta` key of an MCP request (and `_meta` key of a result) that carries the task's id."""
META_TASK_TOKEN = "io.taskgate/task-token"
"""The `params._meta` key of an MCP request (and `_meta` key of a result) that carries the task's token."""
META_APPROVAL = "io.taskgate/approval"
"""The `params._meta` key of a retried MCP call that names the approval of its hold."""
META_ASSERTION = "io.taskgate/assertion"
"""The `params._meta` key under which an upstream MCP server receives taskgate's signed per-task assertion."""
PURPOSE_HEADER = "x-taskgate-purpose"
"""The header that states a task's purpose on any surface, where the body has no place for it."""
MAX_PURPOSE_HEADER = 8192  # characters of a purpose stated in a header; a longer one is not read


ToolCaller = Callable[[str, Mapping[str, Any], CallsAs], Awaitable[Mapping[str, Any]]]
"""How a step calls a tool itself (MCP surface): `await call(name, arguments, as_task)`, the result as a client
would get it; raises LookupError for a tool no upstream serves and any other error if the call failed."""


@dataclass(slots=True)
class RequestContext:
    """One inbound request. The raw body is kept; JSON is parsed once, lazily."""

    id: str
    surface: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    _json: Any = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)
    vouched: set[str] = field(default_factory=set, repr=False)
    """Values a step vouches for in this request (authz: a trusted value a granted tool's rule admitted);
    guards that rewrite the body leave such a value as it is."""
    call_tool: ToolCaller | None = field(default=None, repr=False)
    """Set where the gateway reaches tool servers (an MCP tools/call): a step may call a tool itself."""

    @classmethod
    def parsed(
        cls, id: str, surface: str, path: str, headers: Mapping[str, str], body: bytes, value: Any
    ) -> RequestContext:
        """A context whose body the caller has parsed already: steps read that parse."""
        return cls(id, surface, path, headers, body, value, True)

    def json(self) -> Any:
        """The body parsed as JSON (cached), strictly (jsonbody.loads); raises BodyError if it may not be read."""
        if not self._parsed:
            self._json = loads(self.body)
            self._parsed = True
        return self._json

    def meta(self, key: str) -> str | None:
        """A string from an MCP request's `params._meta` (the protocol's extension slot), if there is one."""
        body = self.json()
        params = body.get("params") if isinstance(body, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        value = meta.get(key) if isinstance(meta, dict) else None
        return value if isinstance(value, str) and value else None

    def purpose(self) -> str | None:
        """The task's purpose as the client states it: MCP `params._meta`, else the purpose header.

        A surface whose body carries the instruction (a chat's first user
        message) reads it from there; this is for those that carry none.
        """
        stated = self.meta(META_PURPOSE) if self.surface == Surface.MCP else None
        if stated is None:
            header = self.headers.get(PURPOSE_HEADER)
            stated = header.strip() if header and len(header) <= MAX_PURPOSE_HEADER else None
        return stated or None

    @property
    def model(self) -> str | None:
        body = self.json()
        value = body.get("model") if isinstance(body, dict) else None
        return value if isinstance(value, str) else None

    @property
    def stream(self) -> bool:
        body = self.json()
        return isinstance(body, dict) and body.get("stream") is True
