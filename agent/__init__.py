"""Agent work taskgate runs on a task's behalf: the tool loop and `/v1/tasks` workflows.

Built-in plugin, registered through the `taskgate.plugins` entry point like
any other: it contributes the `tool_loop` and `workflows` config sections,
the `/v1/tasks` routes, and takes over chat requests that carry a
`tool_loop` field. It reaches the gateway only through the `Caller` in
`agent.types`, which the gateway puts on the app before routes are added.
"""

from aiohttp import web

from taskgate.plugins import Registry, Surface

from . import tasks, toolloop
from .config import ToolLoopConfig, WorkflowsConfig
from .types import CALLER, Caller, Opening, Tool, ToolResult, Turn

__all__ = ["CALLER", "Caller", "Opening", "Tool", "ToolResult", "Turn", "register"]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the agent room's sections, routes and the chat takeover."""
    registry.add_section("tool_loop", ToolLoopConfig)
    registry.add_section("workflows", WorkflowsConfig)
    registry.add_takeover(Surface.CHAT, toolloop.FIELD, toolloop.serve)
    registry.add_routes(_routes)


def _routes(app: web.Application) -> None:
    if CALLER not in app:  # a front door that makes no calls for tasks: nothing of ours to serve
        return
    toolloop.setup(app)
    tasks.add_routes(app)
