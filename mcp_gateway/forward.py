"""What the MCP gateway forwards: listings of every kind, tool calls, resource reads, prompt gets, completions.

Each request names what it is for (a tool, a resource, a prompt); a name no
upstream serves is the caller's mistake, answered -32602 before any policy
runs. Then the `mcp` plan decides (the authorize step judges the item and,
for a tool, its arguments), the request goes to the upstream that serves the
item under its own name, with the arguments the plan's steps left, and the
result passes the plan's output guards before it returns.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from mcp import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, CallToolRequestParams
from mcp.types.methods import serialize_server_result
from pydantic import ValidationError

from taskgate.gateway.decide import apply_edits, filters
from taskgate.gateway.filters import FilterChain
from taskgate.gateway.gateway import Gateway
from taskgate.plugins import (
    GRANT,
    IDENTITY,
    MCP_ITEMS,
    CallsAs,
    Outputs,
    Principal,
    RequestContext,
    Surface,
    ToolGate,
)
from taskgate.plugins.evidence import Evidence

from .relay import Relay
from .rpc import McpDispatch, RpcError, dump, ms, run_mcp_plan, shaped, with_meta
from .upstream import KINDS, Upstream, UpstreamDown, Upstreams

# A listing: the kind it lists, the policy action that shows an item, the result's field.
LISTINGS = {
    "tools/list": ("tools", "tool", "tools"),
    "resources/list": ("resources", "resource", "resources"),
    "resources/templates/list": ("resource_templates", "resource", "resourceTemplates"),
    "prompts/list": ("prompts", "prompt", "prompts"),
}
ITEMS = MCP_ITEMS  # a request for one item, but a tool call (plugins.mcp)
GUARDED = frozenset({"resources/read", "prompts/get", "completion/complete"})  # results with content


async def list_items(
    gateway: Gateway, upstreams: Upstreams, method: str, values: dict[str, Any], log: McpDispatch, version: str
) -> dict[str, Any]:
    """One listing: what the task's grant shows of every upstream's items of the kind, under served names."""
    kind, action, field = LISTINGS[method]
    grant: ToolGate = values[GRANT]
    started = time.perf_counter()
    items, missing = await upstreams.catalog(kind=kind)
    named = KINDS[kind][2]
    visible = [i for i in items if grant.allows(getattr(i, named), action)]
    log.ms, log.tools_listed, log.servers_missing, log.outcome = ms(started), len(visible), missing, "completed"
    listing = shaped(method, version, {field: [dump(i) for i in visible]})
    return with_meta(listing, gateway.outputs(Surface.MCP, values))


async def forward_item(
    gateway: Gateway,
    upstreams: Upstreams,
    context: RequestContext,
    evidence: Evidence,
    version: str,
    check: Callable[[Principal | None], None],
) -> dict[str, Any]:
    """A resource read (or subscription), prompt get or completion, decided by the plan and forwarded; `check`
    vets the caller the plan authenticated."""
    body = context.json()
    method, params = body["method"], body.get("params") or {}
    log = McpDispatch(method)
    upstream, own, path = await find_item(upstreams, method, params, log)
    values = await run_mcp_plan(gateway, context, evidence)
    check(values.get(IDENTITY))
    evidence.dispatch = log
    outputs = gateway.outputs(Surface.MCP, values)
    edited = dict(body)
    apply_edits(edited, outputs.edits)  # the pii step's redactions: a prompt's arguments, a completion's value
    forwarded = _renamed({k: v for k, v in (edited.get("params") or {}).items() if k != "_meta"}, path, own)
    started = time.perf_counter()
    try:
        result = await upstream.forward(method, forwarded)
    except UpstreamDown as exc:
        log.outcome = "upstream_unavailable"
        raise RpcError(INTERNAL_ERROR, str(exc)) from None
    except Exception as exc:  # the upstream's own JSON-RPC error stays the upstream's
        log.outcome = f"upstream_error: {type(exc).__name__}"
        code, message = (exc.code, exc.message) if isinstance(exc, MCPError) else (INTERNAL_ERROR, "the request failed")
        raise RpcError(code, f"MCP server {upstream.name!r}: {message}"[:512]) from None
    finally:
        log.ms = ms(started)
    log.outcome = "completed"
    if method == "resources/read":
        result = _served_uris(result, own, params.get("uri"))
    if method in GUARDED:
        result = _guarded(result, outputs, log)
    return with_meta(shaped(method, version, result), outputs)


async def find_item(
    upstreams: Upstreams, method: str, params: Any, log: McpDispatch
) -> tuple[Upstream, str, tuple[str, ...]]:
    """The upstream serving what a request names, its own name for it, and where the name sits in params."""
    kind, _, field = ITEMS[method]
    path: tuple[str, ...] = (field,)
    if kind == "ref":  # completion/complete names a prompt or a resource template in its `ref`
        ref = params.get("ref") if isinstance(params, dict) else None
        ref_type = ref.get("type") if isinstance(ref, dict) else None
        kind, path = ("prompts", ("ref", "name")) if ref_type == "ref/prompt" else ("resources", ("ref", "uri"))
    name = _at(params, path)
    if not isinstance(name, str):
        raise RpcError(INVALID_PARAMS, f"{method} needs params.{'.'.join(path)}, a string")
    found = await _served(upstreams, kind, name)
    if found is None:
        what = "resource" if kind == "resources" else "prompt"
        raise RpcError(
            INVALID_PARAMS, f"unknown {what} {name[:256]!r}", data={"uri" if what == "resource" else "name": name}
        )
    log.server, log.tool = found[0].name, found[1]
    return found[0], found[1], path


async def _served(upstreams: Upstreams, kind: str, name: str) -> tuple[Upstream, str] | None:
    """Who serves `name`: a listed item, or for a resource a concrete URI of a listed template (of exactly one
    server: a URI two servers' templates take is refused, never resolved by order)."""
    if kind == "resources" and _DOTS.search(name):  # `pages/../salaries`: judged as one URI, read as another
        raise RpcError(INVALID_PARAMS, "a resource URI may not hold dot segments or encoded dots and slashes")
    try:
        found = await upstreams.find(kind, name)
        if found is not None or kind != "resources":
            return found
        templates, _ = await upstreams.lookup("resource_templates", name)
    except UpstreamDown as exc:
        raise RpcError(INTERNAL_ERROR, str(exc)) from None
    matching = {
        upstream.name: upstream for exposed, (upstream, _) in templates.items() if _template(exposed).fullmatch(name)
    }
    if len(matching) != 1:
        return None
    upstream = next(iter(matching.values()))
    return upstream, _own_uri(upstream, name)


_DOTS = re.compile(r"(^|/)\.\.?(/|$)|%2[eEfF]")


def _own_uri(upstream: Upstream, exposed: str) -> str:
    prefix = f"{upstream.name}__"
    return exposed.removeprefix(prefix) if upstream.config.prefix else exposed


@functools.lru_cache(maxsize=1024)
def _template(uri_template: str) -> re.Pattern[str]:
    """An RFC 6570 template's URIs, for routing: each expression matches one segment (`{+x}`: any text)."""
    parts = re.split(r"(\{[^}]*\})", uri_template)
    pattern = "".join(
        (".+" if p.startswith("{+") or p.startswith("{#") else "[^/?#]+") if p.startswith("{") else re.escape(p)
        for p in parts
    )
    return re.compile(pattern)


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _renamed(params: dict[str, Any], path: tuple[str, ...], own: str) -> dict[str, Any]:
    """`params` with the served name at `path` replaced by the upstream's own."""
    if len(path) == 1:
        return {**params, path[0]: own}
    return {**params, path[0]: {**params[path[0]], path[1]: own}}


def _served_uris(result: dict[str, Any], own: str, served: Any) -> dict[str, Any]:
    """A read's contents name the resource as the client asked for it."""
    contents = [
        {**c, "uri": served} if isinstance(c, dict) and c.get("uri") == own else c for c in result.get("contents", [])
    ]
    return {**result, "contents": contents}


def _guarded(result: dict[str, Any], outputs: Outputs, log: McpDispatch) -> dict[str, Any]:
    """A result through the plan's output guards (pii): what cannot be checked is withheld."""
    guards = filters(outputs, Surface.MCP)
    if not guards:
        return result
    try:
        return dict(json.loads(FilterChain(guards).whole(json.dumps(result).encode())))
    except Exception:
        log.outcome = "output_refused"
        raise RpcError(INTERNAL_ERROR, "the result could not be checked, so it was withheld") from None


async def forward_call(
    gateway: Gateway,
    upstreams: Upstreams,
    context: RequestContext,
    evidence: Evidence,
    version: str,
    check: Callable[[Principal | None], None] | None = None,
    relay: Relay | None = None,
) -> dict[str, Any]:
    """A tools/call through the mcp plan: a tool no upstream lists is the caller's mistake, decided before any
    policy runs; `check` vets the caller the plan authenticated; an allowed call is forwarded (with what the
    upstream sends its client on the way passed to `relay`)."""
    log = McpDispatch("tools/call")
    target = await find_tool(upstreams, context.json().get("params"), log)
    context.call_tool = functools.partial(_step_call, upstreams, version)
    values = await run_mcp_plan(gateway, context, evidence)
    if check is not None:
        check(values.get(IDENTITY))
    evidence.dispatch = log
    outputs = gateway.outputs(Surface.MCP, values)
    owner = next((speaker.upstream_session() for speaker in outputs.speakers), None)
    target = (upstreams.for_task(target[0], owner), target[1])  # a stateful server: the task's own session
    return with_meta(await call_tool(target, context, outputs, log, version, relay), outputs)


async def _step_call(
    upstreams: Upstreams, version: str, name: str, arguments: Mapping[str, Any], caller: CallsAs
) -> Mapping[str, Any]:
    """A call a step makes itself (authorize consulting a reference source): the task's session and assertion,
    the result as a client would get it, returned to the step only."""
    found = await upstreams.find("tools", name)
    if found is None:
        raise LookupError(f"no MCP server lists a tool named {name!r}")
    upstream, tool = upstreams.for_task(found[0], caller.upstream_session()), found[1]
    result = await upstream.call(tool, dict(arguments), caller.upstream_meta(upstream.audience, name, arguments))
    return serialize_server_result("tools/call", version, dump(result))


async def find_tool(upstreams: Upstreams, params: Any, log: McpDispatch) -> tuple[Upstream, str]:
    """The upstream and its own name for a tools/call's tool; -32602 if the call names no tool an upstream lists."""
    try:
        name = CallToolRequestParams.model_validate(params or {}).name
    except ValidationError:
        raise RpcError(INVALID_PARAMS, "tools/call needs params with a tool name and object arguments") from None
    index, missing = await upstreams.lookup("tools", name)
    target = index.get(name)
    if target is None:  # exactly a listed name: a lenient upstream must not resolve variants past the policy
        syntax = upstreams.resolve(name)
        if syntax is not None and syntax[0].name in missing:  # its server could not say what it lists
            upstream = syntax[0]
            log.server = upstream.name
            if upstream.error is not None:
                log.outcome = "upstream_unavailable"
                raise RpcError(INTERNAL_ERROR, f"MCP server {upstream.name!r} is unavailable")
            log.outcome = "upstream_error: tools/list"
            raise RpcError(INTERNAL_ERROR, f"MCP server {upstream.name!r} could not list its tools")
        raise RpcError(INVALID_PARAMS, f"unknown tool {name[:128]!r}", data={"name": name[:128]})
    log.server, log.tool = target[0].name, target[1]
    return target


async def call_tool(
    target: tuple[Upstream, str],
    context: RequestContext,
    outputs: Outputs,
    log: McpDispatch,
    version: str,
    relay: Relay | None = None,
) -> dict[str, Any]:
    """Forward a tools/call the plan allowed: arguments as the plan's steps left them, result through the guards."""
    body = dict(context.json())
    apply_edits(body, outputs.edits)  # the pii step's redactions, applied to the arguments the upstream sees
    try:
        params = CallToolRequestParams.model_validate(body.get("params") or {})
    except ValidationError:
        raise RpcError(INVALID_PARAMS, "tools/call needs params with a tool name and object arguments") from None
    upstream, tool = target
    started = time.perf_counter()
    meta: dict[str, Any] = {}
    for speaker in outputs.speakers:  # the task's signed assertion, for this upstream and this call
        meta.update(speaker.upstream_meta(upstream.audience, params.name, params.arguments or {}))
    if relay is not None:  # what the upstream says to the client on the way passes the same guards
        relay.guard = functools.partial(_guarded, outputs=outputs, log=log)
    try:
        result = await upstream.call(tool, params.arguments, meta, relay)
    except UpstreamDown as exc:
        log.outcome = "upstream_unavailable"
        raise RpcError(INTERNAL_ERROR, str(exc)) from None
    except Exception as exc:
        log.outcome = f"upstream_error: {type(exc).__name__}"
        raise RpcError(INTERNAL_ERROR, f"MCP server {upstream.name!r} failed the call") from None
    finally:
        log.ms = ms(started)
        log.relayed = dict(relay.counts) if relay is not None else {}
    log.outcome = "completed" if not result.is_error else "tool_error"
    data = serialize_server_result("tools/call", version, dump(result))
    for observer in outputs.observers:  # what the task has seen: its later calls are judged with it
        await observer.observe_result(params.name, context.id, data, params.arguments or {})
    return _guarded(data, outputs, log)
