"""Connections to upstream MCP servers through the official SDK client, one holder task per server.

The SDK client is an anyio task group: it must be entered and left in the
same task, and a broken transport cancels that task. Each upstream therefore
gets a task of its own that holds the client open until the app stops; calls
from request handlers use it concurrently. When the connection breaks, the
holder reconnects with backoff and callers get a clear error meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

import httpx2
import structlog
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import (
    CallToolResult,
    ClientRequest,
    EmptyResult,
    Prompt,
    RequestParamsMeta,
    Resource,
    ResourceTemplate,
    SetLevelRequest,
    SetLevelRequestParams,
    Tool,
)
from pydantic import BaseModel, ConfigDict, TypeAdapter

from taskgate.dag.errors import describe
from taskgate.errors import TaskgateError
from taskgate.gateway.spans import failed
from taskgate.gateway.tracing import Tracing

from .config import McpConfig, McpServerConfig
from .relay import Relay

log = structlog.get_logger("taskgate.mcp")
SEPARATOR = "__"
MAX_PAGES = 100
# What an upstream serves, by kind: the SDK client's lister, the page's field, and the field that names an item.
KINDS = {
    "tools": ("list_tools", "tools", "name"),
    "resources": ("list_resources", "resources", "uri"),
    "resource_templates": ("list_resource_templates", "resource_templates", "uri_template"),
    "prompts": ("list_prompts", "prompts", "name"),
}
Item = Tool | Resource | ResourceTemplate | Prompt
_REQUEST: TypeAdapter[Any] = TypeAdapter(ClientRequest)


class _Raw(BaseModel):
    """A result exactly as the upstream sent it (the SDK has already checked it against the revision)."""

    model_config = ConfigDict(extra="allow")


class UpstreamDown(TaskgateError):
    """An upstream MCP server cannot be reached now."""


class Upstream:
    def __init__(self, config: McpServerConfig, catalog_ttl_s: float, tracing: Tracing | None = None):
        self.config = config
        self.tracing = tracing  # None: calls go out untraced
        self.name = config.name
        self._ttl = catalog_ttl_s
        self._client: Client | None = None
        self._connected = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.listed: dict[str, list[Any]] = {kind: [] for kind in KINDS}  # by kind, as the upstream names them
        self._listed_at = 0.0
        self._listing = asyncio.Lock()
        self.error: str | None = None

    @property
    def tools(self) -> list[Tool]:
        return self.listed["tools"]

    def start(self) -> None:
        self._task = asyncio.create_task(self._hold(), name=f"mcp-upstream:{self.name}")

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _hold(self) -> None:
        backoff = 0.2
        while not self._stop.is_set():
            try:
                async with self._connect(self.config.timeout_s) as client:
                    self._client, self.error, backoff = client, None, 0.2
                    await self._list(client)
                    self._connected.set()
                    log.info("mcp_upstream_connected", server=self.name, tools=len(self.tools))
                    await self._stop.wait()
            except asyncio.CancelledError:
                if self._stop.is_set():
                    return
                self.error = "the connection was cancelled"
            except BaseException as exc:  # the SDK reports transport failures as exception groups
                self.error = describe(exc)[:300]
                log.warning("mcp_upstream_down", server=self.name, reason=self.error)
            finally:
                self._client = None
                self._connected.clear()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    async def _list(self, client: Client) -> None:
        """Everything the upstream serves, of each kind its capabilities declare."""
        capabilities = client.server_capabilities
        declared = {
            "tools": capabilities.tools is not None,
            "resources": capabilities.resources is not None,
            "resource_templates": capabilities.resources is not None,
            "prompts": capabilities.prompts is not None,
        }
        listed = {kind: await self._kind(client, kind) if declared[kind] else [] for kind in KINDS}
        self.listed, self._listed_at = listed, time.monotonic()

    async def _kind(self, client: Client, kind: str) -> list[Any]:
        """One kind's list; a server that declares resources but cannot list its templates (or prompts) still
        serves its tools: that kind is empty, and the log says why. The tools' listing failing is the server's."""
        if kind == "tools":
            return await self._pages(client, kind)
        try:
            return await self._pages(client, kind)
        except MCPError as exc:
            log.warning("mcp_upstream_list_failed", server=self.name, kind=kind, reason=str(exc)[:200])
            return []

    @staticmethod
    async def _pages(client: Client, kind: str) -> list[Any]:
        lister, field, _ = KINDS[kind]
        items: list[Any] = []
        cursor = None
        for _ in range(MAX_PAGES):  # an upstream repeating its cursor must not hang the gateway
            page = await getattr(client, lister)(cursor=cursor)
            items += getattr(page, field)
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    async def client(self, wait_s: float = 2.0) -> Client:
        if self._client is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._connected.wait(), wait_s)
        if self._client is None:
            raise UpstreamDown(f"MCP server {self.name!r} is unavailable ({self.error or 'connecting'})")
        return self._client

    async def catalog(self, kind: str = "tools", wait_s: float = 2.0) -> list[Any]:
        """What the upstream serves of `kind`; relisted once its lists are older than the TTL, by one request
        while the others wait for it."""
        client = await self.client(wait_s)
        if time.monotonic() - self._listed_at > self._ttl:
            async with self._listing:
                if time.monotonic() - self._listed_at > self._ttl:
                    await self._list(client)
        return self.listed[kind]

    def exposed(self, name: str) -> str:
        """The name a client sees for one of this upstream's: its name map's, or prefixed (SERVER__name)."""
        mapped = self.config.names.get(name)
        if mapped is not None:
            return str(mapped)
        return f"{self.name}{SEPARATOR}{name}" if self.config.prefix else name

    async def forward(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Any request, as the SDK client sends it, its raw result back (checked by the SDK for the revision)."""
        if self.tracing is None:
            return await self._forward(method, params)
        meta = params.get("_meta")
        with self.tracing.mcp_call(method, None, str(self.config.url), meta if isinstance(meta, dict) else {}) as call:
            return await self._forward(method, {**params, "_meta": call[1]})

    async def _forward(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        client = await self.client()
        request = _REQUEST.validate_python({"method": method, "params": dict(params)})
        try:
            result = await client.session.send_request(request, _Raw)
            return dict(result.model_extra or {})
        except Exception as exc:
            if self._client is None:
                raise UpstreamDown(f"MCP server {self.name!r} went away during the request") from exc
            raise

    @property
    def audience(self) -> str:
        return self.config.audience or str(self.config.url)

    async def call(
        self, tool: str, arguments: dict[str, Any] | None, meta: Mapping[str, Any], relay: Relay | None = None
    ) -> CallToolResult:
        """Call `tool`; `meta` (the task's signed assertion) goes in the request's `_meta`, with the trace context
        when the gateway traces. A call with something to relay runs on a connection of its own, whose callbacks
        are the relay's."""
        if self.tracing is None:
            return await self._call(tool, arguments, meta, relay)
        with self.tracing.mcp_call("tools/call", tool, str(self.config.url), meta) as (span, sent):
            result = await self._call(tool, arguments, sent, relay)
            if result.is_error:
                failed(span, "tool_error", "the tool reported an error")
            return result

    async def _call(
        self, tool: str, arguments: dict[str, Any] | None, meta: Mapping[str, Any], relay: Relay | None
    ) -> CallToolResult:
        sent = cast(RequestParamsMeta, dict(meta)) if meta else None
        if relay is not None and relay.wanted and self.config.sessions == "shared":
            return await self._relayed(tool, arguments, sent, relay)
        client = await self.client()
        try:
            return await client.call_tool(tool, arguments, meta=sent)
        except Exception as exc:
            if self._client is None:
                raise UpstreamDown(f"MCP server {self.name!r} went away during the call") from exc
            raise

    @contextlib.asynccontextmanager
    async def _connect(self, timeout_s: float, **callbacks: Any) -> AsyncIterator[Client]:
        """An SDK client session on this upstream, with taskgate's own headers (entered and left in one task)."""
        async with httpx2.AsyncClient(headers=self.config.headers(), timeout=httpx2.Timeout(timeout_s)) as http:
            transport = streamable_http_client(str(self.config.url), http_client=http)
            async with Client(transport, mode="legacy", read_timeout_seconds=timeout_s, **callbacks) as client:
                yield client

    async def _relayed(
        self, tool: str, arguments: dict[str, Any] | None, meta: RequestParamsMeta | None, relay: Relay
    ) -> CallToolResult:
        progress = relay.progress if relay.progress_token is not None else None
        patience = max(self.config.timeout_s, relay.timeout_s)  # a relayed request may wait on a person
        try:
            async with self._connect(patience, logging_callback=relay.logging, **relay.callbacks()) as client:
                if relay.log_level is not None:  # the request itself: the SDK's helper warns it is deprecated
                    level = SetLevelRequestParams(level=cast(Any, relay.log_level))
                    await client.session.send_request(SetLevelRequest(params=level), EmptyResult)
                return await client.call_tool(tool, arguments, progress_callback=progress, meta=meta)
        except MCPError:
            raise
        except Exception as exc:  # the SDK reports transport failures as exception groups
            log.warning("mcp_relayed_call_unreachable", server=self.name, reason=describe(exc)[:300])
            raise UpstreamDown(f"MCP server {self.name!r} could not be reached for the call") from exc


class Upstreams:
    """Every configured upstream; tools are exposed as SERVER__TOOL.

    A server with `sessions: per_task` is stateful: each task (its caller's
    tenant, subject and task id) gets a connection, and so a session, of its
    own, opened on its first call; a caller's least recently used close past
    `task_sessions_per_caller` (so one caller cannot evict the others'), and
    anyone's past `max_task_sessions`.
    """

    def __init__(self, config: McpConfig, tracing: Tracing | None = None):
        self.tracing = tracing
        self.by_name = {s.name: Upstream(s, config.catalog_ttl_s, tracing) for s in config.servers}
        self._tasks: OrderedDict[tuple[str, ...], Upstream] = OrderedDict()
        self._max_tasks, self._ttl = config.max_task_sessions, config.catalog_ttl_s
        self._per_caller = config.task_sessions_per_caller
        self._closing: set[asyncio.Task[None]] = set()
        self._reported: set[tuple[str, str]] = set()

    def for_task(self, upstream: Upstream, owner: tuple[str, ...] | None) -> Upstream:
        """The connection a call of task `owner` uses: its own, for a per_task server."""
        if upstream.config.sessions != "per_task" or owner is None:
            return upstream
        key = (upstream.name, *owner)
        found = self._tasks.get(key)
        if found is None:
            caller = key[:3]  # server, tenant, subject: a caller's own sessions go first
            mine = [k for k in self._tasks if k[:3] == caller]
            for old in mine[: max(0, len(mine) - self._per_caller + 1)]:
                self._close(old)
            while len(self._tasks) >= self._max_tasks:
                self._close(next(iter(self._tasks)))
            found = self._tasks[key] = Upstream(upstream.config, self._ttl, self.tracing)
            found.start()
        self._tasks.move_to_end(key)
        return found

    def _close(self, key: tuple[str, ...]) -> None:
        closing = asyncio.create_task(self._tasks.pop(key).stop())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        for upstream in self.by_name.values():
            upstream.start()
        try:
            yield
        finally:
            await asyncio.gather(*(u.stop() for u in [*self.by_name.values(), *self._tasks.values()]))

    def resolve(self, exposed: str) -> tuple[Upstream, str] | None:
        """The upstream a prefixed name belongs to, and its own name there (syntax only: not that it lists it)."""
        server, sep, name = exposed.partition(SEPARATOR)
        upstream = self.by_name.get(server)
        if sep and upstream is not None and name and upstream.config.prefix:
            return upstream, name
        return None

    async def find(self, kind: str, exposed: str) -> tuple[Upstream, str] | None:
        """The upstream that lists `exposed` (of `kind`) and its own name for it; None if none does, or if two
        would (a collision is refused, never resolved by order)."""
        index, _ = await self.lookup(kind, exposed)
        return index.get(exposed)

    async def lookup(self, kind: str, exposed: str) -> tuple[dict[str, tuple[Upstream, str]], list[str]]:
        """The index for finding `exposed`: the server its name points at may take a moment to connect, the
        others are read as they are now (one server that is down does not slow calls to the rest)."""
        target = self.resolve(exposed)
        likely = (
            target[0] if target is not None else next((u for u in self.by_name.values() if not u.config.prefix), None)
        )
        if likely is not None:
            with contextlib.suppress(Exception):  # down: the index says it is missing
                await likely.catalog(kind)
        return await self.index(kind, wait_s=0.0)

    async def index(self, kind: str, wait_s: float = 2.0) -> tuple[dict[str, tuple[Upstream, str]], list[str]]:
        """Every exposed name of `kind` to its upstream and own name, and the servers that could not list.

        A name in the prefix of a configured server other than the one listing it (an unprefixed server's
        `mail__x`) is dropped: the policy's `mail__*` rows mean the mail server's."""
        found: dict[str, tuple[Upstream, str]] = {}
        clashing: set[str] = set()
        missing: list[str] = []
        field = KINDS[kind][2]
        upstreams = list(self.by_name.values())
        results = await asyncio.gather(*(u.catalog(kind, wait_s) for u in upstreams), return_exceptions=True)
        for upstream, result in zip(upstreams, results, strict=True):
            if isinstance(result, BaseException):
                missing.append(upstream.name)
                continue
            for item in result:
                own = getattr(item, field)
                name = upstream.exposed(own)
                if self._claims_another(upstream, name):
                    clashing.add(name)
                if name in found and found[name][0] is not upstream:
                    clashing.add(name)
                found[name] = (upstream, own)
        for name in clashing:
            if (kind, name) not in self._reported:  # once: every request builds the index
                self._reported.add((kind, name))
                log.error("mcp_name_collision", kind=kind, name=name, effect="served by no server until renamed")
            del found[name]
        return found, missing

    def _claims_another(self, upstream: Upstream, name: str) -> bool:
        server, sep, _ = name.partition(SEPARATOR)
        other = self.by_name.get(server) if sep else None
        return other is not None and other is not upstream and other.config.prefix

    async def catalog(self, servers: list[str] | None = None, kind: str = "tools") -> tuple[list[Any], list[str]]:
        """All items of `kind` (of `servers`, or of every server) under their exposed names, and the servers
        not listed."""
        index, missing = await self.index(kind)
        field = KINDS[kind][2]
        items: list[Any] = []
        for upstream in self.by_name.values():
            if servers is not None and upstream.name not in servers:
                continue
            for item in upstream.listed[kind]:
                name = upstream.exposed(getattr(item, field))
                if index.get(name, (None, None))[0] is upstream:
                    items.append(item.model_copy(update={field: name}))
        chosen = [m for m in missing if servers is None or m in servers]
        return items, chosen
