"""Task endpoints: open a task on its purpose, exchange a task token for a narrower one, revoke a task.

    POST /v1/tasks/open           {"purpose": "summarise my email from this week"}
    POST /v1/tasks/token          {"subject_token": TASK_TOKEN, "tools": ["mail__read"]}
    POST /v1/tasks/{task}/revoke
    POST /v1/tasks/{task}/subtasks           {"subject_token": TASK_TOKEN, "tools": [...], "labels": [...]}
    POST /v1/tasks/{task}/approvals/{id}     {"approve": true}   (or false: refuse)
    GET  /v1/tasks/{task}/approvals/{id}     the hold, as its user sees it
    GET  /.well-known/jwks.json              taskgate's public keys: of task tokens and per-task assertions
    GET  /.well-known/oauth-protected-resource[/mcp]   the resource's metadata (RFC 9728; resource.py)

Each takes the caller's own bearer JWT, checked by the plans' authenticate
step; the task must be the caller's. The authz plugin serves them (through the
registry's route hook) when its section configures tokens, a policy and
tasks; without the plugin, they are not served. In the
spirit of RFC 8693, an exchange only ever narrows: asking for a tool the task
may not use is refused with `invalid_target`, naming it, rather than silently
dropped.
"""

from __future__ import annotations

import json
import time
from typing import Any

from aiohttp import web

from taskgate.plugins import EVIDENCE, FRONT, GRANT, META_PURPOSE, ClientError, Reject, RequestContext

from . import resource
from .authorize import MCP, TaskGrant
from .authorizer import MAX_PURPOSE_CHARS, Authorizer, authorizer
from .config import AuthzConfig
from .identity import Identity
from .tasks import TaskTokenError

AUTHORIZER = web.AppKey("taskgate.authorizer", Authorizer)
MAX_TOOLS = 256


def add_routes(app: web.Application) -> None:
    """Serve the resource's metadata when `resource` is set, the task endpoints when tokens, a policy and tasks are."""
    services = app[FRONT].services
    config = services.sections.get("authz")
    if not isinstance(config, AuthzConfig) or config.jwt is None:
        return
    tasks = config.policy is not None and config.tasks is not None
    if config.resource is not None:
        resource.add_routes(app, config.resource, config.jwt.issuers(), jwks=tasks)
    if tasks:
        _task_routes(app)


def _task_routes(app: web.Application) -> None:
    app[AUTHORIZER] = authorizer(app[FRONT].services)
    app.router.add_post("/v1/tasks/open", open_task)
    app.router.add_post("/v1/tasks/token", exchange)
    app.router.add_post("/v1/tasks/{task}/revoke", revoke)
    app.router.add_post("/v1/tasks/{task}/subtasks", subtask)
    app.router.add_post("/v1/tasks/{task}/approvals/{hold}", answer)
    app.router.add_get("/v1/tasks/{task}/approvals/{hold}", show_hold)
    app.router.add_get(resource.JWKS_PATH, jwks)


async def _object(request: web.Request) -> dict[str, Any]:
    body = await request.app[FRONT].read_json(request)
    if not isinstance(body, dict):
        raise ClientError(400, "invalid_request", "the request body must be a JSON object")
    return body


def _subject_token(body: dict[str, Any], what: str) -> str:
    token = body.get("subject_token")
    if not isinstance(token, str) or not token:
        raise ClientError(400, "invalid_request", f"subject_token must be {what}", "subject_token")
    return token


def _names(body: dict[str, Any], key: str, what: str, required: bool) -> list[str]:
    """A list of at most MAX_TOOLS non-empty strings under `key` (absent: empty, unless `required`)."""
    names = body.get(key, None if required else [])
    if not isinstance(names, list) or (required and not names) or not all(isinstance(n, str) and n for n in names):
        article = "a non-empty" if required else "a"
        raise ClientError(400, "invalid_request", f"{key} must be {article} list of {what}", key)
    if len(names) > MAX_TOOLS:
        raise ClientError(400, "invalid_request", f"at most {MAX_TOOLS} {what}", key)
    return names


async def _caller(request: web.Request) -> Identity:
    """The caller, as the plans' authenticate step verifies them; no plan that authenticates means no task of theirs."""
    request[EVIDENCE].surface = "tasks"
    identity = await request.app[FRONT].authenticate(request, request[EVIDENCE])
    if not isinstance(identity, Identity):
        raise Reject(401, "unauthenticated", "no pipeline authenticates callers here", "authentication_error")
    return identity


async def open_task(request: web.Request) -> web.Response:
    """A task opened on its purpose alone, for a client that only calls tools: the mcp plan decides, nothing runs.

    The plan (authenticate, classify, authorize, ...) runs on a listing that
    states the purpose, as an MCP client would, so no model pool is needed;
    the caller then presents the token to /mcp (header or `_meta`).
    """
    request[EVIDENCE].surface = "tasks"
    front = request.app[FRONT]
    if MCP not in front.plans:
        raise ClientError(404, "no_tool_gateway", "no MCP gateway here (mcp.servers); open a task with a chat request")
    body = await front.read_json(request)
    purpose = body.get("purpose") if isinstance(body, dict) else None
    if not isinstance(purpose, str) or not purpose.strip():
        raise ClientError(
            400, "invalid_request", "purpose must be the task's instruction, a non-empty string", "purpose"
        )
    if len(purpose) > MAX_PURPOSE_CHARS:
        raise ClientError(400, "purpose_too_long", f"a purpose is at most {MAX_PURPOSE_CHARS} characters", "purpose")
    listing = {"jsonrpc": "2.0", "id": 0, "method": "tools/list", "params": {"_meta": {META_PURPOSE: purpose}}}
    raw = json.dumps(listing).encode()
    context = RequestContext.parsed(request[EVIDENCE].request_id, MCP, request.path, request.headers, raw, listing)
    grant = (await front.run_plan(MCP, context, request[EVIDENCE])).get(GRANT)
    if not isinstance(grant, TaskGrant):  # the mcp plan must grant (plans.py); this is a second lock
        raise Reject(503, "no_grant", "the gateway's plan gave no grant for this task", "api_error")
    return web.json_response(
        {
            "task": grant.spec.task,
            "access_token": grant.token,
            "token_type": "Bearer",
            "expires_in": max(0, round(grant.expires - time.time())),
            "profile": grant.spec.profile,
        },
        headers=dict(grant.response_headers()),
    )


async def exchange(request: web.Request) -> web.Response:
    identity = await _caller(request)
    authz = request.app[AUTHORIZER]
    body = await _object(request)
    token = _subject_token(body, "the task token to exchange")
    tools = _names(body, "tools", "tool names", required=True)
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


async def subtask(request: web.Request) -> web.Response:
    """A subtask of the caller's task (a sub-agent's work): a new task whose grant is a subset of its parent's."""
    identity = await _caller(request)
    authz = request.app[AUTHORIZER]
    body = await _object(request)
    token = _subject_token(body, "the parent task's token")
    tools = _names(body, "tools", "tool names", required=False)
    labels = _names(body, "labels", "trust labels", required=True) if body.get("labels") is not None else None
    try:
        parent = await authz.task_for_token(token, identity)
        if parent.spec.task != request.match_info["task"]:
            raise TaskTokenError(403, "task_token_mismatch", "the task token belongs to another task")
        child, issued, expires = await authz.open_subtask(
            parent, tuple(tools), None if labels is None else tuple(labels)
        )
    except TaskTokenError as exc:
        raise exc.reject() from None
    return web.json_response(
        {
            "task": child.task,
            "parent": parent.spec.task,
            "access_token": issued,
            "token_type": "Bearer",
            "expires_in": max(0, round(expires - time.time())),
            "tools": tools,
            "labels": list(child.labels),
        }
    )


async def answer(request: web.Request) -> web.Response:
    """The task's own user approves or refuses a held call; nobody else can see it."""
    identity = await _caller(request)
    body = await request.app[FRONT].read_json(request)
    approve = body.get("approve") if isinstance(body, dict) else None
    if not isinstance(approve, bool):
        raise ClientError(400, "invalid_request", "approve must be true (run the held call once) or false", "approve")
    task, hold_id = request.match_info["task"], request.match_info["hold"]
    scope = request.app[AUTHORIZER].tasks.approval_scope
    if scope and scope not in identity.scopes:
        raise Reject(
            403, "approval_scope_missing",
            f"answering a hold takes a token with the scope {scope!r} (the user's own, not the agent's)",
            "permission_error",
        )  # fmt: skip
    try:
        hold = await request.app[AUTHORIZER].holds.answer(identity.tenant, identity.subject, task, hold_id, approve)
    except TaskTokenError as exc:
        raise exc.reject() from None
    request.app[AUTHORIZER].held.labels("approved" if approve else "refused").inc()
    request[EVIDENCE].decisions["approval"] = hold
    return web.json_response(hold.evidence())


async def show_hold(request: web.Request) -> web.Response:
    identity = await _caller(request)
    task, hold_id = request.match_info["task"], request.match_info["hold"]
    try:
        _, _, hold = await request.app[AUTHORIZER].holds.get(identity.tenant, identity.subject, task, hold_id)
    except TaskTokenError as exc:
        raise exc.reject() from None
    return web.json_response({**hold.evidence(), "arguments": hold.preview, "expired": hold.expired})


async def jwks(request: web.Request) -> web.Response:
    """Verifiers cache it for five minutes: publish a new task key (not yet the signer) at least that long first."""
    return web.json_response(request.app[AUTHORIZER].jwks, headers={"Cache-Control": "public, max-age=300"})
