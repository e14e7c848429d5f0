"""The surfaces a request arrives on: one name each, for plans, steps and the evidence."""

from __future__ import annotations

from typing import Final


class Surface:
    """A surface's name: the key of its plan in config (`pipelines.<surface>`) and the evidence's `surface`."""

    CHAT: Final = "chat"
    COMPLETIONS: Final = "completions"
    EMBEDDINGS: Final = "embeddings"
    RESPONSES: Final = "responses"  # translated onto the chat plan; its own name in the evidence
    MCP: Final = "mcp"


INFERENCE: Final = (Surface.CHAT, Surface.COMPLETIONS, Surface.EMBEDDINGS)
"""The surfaces whose plans place a request on an engine (each has a plan that must provide a placement)."""
