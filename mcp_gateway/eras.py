"""The two eras of MCP: a handshake client opens a session with `initialize`; a modern one sends self-contained
requests whose envelope (`params._meta`) says what the session would have said.

A handshake client (protocol 2025-11-25 and older) sends `initialize`, which
authenticates it and opens a session bound to it. A modern client
(2026-07-28: its `MCP-Protocol-Version` header names a modern revision)
carries its protocol version and capabilities in every request; there is no
session, and any replica can answer any request.
"""

from __future__ import annotations

from typing import Any

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
    INVALID_PARAMS,
    LOG_LEVEL_META_KEY,
    METHOD_NOT_FOUND,
    SERVER_INFO_META_KEY,
    CompletionsCapability,
    DiscoverResult,
    Implementation,
    InitializeResult,
    JSONRPCRequest,
    LoggingCapability,
    PromptsCapability,
    ResourcesCapability,
    ServerCapabilities,
    ToolsCapability,
)
from mcp.types.methods import serialize_server_result, validate_client_request
from mcp.types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from pydantic import ValidationError

from taskgate import __version__
from taskgate.plugins import MCP_ITEMS

from .forward import LISTINGS
from .rpc import RpcError, dump
from .sessions import Session

CAPABILITIES = ServerCapabilities(
    tools=ToolsCapability(list_changed=False),
    resources=ResourcesCapability(subscribe=True, list_changed=False),
    prompts=PromptsCapability(list_changed=False),
    logging=LoggingCapability(),
    completions=CompletionsCapability(),
)
INSTRUCTIONS = "taskgate MCP gateway: tools, prompts and resources of several servers, authorized per task."
SERVED = frozenset({"ping", "server/discover", "logging/setLevel", "tools/call", *MCP_ITEMS, *LISTINGS})


def modern(request: web.Request) -> bool:
    """A 2026-07-28 request names a modern revision in its header (anything not a handshake one is judged so)."""
    version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
    return version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS


def envelope(request: web.Request, parsed: Any) -> Session:
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


def http_status(request: web.Request, exc: RpcError) -> RpcError:
    """A modern request's error gets the status the protocol's table gives its code (a 401 stays a 401)."""
    if modern(request) and exc.status == 200:
        exc.status = ERROR_CODE_HTTP_STATUS.get(exc.code, 200)
    return exc


def stamped(result: dict[str, Any], version: str) -> dict[str, Any]:
    """A modern result names its server in `_meta`, as 2026-07-28 asks; handshake results are left as they are."""
    if version not in MODERN_PROTOCOL_VERSIONS:
        return result
    server = dump(Implementation(name="taskgate", version=__version__))
    return {**result, "_meta": {**(result.get("_meta") or {}), SERVER_INFO_META_KEY: server}}


def check_params(method: str, version: str, params: Any) -> None:
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


def initialized(message: JSONRPCRequest) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """`initialize`: the result, the protocol version the session speaks, and the capabilities the client
    declared."""
    params = message.params or {}
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    result = InitializeResult(
        protocol_version=version,
        capabilities=CAPABILITIES,
        server_info=Implementation(name="taskgate", version=__version__),
        instructions=INSTRUCTIONS,
    )
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    declared = capabilities if isinstance(capabilities, dict) else {}
    return serialize_server_result("initialize", version, dump(result)), version, declared


def discover() -> dict[str, Any]:
    """`server/discover`: every revision served (the modern first) and what this gateway serves."""
    result = DiscoverResult(
        supported_versions=[*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS)],
        capabilities=CAPABILITIES,
        instructions=INSTRUCTIONS,
    )
    return serialize_server_result("server/discover", LATEST_MODERN_VERSION, dump(result))
