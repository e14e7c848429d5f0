"""Work that can wait: the OpenAI Batch API, run in the idle capacity of the pools taskgate routes to.

Built-in plugin, registered through the `taskgate.plugins` entry point like
any other: it contributes the `batch` config section and the `/v1/files` and
`/v1/batches` routes. It reaches the gateway only through the `Items` in
`batch.types`, which the gateway puts on the app before routes are added.
"""

from aiohttp import web

from taskgate.plugins import Registry

from . import routes
from .config import BatchConfig
from .types import ITEMS, ItemResult, Items

__all__ = ["ITEMS", "BatchConfig", "ItemResult", "Items", "register"]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the batch section and routes."""
    registry.add_section("batch", BatchConfig)
    registry.add_routes(_routes)


def _routes(app: web.Application) -> None:
    if ITEMS not in app:  # a front door that runs no items: nothing of ours to serve
        return
    routes.add_routes(app)
