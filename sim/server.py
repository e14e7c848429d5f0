"""The aiohttp application of one simulated engine, and a blocking runner."""

from aiohttp import web
from aiohttp.typedefs import Handler

from taskgate.sim.engine import Engine
from taskgate.sim.errors import ApiError
from taskgate.sim.handlers import Api
from taskgate.sim.profile import EngineProfile
from taskgate.sim.script import Script

ENGINE = web.AppKey("engine", Engine)
ENGINE_NAME = web.AppKey("engine_name", str)
ENGINE_HEADER = "x-sim-engine"


def create_app(profile: EngineProfile, name: str = "sim", script: Script | None = None) -> web.Application:
    """An OpenAI-compatible app backed by one simulated engine (with scripted replies, if given)."""
    app = web.Application(middlewares=[_api_errors])
    engine = Engine(profile)
    api = Api(engine, script, name)
    app[ENGINE] = engine
    app[ENGINE_NAME] = name
    app.on_response_prepare.append(_name_engine)
    app.router.add_post("/v1/chat/completions", api.chat)
    app.router.add_post("/v1/completions", api.completions)
    app.router.add_post("/v1/responses", api.responses)
    app.router.add_post("/v1/embeddings", api.embeddings)
    app.router.add_get("/v1/models", api.models)
    app.router.add_get("/health", api.health)
    app.router.add_get("/metrics", api.metrics)
    return app


def serve(host: str, port: int, profile: EngineProfile, name: str, script: Script | None = None) -> None:
    """Serve one engine until interrupted."""
    app = create_app(profile, name, script)
    web.run_app(app, host=host, port=port, handler_cancellation=True, access_log=None)


@web.middleware
async def _api_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as exc:
        return exc.response()


async def _name_engine(request: web.Request, response: web.StreamResponse) -> None:
    response.headers[ENGINE_HEADER] = request.app[ENGINE_NAME]
