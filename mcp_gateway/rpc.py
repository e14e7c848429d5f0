"""The MCP gateway's words: JSON-RPC errors (from the failure table, and as the front door renders them), the
dispatch record, running the plan."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from mcp.types import INTERNAL_ERROR, INVALID_REQUEST
from mcp.types.methods import MONOLITH_RESULTS, serialize_server_result
from pydantic import TypeAdapter

from taskgate.dag import StepFailed
from taskgate.gateway.gateway import Gateway
from taskgate.plugins import FAILURES, META_TASK, META_TASK_TOKEN, Halt, Outputs, Problem, RequestContext, Surface
from taskgate.plugins.evidence import Evidence

FORBIDDEN = -32003  # implementation-defined: the caller may not do this
APPROVAL_REQUIRED = -32044  # implementation-defined: held until the task's user approves (data.approval)
UNAUTHENTICATED = -32001


@dataclass
class McpDispatch:
    """What the gateway did with a request; becomes the evidence's `dispatch`."""

    method: str
    server: str | None = None
    tool: str | None = None  # the tool, prompt or resource, as its server names it
    ms: float | None = None
    outcome: str = "pending"
    tools_listed: int | None = None  # how many items (of any kind) a listing showed
    servers_missing: list[str] = field(default_factory=list)
    relayed: dict[str, int] = field(default_factory=dict)  # notifications and requests passed to the client

    def evidence(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, [], {})}


class RpcError(Exception):
    """A JSON-RPC error the caller gets: its code, message, HTTP status, data and headers."""

    def __init__(
        self, code: int, message: str, status: int = 200, data: Any = None, headers: dict[str, str] | None = None
    ):
        super().__init__(message)
        self.code, self.message, self.status, self.data, self.headers = code, message, status, data, headers or {}


def explained(exc: BaseException, evidence: Evidence) -> RpcError:
    """`exc` through the failure prologue every surface shares, in JSON-RPC's words; call it in an except block."""
    return as_rpc(FAILURES.settle(exc, evidence), evidence)


def as_rpc(problem: Problem, evidence: Evidence) -> RpcError:
    """A failure as a JSON-RPC error. A caller the authenticate step refused (its 401 carries the Bearer
    challenge) stays an HTTP 401, as MCP's authorization spec asks, so an OAuth client signs in again; a task
    token refused (expired, of another task) is -32001 in a 200, since signing in again cannot mend it."""
    status = problem.status
    code = UNAUTHENTICATED if status == 401 else FORBIDDEN if status < 500 else INTERNAL_ERROR
    if problem.code == "approval_required":
        code = APPROVAL_REQUIRED
    data = {"reason": problem.code, **_rule(problem.details), **problem.public}
    message = problem.cited(evidence.request_id)
    challenged = status == 401 and "WWW-Authenticate" in problem.headers
    return RpcError(code, message, 401 if challenged else 200, data, dict(problem.headers))


def _rule(details: Mapping[str, Any]) -> dict[str, Any]:
    """The rule id of a denial, for the caller; the rest of the policy stays inside."""
    decision = details.get("decision")
    return {"rule": decision["rule"]} if isinstance(decision, dict) and decision.get("rule") else {}


REFUSALS = frozenset({"tool_denied", "pii_blocked", "approval_required", "approval_pending", "approval_refused",
                      "approval_mismatch", "approval_expired", "approval_used"})  # fmt: skip
"""Why a tools/call may be refused that a model can act on: the policy's, the PII step's, a hold's."""
META_REFUSAL = "io.taskgate/refusal"


def refused_result(exc: RpcError, version: str) -> dict[str, Any] | None:
    """A refused tools/call as MCP reports a tool execution error: a result with `isError` true whose text says why
    and which rule (the model reads it and can take another way); its `_meta` carries the error's data (reason,
    rule, an approval) and a task the call opened. None for an error that is not such a refusal."""
    data = exc.data if isinstance(exc.data, dict) else {}
    if data.get("reason") not in REFUSALS:
        return None
    named = f"(rule {data['rule']})" if data.get("rule") else ""
    rule = f" {named}" if named and named not in exc.message else ""  # a denial's message may name it already
    text = f"taskgate refused this tool call: {exc.message}{rule}"
    opened = {k: data[k] for k in (META_TASK, META_TASK_TOKEN) if k in data}
    meta = {META_REFUSAL: {k: v for k, v in data.items() if k not in opened}, **opened}
    result = {"content": [{"type": "text", "text": text}], "isError": True, "_meta": meta}
    return shaped("tools/call", version, result)


async def run_mcp_plan(gateway: Gateway, context: RequestContext, evidence: Evidence) -> dict[str, Any]:
    """Run the `mcp` plan; a refusal becomes the RpcError the caller gets, recorded in `evidence`."""
    try:
        return await gateway.run_plan(Surface.MCP, context, evidence)
    except (Halt, StepFailed) as exc:
        raise explained(exc, evidence) from None


def with_meta(result: dict[str, Any], outputs: Outputs) -> dict[str, Any]:
    """A result with what the plan's steps add to its `_meta`: a task opened by this request, its id and token."""
    meta: dict[str, str] = {}
    for adds in outputs.meta:
        meta.update(adds.response_meta())
    return {**result, "_meta": {**(result.get("_meta") or {}), **meta}} if meta else result


def rpc_error_response(
    status: int,
    code: int,
    message: str,
    data: Any = None,
    message_id: Any = None,
    headers: Mapping[str, str] | None = None,
) -> web.Response:
    """A JSON-RPC 2.0 error: what the MCP surface answers with."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = {"jsonrpc": "2.0", "id": message_id, "error": error}
    return web.json_response(body, status=status, headers=headers)


def render(problem: Problem, evidence: Evidence) -> web.Response:
    """How the front door answers a request to /mcp that never reached the gateway's handler (an unknown path, a
    method not allowed, a header too long): a JSON-RPC error with the HTTP status of the problem."""
    code = INVALID_REQUEST if problem.status < 500 else INTERNAL_ERROR
    data = {"reason": problem.code, **problem.public}
    return rpc_error_response(problem.status, code, problem.cited(evidence.request_id), data, None, problem.headers)


def shaped(method: str, version: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """A result as revision `version` spells it: read by the SDK's model for `method` (its defaults filled
    in), then dumped in that revision's shape."""
    model = _adapter(method).validate_python(dict(data), by_name=False)
    return serialize_server_result(method, version, _adapter(method).dump_python(model, **DUMP))


@functools.cache
def _adapter(method: str) -> TypeAdapter[Any]:
    return TypeAdapter[Any](MONOLITH_RESULTS[method])  # type: ignore[arg-type]  # a model or a union of them


DUMP: dict[str, Any] = {"by_alias": True, "mode": "json", "exclude_none": True}


def dump(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(by_alias=True, mode="json", exclude_none=True))


def ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 3)
