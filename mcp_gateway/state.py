"""The MCP gateway's wiring, built once: upstream servers, sessions, relayed calls' answers, Host/Origin checks."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from taskgate.gateway.gateway import Gateway

from .config import McpConfig
from .origins import Origins
from .relay import Answers
from .sessions import Sessions, open_sessions
from .upstream import Upstreams


@dataclass
class Mcp:
    """What the gateway's /mcp handlers share (on the sub-application at /mcp, `request.app[MCP]`)."""

    gateway: Gateway
    config: McpConfig
    upstreams: Upstreams
    sessions: Sessions
    answers: Answers
    origins: Origins

    @classmethod
    def build(cls, gateway: Gateway, config: McpConfig) -> Mcp:
        sessions = open_sessions(
            config.session_store, config.redis_url, config.key_prefix, config.max_sessions, config.session_ttl_s,
            config.sessions_per_caller,
        )  # fmt: skip
        origins = Origins.build(gateway.config.server.host, config.allowed_hosts, config.allowed_origins)
        return cls(gateway, config, Upstreams(config, gateway.tracing), sessions, Answers(), origins)


MCP = web.AppKey("taskgate.mcp", Mcp)
