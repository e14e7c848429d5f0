"""The app factory (config in, a frozen aiohttp application out) and the probes: /healthz, /readyz, /metrics."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack

import aiohttp
from aiohttp import web
from opentelemetry.trace import TracerProvider
from prometheus_client import CONTENT_TYPE_LATEST

from taskgate.agent.types import CALLER
from taskgate.batch.types import ITEMS
from taskgate.plugins import FRONT, READINESS, Registry, load_plugins
from taskgate.plugins.evidence import EvidenceLog

from . import mcp, openai, responses, ui
from .batch_items import GatewayItems
from .calls import GatewayCaller
from .config import Config
from .metrics import Metrics
from .middleware import front_door, stamp_request_id
from .plans import build_plans, seeded_plans
from .state import GATEWAY, Gateway
from .tracing import Tracing

HANDLER_ARGS = {
    "auto_decompress": False,  # proxy.body decodes request bodies itself, bounded, with a clear error
    "max_field_size": 65536,  # headers up to this reach the front door, which answers in the surface's format
    "max_line_size": 65536,
    "lingering_time": 1.0,  # an unread body is drained this long at most before the connection closes
}


def default_registry() -> Registry:
    """A registry with every installed plugin, built-ins included."""
    registry = Registry()
    load_plugins(registry)
    responses.register(registry)
    return registry


def create_app(config: Config, registry: Registry, tracer_provider: TracerProvider | None = None) -> web.Application:
    """Compile every plan now, so a bad config fails here and not on a request.

    Traces go to `tracer_provider` when one is given (a test's, an embedding application's), else, with
    `tracing.enabled`, to the exporter the config names; otherwise there is no tracer at all.
    """
    services = registry.services(config.sections)
    tracing = config.tracing
    plans = build_plans(config, registry, services)
    gateway = Gateway(
        config=config,
        plans=plans,
        seeded=seeded_plans(plans),
        services=services,
        metrics=Metrics(services.metrics, config.core.usage.metric_tenants),
        evidence=EvidenceLog(config.core.logging.evidence_buffer),
        tracing=Tracing(tracing, tracer_provider) if tracer_provider is not None or tracing.enabled else None,
    )
    app = web.Application(
        client_max_size=config.server.max_body_bytes, middlewares=[front_door], handler_args=HANDLER_ARGS
    )
    app[GATEWAY] = app[FRONT] = gateway
    app.cleanup_ctx.append(_workers)
    app.cleanup_ctx.append(_http_client)
    if gateway.tracing is not None:
        app.cleanup_ctx.append(_tracer)
    app.on_response_prepare.append(stamp_request_id)
    openai.add_routes(app, registry.takeovers)
    responses.add_routes(app, registry.takeovers)
    if mcp.add_routes(app, gateway):
        app.cleanup_ctx.append(_mcp_upstreams)
    app[CALLER] = GatewayCaller(gateway, app.get(mcp.UPSTREAMS))
    app[ITEMS] = GatewayItems(gateway)
    for add_routes in registry.routes:  # the rooms' own routes: authz's task tokens, agent's /v1/tasks, batches
        add_routes(app)
    ui.add_routes(app, gateway)  # the dashboard at /ui, unless ui.enabled is false
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    app.freeze()
    return app


async def _http_client(app: web.Application) -> AsyncIterator[None]:
    """One pooled, keep-alive client session for every upstream call."""
    gateway = app[GATEWAY]
    server = gateway.config.server
    connector = aiohttp.TCPConnector(limit=server.max_connections, limit_per_host=0, keepalive_timeout=60)
    # silences are bounded per request (relay.Timeouts: first byte by class, then the idle gap), not per socket read
    timeout = aiohttp.ClientTimeout(total=None, connect=server.connect_timeout_s)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, auto_decompress=False) as session:
        gateway.services.attach_http(session)
        async with AsyncExitStack() as stack:
            for run in gateway.services.lifespans.values():
                await stack.enter_async_context(run())
            gateway.ready = True
            yield
            gateway.ready = False
            await gateway.drain()  # budgets' charges land before their stores close
        gateway.services.attach_http(None)


async def _mcp_upstreams(app: web.Application) -> AsyncIterator[None]:
    """One connection per upstream MCP server, held by a task of its own while the app runs."""
    async with app[mcp.UPSTREAMS].running():
        yield


async def _tracer(app: web.Application) -> AsyncIterator[None]:
    """Spans still queued are exported when the app stops (a provider built from config only)."""
    yield
    tracing = app[GATEWAY].tracing
    if tracing is not None:
        await asyncio.to_thread(tracing.shutdown)  # the last export may wait on the collector


async def _workers(app: web.Application) -> AsyncIterator[None]:
    """Threads for CPU-heavy steps, so they never block the event loop."""
    gateway = app[GATEWAY]
    gateway.pool = ThreadPoolExecutor(gateway.config.server.worker_threads, thread_name_prefix="taskgate-step")
    yield
    gateway.pool.shutdown(wait=False, cancel_futures=True)


async def healthz(request: web.Request) -> web.Response:
    """Alive: the process answers."""
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready: plans are compiled, upstream connections can be opened, and no room reports a problem (routing:
    a configured model no endpoint can serve)."""
    gateway = request.app[GATEWAY]
    if not gateway.ready:
        return web.json_response({"status": "starting"}, status=503)
    problems: dict[str, str] = {}
    checks: list[Callable[[], Mapping[str, str]]] = gateway.services.shared(READINESS, list)
    for check in checks:
        problems.update(check())
    if problems:
        return web.json_response({"status": "not_ready", "problems": problems}, status=503)
    return web.json_response({"status": "ready"})


async def metrics(request: web.Request) -> web.Response:
    return web.Response(body=request.app[GATEWAY].metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})
