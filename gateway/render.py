"""How a failure reaches a client: one Problem (plugins.failures), rendered in the format of the surface it hit.

The front door renders every failure a handler did not answer itself. A
surface mounted as a sub-application puts its renderer on it under `RENDER`
(the MCP gateway: a JSON-RPC error); every other route gets `openai`, the
OpenAI-compatible error body the inference surfaces, the rooms' routes and
the engines all speak.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

from taskgate.plugins import Evidence, Problem

from .errors import error_response

Render = Callable[[Problem, Evidence], web.Response]
RENDER: web.AppKey[Render] = web.AppKey("taskgate.render")
"""On a surface's sub-application: how a failure on its routes is rendered."""


def openai(problem: Problem, evidence: Evidence) -> web.Response:
    """A failure as an OpenAI error body, with the problem's headers (a challenge, a Retry-After)."""
    response = error_response(
        problem.status, problem.code, problem.cited(evidence.request_id), problem.kind, problem.param, problem.public
    )
    response.headers.update(problem.headers)
    return response
