"""What a room's HTTP routes may ask of the front door, and the hooks through which a room serves them.

A room registers routes as datasette plugins do (`registry.add_routes`):
the function receives the aiohttp application while it is being built and
adds its routes (and any cleanup) there. Its handlers reach the gateway
only through `request.app[FRONT]` and the request's evidence record
(`request[EVIDENCE]`); the front door's middleware still gives every
request its id, its evidence and its error bodies.

A room may also take over requests of a surface that carry one field
(`registry.add_takeover("chat", "tool_loop", handler)`): the chat surface
reads and checks the body, then hands such a request to the handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from aiohttp import web

from .context import RequestContext
from .evidence import Evidence
from .services import Services
from .types import Principal

EVIDENCE = web.RequestKey("taskgate.evidence", Evidence)
"""The request's evidence record, created by the front door before any handler runs."""

Routes = Callable[[web.Application], None]
"""Adds a room's routes (and their app state, cleanup) to the application being built."""
Takeover = Callable[[web.Request, RequestContext], Awaitable[web.StreamResponse]]
"""Answers a surface's request that carries the field it took over; the body is read and checked."""


class Front(Protocol):
    """The gateway as a room's handlers see it."""

    @property
    def services(self) -> Services: ...

    @property
    def plans(self) -> Mapping[str, Any]:
        """The compiled plans by surface (`chat`, `mcp`, ... present only when configured)."""
        ...

    async def run_plan(self, surface: str, context: RequestContext, evidence: Evidence) -> dict[str, Any]:
        """Run `surface`'s plan (steps, decisions and metrics recorded in `evidence`); its keys' values."""
        ...

    async def authenticate(self, request: web.Request, evidence: Evidence) -> Principal | None:
        """Who calls: the plans' authenticate step run on the request's headers (a Reject if it refuses).

        None when no plan authenticates callers.
        """
        ...

    async def read_json(self, request: web.Request) -> Any:
        """The request body, bounded and parsed strictly; a ClientError (4xx) says what is wrong."""
        ...

    def publish(self, evidence: Evidence) -> None:
        """Keep `evidence` for inspection and log it (a background task's record, written again when it ends)."""
        ...


FRONT = web.AppKey("taskgate.front", Front)
