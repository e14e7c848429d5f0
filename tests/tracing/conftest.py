"""Traced gateways: the SDK's in-memory exporter on a provider of the test's own (never the global one), and real
upstreams on 127.0.0.1 that keep the headers and `_meta` taskgate sent them."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.typedefs import Handler
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from taskgate.gateway.config import parse_config
from taskgate.plugins import Registry
from taskgate.proxy.app import create_app
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Script
from tests.authz.conftest import Keys, key_pairs, keys
from tests.authz.mcp_servers import files_server, serving
from tests.authz.policy import authz_config

__all__ = ["key_pairs", "keys"]


@dataclass
class Traces:
    """What a traced gateway exported, with the questions the tests ask of it."""

    provider: TracerProvider
    exporter: InMemorySpanExporter

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.named(name)
        assert len(found) == 1, f"{len(found)} spans named {name!r}: {[s.name for s in self.spans()]}"
        return found[0]

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        span_id = parent.context.span_id
        return sorted(
            (s for s in self.spans() if s.parent is not None and s.parent.span_id == span_id),
            key=lambda s: s.start_time or 0,
        )


@pytest.fixture
def traces() -> Iterator[Traces]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield Traces(provider, exporter)
    provider.shutdown()


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


TracedProxy = Callable[..., Awaitable[Any]]


@pytest.fixture
def traced(aiohttp_client: Any, registry: Registry, traces: Traces) -> TracedProxy:
    """Start a gateway from a config mapping, its spans going to `traces` (None: tracing as the config says)."""

    async def make(raw: dict[str, Any], provider: Any = traces.provider, plugins: Registry | None = None) -> Any:
        chosen = plugins or registry
        return await aiohttp_client(create_app(parse_config(raw, "<test>", chosen), chosen, provider))

    return make


@dataclass
class Seen:
    """The headers of every request an engine answered."""

    headers: list[dict[str, str]] = field(default_factory=list)

    def middleware(self) -> Any:
        @web.middleware
        async def keep(request: web.Request, handler: Handler) -> web.StreamResponse:
            if request.method == "POST":
                self.headers.append({k.lower(): v for k, v in request.headers.items()})
            return await handler(request)

        return keep


def sim_engine(seen: Seen, script: Script | None = None) -> web.Application:
    """The simulated engine, model `m`, answering at once; `seen` keeps what it was sent."""
    app = create_sim(dataclasses.replace(PROFILES["instant"], models=("m",)), "sim", script)
    app.middlewares.append(seen.middleware())
    return app


def pool(*urls: str) -> dict[str, Any]:
    endpoints = [{"name": f"e{i}", "url": url} for i, url in enumerate(urls, 1)]
    models = [{"name": "m"}]
    return {"routing": {"pools": [{"name": "p", "region": "eu-west", "endpoints": endpoints, "models": models}]}}


def metas_server(metas: list[dict[str, Any]]) -> MCPServer:
    """An MCP server whose tools keep the `_meta` of each call they get."""
    server = MCPServer("mail")

    @server.tool()
    def read(ctx: Context, folder: str = "inbox") -> str:
        """Read the newest message of a folder."""
        metas.append(dict(ctx.request_context.meta or {}))
        return f"[{folder}] the Q3 numbers are in."

    @server.tool(name="list")
    def list_messages(ctx: Context, folder: str = "inbox") -> list[str]:
        """List message subjects."""
        metas.append(dict(ctx.request_context.meta or {}))
        return [f"{folder}: Q3 numbers"]

    return server


@pytest.fixture
async def tools(traced: TracedProxy, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[Any]:
    """tools(script) -> a traced gateway under authorization, a scripted sim for the model, and two real MCP
    servers: `mail` (whose calls' `_meta` land in the client's `metas`) and `files`."""
    metas: list[dict[str, Any]] = []
    clients: list[Any] = []
    async with serving(metas_server(metas)) as mail, serving(files_server()) as files:

        async def make(script: Script) -> Any:
            engine = await aiohttp_server(sim_engine(Seen(), script))
            config = authz_config(keys, tmp_path, str(engine.make_url("")).rstrip("/"))
            config["mcp"] = {"servers": [{"name": "mail", "url": mail}, {"name": "files", "url": files}]}
            config["pipelines"]["mcp"] = ["authn", "authorize"]
            clients.append(await traced(config))
            clients[-1].metas = metas
            return clients[-1]

        yield make
        for client in clients:  # the gateway lets go of the MCP servers before they stop
            await client.close()
