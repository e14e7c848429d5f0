"""The `mcp` section: the upstream MCP servers the gateway aggregates, and its sessions."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field, HttpUrl, field_validator

from taskgate.plugins import Params
from taskgate.plugins.redis import RedisUrl

SECTION = "mcp"


def _variables_set(headers: dict[str, str]) -> dict[str, str]:
    """`headers_env`: every environment variable named holds a value."""
    for header, variable in headers.items():
        if not os.environ.get(variable):
            raise ValueError(f"environment variable {variable} (for header {header}) is not set")
    return headers


class McpServerConfig(Params):
    """An upstream MCP server (Streamable HTTP). taskgate uses its own credentials, never the caller's."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")  # the prefix of its tools: NAME__tool
    url: HttpUrl
    headers_env: dict[str, str] = Field(default_factory=dict)  # header -> environment variable holding its value
    timeout_s: float = Field(default=30.0, gt=0)
    audience: str | None = None  # of the per-task assertions it receives; default: its URL
    sessions: Literal["shared", "per_task"] = "shared"  # per_task: a stateful server gets a session per task
    prefix: bool = True  # its tools, prompts and resources served as NAME__name; false: as it names them
    names: dict[str, str] = Field(default_factory=dict)  # its name -> the name served (no prefix added)

    @field_validator("names")
    @classmethod
    def _served_names(cls, names: dict[str, str]) -> dict[str, str]:
        served = list(names.values())
        twice = next((n for n in served if served.count(n) > 1), None)
        if twice is not None:
            raise ValueError(f"two of its names are served as {twice!r}")
        bad = next((n for n in served if not n or not n.isprintable() or len(n) > 128), None)
        if bad is not None:
            raise ValueError(f"{bad!r} is not a name to serve (1-128 printable characters)")
        return names

    _env_set = field_validator("headers_env")(lambda cls, headers: _variables_set(headers))

    def headers(self) -> dict[str, str]:
        return {header: os.environ[variable] for header, variable in self.headers_env.items()}


class McpConfig(Params):
    """The MCP gateway at /mcp: upstream servers whose tools it aggregates, authorizes and forwards."""

    servers: list[McpServerConfig] = Field(default_factory=list)
    catalog_ttl_s: float = Field(default=30.0, ge=0)  # how long an upstream's tool list is reused
    max_task_sessions: int = Field(default=256, ge=1)  # per_task servers: sessions kept open, least recent closed
    task_sessions_per_caller: int = Field(default=16, ge=1)  # of those, one caller's: its own oldest close first
    max_sessions: int = Field(default=10_000, ge=1)
    session_ttl_s: float = Field(default=86_400.0, gt=0)
    sessions_per_caller: int = Field(default=64, ge=1)  # a caller's oldest session closes past this
    relay_timeout_s: float = Field(default=120.0, gt=0)  # how long an upstream's request waits for the client
    # a tools/call the policy refuses or holds: a result with isError true that the model reads and can act on
    # (MCP's tool execution errors), or a JSON-RPC error (-32003, -32044) for clients written against those
    refusals: Literal["result", "error"] = "result"
    session_store: Literal["memory", "redis"] = "memory"  # redis: every replica serves every handshake session
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = Field(default="taskgate:mcp:", min_length=1)
    # DNS rebinding protection (proxy/origins.py): None derives them from server.host
    allowed_hosts: list[str] | None = None
    allowed_origins: list[str] | None = None

    @field_validator("servers")
    @classmethod
    def _unique(cls, servers: list[McpServerConfig]) -> list[McpServerConfig]:
        names = [s.name for s in servers]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate:
            raise ValueError(f"two MCP servers are named {duplicate!r}")
        unprefixed = [s.name for s in servers if not s.prefix]
        if len(unprefixed) > 1:
            raise ValueError(
                f"servers {unprefixed} both serve names unprefixed, so their names can collide; keep `prefix` on "
                "for all but one and map the names you want bare with `names`"
            )
        claimed: dict[str, str] = {}
        for server in servers:
            for served in server.names.values():
                owner = claimed.setdefault(served, server.name)
                prefixed = served.partition("__")[0] if "__" in served else None
                if owner != server.name:
                    raise ValueError(f"servers {owner!r} and {server.name!r} both serve a name {served!r}")
                if prefixed in names and prefixed != server.name:
                    raise ValueError(f"server {server.name!r} serves {served!r}, a name of server {prefixed!r}")
        return servers
