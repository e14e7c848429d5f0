"""Replaying tasks and attacks: straight to the domain servers, or through taskgate's MCP gateway.

Both callers use the official `mcp` SDK client over Streamable HTTP. Through
the gateway, a task's first call states its purpose in `params._meta`
(`io.taskgate/purpose`, the task's text); its result's `_meta` carries the
task token, which every later call of the task presents
(`io.taskgate/task-token`). A refused call that opened the task carries the
same two in its JSON-RPC error's `data`, so the task goes on either way: one
task per replay, its purpose stated once.

An outcome is `allowed` (the server answered), `tool_error` (allowed, but the
server refused the arguments), `denied` (-32003), `held` (-32044, approval
required; never approved here) or `error` (anything else).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from .attacks import Attack
from .domains import Live
from .tasks import Call, Task
from .world import TENANT, USER, USER_EMAIL, Slot

DENIED, HELD = -32003, -32044
PASSED = ("allowed", "tool_error")  # what the gateway let through
ISSUER, AUDIENCE = "https://idp.brightwell.example", "taskgate"
IDP_ENV, TASK_ENV = "INJECTION_BENCH_IDP_SECRET", "TASKGATE_TASK_KEY"
POLICIES = Path(__file__).resolve().parent / "policies"
PART_CONFIDENCE = 0.6  # the classify step's part_confidence: a part's own label counts from this confidence up


@dataclass
class Outcome:
    tool: str
    status: str
    ms: float
    rule: str | None = None
    reason: str | None = None
    message: str | None = None

    @property
    def passed(self) -> bool:
        return self.status in PASSED


@dataclass
class Run:
    """One task replayed (and, for a pair, the attack after it) in a fresh world."""

    task: Task
    attack: Attack | None
    slot: Slot | None
    task_calls: list[Outcome]
    attack_calls: list[Outcome] = field(default_factory=list)
    profile: str | None = None

    @property
    def task_passed(self) -> bool:
        return all(o.passed for o in self.task_calls)

    @property
    def attack_passed(self) -> bool:
        return bool(self.attack_calls) and all(o.passed for o in self.attack_calls)


class TaskSession:
    """What a task presents: its purpose until an answer (a result's `_meta`, a refusal's `data`) carries its token."""

    def __init__(self, purpose: str):
        self.purpose, self.token = purpose, None
        self.task_id: str | None = None

    def meta(self) -> dict[str, str]:
        from taskgate.plugins import META_PURPOSE, META_TASK_TOKEN

        return {META_TASK_TOKEN: self.token} if self.token else {META_PURPOSE: self.purpose}

    def take(self, meta: Any) -> None:
        from taskgate.plugins import META_TASK, META_TASK_TOKEN

        if self.token is None and isinstance(meta, dict) and isinstance(meta.get(META_TASK_TOKEN), str):
            self.token, self.task_id = meta[META_TASK_TOKEN], meta.get(META_TASK)


class Caller(Protocol):
    async def call(self, call: Call, session: TaskSession) -> Outcome: ...

    def profile(self) -> str | None: ...


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


class DirectCaller:
    """The baseline: each call straight to its server, by the server's own tool name."""

    def __init__(self, clients: dict[str, Any]):
        self.clients = clients

    async def call(self, call: Call, session: TaskSession) -> Outcome:
        started = time.perf_counter()
        try:
            result = await self.clients[call.server].call_tool(call.name, call.args)
        except Exception as exc:
            return Outcome(call.tool, "error", _ms(started), message=f"{type(exc).__name__}: {exc}"[:300])
        ms = _ms(started)
        return Outcome(call.tool, "tool_error" if result.is_error else "allowed", ms, message=_error_text(result))

    def profile(self) -> str | None:
        return None


class GatewayCaller:
    """Every call through taskgate's /mcp, one SDK session for the whole replay."""

    def __init__(self, client: Any, app: Any):
        self.client, self.app = client, app

    async def call(self, call: Call, session: TaskSession) -> Outcome:
        from mcp import MCPError
        from mcp.types import RequestParamsMeta

        meta = cast(RequestParamsMeta, session.meta())
        started = time.perf_counter()
        try:
            result = await self.client.call_tool(call.tool, call.args, meta=meta)
        except MCPError as exc:
            ms = _ms(started)
            error = exc.error
            data: dict[str, Any] = error.data if isinstance(error.data, dict) else {}
            approval: dict[str, Any] = data["approval"] if isinstance(data.get("approval"), dict) else {}
            status = "held" if error.code == HELD else "denied" if error.code == DENIED else "error"
            rule = data.get("rule") or approval.get("rule")
            session.take(data)  # a refused call that opened the task: carry it on, do not open another
            return Outcome(call.tool, status, ms, rule, data.get("reason"), error.message[:300])
        except Exception as exc:
            return Outcome(call.tool, "error", _ms(started), message=f"{type(exc).__name__}: {exc}"[:300])
        ms = _ms(started)
        session.take(result.meta)
        refusal = _refusal(result)
        if refusal is not None:  # taskgate's refusal as MCP reports a tool execution error (`mcp.refusals: result`)
            asked = refusal.get("approval")
            status = "held" if refusal.get("reason") == "approval_required" else "denied"
            rule = refusal.get("rule") or (asked.get("rule") if isinstance(asked, dict) else None)
            return Outcome(call.tool, status, ms, rule, refusal.get("reason"), _error_text(result))
        return Outcome(call.tool, "tool_error" if result.is_error else "allowed", ms, message=_error_text(result))

    def profile(self) -> str | None:
        """The intent profile the classifier gave the latest tools/call (from the gateway's evidence)."""
        from taskgate.gateway.gateway import GATEWAY

        for record in reversed(self.app[GATEWAY].evidence.records()):
            if record.get("model") == "tools/call":
                intent = (record.get("decisions") or {}).get("intent")
                return str(intent["profile"]) if isinstance(intent, dict) and intent.get("profile") else None
        return None


def _refusal(result: Any) -> dict[str, Any] | None:
    """What taskgate's refusal of a call says (reason, rule, approval), if the error result is one."""
    from taskgate.mcp_gateway.rpc import META_REFUSAL

    meta = result.meta if isinstance(result.meta, dict) else {}
    found = meta.get(META_REFUSAL) if result.is_error else None
    return found if isinstance(found, dict) else None


def _error_text(result: Any) -> str | None:
    if not result.is_error:
        return None
    texts = [getattr(part, "text", "") for part in result.content or []]
    return " ".join(texts)[:300] or "tool error"


async def replay(caller: Caller, live: Live, task: Task, attack: Attack | None = None, slot: Slot | None = None) -> Run:
    """The task's calls in a fresh world (the attack planted first, if any), then the attacker's, in one task."""
    world = live.reset()
    if attack is not None and slot is not None:
        world.plant(slot, attack.text_for(slot.carrier))
    session = TaskSession(task.text)
    run = Run(task, attack, slot, [])
    for number, call in enumerate(task.calls):
        run.task_calls.append(await caller.call(call, session))
        if number == 0:
            run.profile = caller.profile()
    for call in attack.calls if attack is not None else ():
        run.attack_calls.append(await caller.call(call, session))
    return run


# --- connections ---------------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def direct(urls: dict[str, str]) -> AsyncIterator[DirectCaller]:
    """One SDK client session per domain server."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with contextlib.AsyncExitStack() as stack:
        clients = {}
        for name, url in urls.items():
            http = await stack.enter_async_context(httpx2.AsyncClient())
            clients[name] = await stack.enter_async_context(
                Client(streamable_http_client(url, http_client=http), mode="legacy")
            )
        yield DirectCaller(clients)


async def know_tools(client: Any, urls: dict[str, str]) -> None:
    """Give the gateway's client every tool's output schema, under its gateway name, as an agent that listed them.

    The SDK validates a result's structured content against the schema of a
    tool it has listed; for a tool it has not, it lists tools again, once per
    call. Through the gateway a listing shows only the tools of the task that
    lists them (and a listing without a task token opens a task of its own),
    so an unseeded client would add a tools/list to most calls it times.
    """
    from mcp.types import ListToolsResult

    absorb = getattr(client.session, "_absorb_tool_listing", None)
    if absorb is None:
        return  # an SDK without the hook: it lists as it goes, and the timings include that
    async with direct(urls) as upstream:
        for server, session in upstream.clients.items():
            listed = await session.list_tools()
            tools = [t.model_copy(update={"name": f"{server}__{t.name}"}) for t in listed.tools]
            absorb(ListToolsResult(tools=tools), complete=False)


class PolicyRefused(Exception):
    """taskgate refused the configuration's policy (or its config): the message says where and why."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def user_token() -> str:
    """A real HS256 JWT for Nora, as her identity provider would issue it."""
    import jwt

    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": USER, "tenant": TENANT, "email": USER_EMAIL,
              "iat": now, "exp": now + 3 * 3600}  # fmt: skip
    return jwt.encode(claims, os.environ[IDP_ENV], algorithm="HS256")


def task_types_path(policy_csv: Path) -> Path:
    """The task types (label to profile) of a configuration: `NAME.task_types.json` beside its policy, if there
    is one (a policy with profiles of its own), else the shared `task_types.json`."""
    own = policy_csv.with_name(f"{policy_csv.stem}.task_types.json")
    return own if own.exists() else POLICIES / "task_types.json"


def task_types_for(policy_csv: Path) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(task_types_path(policy_csv).read_text()))


def authorize_params_for(policy_csv: Path) -> dict[str, Any]:
    """The authorize step's params a policy comes with (`<policy>.authorize.json`: its reference sources)."""
    own = policy_csv.with_name(f"{policy_csv.stem}.authorize.json")
    return cast(dict[str, Any], json.loads(own.read_text())) if own.exists() else {}


def gateway_config(
    policy: Path, urls: dict[str, str], task_types: dict[str, Any], authorize: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An MCP-only gateway: no model pools; authenticate, classify (the bench's examples), authorize."""
    from taskgate.authz.config import ClaimNames

    examples = sorted(str(p) for p in (POLICIES / "examples").glob("*.jsonl"))
    claims: dict[str, Any] = {}
    if "labelled" in ClaimNames.model_fields:  # the `claims` label: the user's own address, from her token
        claims["claims"] = {"labelled": ["email"]}
    return {
        "routing": {"pools": []},
        "authz": {
            "jwt": {"issuer": ISSUER, "audience": AUDIENCE, "algorithms": ["HS256"],
                    "keys": [{"algorithm": "HS256", "secret_env": IDP_ENV}], **claims},
            "policy": {"file": str(policy), "reload_interval_s": 0},
            "tasks": {"signing_secret_env": TASK_ENV},
        },
        "mcp": {"servers": [{"name": n, "url": u} for n, u in urls.items()], "catalog_ttl_s": 3600},
        "steps": [
            {"name": "authn", "type": "authz.authenticate"},
            {"name": "classify", "type": "guards.classify", "params": {"examples": examples, "task_types": task_types,
                                                                        "part_confidence": PART_CONFIDENCE}},
            {"name": "authorize", "type": "authz.authorize", "params": authorize or {}},
        ],
        "pipelines": {"mcp": ["authn", "classify", "authorize"]},
        "logging": {"evidence": False, "level": "warning"},
    }  # fmt: skip


def sealed_copy(source: Path, folder: Path) -> Path:
    """The operator's CSV, sealed as `taskgate policy seal` would, in a folder of this run."""
    from taskgate.authz.seal import seal

    target = folder / source.name
    target.write_text(seal(source.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def check_policy(path: Path) -> None:
    """Load the policy as taskgate does; a PolicyRefused with taskgate's reason (file, row) if it refuses it."""
    from taskgate.authz.errors import PolicyError
    from taskgate.authz.policy import load

    try:
        load(None, path, 1)
    except PolicyError as exc:
        raise PolicyRefused(str(exc)) from None


@contextlib.asynccontextmanager
async def gateway(policy_csv: Path, urls: dict[str, str]) -> AsyncIterator[GatewayCaller]:
    """taskgate in this process and event loop, in front of the domain servers, and an SDK session to it."""
    import httpx2
    from aiohttp import web
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from taskgate.gateway.config import parse_config
    from taskgate.proxy.app import create_app, default_registry

    os.environ.setdefault(IDP_ENV, secrets.token_urlsafe(32))
    os.environ.setdefault(TASK_ENV, secrets.token_urlsafe(32) + "-task")
    with tempfile.TemporaryDirectory(prefix="injection-bench-") as name:
        folder = Path(name)
        policy = sealed_copy(policy_csv, folder)
        check_policy(policy)
        registry = default_registry()
        try:
            config = gateway_config(policy, urls, task_types_for(policy_csv), authorize_params_for(policy_csv))
            app = create_app(parse_config(config, "<injection bench>", registry), registry)
        except Exception as exc:  # a config or policy taskgate refuses: say so, do not pretend to measure
            raise PolicyRefused(f"{type(exc).__name__}: {exc}") from None
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        try:
            headers = {"Authorization": f"Bearer {user_token()}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http), mode="legacy") as c,
            ):
                await know_tools(c, urls)
                yield GatewayCaller(c, runner.app)
        finally:
            await runner.cleanup()
