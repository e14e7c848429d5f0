"""Proxy tests that run tasks under authorization use the authz tests' real keys, and a taskgate with tools."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Script
from tests.authz.conftest import Keys, key_pairs, keys
from tests.authz.mcp_servers import serving
from tests.authz.policy import authz_config

from .agents import slow_servers

__all__ = ["key_pairs", "keys", "start"]


@pytest.fixture
async def start(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[Any]:
    """start(script, **config sections) -> the proxy's test client, with a scripted sim and the two MCP servers."""
    clients: list[Any] = []
    mail, files = slow_servers()
    async with serving(mail) as mail_url, serving(files) as files_url:

        async def make(
            model: Script | web.Application, tweak: Callable[[dict[str, Any]], None] | None = None, **bounds: Any
        ) -> Any:
            """`model`: a script for the sim, or an app of the test's own that stands in for the engine."""
            profile = dataclasses.replace(PROFILES["instant"], models=("m",))
            app = model if isinstance(model, web.Application) else create_sim(profile, "sim", model)
            engine = await aiohttp_server(app)
            config = authz_config(keys, tmp_path, str(engine.make_url("")).rstrip("/"))
            config["mcp"] = {"servers": [{"name": "mail", "url": mail_url}, {"name": "files", "url": files_url}]}
            config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}})
            config["pipelines"]["mcp"] = ["authn", "authorize", "pii"]
            config.update(bounds)
            if tweak is not None:
                tweak(config)
            clients.append(await proxy(config))
            clients[-1].engine = engine  # a test may stop the model mid-task
            return clients[-1]

        yield make
        for client in clients:  # the gateway lets go of the MCP servers before they stop
            await client.close()
