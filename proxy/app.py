"""The app factory (config in, a frozen aiohttp application out) and the probes: /healthz, /readyz, /metrics.

The front door knows its rooms, not their paths: the gateway (the engine
that decides and sends), the surfaces beside it (the OpenAI inference
surface, the MCP gateway, the dashboard), and every plugin room's routes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

import aiohttp
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from taskgate import dashboard, llm, mcp_gateway
from taskgate.agent.types import CALLER
from taskgate.batch.types import ITEMS
from taskgate.gateway.caller import GatewayCaller, NoTools
from taskgate.gateway.config import TRACING, Config, TracingConfig
from taskgate.gateway.gateway import GATEWAY, Gateway
from taskgate.gateway.metrics import Metrics
from taskgate.gateway.plans import build_plans, seeded_plans
from taskgate.llm.items import GatewayItems
from taskgate.mcp_gateway.config import SECTION as MCP_SECTION
from taskgate.mcp_gateway.config import McpConfig
from taskgate.plugins import FRONT, READINESS, Registry, load_plugins
from taskgate.plugins.evidence import EvidenceLog

from .middleware import ROUTES, front_door, served_paths, stamp_request_id

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

    from taskgate.gateway.tracing import Tracing

HANDLER_ARGS = {
    "auto_decompress": False,  # gateway.body decodes request bodies itself, bounded, with a clear error
    "max_field_size": 65536,  # headers up to this reach the front door, which answers in the surface's format
    "max_line_size": 65536,
    "lingering_time": 1.0,  # an unread body is drained this long at most before the connection closes
}


def default_registry() -> Registry:
    """A registry with every installed plugin, built-ins included (the surfaces' sections among them)."""
    registry = Registry()
    load_plugins(registry)
    return registry


def create_app(config: Config, registry: Registry, tracer_provider: TracerProvider | None = None) -> web.Application:
    """Compile every plan now, so a bad config fails here and not on a request.

    Traces go to `tracer_provider` when one is given (a test's, an embedding application's), else, with
    `tracing.enabled`, to the exporter the config names; otherwise there is no tracer at all.
    """
    services = registry.services(config.sections)
    plans = build_plans(config, registry, services, mcp_gateway.wanted(config.section(MCP_SECTION, McpConfig)))
    engine = Gateway(
        config=config,
        plans=plans,
        seeded=seeded_plans(plans),
        services=services,
        metrics=Metrics(services.metrics, config.core.usage.metric_tenants),
        evidence=EvidenceLog(config.core.logging.evidence_buffer),
        tracing=_tracing(config.section(TRACING, TracingConfig), tracer_provider),
    )
    app = web.Application(
        client_max_size=config.server.max_body_bytes, middlewares=[front_door], handler_args=HANDLER_ARGS
    )
    app[GATEWAY] = app[FRONT] = engine
    app.cleanup_ctx.append(_workers)
    app.cleanup_ctx.append(_http_client)
    if engine.tracing is not None:
        app.cleanup_ctx.append(_tracer)
    app.on_response_prepare.append(stamp_request_id)
    llm.add_routes(app, registry.takeovers)
    tool_calls = mcp_gateway.mount(app, engine)
    app[CALLER] = GatewayCaller(engine, tool_calls or NoTools())
    app[ITEMS] = GatewayItems(engine)
    for add_routes in registry.routes:  # the rooms' own routes: authz's task tokens, agent's /v1/tasks, batches
        add_routes(app)
    dashboard.add_routes(app, engine)  # the dashboard at /ui, unless ui.enabled is false
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    app[ROUTES] = served_paths(app)
    app.freeze()
    return app


def _tracing(settings: TracingConfig, provider: TracerProvider | None) -> Tracing | None:
    if provider is None and not settings.enabled:
        return None
    from taskgate.gateway.tracing import Tracing  # the OpenTelemetry SDK: only when tracing is on

    return Tracing(settings, provider)


async def _http_client(app: web.Application) -> AsyncIterator[None]:
    """One pooled, keep-alive client session for every upstream call."""
    engine = app[GATEWAY]
    server = engine.config.server
    connector = aiohttp.TCPConnector(limit=server.max_connections, limit_per_host=0, keepalive_timeout=60)
    # silences are bounded per request (first byte by class, then the idle gap), not per socket read
    timeout = aiohttp.ClientTimeout(total=None, connect=server.connect_timeout_s)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, auto_decompress=False) as session:
        engine.services.attach_http(session)
        async with AsyncExitStack() as stack:
            for run in engine.services.lifespans.values():
                await stack.enter_async_context(run())
            engine.ready = True
            yield
            engine.ready = False
            await engine.drain()  # budgets' charges land before their stores close; pending records are written
        engine.services.attach_http(None)


async def _tracer(app: web.Application) -> AsyncIterator[None]:
    """Spans still queued are exported when the app stops (a provider built from config only)."""
    yield
    tracing = app[GATEWAY].tracing
    if tracing is not None:
        await asyncio.to_thread(tracing.shutdown)  # the last export may wait on the collector


async def _workers(app: web.Application) -> AsyncIterator[None]:
    """Threads for CPU-heavy steps, so they never block the event loop."""
    engine = app[GATEWAY]
    engine.pool = ThreadPoolExecutor(engine.config.server.worker_threads, thread_name_prefix="taskgate-step")
    yield
    engine.pool.shutdown(wait=False, cancel_futures=True)


async def healthz(request: web.Request) -> web.Response:
    """Alive: the process answers."""
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready: plans are compiled, upstream connections can be opened, and no room reports a problem (routing:
    a configured model no endpoint can serve)."""
    engine = request.app[GATEWAY]
    if not engine.ready:
        return web.json_response({"status": "starting"}, status=503)
    problems: dict[str, str] = {}
    checks: list[Callable[[], Mapping[str, str]]] = engine.services.shared(READINESS, list)
    for check in checks:
        problems.update(check())
    if problems:
        return web.json_response({"status": "not_ready", "problems": problems}, status=503)
    return web.json_response({"status": "ready"})


async def metrics(request: web.Request) -> web.Response:
    return web.Response(body=request.app[GATEWAY].metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})
