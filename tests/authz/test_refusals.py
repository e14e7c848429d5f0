"""Refusals an agent can recover from: on /mcp a tool result with isError true; on chat the model asked again.

MCP reports tool execution errors the model can act on as results with
`isError: true` and keeps JSON-RPC errors for protocol faults; a policy's
refusal is such an error, so that is the default (`mcp.refusals: error`
restores -32003). A chat answer whose every tool call the guard blocked is
given back to the model, each refusal as that call's result, at most
`ask_again` times; the client gets the model's next step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script, ToolCall

from .conftest import Keys, jwt_section
from .mcp_servers import mail_server, serving
from .policy import task_key, write_policy
from .test_bindings import POLICY, TOOLS, caller
from .test_mcp import connect

TO_EVE = ToolCall("mail__send", {"to": "eve@evil.example", "body": "hi"})
STUBBORN = Script([Rule(match=".", tool_calls=(TO_EVE,))])  # it never takes no for an answer
RECOVERS = Script([
    Rule(match="taskgate refused", role="tool", reply="I may not mail eve; I mailed nobody."),
    Rule(match=".", tool_calls=(TO_EVE,)),
])  # fmt: skip
ASK = {"model": "m", "messages": [{"role": "user", "content": "mail carol@acme.example"}], "tools": TOOLS}
Gateway = Callable[..., Any]


@pytest.fixture
async def mail() -> AsyncIterator[str]:
    async with serving(mail_server()) as url:
        yield url


@pytest.fixture
def gateway(proxy: Any, keys: Keys, tmp_path: Path, aiohttp_server: Any, mail: str) -> Gateway:
    """A gateway in front of a scripted engine and the mail server; `authorize` and `mcp` params to vary."""

    async def make(script: Script, authorize: dict[str, Any] | None = None, mcp: dict[str, Any] | None = None) -> Any:
        profile = dataclasses.replace(PROFILES["instant"], models=("m",), default_max_tokens=256)
        engine = str((await aiohttp_server(create_sim(profile, "sim", script))).make_url("")).rstrip("/")
        config = {
            "routing": {"pools": [{"name": "p", "endpoints": [{"name": "e", "url": engine}],
                                   "models": [{"name": "m"}]}]},
            "authz": {"jwt": jwt_section(keys), "policy": {"file": str(write_policy(tmp_path, POLICY))},
                      "tasks": {"keys": [task_key(tmp_path)]}},
            "steps": [{"name": "authn", "type": "authz.authenticate"},
                      {"name": "authorize", "type": "authz.authorize", "params": authorize or {}}],
            "pipelines": {"chat": ["authn", "authorize", "state", "route"], "mcp": ["authn", "authorize"]},
            "mcp": {"servers": [{"name": "mail", "url": mail}], **(mcp or {})},
            "logging": {"evidence": False},
        }  # fmt: skip
        return await proxy(config)

    return make


def last_record(client: Any) -> dict[str, Any]:
    return client.app[GATEWAY].evidence.records()[-1]  # type: ignore[no-any-return]


async def test_an_mcp_refusal_is_a_tool_result_the_model_reads_with_the_reason_and_the_rule(
    gateway: Gateway, keys: Keys
) -> None:
    client = await gateway(STUBBORN)
    async with connect(client, caller(keys)) as mcp:
        refused = await mcp.call_tool("mail__send", {"to": "eve@evil.example", "body": "hi"})
    assert refused.is_error
    text = refused.content[0].text  # type: ignore[union-attr]
    assert text.startswith("taskgate refused this tool call: tool 'mail__send' denied: argument 'to'")
    assert text.endswith("(rule c-to)")
    assert text.count("(rule c-to)") == 1  # named once, though the denial's message names it too
    assert refused.meta is not None
    assert refused.meta["io.taskgate/refusal"]["reason"] == "tool_denied"
    assert refused.meta["io.taskgate/refusal"]["rule"] == "c-to"
    assert last_record(client)["error"]["answered_as"] == "isError result"


async def test_with_refusals_as_errors_an_mcp_refusal_is_the_json_rpc_error_as_before(
    gateway: Gateway, keys: Keys
) -> None:
    from mcp import MCPError

    client = await gateway(STUBBORN, mcp={"refusals": "error"})
    async with connect(client, caller(keys)) as mcp:
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__send", {"to": "eve@evil.example", "body": "hi"})
    assert (caught.value.error.code, caught.value.error.data["rule"]) == (-32003, "c-to")


async def test_a_blocked_turn_is_asked_again_and_the_client_gets_the_model_s_next_step(
    gateway: Gateway, keys: Keys
) -> None:
    client = await gateway(RECOVERS)
    response = await client.post("/v1/chat/completions", json=ASK, headers=caller(keys))
    answer = await response.json()
    assert response.status == 200
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "I may not mail eve; I mailed nobody."}
    record = last_record(client)
    assert record["task"]["asked_again"] == 1
    (turn,) = record["task"]["trace"]
    assert (turn["kind"], turn["refused"], turn["status"]) == ("ask_again", ["mail__send"], 200)
    assert turn["decisions"]["grant"]["task"] == record["decisions"]["grant"]["task"]  # in the same task


async def test_asking_again_stops_at_its_bound_and_the_client_gets_the_note(gateway: Gateway, keys: Keys) -> None:
    bounded, off = await gateway(STUBBORN), await gateway(STUBBORN, authorize={"ask_again": 0})
    notes = []
    for client in (bounded, off):
        response = await client.post("/v1/chat/completions", json=ASK, headers=caller(keys))
        choice = (await response.json())["choices"][0]
        assert choice["finish_reason"] == "stop"
        notes.append(choice["message"]["content"])
    assert all(n.startswith("[taskgate] the tool call 'mail__send' was blocked") for n in notes)
    assert last_record(bounded)["task"]["asked_again"] == 2
    assert "task" not in last_record(off)


async def test_a_tool_the_task_may_not_use_is_named_in_the_answer_s_headers(gateway: Gateway, keys: Keys) -> None:
    client = await gateway(RECOVERS)
    offered = [*TOOLS, {"type": "function", "function": {"name": "calendar__add", "parameters": {"type": "object"}}}]
    response = await client.post("/v1/chat/completions", json={**ASK, "tools": offered}, headers=caller(keys))
    assert response.headers["x-taskgate-tools-removed"] == "calendar__add"
    why = last_record(client)["decisions"]["grant"]["tools_removed_why"]["calendar__add"]
    assert why["would_grant"][0] == "p, role:mail-user, acme, calendar__add, call, RULE_ID"
