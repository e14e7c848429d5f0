"""The event loop the proxy runs on: uvloop where installed, asyncio's otherwise."""

from __future__ import annotations

import asyncio


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A fresh loop; uvloop roughly halves the per-request cost of the HTTP stack."""
    try:
        import uvloop
    except ImportError:  # platforms without a uvloop wheel still run, just slower
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
