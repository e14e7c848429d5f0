"""Run the proxy: one process, one event loop, graceful shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import gc

import structlog
from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from taskgate.errors import TaskgateError
from taskgate.gateway.config import load_config
from taskgate.gateway.errors import error_body
from taskgate.logs import configure_logging

from .app import create_app, default_registry

logger = structlog.get_logger("taskgate")


def serve(config_path: str | None, host: str | None = None, port: int | None = None) -> None:
    """Load, compile and serve; any config problem raises before the socket opens."""
    registry = default_registry()
    config = load_config(config_path, registry)
    configure_logging(config.core.logging.level)
    app = create_app(config, registry)
    _freeze_start_up_heap()
    bind_host, bind_port = host or config.server.host, port if port is not None else config.server.port
    logger.info("listening", host=bind_host, port=bind_port, config=config.source)
    try:
        _run(app, bind_host, bind_port)
    except OSError as exc:
        raise TaskgateError(f"cannot listen on {bind_host}:{bind_port}: {exc.strerror or exc}") from None


def _freeze_start_up_heap() -> None:
    """Keep the start-up heap (NER model, classifier, policy) out of the collector's full passes.

    Here it is about 340,000 objects; each full collection walked them all and
    took about 190 ms, stalling every request in flight. Frozen, a full pass
    only walks what was allocated since.
    """
    gc.collect()
    gc.freeze()


def _run(app: web.Application, host: str, port: int) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully (what `web.run_app` does, with our protocol)."""
    loop = new_event_loop()
    asyncio.set_event_loop(loop)
    main = loop.create_task(_serve_until_stopped(app, host, port))
    try:
        loop.run_until_complete(main)
    except (web.GracefulExit, KeyboardInterrupt):
        pass
    finally:
        if not main.done():  # a signal ended the loop: let the runner's clean-up run
            main.cancel()
            with contextlib.suppress(asyncio.CancelledError, web.GracefulExit):
                loop.run_until_complete(main)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def _serve_until_stopped(app: web.Application, host: str, port: int) -> None:
    runner = _Runner(app, handle_signals=True, handler_cancellation=True, access_log=None, shutdown_timeout=10.0)
    await runner.setup()  # a client that leaves cancels its upstream call (handler_cancellation)
    try:
        await web.TCPSite(runner, host, port).start()
        await asyncio.Event().wait()  # the runner's signal handlers raise GracefulExit
    finally:
        await runner.cleanup()


class _Protocol(RequestHandler):
    """aiohttp's connection handler, but what cannot be read as HTTP is answered in JSON that echoes nothing.

    aiohttp answers a request it cannot parse (a header line over
    `max_field_size`, a malformed request line) itself, in plain text quoting
    the first bytes it choked on, and logs a traceback. Headers up to the
    limit in `app.HANDLER_ARGS` reach the front door, which answers in each
    surface's format; this covers what is beyond it.
    """

    __slots__ = ()

    def handle_error(
        self, request: BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        logger.warning("unreadable_http_request", status=status, reason=type(exc).__name__ if exc else None)
        if request.writer.output_size > 0:
            raise ConnectionError("an answer had begun: the connection is dropped")
        sentence = "the request could not be read as HTTP" if status < 500 else "internal error"
        response = web.Response(
            status=status, body=error_body(status, "bad_http_request" if status < 500 else "internal_error", sentence),
            content_type="application/json",
        )  # fmt: skip
        response.force_close()
        return response


class _Server(web.Server):
    def __call__(self) -> RequestHandler:
        return _Protocol(self, loop=self._loop, **self._kwargs)


class _Runner(web.AppRunner):
    """An AppRunner whose connections use _Protocol."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _Server  # the same object and state, with our protocol factory
        return server


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A fresh loop: uvloop where installed (it roughly halves the HTTP stack's cost per request), else asyncio's."""
    try:
        import uvloop
    except ImportError:  # platforms without a uvloop wheel still run, just slower
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
