"""`routing.static`: each model goes to the one upstream configured for it."""

from __future__ import annotations

from typing import Any

from taskgate.plugins import PLACEMENT, REQUEST, Inputs, Placement, Reject, RequestContext, Services, Step, StepOptions
from taskgate.plugins.params import NoParams

from .config import RoutingConfig


class StaticRoute(Step[NoParams]):
    """Look the request's model up in the `routing.upstreams` table."""

    type = "routing.static"
    requires = (REQUEST,)
    provides = PLACEMENT

    def __init__(self, name: str, params: NoParams, services: Services, options: StepOptions | None = None):
        super().__init__(name, params, services, options)
        config = services.section("routing", RoutingConfig)
        self._table = {model: up.endpoint() for up in config.upstreams for model in up.models}

    async def run(self, inputs: Inputs) -> Any:
        request: RequestContext = inputs[REQUEST]
        model = request.model or ""
        endpoint = self._table.get(model)
        if endpoint is None:
            raise Reject(404, "model_not_found", f"The model {model!r} does not exist or is not served here.")
        return Placement(endpoint, model, reason="the only upstream configured for this model")
