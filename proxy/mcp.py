"""The MCP gateway at /mcp: Streamable HTTP, JSON responses; tools aggregated, authorized, forwarded.

Every request a client makes is a JSON-RPC message in a POST, in one of two
eras. A handshake client (protocol 2025-11-25 and older) sends `initialize`,
which authenticates it and opens a session bound to it. A modern client
(2026-07-28: its `MCP-Protocol-Version` header names a modern revision) sends
self-contained requests: each carries its protocol version and capabilities in
`params._meta`, there is no session, and any replica can answer any request.
Either way `tools/list` and `tools/call` run the `mcp` plan (authenticate,
authorize, pii, ...) per request: the list shows only tools the task's grant
allows, a call is decided on the tool and its arguments, its arguments reach
the upstream as the pii step left them, and its result passes the pii step's
output guard before it returns. Upstreams see taskgate's own credentials,
never the caller's token.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager
from typing import Any

import structlog
from aiohttp import web
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp.types import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LOG_LEVEL_META_KEY,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    SERVER_INFO_META_KEY,
    URL_ELICITATION_REQUIRED,
    CompletionsCapability,
    DiscoverResult,
    Implementation,
    InitializeResult,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    LoggingCapability,
    PromptsCapability,
    ResourcesCapability,
    ServerCapabilities,
    ToolsCapability,
    jsonrpc_message_adapter,
)
from mcp.types.methods import serialize_server_result, validate_client_request
from mcp.types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from opentelemetry.trace import Span
from pydantic import ValidationError

from taskgate import __version__
from taskgate.dag import Halt, StepFailed
from taskgate.plugins import DEFAULT_TASK_HEADERS, IDENTITY, META_TASK_TOKEN, TASK_HEADERS, Principal, RequestContext
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.jsonbody import BodyError, loads

from .body import read as read_body
from .config import MCP
from .errors import rpc_error_response
from .mcp_forward import ITEMS, LISTINGS, forward_call, forward_item, list_items
from .mcp_relay import Answers, Relay, answered
from .mcp_rpc import APPROVAL_REQUIRED, FORBIDDEN, McpDispatch, RpcError, dump, explained, run_mcp_plan
from .mcp_sessions import Session, Sessions, open_sessions
from .mcp_upstream import Upstreams
from .origins import Origins
from .state import EVIDENCE, GATEWAY, Gateway

__all__ = ["APPROVAL_REQUIRED", "FORBIDDEN", "UPSTREAMS", "RpcError", "add_routes", "forward_call"]
UPSTREAMS = web.AppKey("taskgate.mcp.upstreams", Upstreams)
SESSION_HEADER = "Mcp-Session-Id"
UNEXPECTED_ANSWER = (
    "no relayed request of this session waits for this answer here: it ended, timed out, or is held by another "
    "replica (a relayed request is answered on the replica that made the call)"
)
ANSWERS = web.AppKey("taskgate.mcp.answers", Answers)
ORIGINS = web.AppKey("taskgate.mcp.origins", Origins)
CAPABILITIES = ServerCapabilities(
    tools=ToolsCapability(list_changed=False),
    resources=ResourcesCapability(subscribe=True, list_changed=False),
    prompts=PromptsCapability(list_changed=False),
    logging=LoggingCapability(),
    completions=CompletionsCapability(),
)
INSTRUCTIONS = "taskgate MCP gateway: tools, prompts and resources of several servers, authorized per task."
log = structlog.get_logger("taskgate")


SESSIONS = web.AppKey("taskgate.mcp.sessions", Sessions)


def add_routes(app: web.Application, gateway: Gateway) -> bool:
    config = gateway.config.mcp
    if not config.servers:
        return False
    app[UPSTREAMS] = Upstreams(config, gateway.tracing)
    app[SESSIONS] = open_sessions(
        config.session_store, config.redis_url, config.key_prefix, config.max_sessions, config.session_ttl_s,
        config.sessions_per_caller,
    )  # fmt: skip
    app.cleanup_ctx.append(_sessions)
    app[ANSWERS] = Answers()
    app[ORIGINS] = Origins.build(gateway.config.server.host, config.allowed_hosts, config.allowed_origins)
    app.router.add_post("/mcp", post)
    app.router.add_get("/mcp", get)
    app.router.add_delete("/mcp", delete)
    return True


async def _sessions(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[SESSIONS].aclose()


async def get(request: web.Request) -> web.Response:
    """No server-initiated stream: the SDK client accepts 405 and stops asking."""
    request[EVIDENCE].surface = MCP
    return _misdirected(request) or web.Response(status=405, headers={"Allow": "POST, DELETE"})


def _misdirected(request: web.Request) -> web.Response | None:
    """A request a browser was tricked into sending (DNS rebinding): refused before anything is read."""
    refused = request.app[ORIGINS].refusal(request.headers.get("Host"), request.headers.get("Origin"))
    if refused is None:
        return None
    status, why = refused
    request[EVIDENCE].fail("host_refused" if status == 421 else "origin_refused", why)
    return _error(None, RpcError(INVALID_REQUEST, why, status))


async def delete(request: web.Request) -> web.Response:
    """Close a session: only its own caller can."""
    request[EVIDENCE].surface = MCP
    if (refused := _misdirected(request)) is not None:
        return refused
    try:
        identity = await _identify(request)
    except RpcError as exc:
        return _error(None, exc)
    closed = await request.app[SESSIONS].close(request.headers.get(SESSION_HEADER, ""), identity)
    return web.Response(status=204 if closed else 404)


async def post(request: web.Request) -> web.StreamResponse:
    evidence: Evidence = request[EVIDENCE]
    evidence.surface = MCP
    if (refused := _misdirected(request)) is not None:
        return refused
    server = request.app[GATEWAY].config.server
    message_id: Any = None
    try:
        try:
            raw = await read_body(request, server.max_body_bytes, server.body_timeout_s)
            parsed = loads(raw)
        except BodyError as exc:
            code = PARSE_ERROR if exc.status == 400 else INVALID_REQUEST
            raise RpcError(code, exc.message, exc.status, {"reason": exc.code}) from None
        message_id = parsed.get("id") if isinstance(parsed, dict) and isinstance(parsed.get("id"), str | int) else None
        try:
            message = jsonrpc_message_adapter.validate_python(parsed)
        except ValidationError:
            raise RpcError(
                INVALID_REQUEST, "not a JSON-RPC 2.0 message (one object; params, if any, an object)", 400
            ) from None
        if not isinstance(message, JSONRPCRequest):  # a notification, or a client's answer to a relayed request
            if isinstance(message, JSONRPCResponse | JSONRPCError) and request.headers.get(SESSION_HEADER):
                session = await _session(request)  # an answer to a relayed request: from the session's own caller
                _check_owner(session, await _identify(request))
                if not request.app[ANSWERS].answer(str(session.sid), parsed):
                    message_id = None  # the error answers no request of the client's
                    raise RpcError(INVALID_REQUEST, UNEXPECTED_ANSWER, 409, {"reason": "no_relayed_request"})
            return web.Response(status=202)
        message_id = message.id
        evidence.model = message.method
        if _modern(request):
            session = _envelope(request, parsed)
        elif message.method == "initialize":
            with _traced(request, message, None) as span:
                result, sid = await _initialize(request, message)
                if span is not None:
                    span.set_attributes({"mcp.session.id": sid, "mcp.protocol.version": result["protocolVersion"]})
            return web.json_response(
                {"jsonrpc": "2.0", "id": message_id, "result": result}, headers={SESSION_HEADER: sid}
            )
        else:
            session = await _session(request)
        # parsed once: the plan's steps read this parse, not the bytes again
        context = RequestContext.parsed(evidence.request_id, MCP, request.path, request.headers, raw, parsed)
        with _traced(request, message, session):
            return await _answer(request, message, context, session)
    except RpcError as exc:
        if evidence.error is None:  # a refusal from the plan has already said more
            evidence.fail(str(exc.code), exc.message)
        return _error(message_id, _http_status(request, exc))
    except Exception as exc:  # from the failure table, in JSON-RPC's words
        return _error(message_id, _http_status(request, explained(exc, evidence)))


async def _answer(
    request: web.Request, message: JSONRPCRequest, context: RequestContext, session: Session
) -> web.StreamResponse:
    """A request of a session (a handshake one, or a modern request's own): its result, or its relayed call."""
    stamp = functools.partial(_stamped, version=session.version)
    if message.method == "tools/call" and (relay := _relay(request, session, message)) is not None:
        _check_params(message.method, session.version, message.params)
        call = _call(request, context, session, relay)
        return await answered(request, message.id, relay, call, stamp, request[EVIDENCE])
    result = stamp(await _request(request, message, context, session))
    return web.json_response({"jsonrpc": "2.0", "id": message.id, "result": result})


def _traced(
    request: web.Request, message: JSONRPCRequest, session: Session | None
) -> AbstractContextManager[Span | None]:
    """The request's MCP server span, when the gateway traces (its parent: the trace context in `_meta`)."""
    tracing = request.app[GATEWAY].tracing
    if tracing is None:
        return UNTRACED
    attributes: dict[str, Any] = {"jsonrpc.request.id": str(message.id)}
    if session is not None:
        attributes["mcp.protocol.version"] = session.version
        if session.sid is not None:
            attributes["mcp.session.id"] = session.sid
    return tracing.mcp_request(request[EVIDENCE], message.method, message.params or {}, attributes)


UNTRACED: AbstractContextManager[None] = contextlib.nullcontext()


def _relay(request: web.Request, session: Session, message: JSONRPCRequest) -> Relay | None:
    """A call's back-channel, if its client takes events (an event-stream answer) and has something to hear."""
    if "text/event-stream" not in request.headers.get("Accept", ""):
        return None
    meta = (message.params or {}).get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    relay = Relay(
        request.app[ANSWERS], session.sid, session.capabilities, token if isinstance(token, str | int) else None,
        session.log_level, request.app[GATEWAY].config.mcp.relay_timeout_s,
    )  # fmt: skip
    return relay if relay.wanted else None


def _modern(request: web.Request) -> bool:
    """A 2026-07-28 request names a modern revision in its header (anything not a handshake one is judged so)."""
    version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
    return version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS


def _envelope(request: web.Request, parsed: Any) -> Session:
    """A modern request's own session, from its envelope (checked as the SDK's server checks it)."""
    duplicated = find_duplicated_routing_header(request.headers.items())
    if duplicated is not None:
        raise RpcError(HEADER_MISMATCH, f"the {duplicated} header appears more than once", 400)
    verdict = classify_inbound_request(parsed, headers={k.lower(): v for k, v in request.headers.items()})
    if isinstance(verdict, InboundLadderRejection):
        raise RpcError(verdict.code, verdict.message, 200, verdict.data)
    capabilities = verdict.client_capabilities if isinstance(verdict.client_capabilities, dict) else {}
    meta = parsed["params"]["_meta"]  # the ladder checked it is there
    level = meta.get(LOG_LEVEL_META_KEY)
    return Session(
        verdict.protocol_version, None, None, capabilities, log_level=level if isinstance(level, str) else None
    )


def _http_status(request: web.Request, exc: RpcError) -> RpcError:
    """A modern request's error gets the status the protocol's table gives its code (a 401 stays a 401)."""
    if _modern(request) and exc.status == 200:
        exc.status = ERROR_CODE_HTTP_STATUS.get(exc.code, 200)
    return exc


def _stamped(result: dict[str, Any], version: str) -> dict[str, Any]:
    """A modern result names its server in `_meta`, as 2026-07-28 asks; handshake results are left as they are."""
    if version not in MODERN_PROTOCOL_VERSIONS:
        return result
    return {**result, "_meta": {**(result.get("_meta") or {}), SERVER_INFO_META_KEY: _server_info()}}


def _server_info() -> dict[str, Any]:
    return dump(Implementation(name="taskgate", version=__version__))


def _presented(gateway: Gateway, context: RequestContext) -> str | None:
    """The task token a request presents, in its header or `_meta`."""
    _, header = gateway.services.shared(TASK_HEADERS, lambda: DEFAULT_TASK_HEADERS)
    return context.headers.get(header) or context.meta(META_TASK_TOKEN)


def _with_task(context: RequestContext, token: str) -> RequestContext:
    """`context` presenting `token` in its `_meta`: an SDK client lists tools between calls without it."""
    body = dict(context.json())
    params = dict(body.get("params") or {})
    params["_meta"] = {**(params.get("_meta") or {}), META_TASK_TOKEN: token}
    body["params"] = params
    return RequestContext.parsed(context.id, context.surface, context.path, context.headers, context.body, body)


def _elicitation(exc: RpcError) -> RpcError:
    """A hold, for a client that declared URL elicitation: the approval page is the URL its user opens."""
    approval = exc.data.get("approval", {}) if isinstance(exc.data, dict) else {}
    asked = {"mode": "url", "elicitationId": approval.get("id"), "url": approval.get("url"), "message": exc.message}
    return RpcError(URL_ELICITATION_REQUIRED, exc.message, exc.status, {**exc.data, "elicitations": [asked]})


def _error(message_id: Any, exc: RpcError) -> web.Response:
    return rpc_error_response(exc.status, exc.code, exc.message, exc.data, message_id, exc.headers)


async def _request(
    request: web.Request, message: JSONRPCRequest, context: RequestContext, session: Session
) -> dict[str, Any]:
    gateway, upstreams = request.app[GATEWAY], request.app[UPSTREAMS]
    method = message.method
    _check_params(method, session.version, message.params)
    if method == "ping" or method == "server/discover" or method == "logging/setLevel":
        _check_owner(session, await _identify(request))  # the caller's own: nothing of a task in them
        if method == "logging/setLevel":  # the session's calls relay upstream logs from this level on
            await request.app[SESSIONS].remember(session, "log_level", str((message.params or {})["level"]))
        return _discover() if method == "server/discover" else {}
    if method == "tools/call":
        return await _call(request, context, session)
    if method in ITEMS:
        check = functools.partial(_check_owner, session)
        return await forward_item(gateway, upstreams, context, request[EVIDENCE], session.version, check)
    if session.task_token and not _presented(gateway, context) and context.purpose() is None:
        context = _with_task(context, session.task_token)  # a listing between calls: the session's task
    log = McpDispatch(method)
    values = await run_mcp_plan(gateway, context, request[EVIDENCE])
    _check_owner(session, values.get(IDENTITY))  # the plan's authenticate step said who calls
    request[EVIDENCE].dispatch = log
    return await list_items(gateway, upstreams, method, values, log, session.version)


SERVED = frozenset({"ping", "server/discover", "logging/setLevel", "tools/call", *ITEMS, *LISTINGS})


def _check_params(method: str, version: str, params: Any) -> None:
    """A method this gateway serves at the request's revision, with params of its shape, or -32601 / -32602."""
    if method not in SERVED:
        raise RpcError(METHOD_NOT_FOUND, f"method {method[:128]!r} is not served by this gateway")
    try:
        validate_client_request(method, version, params or {})
    except KeyError:
        raise RpcError(METHOD_NOT_FOUND, f"method {method!r} is not part of protocol {version}") from None
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) if exc.errors() else "params"
        raise RpcError(INVALID_PARAMS, f"{method}: invalid params ({where})") from None


async def _call(
    request: web.Request, context: RequestContext, session: Session, relay: Relay | None = None
) -> dict[str, Any]:
    """A tools/call; the task it carries on (or opens) is the session's from now on."""
    gateway = request.app[GATEWAY]
    owner: list[Principal] = []  # the caller, once the plan said it is the session's own

    def check(identity: Principal | None) -> None:
        _check_owner(session, identity)
        owner.extend([identity] if identity is not None else [])

    presented = _presented(gateway, context)
    try:
        upstreams, evidence = request.app[UPSTREAMS], request[EVIDENCE]
        result = await forward_call(gateway, upstreams, context, evidence, session.version, check, relay)
    except RpcError as exc:
        opened = exc.data.get(META_TASK_TOKEN) if isinstance(exc.data, dict) else None
        if owner:  # only the session's own caller moves its task on
            task = opened if isinstance(opened, str) else presented or session.task_token
            await _carry_on(request, session, task)
        if session.elicits_url and exc.code == APPROVAL_REQUIRED:
            raise _elicitation(exc) from None
        raise
    await _carry_on(request, session, (result.get("_meta") or {}).get(META_TASK_TOKEN) or presented)
    return result


async def _carry_on(request: web.Request, session: Session, token: str | None) -> None:
    """The session's task is the one its last call carried on (or opened); a modern request's ends with it."""
    if token and session.sid is not None:
        await request.app[SESSIONS].remember(session, "task_token", token)
    elif token:
        session.task_token = token


async def _initialize(request: web.Request, message: JSONRPCRequest) -> tuple[dict[str, Any], str]:
    identity = await _identify(request)
    params = message.params or {}
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    result = InitializeResult(
        protocol_version=version,
        capabilities=CAPABILITIES,
        server_info=Implementation(name="taskgate", version=__version__),
        instructions=INSTRUCTIONS,
    )
    data = serialize_server_result("initialize", version, dump(result))
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    return data, await request.app[SESSIONS].open(
        version, identity, capabilities if isinstance(capabilities, dict) else {}
    )


def _discover() -> dict[str, Any]:
    """`server/discover`: every revision served (the modern first) and what this gateway serves."""
    result = DiscoverResult(
        supported_versions=[*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS)],
        capabilities=CAPABILITIES,
        instructions=INSTRUCTIONS,
    )
    return serialize_server_result("server/discover", LATEST_MODERN_VERSION, dump(result))


async def _session(request: web.Request) -> Session:
    sid = request.headers.get(SESSION_HEADER)
    if not sid:
        raise RpcError(INVALID_REQUEST, "no Mcp-Session-Id: send initialize first", 400)
    session = await request.app[SESSIONS].get(sid)
    if session is None:
        raise RpcError(INVALID_REQUEST, "unknown or expired session: initialize again", 404)
    return session


def _check_owner(session: Session, identity: Principal | None) -> None:
    """A handshake session is its caller's alone; a modern request needs only a caller its plan authenticated."""
    if identity is None:
        raise RpcError(FORBIDDEN, "no caller was authenticated for this request", 403)
    if session.subject is not None and (identity.subject, identity.tenant) != (session.subject, session.tenant):
        raise RpcError(FORBIDDEN, "this session belongs to another caller", 403)


async def _identify(request: web.Request) -> Principal:
    """Who calls, as the plans' authenticate step says; its refusal in JSON-RPC's words."""
    evidence = request[EVIDENCE]
    try:
        identity = await request.app[GATEWAY].authenticate(request, evidence)
    except (Halt, StepFailed) as exc:
        raise explained(exc, evidence) from None
    if identity is None:  # plans.py refuses an MCP gateway whose plan authenticates no one; this is a second lock
        raise RpcError(INTERNAL_ERROR, "no pipeline authenticates callers here", 500)
    return identity
