"""Three `taskgate serve` replicas behind HAProxy (round robin, no stickiness) sharing one Redis: chat, an MCP
handshake session and workflows spread over them; one replica is killed mid-run, and nothing of the tasks is lost:
its workflows are taken over by another replica, one cut off in a model step finishes there, one cut off in a tool
call ends `interrupted`, and no tool step runs twice."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import openai
import pytest
import redis.asyncio
import yaml
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import MCPServer

from taskgate.authz.seal import seal
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script
from tests.authz.conftest import Keys, jwt_section
from tests.authz.mcp_servers import serving
from tests.authz.policy import task_key
from tests.authz.test_tasks import bearer
from tests.batch.conftest import Seen, recording

from ..conftest import RedisServer, closed_port, haproxy, haproxy_states

ROOT = Path(__file__).resolve().parents[2]
REPLICAS = 3
TOOL_S, CHAT_S = 4.0, 2.0  # the mail server's `read` and a slow chat: long enough to kill a replica midway
POLICY = """\
p, role:mail-user, acme, mail__*, call, r-mail
p, profile:default, *, mail__*, call, prof-default
g, alice, role:mail-user, acme
"""


def reading(tag: str) -> dict[str, Any]:
    """A workflow whose slow step is a tool call: cut off there, it cannot be resumed (a tool may not run twice)."""
    return {
        "purpose": "brief me on my mail",
        "wait": False,
        "steps": [
            {"id": "subjects", "tool": "mail__list", "arguments": {"tag": tag}},
            {"id": "newest", "tool": "mail__read", "arguments": {"folder": tag}, "after": ["subjects"]},
            {"id": "brief", "model": "m", "messages": [{"role": "user", "content": "Brief me: ${newest}"}]},
        ],
    }


def thinking(tag: str) -> dict[str, Any]:
    """A workflow whose slow step is a model call: cut off there, it is resumed (a model call may run again)."""
    ask = f"Think it over slowly ({tag}): ${{subjects}}"
    return {
        "purpose": "brief me on my mail",
        "wait": False,
        "steps": [
            {"id": "subjects", "tool": "mail__list", "arguments": {"tag": tag}},
            {"id": "think", "model": "m", "messages": [{"role": "user", "content": ask}]},
            {"id": "brief", "model": "m", "messages": [{"role": "user", "content": "Brief me: ${think}"}]},
        ],
    }


def mail(calls: Counter[str]) -> MCPServer:
    """The mail server; `calls` counts each tool's calls by their argument."""
    server = MCPServer("mail")

    @server.tool(name="list")
    def list_messages(tag: str = "") -> list[str]:
        """List message subjects."""
        calls[f"list {tag}"] += 1
        return ["Q3 numbers", "offsite"]

    @server.tool()
    async def read(folder: str = "inbox") -> str:
        """Read the newest message of a folder (slowly)."""
        calls[f"read {folder}"] += 1
        await asyncio.sleep(TOOL_S)
        return f"[{folder}] the Q3 numbers are in"

    return server


@dataclasses.dataclass
class Replica:
    name: str  # as haproxy names it: rN
    port: int
    proc: subprocess.Popen[bytes]
    log: Path


def config(keys: Keys, tmp_path: Path, port: int, engine: str, tools: str, redis_url: str) -> dict[str, Any]:
    """One replica's config: everything of a task in the one Redis, its own port."""
    policy = tmp_path / "policy.csv"
    policy.write_text(seal(POLICY))
    pool = {"name": "p", "endpoints": [{"name": "sim", "url": engine}], "models": [{"name": "m"}]}
    shared = {"redis_url": redis_url}
    return {
        "server": {"host": "127.0.0.1", "port": port},
        "logging": {"level": "warning", "evidence": False},
        "routing": {"pools": [pool], "state": {"store": "redis", "models_interval_s": 0.5, **shared}},
        "authz": {
            "jwt": jwt_section(keys),
            "policy": {"file": str(policy), **shared},
            "tasks": {"keys": [task_key(tmp_path)], "store": "redis", **shared},
        },
        "steps": [{"name": "authn", "type": "authz.authenticate"}, {"name": "authorize", "type": "authz.authorize"}],
        "pipelines": {"chat": ["authn", "authorize", "state", "route"], "mcp": ["authn", "authorize"]},
        "mcp": {"servers": [{"name": "mail", "url": tools}], "session_store": "redis", **shared},
        "workflows": {"store": "redis", **shared},
    }


@contextlib.asynccontextmanager
async def replicas(keys: Keys, tmp_path: Path, engine: str, tools: str, redis_url: str) -> AsyncIterator[list[Replica]]:
    """REPLICAS `taskgate serve` processes of this tree, each ready (/readyz 200); stopped after."""
    started: list[Replica] = []
    try:
        for index in range(REPLICAS):
            port = closed_port()
            started.append(spawn(f"r{index}", port, config(keys, tmp_path, port, engine, tools, redis_url), tmp_path))
        await asyncio.gather(*(ready(r) for r in started))
        yield started
    finally:
        stop(started)


def spawn(name: str, port: int, settings: dict[str, Any], tmp_path: Path) -> Replica:
    """`taskgate serve` of this tree (cwd: the repository root) with `settings` as its config file."""
    path, log = tmp_path / f"{name}.yaml", tmp_path / f"{name}.log"
    path.write_text(yaml.safe_dump(settings))
    with log.open("wb") as out:
        argv = [sys.executable, "-m", "taskgate", "serve", "-c", str(path)]
        proc = subprocess.Popen(argv, cwd=ROOT, env=dict(os.environ), stdout=out, stderr=subprocess.STDOUT)
    return Replica(name, port, proc, log)


def stop(started: list[Replica]) -> None:
    for replica in started:
        if replica.proc.poll() is None:
            replica.proc.terminate()
    for replica in started:
        with contextlib.suppress(subprocess.TimeoutExpired):
            replica.proc.wait(timeout=10)
        if replica.proc.poll() is None:
            replica.proc.kill()
            replica.proc.wait()


async def ready(replica: Replica, within_s: float = 60.0) -> None:
    """Until the replica's /readyz answers 200 (the event loop stays free: the engine and tools live in it)."""
    deadline = time.monotonic() + within_s
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
        while time.monotonic() < deadline and replica.proc.poll() is None:
            with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                async with http.get(f"http://127.0.0.1:{replica.port}/readyz") as resp:
                    if resp.status == 200:
                        return
            await asyncio.sleep(0.1)
    pytest.fail(f"{replica.name} did not become ready: {replica.log.read_text(errors='replace')[-3000:]}")


async def until(check: Any, within_s: float, what: str) -> Any:
    """Poll `check()` (async) until it returns something true, within `within_s`."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if found := await check():
            return found
        await asyncio.sleep(0.1)
    pytest.fail(f"not within {within_s} s: {what}")


@pytest.mark.timeout(120)  # three processes start on two cores shared with the rest of the suite
async def test_three_replicas_behind_haproxy_lose_no_task_state_when_one_is_killed_mid_run(
    aiohttp_server: Any, keys: Keys, tmp_path: Path, redis_server: RedisServer
) -> None:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    script = Script([Rule(match="slowly", reply="took a while", delay_s=CHAT_S), Rule(match=".", reply="done")])
    sim = create_sim(profile, "sim", script)
    seen: list[Seen] = []
    sim.middlewares.append(recording(seen))
    engine = str((await aiohttp_server(sim)).make_url("")).rstrip("/")
    calls: Counter[str] = Counter()
    async with (
        serving(mail(calls)) as tools,
        replicas(keys, tmp_path, engine, tools, redis_server.url) as started,
    ):
        with haproxy(tmp_path, [r.port for r in started], health="/readyz") as port:
            resumed = await scenario(f"http://127.0.0.1:{port}", started, keys, tmp_path, calls)
    await every_key_is_bounded(redis_server.url)
    steps = {call: count for call, count in calls.items() if call.split(" ", 1)[1]}  # the workflows' tool steps
    assert [call for call, count in steps.items() if count != 1] == []  # none ran twice, resumed or not
    thought = [s for s in seen if f"slowly ({resumed})" in s.text]
    assert len(thought) == 2  # the model step cut off on the killed replica ran again where the run was resumed


async def scenario(base: str, started: list[Replica], keys: Keys, tmp_path: Path, calls: Counter[str]) -> str:
    """The replicas at work, one killed; the tag of the workflow that was resumed after it."""
    await until(lambda: _all_up(tmp_path), 10, "haproxy sees every replica up")
    auth = bearer(keys)
    llm = openai.AsyncOpenAI(base_url=base + "/v1", api_key=auth["Authorization"][7:], max_retries=0, timeout=15)
    http = aiohttp.ClientSession(headers=auth, timeout=aiohttp.ClientTimeout(total=15))
    served: list[tuple[str, str]] = []  # (what, the replica that answered)

    async def record(response: httpx2.Response) -> None:
        served.append((response.request.method, response.headers.get("x-served-by", "?")))

    async def chat(text: str, **headers: str) -> Any:
        messages: Any = [{"role": "user", "content": text}]
        return await llm.chat.completions.with_raw_response.create(model="m", messages=messages, extra_headers=headers)

    async def poll(task: str, at: str = base) -> dict[str, Any]:
        async with http.get(f"{at}/v1/tasks/{task}") as resp:
            assert resp.status == 200, await resp.text()
            body: dict[str, Any] = await resp.json()
            return body

    try:
        # chat opens a task; its token carries on on whichever replica gets the next request
        first = await chat("summarise my email")
        token = first.headers["x-taskgate-task-token"]
        carried = [await chat("and the rest", **{"x-taskgate-task-token": token}) for _ in range(REPLICAS)]
        assert {c.headers["x-served-by"] for c in carried} == {r.name for r in started}

        mcp_http = httpx2.AsyncClient(
            headers={**auth, "x-taskgate-task-token": token}, event_hooks={"response": [record]}, timeout=15
        )
        async with (
            mcp_http,
            Client(streamable_http_client(base + "/mcp", http_client=mcp_http), mode="legacy") as mcp,
        ):
            listed = await mcp.list_tools(cache_mode="bypass")
            called = await mcp.call_tool("mail__list", {})
            assert sorted(t.name for t in listed.tools) == ["mail__list", "mail__read"]
            assert not called.is_error
            assert len({who for method, who in served if method == "POST"}) >= 2  # one session, several replicas
            victim = next(r for r in started if r.name == served[0][1])  # the replica that opened the session

            # workflows of both shapes until one of each runs on the victim, and others elsewhere
            runs: dict[str, str] = {}  # task -> the replica running it
            tags: dict[str, str] = {}  # task -> its tag
            for shape in (reading, thinking):
                while victim.name not in [runs[t] for t in runs if tags[t].startswith(shape.__name__)]:
                    tag = f"{shape.__name__}-{len(runs)}"
                    async with http.post(f"{base}/v1/tasks", json=shape(tag)) as resp:
                        assert resp.status == 202, await resp.text()
                        task = (await resp.json())["task"]
                        runs[task], tags[task] = resp.headers["x-served-by"], tag
                    assert len(runs) <= 4 * REPLICAS
            assert len(set(runs.values())) >= 2
            doomed, resumed = (next(t for t, who in runs.items() if who == victim.name and tags[t].startswith(name))
                               for name in ("reading", "thinking"))  # fmt: skip

            # judged by what the shared store holds (another replica reads it there): the victim's own view of a
            # step may run ahead of its last write, and a run resumes from what the store holds
            witness = f"http://127.0.0.1:{next(r for r in started if r is not victim).port}"

            async def midway() -> bool:
                steps, thought = (await poll(doomed, witness))["steps"], (await poll(resumed, witness))["steps"]
                reading_now = steps["subjects"]["status"] == "completed" and steps["newest"]["status"] == "running"
                return bool(reading_now and thought["think"]["status"] == "running")

            await until(midway, 10, "the victim's workflows are in their slow steps")
            in_flight = [asyncio.ensure_future(chat("answer slowly")) for _ in range(REPLICAS)]
            await asyncio.sleep(0.5)
            os.kill(victim.proc.pid, signal.SIGKILL)
            killed = time.monotonic()
            await until(lambda: _down(tmp_path, victim.name), 5, "haproxy takes the killed replica out")
            out_s = time.monotonic() - killed
            outcomes = await asyncio.wait_for(asyncio.gather(*in_flight, return_exceptions=True), CHAT_S + 10)
            failed = [o for o in outcomes if isinstance(o, BaseException)]  # a 502 from haproxy, or a reset
            assert all(isinstance(o, openai.APIConnectionError | openai.InternalServerError) for o in failed), failed
            assert failed, "no request was in flight on the killed replica"
            assert len(failed) < REPLICAS

            # from here on every request succeeds, and finds what the killed replica knew
            later = [await chat("and more", **{"x-taskgate-task-token": token}) for _ in range(2 * REPLICAS)]
            assert {c.headers["x-served-by"] for c in later} == {r.name for r in started} - {victim.name}
            listed = await mcp.list_tools(cache_mode="bypass")  # the session the victim opened
            called = await mcp.call_tool("mail__list", {})
            assert len(listed.tools) == 2
            assert not called.is_error

            cut = await until(lambda: _ended(poll, doomed), 10, "the victim's workflow is reported interrupted")
            assert cut["status"] == "interrupted"
            assert cut["steps"]["subjects"]["status"] == "completed"  # what it did before it died is kept
            assert "Q3 numbers" in cut["steps"]["subjects"]["output"]
            assert cut["steps"]["newest"]["status"] == "cancelled"  # the tool may have run: it is not called again
            assert cut["steps"]["newest"]["error"]["code"] == "interrupted"
            assert "not run twice" in cut["steps"]["newest"]["error"]["message"]
            assert cut["steps"]["brief"] == {**cut["steps"]["brief"], "status": "skipped"}
            for task in (t for t in runs if t != doomed):
                done = await until(lambda t=task: _ended(poll, t), 15, f"workflow {task} ends")
                assert done["status"] == "completed", done
                assert done["steps"]["brief"]["output"]
    finally:
        await http.close()
        await llm.close()
    assert out_s < 3
    return tags[resumed]


async def every_key_is_bounded(url: str) -> None:
    """What the replicas left in Redis is under the deployment's prefixes, and expires, but for a few fixed keys."""
    client = redis.asyncio.Redis.from_url(url, decode_responses=True)
    try:
        names = [str(k) for k in await client.keys("*")]
        lasting = {k for k in names if await client.ttl(k) < 0}
    finally:
        await client.aclose()
    assert {k.split(":")[0] for k in names} == {"taskgate"}
    assert not any(k.startswith("taskgate:mcp:session:") for k in names)  # the client's DELETE closed it
    assert any(k.startswith("taskgate:workflow:run:") for k in names)
    # the epoch of the task store, in-flight counts per endpoint, the prefix index (bounded by its own cap)
    assert lasting <= {"taskgate:task:epoch", "taskgate:inflight", "taskgate:prefix:sim"}, lasting


async def _all_up(tmp_path: Path) -> bool:
    return set(haproxy_states(tmp_path).values()) == {"UP"}


async def _down(tmp_path: Path, name: str) -> bool:
    return haproxy_states(tmp_path)[name].startswith("DOWN")  # DOWN, or DOWN 1/2 while it falls


async def _ended(poll: Any, task: str) -> dict[str, Any] | None:
    view: dict[str, Any] = await poll(task)
    return view if view["status"] != "running" else None
