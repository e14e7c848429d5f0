"""Who calls on /mcp, whose session it is, and the task a session's calls carry on.

A handshake session is its caller's alone. A tools/call runs in the task it
presents (task token in the header or `_meta`), else the session's: the task
its last call carried on (or opened), so an SDK client that never reads task
tokens still has its calls judged as one task. A hold, for a client that
declared URL elicitation, becomes the elicitation it asks for.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from mcp.types import INTERNAL_ERROR, INVALID_REQUEST, URL_ELICITATION_REQUIRED

from taskgate.dag import StepFailed
from taskgate.plugins import EVIDENCE, META_TASK_TOKEN, Halt, Principal, RequestContext

from .forward import forward_call
from .relay import Relay
from .rpc import APPROVAL_REQUIRED, FORBIDDEN, RpcError, explained, refused_result
from .sessions import Session
from .state import MCP, Mcp

SESSION_HEADER = "Mcp-Session-Id"


async def session_of(request: web.Request) -> Session:
    """The handshake session a request names."""
    sid = request.headers.get(SESSION_HEADER)
    if not sid:
        raise RpcError(INVALID_REQUEST, "no Mcp-Session-Id: send initialize first", 400)
    session = await request.app[MCP].sessions.get(sid)
    if session is None:
        raise RpcError(INVALID_REQUEST, "unknown or expired session: initialize again", 404)
    return session


def check_owner(session: Session, identity: Principal | None) -> None:
    """A handshake session is its caller's alone; a modern request needs only a caller its plan authenticated."""
    if identity is None:
        raise RpcError(FORBIDDEN, "no caller was authenticated for this request", 403)
    if session.subject is not None and (identity.subject, identity.tenant) != (session.subject, session.tenant):
        raise RpcError(FORBIDDEN, "this session belongs to another caller", 403)


async def identify(request: web.Request) -> Principal:
    """Who calls, as the plans' authenticate step says; its refusal in JSON-RPC's words."""
    evidence = request[EVIDENCE]
    try:
        identity = await request.app[MCP].gateway.authenticate(request, evidence)
    except (Halt, StepFailed) as exc:
        raise explained(exc, evidence) from None
    if identity is None:  # plans.py refuses an MCP gateway whose plan authenticates no one; this is a second lock
        raise RpcError(INTERNAL_ERROR, "no pipeline authenticates callers here", 500)
    return identity


def presented(mcp: Mcp, context: RequestContext) -> str | None:
    """The task token a request presents, in its header or `_meta`."""
    _, header = mcp.gateway.services.task_headers()
    return context.headers.get(header) or context.meta(META_TASK_TOKEN)


def with_task(context: RequestContext, token: str) -> RequestContext:
    """`context` presenting `token` in its `_meta`: an SDK client lists tools between calls without it."""
    body = dict(context.json())
    params = dict(body.get("params") or {})
    params["_meta"] = {**(params.get("_meta") or {}), META_TASK_TOKEN: token}
    body["params"] = params
    return RequestContext.parsed(context.id, context.surface, context.path, context.headers, context.body, body)


async def call(
    request: web.Request, context: RequestContext, session: Session, relay: Relay | None = None
) -> dict[str, Any]:
    """A tools/call; the task it carries on (or opens) is the session's from now on."""
    mcp: Mcp = request.app[MCP]
    owner: list[Principal] = []  # the caller, once the plan said it is the session's own

    def check(identity: Principal | None) -> None:
        check_owner(session, identity)
        owner.extend([identity] if identity is not None else [])

    token = presented(mcp, context)
    try:
        result = await forward_call(
            mcp.gateway, mcp.upstreams, context, request[EVIDENCE], session.version, check, relay
        )
    except RpcError as exc:
        opened = exc.data.get(META_TASK_TOKEN) if isinstance(exc.data, dict) else None
        if owner:  # only the session's own caller moves its task on
            await _carry_on(mcp, session, opened if isinstance(opened, str) else token or session.task_token)
        if session.elicits_url and exc.code == APPROVAL_REQUIRED:
            raise _elicitation(exc) from None
        if mcp.config.refusals == "result" and (refused := refused_result(exc, session.version)) is not None:
            request[EVIDENCE].error = {**(request[EVIDENCE].error or {}), "answered_as": "isError result"}
            return refused
        raise
    await _carry_on(mcp, session, (result.get("_meta") or {}).get(META_TASK_TOKEN) or token)
    return result


async def _carry_on(mcp: Mcp, session: Session, token: str | None) -> None:
    """The session's task is the one its last call carried on (or opened); a modern request's ends with it."""
    if token and session.sid is not None:
        await mcp.sessions.remember(session, "task_token", token)
    elif token:
        session.task_token = token


def _elicitation(exc: RpcError) -> RpcError:
    """A hold, for a client that declared URL elicitation: the approval page is the URL its user opens."""
    approval = exc.data.get("approval", {}) if isinstance(exc.data, dict) else {}
    asked = {"mode": "url", "elicitationId": approval.get("id"), "url": approval.get("url"), "message": exc.message}
    return RpcError(URL_ELICITATION_REQUIRED, exc.message, exc.status, {**exc.data, "elicitations": [asked]})
