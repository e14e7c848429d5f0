"""What taskgate's server-side tool loop costs and saves, against an agent that drives its own loop.

    python bench/agent.py                  # 30 runs per variant and scenario, about two minutes here
    python bench/agent.py --quick          # 5 runs, about half a minute
    python bench/agent.py --tool-ms 100    # a slower tool

The task: one instruction; the model asks for two independent tool calls
(mail__read, files__read), then answers from their results. The ways to run it:

A. server-side loop: one POST with `tool_loop` through taskgate (not streamed);
   taskgate runs both calls through its /mcp plan, in parallel, and calls the
   model again.
B. client-driven loop through taskgate: the client calls the model (tools
   listed), runs the two calls one after the other through taskgate's /mcp
   with the official MCP SDK (one session, opened before timing, presenting the
   task token of the first answer), then calls the model with the results.
C. as B, the two calls in parallel (asyncio.gather).
D. the floor, no taskgate: the model direct, the two calls direct to their
   MCP servers in parallel, the model direct (openai and MCP SDK clients).
Ds. as D, both model calls streamed, as taskgate's loop dispatches its turns.
E. as C, but the client never reads the task token, as agent runtimes do:
   taskgate recognises the second turn and the MCP calls as the task's from
   what it answered (authz/binding.py). E − C is what binding costs per model
   turn and per tool call.

Scenarios: a simulated model that answers at once (the `instant` sim profile,
so what remains is the proxy and the tools) with tools taking 0 ms and
--tool-ms (50 by default), and the `h100` sim profile (12 ms per output token)
with the same tools. The tools are real SDK MCP servers (uvicorn).

Everything runs in this process on loopback, one event loop (client, proxy,
simulated engine and tool servers), so absolute numbers include that
contention; the variants share it. The start-up heap is frozen out of the
garbage collector before measuring (`--no-gc-freeze` keeps it in: a full
collection then stops the loop for 100-200 ms now and then). Prints tables
and saves bench/results/agent.png and agent.json. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import jwt
import needs
import openai
from aiohttp import web
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer
from mcp.types import TextContent
from report import Bars, save

from taskgate import __version__
from taskgate.authz.seal import seal
from taskgate.demo.tools import serving
from taskgate.gateway.config import parse_config
from taskgate.gateway.gateway import GATEWAY
from taskgate.logs import configure_logging
from taskgate.proxy.app import create_app, default_registry
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script, ToolCall

RESULTS = Path(__file__).resolve().parent / "results"
INSTRUCTION = "summarise my email and my notes from this week"
ANSWER = "Summary: the Q3 numbers came in; the notes say the offsite moved."
CALLS = (ToolCall("mail__read", {"folder": "inbox"}), ToolCall("files__read", {"path": "/home/alice/notes.txt"}))
SCRIPT = Script([Rule(match="^summarise", role="user", tool_calls=CALLS), Rule(match=".", role="tool", reply=ANSWER)])
SECRET = "bench-agent-hmac-secret-of-thirty-two-chars!"
IDP_ENV, TASK_ENV = "TASKGATE_BENCH_IDP_SECRET", "TASKGATE_BENCH_TASK_KEY"
TASK_TOKEN = "x-taskgate-task-token"
POLICY = """\
p, role:reader, acme, mail__*, call, r-mail
p, role:reader, acme, files__*, call, r-files
p, profile:summarise, *, mail__read, call, p-mail-read
p, profile:summarise, *, files__read, call, p-files-read
g, alice, role:reader, acme
"""
VARIANTS = {
    "A": "server-side loop (tool_loop)",
    "B": "client loop via taskgate, calls in turn",
    "C": "client loop via taskgate, calls parallel",
    "D": "direct floor, no taskgate",
    "Ds": "direct floor, model calls streamed",
    "E": "as C, no task token: binding (a runtime)",
}
DELAY = {"s": 0.0}  # what each tool takes, set per scenario


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    profile: str
    tool_ms: float


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def tool_servers() -> tuple[MCPServer, MCPServer]:
    mail, files = MCPServer("mail"), MCPServer("files")

    @mail.tool()
    async def read(folder: str = "inbox") -> str:
        """Read the newest message of a folder."""
        await asyncio.sleep(DELAY["s"])
        return f"[{folder}] From carol: the Q3 numbers are in."

    @files.tool(name="read")
    async def read_file(path: str) -> str:
        """Read a file."""
        await asyncio.sleep(DELAY["s"])
        return f"{path}: the offsite moved to Thursday"

    return mail, files


async def listen(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}"


def gateway_config(sim_url: str, tools: dict[str, str], policy: Path) -> dict[str, Any]:
    """Authenticate, classify, pii (patterns) and per-task grants before routing; the MCP gateway with pii."""
    pool = {"name": "p", "endpoints": [{"name": "e", "url": sim_url}], "models": [{"name": "m"}]}
    return {
        "routing": {"pools": [pool]},
        "authz": {
            "jwt": {"issuer": "idp", "audience": "taskgate", "algorithms": ["HS256"],
                    "keys": [{"algorithm": "HS256", "secret_env": IDP_ENV}]},
            "policy": {"file": str(policy), "reload_interval_s": 0},
            "tasks": {"signing_secret_env": TASK_ENV},
        },
        "mcp": {"servers": [{"name": name, "url": url} for name, url in tools.items()]},
        "steps": [
            {"name": "authn", "type": "authz.authenticate"},
            {"name": "classify", "type": "guards.classify"},
            {"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}},
            {"name": "authorize", "type": "authz.authorize"},
        ],
        "pipelines": {"chat": ["authn", "classify", "pii", "authorize", "state", "route"],
                      "mcp": ["authn", "authorize", "pii"]},
        "logging": {"evidence": False, "level": "warning"},
    }  # fmt: skip


def text_of(result: Any) -> str:
    if result.is_error:
        raise RuntimeError(f"a tool call failed: {result.content}")
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def as_tools(listed: Any, prefix: str = "") -> list[dict[str, Any]]:
    """MCP tools as the OpenAI function tools an agent offers its model."""
    return [
        {
            "type": "function",
            "function": {"name": prefix + t.name, "description": t.description or "", "parameters": t.input_schema},
        }
        for t in listed.tools
    ]


@dataclasses.dataclass
class Rig:
    """The clients of one scenario: to taskgate and direct, the openai SDK and MCP SDK sessions."""

    app: web.Application
    gateway: openai.AsyncOpenAI
    direct: openai.AsyncOpenAI
    mcp: Client
    mcp_http: httpx2.AsyncClient
    tools: dict[str, Client]  # direct, by server name
    offered: list[Any]  # the function tools a client-driven agent lists for its model


def question() -> list[Any]:
    return [{"role": "user", "content": INSTRUCTION}]


def check_answer(text: str | None, variant: str) -> None:
    if text != ANSWER:
        raise RuntimeError(f"variant {variant}: the agent got {text!r}, not the scripted answer")


async def server_loop(rig: Rig) -> dict[str, Any]:
    started = time.perf_counter()
    raw = await rig.gateway.chat.completions.with_raw_response.create(
        model="m", max_tokens=200, messages=question(), extra_body={"tool_loop": {"servers": ["mail", "files"]}}
    )
    answer = raw.parse()
    total = (time.perf_counter() - started) * 1000
    check_answer(answer.choices[0].message.content, "A")
    summary = (answer.model_extra or {}).get("taskgate_loop") or {}
    if summary.get("turns") != 2 or summary.get("tool_calls") != 2 or summary.get("denied"):
        raise RuntimeError(f"variant A: unexpected loop {summary}")
    record = rig.app[GATEWAY].evidence.find(raw.headers["x-taskgate-request-id"]) or {}
    trace = record.get("task", {}).get("trace", [])
    turns = [e for e in trace if e["kind"] == "model_turn"]
    calls = [e for e in trace if e["kind"] == "tool_call"]
    (round_,) = summary["rounds"]
    return {
        "ms": total,
        "request_ms": record.get("duration_ms", float("nan")),
        "turn_ms": [t["duration_ms"] for t in turns],
        "turn_pre_ms": [t["dispatch"]["started_ms"] for t in turns],
        "call_ms": [c["duration_ms"] for c in calls],
        "call_upstream_ms": [c["dispatch"]["ms"] for c in calls],
        "round_wall_ms": round_["wall_ms"],
        "round_sum_ms": round_["sum_ms"],
    }


async def client_loop(rig: Rig, parallel: bool, bound: bool = False) -> dict[str, Any]:
    """B and C: a client that carries the task token; E (`bound`): one that never reads it, as agent runtimes, whose
    turns and calls taskgate recognises from what it answered (authz/binding.py)."""
    variant = "E" if bound else "C" if parallel else "B"
    started = time.perf_counter()
    messages = question()
    raw = await rig.gateway.chat.completions.with_raw_response.create(
        model="m", max_tokens=200, messages=messages, tools=rig.offered
    )
    first = raw.parse().choices[0].message
    token = raw.headers[TASK_TOKEN]
    asked = time.perf_counter()
    if bound:
        rig.mcp_http.headers.pop(TASK_TOKEN, None)
    else:
        rig.mcp_http.headers[TASK_TOKEN] = token  # the same MCP session, this task's token

    async def call(tool_call: Any) -> dict[str, Any]:
        result = await rig.mcp.call_tool(tool_call.function.name, json.loads(tool_call.function.arguments))
        return {"role": "tool", "tool_call_id": tool_call.id, "content": text_of(result)}

    calls = first.tool_calls or []
    results = list(await asyncio.gather(*(call(c) for c in calls))) if parallel else [await call(c) for c in calls]
    ran = time.perf_counter()
    messages += [first.model_dump(exclude_none=True), *results]
    answer = await rig.gateway.chat.completions.create(
        model="m",
        max_tokens=200,
        messages=messages,
        tools=rig.offered,
        extra_headers={} if bound else {TASK_TOKEN: token},
    )
    done = time.perf_counter()
    check_answer(answer.choices[0].message.content, variant)
    if len(calls) != 2:
        raise RuntimeError(f"variant {variant}: the model asked for {len(calls)} calls")
    return {
        "ms": (done - started) * 1000,
        "model_ms": [(asked - started) * 1000, (done - ran) * 1000],
        "tools_ms": (ran - asked) * 1000,
    }


async def ask_direct(rig: Rig, messages: list[Any], stream: bool) -> dict[str, Any]:
    """One model call straight to the engine: the assistant message, assembled from the stream if streamed."""
    if not stream:
        answer = await rig.direct.chat.completions.create(
            model="m", max_tokens=200, messages=messages, tools=rig.offered
        )
        return answer.choices[0].message.model_dump(exclude_none=True)
    content = ""
    calls: dict[int, dict[str, Any]] = {}  # by index, assembled from their pieces
    chunks = await rig.direct.chat.completions.create(
        model="m", max_tokens=200, messages=messages, tools=rig.offered, stream=True
    )
    async for chunk in chunks:
        delta = chunk.choices[0].delta if chunk.choices else None
        content += (delta.content or "") if delta else ""
        for piece in (delta.tool_calls or []) if delta else []:
            call = calls.setdefault(
                piece.index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            )
            call["id"] = piece.id or call["id"]
            if piece.function is not None:
                call["function"]["name"] += piece.function.name or ""
                call["function"]["arguments"] += piece.function.arguments or ""
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    return message | ({"tool_calls": [calls[i] for i in sorted(calls)]} if calls else {})


async def direct(rig: Rig, stream: bool = False) -> dict[str, Any]:
    started = time.perf_counter()
    messages = question()
    first = await ask_direct(rig, messages, stream)
    asked = time.perf_counter()

    async def call(tool_call: dict[str, Any]) -> tuple[dict[str, Any], float]:
        begun = time.perf_counter()
        server, tool = tool_call["function"]["name"].split("__", 1)
        result = await rig.tools[server].call_tool(tool, json.loads(tool_call["function"]["arguments"]))
        message = {"role": "tool", "tool_call_id": tool_call["id"], "content": text_of(result)}
        return message, (time.perf_counter() - begun) * 1000

    done_calls = await asyncio.gather(*(call(c) for c in first.get("tool_calls", [])))
    ran = time.perf_counter()
    messages += [first, *(m for m, _ in done_calls)]
    answer = await ask_direct(rig, messages, stream)
    done = time.perf_counter()
    check_answer(answer.get("content"), "D")
    if len(done_calls) != 2:
        raise RuntimeError(f"variant D: the model asked for {len(done_calls)} calls")
    return {
        "ms": (done - started) * 1000,
        "model_ms": [(asked - started) * 1000, (done - ran) * 1000],
        "tools_ms": (ran - asked) * 1000,
        "call_ms": [ms for _, ms in done_calls],
    }


@contextlib.asynccontextmanager
async def rig(scenario: Scenario, tools: dict[str, str], folder: Path) -> Any:
    profile = dataclasses.replace(PROFILES[scenario.profile], models=("m",))
    sim_runner, sim_url = await listen(create_sim(profile, "engine", SCRIPT))
    registry = default_registry()
    app = create_app(parse_config(gateway_config(sim_url, tools, folder / "policy.csv"), "<bench>", registry), registry)
    runner, url = await listen(app)
    now = int(time.time())
    claims = {"iss": "idp", "aud": "taskgate", "sub": "alice", "tenant": "acme", "iat": now, "exp": now + 3600}
    token = jwt.encode(claims, SECRET, algorithm="HS256")
    try:
        async with contextlib.AsyncExitStack() as stack:
            gateway = await stack.enter_async_context(
                openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=token, max_retries=0, timeout=30)
            )
            direct_api = await stack.enter_async_context(
                openai.AsyncOpenAI(base_url=f"{sim_url}/v1", api_key="direct", max_retries=0, timeout=30)
            )
            http = await stack.enter_async_context(httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}))
            session = await stack.enter_async_context(
                Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy")
            )
            direct_tools: dict[str, Client] = {}
            offered: list[Any] = []
            for name, tool_url in tools.items():
                client = await stack.enter_async_context(Client(streamable_http_client(tool_url), mode="legacy"))
                direct_tools[name] = client
                offered += as_tools(await client.list_tools(), f"{name}__")
            # the agent lists the tools it knows (SERVER__TOOL, as the gateway names them): listing them through
            # /mcp before the task exists would show only what a task of the default profile may use
            yield Rig(app, gateway, direct_api, session, http, direct_tools, offered)
    finally:
        await runner.cleanup()  # the gateway lets go of the MCP servers before they stop
        await sim_runner.cleanup()


async def measure(
    scenario: Scenario, tools: dict[str, str], folder: Path, repeat: int, warmup: int, freeze: bool
) -> dict[str, Any]:
    DELAY["s"] = scenario.tool_ms / 1000
    runs: dict[str, Callable[[Rig], Awaitable[dict[str, Any]]]] = {
        "A": server_loop,
        "B": lambda r: client_loop(r, parallel=False),
        "C": lambda r: client_loop(r, parallel=True),
        "D": direct,
        "Ds": lambda r: direct(r, stream=True),
        "E": lambda r: client_loop(r, parallel=True, bound=True),
    }
    samples: dict[str, list[dict[str, Any]]] = {key: [] for key in runs}
    async with rig(scenario, tools, folder) as r:
        for i in range(warmup + repeat):
            if i == warmup and freeze:
                # everything alive now (imports, the trained classifier, the servers) is left out of later
                # collections: a full one over this heap stops the event loop for 100-200 ms (see --no-gc-freeze)
                gc.collect()
                gc.freeze()
            for key, run in runs.items():  # interleaved: drift and noise fall on every variant alike
                sample = await run(r)
                if i >= warmup:
                    samples[key].append(sample)
    gc.unfreeze()
    return summarise(scenario, samples)


def summarise(scenario: Scenario, samples: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    variants: dict[str, dict[str, Any]] = {}
    for key, rows in samples.items():
        ms = [row["ms"] for row in rows]
        variants[key] = {"p50_ms": pct(ms, 0.5), "p95_ms": pct(ms, 0.95), "mean_ms": statistics.fmean(ms), "ms": ms}
    a, d = samples["A"], samples["D"]
    turn = med([t for row in a for t in row["turn_ms"]])
    direct_model = med([m for row in d for m in row["model_ms"]])
    call = med([c for row in a for c in row["call_ms"]])
    leg = med([c for row in a for c in row["call_upstream_ms"]])
    direct_call = med([c for row in d for c in row["call_ms"]])
    glue = med([row["request_ms"] - sum(row["turn_ms"]) - row["round_wall_ms"] for row in a])
    hop = med([row["ms"] - row["request_ms"] for row in a])
    round_wall, tools_wall = med([row["round_wall_ms"] for row in a]), med([row["tools_ms"] for row in d])
    attribution = {
        "a_minus_d_ms": variants["A"]["p50_ms"] - variants["D"]["p50_ms"],
        "streamed_turns_ms": variants["Ds"]["p50_ms"] - variants["D"]["p50_ms"],
        "a_minus_ds_ms": variants["A"]["p50_ms"] - variants["Ds"]["p50_ms"],
        "per_model_turn_ms": turn - direct_model,
        "turn_ms": turn,
        "direct_model_ms": direct_model,
        "turn_plan_before_dispatch_ms": med([p for row in a for p in row["turn_pre_ms"]]),
        "turn_after_dispatch_ms": med(
            [t - p for row in a for t, p in zip(row["turn_ms"], row["turn_pre_ms"], strict=True)]
        ),
        "per_tool_call_ms": call - direct_call,
        "call_ms": call,
        "direct_call_ms": direct_call,
        "call_in_gateway_ms": med(
            [c - u for row in a for c, u in zip(row["call_ms"], row["call_upstream_ms"], strict=True)]
        ),
        "call_upstream_leg_ms": leg,
        "tool_round_ms": round_wall - tools_wall,
        "loop_glue_ms": glue,
        "client_hop_ms": hop,
    }
    c, e = samples["C"], samples["E"]
    attribution["binding_per_turn_ms"] = med([m for row in e for m in row["model_ms"]]) - med(
        [m for row in c for m in row["model_ms"]]
    )
    attribution["binding_per_call_ms"] = (med([row["tools_ms"] for row in e]) - med([row["tools_ms"] for row in c])) / 2
    attribution["parts_sum_ms"] = 2 * attribution["per_model_turn_ms"] + attribution["tool_round_ms"] + glue + hop
    rounds = {
        "wall_ms": round_wall,
        "sum_ms": med([row["round_sum_ms"] for row in a]),
        "slower_call_ms": med([max(row["call_ms"]) for row in a]),
        "wall_over_sum": med([row["round_wall_ms"] / row["round_sum_ms"] for row in a]),
        "wall_over_slower": med([row["round_wall_ms"] / max(row["call_ms"]) for row in a]),
    }
    return {**dataclasses.asdict(scenario), "variants": variants, "attribution": attribution, "rounds": rounds}


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    os.environ.update({IDP_ENV: SECRET, TASK_ENV: SECRET + "-tasks"})
    folder = Path(tempfile.mkdtemp(prefix="taskgate-bench-agent-"))
    (folder / "policy.csv").write_text(seal(POLICY))
    scenarios = [
        Scenario("instant, tools 0 ms", "instant", 0.0),
        Scenario(f"instant, tools {args.tool_ms:g} ms", "instant", args.tool_ms),
        Scenario(f"h100, tools {args.tool_ms:g} ms", "h100", args.tool_ms),
    ]
    repeat = 5 if args.quick else args.repeat
    mail, files = tool_servers()
    out = []
    async with serving(mail) as mail_url, serving(files) as files_url:
        for scenario in scenarios:
            urls = {"mail": mail_url, "files": files_url}
            out.append(await measure(scenario, urls, folder, repeat, args.warmup, not args.no_gc_freeze))
    return out


def tables(scenarios: list[dict[str, Any]], repeat: int) -> str:
    head = f"{'agent task: 2 tool calls, then answer (ms)':44}" + "".join(f"{s['name']:>26}" for s in scenarios)
    sub = f"{'':44}" + "".join(f"{'p50':>10}{'p95':>8}{'+p50':>8}" for _ in scenarios)
    lines = [f"{repeat} runs per variant and scenario", "", head, sub]
    for key, label in VARIANTS.items():
        row = f"{key:3}{label:41}"
        for s in scenarios:
            v, floor = s["variants"][key], s["variants"]["D"]["p50_ms"]
            row += f"{v['p50_ms']:10.1f}{v['p95_ms']:8.1f}{v['p50_ms'] - floor:+8.1f}"
        lines.append(row)
    lines += ["", f"{'where A − D goes (p50s, ms)':44}" + "".join(f"{s['name']:>26}" for s in scenarios)]
    rows = [
        ("A − D, whole task", "a_minus_d_ms"),
        ("  Ds − D: the engine streaming both turns", "streamed_turns_ms"),
        ("  A − Ds", "a_minus_ds_ms"),
        ("per model turn: taskgate turn − direct call", "per_model_turn_ms"),
        ("  chat plan before dispatch (evidence)", "turn_plan_before_dispatch_ms"),
        ("  dispatch to the end of the stream", "turn_after_dispatch_ms"),
        ("  direct call, for reference", "direct_model_ms"),
        ("per tool call: taskgate call − direct call", "per_tool_call_ms"),
        ("  mcp plan and JSON-RPC (call − its leg)", "call_in_gateway_ms"),
        ("  upstream leg (evidence dispatch.ms)", "call_upstream_leg_ms"),
        ("  direct call, for reference", "direct_call_ms"),
        ("tool round: loop round wall − D's wall", "tool_round_ms"),
        ("loop glue (request − turns − round)", "loop_glue_ms"),
        ("client ↔ taskgate (client − request)", "client_hop_ms"),
        ("2 × turn + round + glue + hop", "parts_sum_ms"),
        ("binding, per model turn: E − C", "binding_per_turn_ms"),
        ("binding, per tool call: (E − C) / 2", "binding_per_call_ms"),
    ]
    for label, key in rows:
        lines.append(f"{label:44}" + "".join(f"{s['attribution'][key]:26.2f}" for s in scenarios))
    lines += ["", f"{'loop tool round (taskgate_loop.rounds)':44}" + "".join(f"{s['name']:>26}" for s in scenarios)]
    for label, key in (
        ("wall p50", "wall_ms"),
        ("sum of the two calls p50", "sum_ms"),
        ("slower of the two calls p50 (trace)", "slower_call_ms"),
        ("wall / sum p50", "wall_over_sum"),
        ("wall / slower call p50", "wall_over_slower"),
    ):
        lines.append(f"{label:44}" + "".join(f"{s['rounds'][key]:26.2f}" for s in scenarios))
    slowest = scenarios[-1]["rounds"]
    lines.append(
        f"the loop ran each turn's two calls in parallel: a round lasts about the slower call "
        f"({slowest['wall_over_slower']:.2f}×), not their sum ({slowest['wall_over_sum']:.2f}×)"
    )
    return "\n".join(lines)


def plot(result: dict[str, Any], path: Path) -> None:
    """What each way adds over the direct floor D, where A − D goes, then the tasks' p50s, every bar labelled."""
    scenarios = result["scenarios"]
    names = [s["name"] for s in scenarios]
    over = [key for key in VARIANTS if key != "D"]
    parts: dict[str, Callable[[dict[str, Any]], float]] = {
        "A − D measured": lambda a: a["a_minus_d_ms"],
        "2 model turns (taskgate − direct)": lambda a: 2 * a["per_model_turn_ms"],
        "tool round (loop − D's)": lambda a: a["tool_round_ms"],
        "loop glue": lambda a: a["loop_glue_ms"],
        "client ↔ taskgate": lambda a: a["client_hop_ms"],
        "sum of the four parts": lambda a: a["parts_sum_ms"],
    }
    added, split, p50 = {}, {}, {}
    for name, s in zip(names, scenarios, strict=True):
        v = s["variants"]
        added[name] = [v[key]["p50_ms"] - v["D"]["p50_ms"] for key in over]
        split[name] = [part(s["attribution"]) for part in parts.values()]
        p50[name] = [v[key]["p50_ms"] for key in VARIANTS]
    labels = {key: f"{key}: {label}" for key, label in VARIANTS.items()}
    panels = [
        Bars("What each way adds over the direct floor D", "ms added per task, p50 − D's p50",
             [labels[key] for key in over], added, "{:+.1f}"),
        Bars("Where the server-side loop's overhead goes (A − D)", "ms, p50 of each part", list(parts), split,
             "{:+.1f}"),
        Bars("One agent task: two tool calls, then the answer", "ms per task, p50 (log)", list(labels.values()), p50,
             "{:.1f}", log=True),
    ]  # fmt: skip
    cores = result["platform"]["cpus"]
    title = f"taskgate tool loop ({platform.processor() or platform.machine()}, {cores} cores, in-process)"
    save(path, title, panels, columns=3)


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 runs per variant")
    parser.add_argument("--repeat", type=int, default=30, help="runs per variant and scenario")
    parser.add_argument("--warmup", type=int, default=3, help="runs per variant before measuring")
    parser.add_argument("--tool-ms", type=float, default=50.0, help="what each tool takes in the slower scenarios")
    parser.add_argument("--no-gc-freeze", action="store_true", help="leave the start-up heap in full collections")
    args = parser.parse_args()
    configure_logging("warning")
    RESULTS.mkdir(exist_ok=True)
    started = time.perf_counter()
    scenarios = asyncio.run(run(args))
    seconds = time.perf_counter() - started
    repeat = 5 if args.quick else args.repeat
    print(tables(scenarios, repeat))
    result = {
        "platform": {
            "machine": platform.machine(), "processor": platform.processor(), "system": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count(), "taskgate": __version__,
        },
        "params": {
            "repeat": repeat, "warmup": args.warmup, "tool_ms": args.tool_ms, "quick": args.quick,
            "gc_freeze": not args.no_gc_freeze,
        },
        "seconds": seconds,
        "scenarios": scenarios,
    }  # fmt: skip
    (RESULTS / "agent.json").write_text(json.dumps(result, indent=2))
    plot(result, RESULTS / "agent.png")
    print(f"\n{seconds:.0f} s; saved {RESULTS / 'agent.png'} and agent.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
