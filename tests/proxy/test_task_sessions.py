"""Per-task upstream sessions are bounded per caller: one caller opening many tasks closes its own oldest."""

from __future__ import annotations

import asyncio

from taskgate.mcp_gateway.config import McpConfig
from taskgate.mcp_gateway.upstream import Upstreams

from ..conftest import closed_port


async def test_one_caller_cannot_evict_another_caller_s_task_sessions() -> None:
    url = f"http://127.0.0.1:{closed_port()}/mcp"  # nothing listens: the sessions never connect, which is fine here
    config = McpConfig.model_validate({
        "servers": [{"name": "state", "url": url, "sessions": "per_task"}, {"name": "plain", "url": url}],
        "max_task_sessions": 5, "task_sessions_per_caller": 2,
    })  # fmt: skip
    upstreams = Upstreams(config)
    async with upstreams.running():
        state, plain = upstreams.by_name["state"], upstreams.by_name["plain"]
        assert upstreams.for_task(plain, ("acme", "alice", "t1")) is plain  # a shared server: one connection
        bob = upstreams.for_task(state, ("acme", "bob", "b1"))
        alice = [upstreams.for_task(state, ("acme", "alice", f"t{n}")) for n in range(6)]
        assert upstreams.for_task(state, ("acme", "bob", "b1")) is bob  # alice's many tasks left bob's alone
        assert upstreams.for_task(state, ("acme", "alice", "t5")) is alice[5]  # her newest two are kept
        assert upstreams.for_task(state, ("acme", "alice", "t4")) is alice[4]
        assert upstreams.for_task(state, ("acme", "alice", "t0")) is not alice[0]  # her oldest was closed
        await asyncio.sleep(0)
