"""The engine that decides and sends: a surface's plan run, its body edits, dispatch with fallback before the first
byte, the readers of an answer, usage, metrics, tracing. Its section is `tracing`; the core sections (server,
logging, usage, steps, pipelines) are its config (config.py)."""

from __future__ import annotations

from taskgate.plugins import Registry

from .config import TRACING, TracingConfig


def register(registry: Registry) -> None:
    registry.add_section(TRACING, TracingConfig)


__all__ = ["register"]
