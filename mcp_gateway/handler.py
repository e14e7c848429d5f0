"""The MCP gateway at /mcp: Streamable HTTP, JSON responses; tools aggregated, authorized, forwarded.

Every request a client makes is a JSON-RPC message in a POST, in one of two
eras (eras.py). `tools/list` and `tools/call` run the `mcp` plan
(authenticate, authorize, pii, ...) per request: the list shows only tools
the task's grant allows, a call is decided on the tool and its arguments,
its arguments reach the upstream as the pii step left them, and its result
passes the pii step's output guard before it returns. Upstreams see
taskgate's own credentials, never the caller's token.
"""

from __future__ import annotations

import contextlib
import functools
from contextlib import AbstractContextManager
from typing import Any

from aiohttp import web
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from opentelemetry.trace import Span
from pydantic import ValidationError

from taskgate.gateway.body import read as read_body
from taskgate.plugins import EVIDENCE, IDENTITY, RequestContext, Surface
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.jsonbody import BodyError, loads

from .eras import check_params, discover, envelope, http_status, initialized, modern, stamped
from .forward import ITEMS, forward_item, list_items
from .relay import Relay, answered
from .rpc import McpDispatch, RpcError, explained, rpc_error_response, run_mcp_plan
from .sessions import Session
from .state import MCP, Mcp
from .tasks import SESSION_HEADER, call, check_owner, identify, presented, session_of, with_task

UNEXPECTED_ANSWER = (
    "no relayed request of this session waits for this answer here: it ended, timed out, or is held by another "
    "replica (a relayed request is answered on the replica that made the call)"
)
NOT_JSON_RPC = "not a JSON-RPC 2.0 message (one object; params, if any, an object)"


async def post(request: web.Request) -> web.StreamResponse:
    """One JSON-RPC message: a request's result or error, 202 for a notification or a client's answer."""
    evidence: Evidence = request[EVIDENCE]
    evidence.surface = Surface.MCP
    if (refused := _misdirected(request)) is not None:
        return refused
    message_id: Any = None
    try:
        raw, parsed = await _read(request)
        message_id = _id_of(parsed)
        message = _message(parsed)
        if not isinstance(message, JSONRPCRequest):  # a notification, or a client's answer to a relayed request
            return await _received(request, message, parsed)
        evidence.model = message.method
        return await _respond(request, message, raw, parsed)
    except RpcError as exc:
        if evidence.error is None:  # a refusal from the plan has already said more
            evidence.fail(str(exc.code), exc.message)
        return _error(message_id, http_status(request, exc))
    except Exception as exc:  # from the failure table, in JSON-RPC's words
        return _error(message_id, http_status(request, explained(exc, evidence)))


async def get(request: web.Request) -> web.Response:
    """No server-initiated stream: the SDK client accepts 405 and stops asking."""
    request[EVIDENCE].surface = Surface.MCP
    return _misdirected(request) or web.Response(status=405, headers={"Allow": "POST, DELETE"})


async def delete(request: web.Request) -> web.Response:
    """Close a session: only its own caller can."""
    request[EVIDENCE].surface = Surface.MCP
    if (refused := _misdirected(request)) is not None:
        return refused
    try:
        identity = await identify(request)
    except RpcError as exc:
        return _error(None, exc)
    closed = await request.app[MCP].sessions.close(request.headers.get(SESSION_HEADER, ""), identity)
    return web.Response(status=204 if closed else 404)


async def _read(request: web.Request) -> tuple[bytes, Any]:
    server = request.app[MCP].gateway.config.server
    try:
        raw = await read_body(request, server.max_body_bytes, server.body_timeout_s)
        return raw, loads(raw)
    except BodyError as exc:
        code = PARSE_ERROR if exc.status == 400 else INVALID_REQUEST
        raise RpcError(code, exc.message, exc.status, {"reason": exc.code}) from None


def _id_of(parsed: Any) -> Any:
    found = parsed.get("id") if isinstance(parsed, dict) else None
    return found if isinstance(found, str | int) else None


def _message(parsed: Any) -> Any:
    try:
        return jsonrpc_message_adapter.validate_python(parsed)
    except ValidationError:
        raise RpcError(INVALID_REQUEST, NOT_JSON_RPC, 400) from None


async def _received(request: web.Request, message: Any, parsed: Any) -> web.Response:
    """A notification (accepted), or a client's answer to a request relayed on its session (from its own caller)."""
    if isinstance(message, JSONRPCResponse | JSONRPCError) and request.headers.get(SESSION_HEADER):
        session = await session_of(request)
        check_owner(session, await identify(request))
        if not request.app[MCP].answers.answer(str(session.sid), parsed):
            request[EVIDENCE].fail(str(INVALID_REQUEST), UNEXPECTED_ANSWER)
            return _error(None, RpcError(INVALID_REQUEST, UNEXPECTED_ANSWER, 409, {"reason": "no_relayed_request"}))
    return web.Response(status=202)


async def _respond(request: web.Request, message: JSONRPCRequest, raw: bytes, parsed: Any) -> web.StreamResponse:
    """A request: `initialize` opens a session; anything else runs in its session (a modern request's own)."""
    if not modern(request) and message.method == "initialize":
        return await _initialize(request, message)
    session = envelope(request, parsed) if modern(request) else await session_of(request)
    # parsed once: the plan's steps read this parse, not the bytes again
    context = RequestContext.parsed(request[EVIDENCE].request_id, Surface.MCP, request.path, request.headers, raw,
                                    parsed)  # fmt: skip
    with _traced(request, message, session):
        return await _answer(request, message, context, session)


async def _initialize(request: web.Request, message: JSONRPCRequest) -> web.Response:
    with _traced(request, message, None) as span:
        identity = await identify(request)
        result, version, capabilities = initialized(message)
        sid = await request.app[MCP].sessions.open(version, identity, capabilities)
        if span is not None:
            span.set_attributes({"mcp.session.id": sid, "mcp.protocol.version": version})
    return web.json_response({"jsonrpc": "2.0", "id": message.id, "result": result}, headers={SESSION_HEADER: sid})


async def _answer(
    request: web.Request, message: JSONRPCRequest, context: RequestContext, session: Session
) -> web.StreamResponse:
    """A request of a session (a handshake one, or a modern request's own): its result, or its relayed call."""
    stamp = functools.partial(stamped, version=session.version)
    if message.method == "tools/call" and (relay := _relay(request, session, message)) is not None:
        check_params(message.method, session.version, message.params)
        result = call(request, context, session, relay)
        return await answered(request, message.id, relay, result, stamp, request[EVIDENCE])
    answer = stamp(await _request(request, message, context, session))
    return web.json_response({"jsonrpc": "2.0", "id": message.id, "result": answer})


async def _request(
    request: web.Request, message: JSONRPCRequest, context: RequestContext, session: Session
) -> dict[str, Any]:
    mcp: Mcp = request.app[MCP]
    method = message.method
    check_params(method, session.version, message.params)
    if method == "ping" or method == "server/discover" or method == "logging/setLevel":
        check_owner(session, await identify(request))  # the caller's own: nothing of a task in them
        if method == "logging/setLevel":  # the session's calls relay upstream logs from this level on
            await mcp.sessions.remember(session, "log_level", str((message.params or {})["level"]))
        return discover() if method == "server/discover" else {}
    if method == "tools/call":
        return await call(request, context, session)
    if method in ITEMS:
        owner = functools.partial(check_owner, session)
        return await forward_item(mcp.gateway, mcp.upstreams, context, request[EVIDENCE], session.version, owner)
    if session.task_token and not presented(mcp, context) and context.purpose() is None:
        context = with_task(context, session.task_token)  # a listing between calls: the session's task
    log = McpDispatch(method)
    values = await run_mcp_plan(mcp.gateway, context, request[EVIDENCE])
    check_owner(session, values.get(IDENTITY))  # the plan's authenticate step said who calls
    request[EVIDENCE].dispatch = log
    return await list_items(mcp.gateway, mcp.upstreams, method, values, log, session.version)


def _misdirected(request: web.Request) -> web.Response | None:
    """A request a browser was tricked into sending (DNS rebinding): refused before anything is read."""
    refused = request.app[MCP].origins.refusal(request.headers.get("Host"), request.headers.get("Origin"))
    if refused is None:
        return None
    status, why = refused
    request[EVIDENCE].fail("host_refused" if status == 421 else "origin_refused", why)
    return _error(None, RpcError(INVALID_REQUEST, why, status))


def _relay(request: web.Request, session: Session, message: JSONRPCRequest) -> Relay | None:
    """A call's back-channel, if its client takes events (an event-stream answer) and has something to hear."""
    if "text/event-stream" not in request.headers.get("Accept", ""):
        return None
    meta = (message.params or {}).get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    mcp: Mcp = request.app[MCP]
    relay = Relay(
        mcp.answers, session.sid, session.capabilities, token if isinstance(token, str | int) else None,
        session.log_level, mcp.config.relay_timeout_s,
    )  # fmt: skip
    return relay if relay.wanted else None


def _traced(
    request: web.Request, message: JSONRPCRequest, session: Session | None
) -> AbstractContextManager[Span | None]:
    """The request's MCP server span, when the gateway traces (its parent: the trace context in `_meta`)."""
    tracing = request.app[MCP].gateway.tracing
    if tracing is None:
        return UNTRACED
    attributes: dict[str, Any] = {"jsonrpc.request.id": str(message.id)}
    if session is not None:
        attributes["mcp.protocol.version"] = session.version
        if session.sid is not None:
            attributes["mcp.session.id"] = session.sid
    return tracing.mcp_request(request[EVIDENCE], message.method, message.params or {}, attributes)


UNTRACED: AbstractContextManager[None] = contextlib.nullcontext()


def _error(message_id: Any, exc: RpcError) -> web.Response:
    return rpc_error_response(exc.status, exc.code, exc.message, exc.data, message_id, exc.headers)
