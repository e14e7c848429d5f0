"""Task endpoints: exchange a task token for a narrower one, and revoke a task.

    POST /v1/tasks/token          {"subject_token": TASK_TOKEN, "tools": ["mail__read"]}
    POST /v1/tasks/{task}/revoke

Both take the caller's own bearer JWT, checked by the plans' authenticate step;
the task must be the caller's. The authz plugin serves them (through the
registry's route hook) when its section configures tokens, a policy and
tasks; without the plugin, they are not served. In the
spirit of RFC 8693, an exchange only ever narrows: asking for a tool the task
may not use is refused with `invalid_target`, naming it, rather than silently
dropped.
"""

from __future__ import annotations

import time

from aiohttp import web

from taskgate.plugins import EVIDENCE, FRONT, ClientError, Reject

from .authorizer import Authorizer, authorizer
from .config import AuthzConfig
from .identity import Identity
from .tasks import TaskTokenError

AUTHORIZER = web.AppKey("taskgate.authorizer", Authorizer)
MAX_TOOLS = 256


def add_routes(app: web.Application) -> None:
    """Serve the task endpoints when the authz section configures tokens, a policy and tasks."""
    services = app[FRONT].services
    config = services.sections.get("authz")
    if not isinstance(config, AuthzConfig) or config.jwt is None or config.policy is None or config.tasks is None:
        return
    app[AUTHORIZER] = authorizer(services)
    app.router.add_post("/v1/tasks/token", exchange)
    app.router.add_post("/v1/tasks/{task}/revoke", revoke)


async def _caller(request: web.Request) -> Identity:
    """The caller, as the plans' authenticate step verifies them; no plan that authenticates means no task of theirs."""
    request[EVIDENCE].surface = "tasks"
    identity = await request.app[FRONT].authenticate(request, request[EVIDENCE])
    if not isinstance(identity, Identity):
        raise Reject(401, "unauthenticated", "no pipeline authenticates callers here", "authentication_error")
    return identity


async def exchange(request: web.Request) -> web.Response:
    identity = await _caller(request)
    authz = request.app[AUTHORIZER]
    body = await request.app[FRONT].read_json(request)
    if not isinstance(body, dict):
        raise ClientError(400, "invalid_request", "the request body must be a JSON object")
    token, tools = body.get("subject_token"), body.get("tools")
    if not isinstance(token, str) or not token:
        raise ClientError(400, "invalid_request", "subject_token must be the task token to exchange", "subject_token")
    if not isinstance(tools, list) or not tools or not all(isinstance(t, str) and t for t in tools):
        raise ClientError(400, "invalid_request", "tools must be a non-empty list of tool names", "tools")
    if len(tools) > MAX_TOOLS:
        raise ClientError(400, "invalid_request", f"at most {MAX_TOOLS} tools", "tools")
    try:
        task = await authz.task_for_token(token, identity)
    except TaskTokenError as exc:
        raise exc.reject() from None
    spec = task.spec
    grant = authz.grant(spec)
    wider = [t for t in tools if not grant.tool(t).allowed or any(c in t for c in "*?{")]
    if wider:
        raise Reject(
            400, "invalid_target", f"an exchange can only narrow; this task may not use {sorted(set(wider))}",
            details={"exchange": {"task": spec.task, "refused": sorted(set(wider))}},
        )  # fmt: skip
    narrower = spec.narrowed(tuple(tools))
    issued, expires = authz.tokens.mint(narrower, task.epoch, not_after=task.expires)  # narrower, never longer-lived
    return web.json_response(
        {
            "access_token": issued,
            "issued_token_type": "urn:taskgate:params:token-type:task",
            "token_type": "Bearer",
            "expires_in": max(0, round(expires - time.time())),
            "task": spec.task,
            "tools": tools,
        }
    )


async def revoke(request: web.Request) -> web.Response:
    identity = await _caller(request)
    authz = request.app[AUTHORIZER]
    task = request.match_info["task"]
    try:
        known = await authz.revoke(identity, task)  # the caller's own namespace: revoking works even once forgotten
    except TaskTokenError as exc:  # the store is away: 503 with a retry hint, nothing half-done to undo
        raise exc.reject() from None
    return web.json_response({"task": task, "revoked": True, "known": known})
