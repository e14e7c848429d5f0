"""Agent tests run tasks through a real gateway: the proxy tests' fixtures (real keys, sim engine, MCP servers)."""

from __future__ import annotations

from tests.proxy.conftest import key_pairs, keys, start

__all__ = ["key_pairs", "keys", "start"]
