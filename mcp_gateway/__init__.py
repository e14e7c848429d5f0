"""The MCP gateway at /mcp, a surface of its own: both protocol eras, sessions, the upstream catalog, forwarding.

It is mounted as a sub-application at /mcp (`mount`), with its own state and
its own error rendering: the front door renders a failure on /mcp in
JSON-RPC's words without knowing the path. Its section is `mcp`; with no
servers configured there is no /mcp and no `mcp` plan, and the MCP SDK is
never imported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from aiohttp import web

from taskgate.gateway.plans import Wanted
from taskgate.plugins import GRANT, IDENTITY, Registry, Surface

from .config import SECTION, McpConfig

if TYPE_CHECKING:
    from taskgate.gateway.caller import ToolCalls
    from taskgate.gateway.gateway import Gateway

    from .upstream import Upstreams

CONFIGURE = "the MCP gateway needs a pipeline that authorizes tool calls, e.g. [authn, authorize, pii]"
UPSTREAMS: web.AppKey[Upstreams] = web.AppKey("taskgate.mcp.upstreams")
"""On the app: the upstream MCP servers /mcp reaches (their connections, catalogs)."""


def register(registry: Registry) -> None:
    registry.add_section(SECTION, McpConfig)


def wanted(config: McpConfig) -> list[Wanted]:
    """The plan /mcp runs: it must say who calls and what their task may do."""
    return [Wanted(Surface.MCP, (IDENTITY, GRANT), CONFIGURE)] if config.servers else []


def mount(app: web.Application, gateway: Gateway) -> ToolCalls | None:
    """/mcp on `app`, when servers are configured; the tool calls a task makes through them."""
    config = gateway.config.section(SECTION, McpConfig)
    if not config.servers:
        return None
    from taskgate.gateway.render import RENDER

    from .handler import delete, get, post
    from .rpc import render
    from .state import MCP, Mcp
    from .tools import McpToolCalls

    mcp = Mcp.build(gateway, config)
    sub = web.Application()
    sub[MCP], sub[RENDER] = mcp, render
    sub.cleanup_ctx.append(_running)
    sub.router.add_post("", post)
    sub.router.add_get("", get)
    sub.router.add_delete("", delete)
    app.add_subapp("/mcp", sub)
    app[UPSTREAMS] = mcp.upstreams
    return McpToolCalls(gateway, mcp.upstreams)


async def _running(app: web.Application) -> AsyncIterator[None]:
    """One connection per upstream, held by a task of its own while the app runs; sessions closed at the end."""
    from .state import MCP

    mcp = app[MCP]
    async with mcp.upstreams.running():
        yield
    await mcp.sessions.aclose()


__all__ = ["UPSTREAMS", "mount", "register", "wanted"]
