"""The OpenAI inference surface: chat, completions and embeddings, the Responses API translated onto the chat plan,
and the batch room's items. Its section is `responses` (kept responses)."""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from taskgate.plugins import Registry, Takeover

from . import responses, routes
from .responses_store import SECTION, ResponsesConfig


def register(registry: Registry) -> None:
    registry.add_section(SECTION, ResponsesConfig)


def add_routes(app: web.Application, takeovers: Mapping[str, Mapping[str, Takeover]]) -> None:
    """/v1/chat/completions, /v1/completions, /v1/embeddings and /v1/responses."""
    routes.add_routes(app, takeovers)
    responses.add_routes(app, takeovers)


__all__ = ["add_routes", "register"]
