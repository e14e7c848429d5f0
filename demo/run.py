"""`taskgate demo`: simulated pools, the proxy, a scripted agent workload, a summary.

Everything runs in this process on 127.0.0.1 with embedded defaults (an
example policy, secrets made for the run, mail and metrics tool servers
behind /mcp); nothing is downloaded and nothing is left behind but the
evidence file and the policy in a temp dir. One agent task drives its own
tool calls; another hands them to taskgate's server-side tool loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import openai
from aiohttp import web
from openai.types.chat import ChatCompletionMessageParam

from taskgate.gateway.config import parse_config
from taskgate.gateway.gateway import GATEWAY
from taskgate.logs import configure_logging
from taskgate.proxy.app import create_app, default_registry
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script, ToolCall

from . import tools as demo_tools
from .report import Call, LoopCall, dashboard, summary

MODELS = ("agent", "embed")
# name, sim profile, endpoints, region, price in/out per Mtok, prefill tokens/s
POOLS = (
    ("h100", "h100", 2, "eu-west", (3.0, 9.0), 20_000),
    ("l4", "l4", 1, "eu-west", (0.8, 2.4), 3_000),
    ("l4-us", "l4", 1, "us-east", (0.6, 1.8), 3_000),
)
GUARDS = [
    {"name": "classify", "type": "guards.classify"},
    {
        "name": "pii",
        "type": "guards.pii",
        "params": {
            "entities": {
                "EMAIL_ADDRESS": {"action": "redact"},
                "PHONE_NUMBER": {"action": "redact", "style": "mask"},
                "PERSON": {"action": "redact"},
                "CREDIT_CARD": {"action": "block"},
                "IBAN_CODE": {"action": "restrict", "regions": ["eu-west"]},
            }
        },
    },
]
# the personal data the workload sends: someone's, not values published for testing (guards/testvalues.py),
# which the PII step leaves alone by default
EMAIL, PHONE = "jane.porter@fastmail.com", "+1 212-484-7316"
IBAN = "GB53 BARC 9898 7310 5760 32"
CARD = "4539 0690 0679 2185"
TOOL_RESULT = "Tool result: p99 of payment-api rose from 180 ms to 410 ms at 14:02 Friday, after deploy 7781."
SYSTEM = "You are an operations agent. Plan, call tools when needed, and answer briefly."
LOOP_INSTRUCTION = (
    "Did deploy 7781 slow down payment-api? Check the alert mail and its p99 latency, then delete the alert."
)
LOOP_ANSWER = (
    "Yes: payment-api p99 rose from 180 ms to 410 ms right after deploy 7781 (Fri 14:02), and the alert fired "
    "twice since. Roll back 7781. I could not delete the alert: this task may not delete mail."
)
# the agent model: two independent reads, then the clean-up the instruction asked for, then the answer
SCRIPT = Script(
    [
        Rule(
            match="^Did deploy 7781 slow down payment-api",
            role="user",
            tool_calls=(
                ToolCall("mail__read", {"folder": "alerts"}),
                ToolCall("metrics__latency", {"service": "payment-api", "window": "7d"}),
            ),
        ),
        Rule(
            match="^payment-api p99 over", role="tool", tool_calls=(ToolCall("mail__delete", {"message_id": "a-7781"}),)
        ),
        Rule(match="^taskgate refused this tool call", role="tool", reply=LOOP_ANSWER),
    ]
)


async def _listen(app: web.Application, **kwargs: Any) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None, **kwargs)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}"


async def _start_pools() -> tuple[list[web.AppRunner], list[dict[str, Any]]]:
    runners, pools = [], []
    for name, profile, count, region, (price_in, price_out), prefill in POOLS:
        endpoints = []
        for index in range(count):
            sim = create_sim(dataclasses.replace(PROFILES[profile], models=MODELS), f"{name}-{index}", SCRIPT)
            runner, url = await _listen(sim)
            runners.append(runner)
            endpoints.append({"name": f"{name}-{index}", "url": url})
        pools.append(
            {
                "name": name,
                "hardware": profile,
                "region": region,
                "endpoints": endpoints,
                "models": [{"name": m} for m in MODELS],
                "price": {"input_per_mtok": price_in, "output_per_mtok": price_out},
                "prefill_tokens_per_s": prefill,
                "targets": {"ttft_ms": 300 if profile == "h100" else 1500},
            }
        )
    return runners, pools


def demo_config(pools: list[dict[str, Any]], authz: dict[str, Any], tools: dict[str, str]) -> dict[str, Any]:
    """The embedded defaults: simulated pools, authentication, guards and per-task grants before routing,
    and the MCP gateway in front of the demo's tool servers (`tools`: URL by name); quiet logs."""
    plan = ["authn", "classify", "pii", "authorize", "state", "route"]
    steps = [{"name": "authn", "type": "authz.authenticate"}, *GUARDS, {"name": "authorize", "type": "authz.authorize"}]
    return {
        "routing": {"pools": pools},
        "authz": authz,
        "mcp": {"servers": [{"name": name, "url": url} for name, url in tools.items()]},
        "steps": steps,
        "pipelines": {"chat": plan, "completions": plan, "embeddings": plan, "mcp": ["authn", "authorize", "pii"]},
        "logging": {"level": "warning", "evidence": False},
    }


async def _chat(
    client: openai.AsyncOpenAI,
    label: str,
    messages: list[ChatCompletionMessageParam],
    headers: dict[str, str],
    tools: Any = None,
) -> tuple[Call, str]:
    call, started = Call(label), time.perf_counter()
    raw = await client.chat.completions.with_raw_response.create(
        model="agent", messages=messages, max_tokens=24, extra_headers=headers, tools=tools or openai.omit
    )
    reply = raw.parse()
    call.seconds, call.status, call.request_id = (
        time.perf_counter() - started,
        raw.status_code,
        raw.headers["x-taskgate-request-id"],
    )
    call.task_token = raw.headers.get("x-taskgate-task-token")
    details = reply.usage.prompt_tokens_details if reply.usage else None
    call.cached = details.cached_tokens if details else None
    return call, reply.choices[0].message.content or ""


async def _stream(
    client: openai.AsyncOpenAI,
    label: str,
    messages: list[ChatCompletionMessageParam],
    headers: dict[str, str],
    tools: Any = None,
) -> Call:
    call, started = Call(label), time.perf_counter()
    async with client.chat.completions.with_streaming_response.create(
        model="agent",
        messages=messages,
        extra_headers=headers,
        max_tokens=24,
        tools=tools or openai.omit,
        stream=True,
        stream_options={"include_usage": True},
    ) as raw:
        call.status, call.request_id = raw.status_code, raw.headers["x-taskgate-request-id"]
        async for chunk in await raw.parse():
            if call.ttft is None and chunk.choices and chunk.choices[0].delta.content:
                call.ttft = time.perf_counter() - started
            if chunk.usage and chunk.usage.prompt_tokens_details:
                call.cached = chunk.usage.prompt_tokens_details.cached_tokens
    call.seconds = time.perf_counter() - started
    return call


async def _agent_task(
    client: openai.AsyncOpenAI, base_url: str, token: str
) -> tuple[list[Call], list[tuple[str, int, str]]]:
    """One user instruction becomes a chain of model calls that share a growing prefix, and tool calls
    through /mcp under the same task (its token from the first answer)."""
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Our checkout latency doubled since Friday. Find out why and propose a fix."},
    ]
    session = {"x-session-id": "incident-4711"}
    tools = demo_tools.MAIL_TOOLS  # an agent offers its tools on every turn
    plan, text = await _chat(client, "agent: plan (4 tools offered)", messages, session, tools)
    task = plan.task_token or ""
    session["x-taskgate-task-token"] = task
    tool_calls = await demo_tools.mcp_calls(base_url, token, task)
    messages += [
        {"role": "assistant", "content": text},
        {
            "role": "user",
            "content": TOOL_RESULT,
        },
    ]
    analyse, text = await _chat(client, "agent: analyse tool result", messages, session, tools)
    messages += [
        {"role": "assistant", "content": text},
        {"role": "user", "content": "Write the final answer for the on-call channel."},
    ]
    answer = await _stream(client, "agent: final answer (stream)", messages, session, tools)
    return [plan, analyse, answer], tool_calls


async def _tool_loop_task(client: openai.AsyncOpenAI) -> LoopCall:
    """One instruction, one request: taskgate offers the granted tools, runs the calls the model emits
    (one turn's calls in parallel) and streams the answer."""
    loop, started = LoopCall(Call("agent: tool loop (stream)"), LOOP_INSTRUCTION), time.perf_counter()
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": LOOP_INSTRUCTION},
    ]
    async with client.chat.completions.with_streaming_response.create(
        model="agent",
        messages=messages,
        max_tokens=256,  # the scripted answer must not be cut
        stream=True,
        extra_headers={"x-session-id": "incident-4712"},
        extra_body={"tool_loop": {"servers": ["mail", "metrics"]}},
    ) as raw:
        loop.call.status, loop.call.request_id = raw.status_code, raw.headers["x-taskgate-request-id"]
        loop.header = raw.headers.get("x-taskgate-loop", "-")
        async for chunk in await raw.parse():
            text = chunk.choices[0].delta.content if chunk.choices else None
            if text:
                loop.call.ttft = loop.call.ttft or time.perf_counter() - started
                loop.answer, loop.chunks = loop.answer + text, loop.chunks + 1
            loop.summary = (chunk.model_extra or {}).get("taskgate_loop") or loop.summary
    loop.call.seconds = time.perf_counter() - started
    return loop


async def _side_work(client: openai.AsyncOpenAI) -> list[Call]:
    """Work that runs beside the agent: summaries, personal data, an embedding, a legacy completion."""
    log: list[ChatCompletionMessageParam] = [
        {
            "role": "user",
            "content": "Summarise this incident log in three bullet points: " + "deploy rollback alert " * 60,
        }
    ]
    summary, _ = await _chat(client, "summary (classified batch)", log, {})
    personal: list[ChatCompletionMessageParam] = [
        {
            "role": "user",
            "content": f"Draft a reply to Jane Porter ({EMAIL}, {PHONE}) "
            "apologising for the checkout outage on Friday.",
        }
    ]
    reply, _ = await _chat(client, "email draft with personal data", personal, {})
    refund: list[ChatCompletionMessageParam] = [
        {
            "role": "user",
            "content": f"Extract the amount and the account: refund 42.50 EUR to {IBAN}.",
        }
    ]
    residency, _ = await _chat(client, "IBAN: must stay in eu-west", refund, {})
    started = time.perf_counter()
    raw = await client.embeddings.with_raw_response.create(model="embed", input=["payment-api latency", "deploy 7781"])
    embed = Call(
        "retrieval: embed 2 queries",
        raw.headers["x-taskgate-request-id"],
        raw.status_code,
        time.perf_counter() - started,
    )
    started = time.perf_counter()
    raw_c = await client.completions.with_raw_response.create(model="agent", prompt="Incident title:", max_tokens=8)
    complete = Call(
        "legacy completion", raw_c.headers["x-taskgate-request-id"], raw_c.status_code, time.perf_counter() - started
    )
    return [summary, reply, residency, embed, complete]


async def _refused(client: openai.AsyncOpenAI, label: str, model: str, text: str) -> Call:
    call, started = Call(label), time.perf_counter()
    try:
        await client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}])
    except openai.APIStatusError as exc:
        call.status, call.request_id = exc.status_code, exc.response.headers.get("x-taskgate-request-id", "-")
        call.notes.append(f"{exc.body.get('code') if isinstance(exc.body, dict) else exc.message}")
    call.seconds = time.perf_counter() - started
    return call


async def _workload(base_url: str, token: str) -> tuple[list[Call], list[tuple[str, int, str]], LoopCall]:
    # the OpenAI SDK sends its api_key as the bearer token: alice's JWT
    async with openai.AsyncOpenAI(base_url=base_url + "/v1", api_key=token, max_retries=0) as client:
        (agent, tool_calls), loop, side = await asyncio.gather(
            _agent_task(client, base_url, token), _tool_loop_task(client), _side_work(client)
        )
        unknown = await _refused(client, "unknown model (refused)", "gpt-nonexistent", "hi")
        card = await _refused(client, "card number (blocked)", "agent", f"Charge {CARD} for the renewal.")
        return [*agent, *side, unknown, card], tool_calls, loop


async def _demo(stay: bool = False) -> int:
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="taskgate-demo-"))
    authz, token = demo_tools.prepare(folder)
    sims, pools = await _start_pools()
    registry = default_registry()
    async with demo_tools.tool_servers() as tools:
        app = create_app(parse_config(demo_config(pools, authz, tools), "<demo defaults>", registry), registry)
        proxy, base_url = await _listen(app)
        try:
            calls, tool_calls, loop = await _workload(base_url, token)
            records = app[GATEWAY].evidence.records()
            path = folder / "evidence.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in records))
            print(summary(calls, tool_calls, loop, records, path, started))
            print(dashboard(base_url, demo_tools.admin_token() if stay else None))
            if stay:  # the page keeps polling the gateway that served all this
                await _until_interrupted()
        finally:
            for runner in (proxy, *sims):
                await runner.cleanup()
    return 0 if all(c.status for c in (*calls, loop.call)) else 1


async def _until_interrupted() -> None:
    """Until Ctrl-C (or SIGTERM); then everything closes in order, the gateway before the servers it calls
    (the tool servers would otherwise take the signal first and leave the gateway's sessions hanging)."""
    stop, loop = asyncio.Event(), asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def run_demo(stay: bool = False) -> int:
    """Run the demo; exit status 0 when every call got an answer or a clean refusal. `stay`: keep the gateway
    and its engines up afterwards, for the dashboard."""
    configure_logging("warning")  # the summary is the output; logs only for what goes wrong
    return asyncio.run(_demo(stay))
