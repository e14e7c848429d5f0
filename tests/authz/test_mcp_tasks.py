"""A task opened on the MCP surface alone: no inference pool, the purpose stated in `_meta` or a header.

The official SDK client states the user's instruction in `params._meta`
(`io.taskgate/purpose`); the classifier reads it, the grant is made from it,
and the result's `_meta` carries the new task's id and token, which the
client presents on its next calls (`io.taskgate/task-token`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
from mcp import MCPError
from mcp.types import RequestParamsMeta

from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import META_PURPOSE, META_TASK, META_TASK_TOKEN

from .conftest import Keys
from .mcp_servers import files_server, mail_server, serving
from .policy import AS_ERRORS, authz_config
from .test_mcp import connect
from .test_tasks import bearer

SUMMARISE = "summarise my email from this week"


@pytest.fixture
async def gateway(proxy: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[tuple[Any, Keys]]:
    """A tool gateway and nothing else: no pool of models behind it."""
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        config = authz_config(keys, tmp_path, "http://127.0.0.1:9")
        config["routing"] = {"pools": []}
        config["mcp"] = {"servers": [{"name": "mail", "url": mail}, {"name": "files", "url": files}], **AS_ERRORS}
        config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}})
        config["pipelines"] = {"mcp": ["authn", "classify", "authorize", "pii"]}
        client = await proxy(config)
        yield client, keys
        await client.close()


def meta(key: str, value: str) -> RequestParamsMeta:
    """A request's `_meta` with one taskgate key (the SDK's type names only the keys the protocol defines)."""
    return cast(RequestParamsMeta, {key: value})


def grants(client: Any, method: str = "tools/call") -> list[dict[str, Any]]:
    """The grants of the gateway's `method` requests, oldest first (the SDK lists tools after a call, unasked)."""
    records = client.app[GATEWAY].evidence.records()
    return [r["decisions"]["grant"] for r in records if r.get("model") == method and "grant" in r.get("decisions", {})]


async def test_a_purpose_in_meta_opens_the_task_and_its_token_carries_it_on(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    async with connect(client, bearer(keys)) as mcp:
        first = await mcp.call_tool("mail__read", {"folder": "inbox"}, meta=meta(META_PURPOSE, SUMMARISE))
        assert not first.is_error
        assert first.meta is not None
        task, token = first.meta[META_TASK], first.meta[META_TASK_TOKEN]
        carried = meta(META_TASK_TOKEN, token)
        listed = await mcp.call_tool("mail__list", {}, meta=carried)
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__delete", {"message_id": "42", "older_than_days": 90}, meta=carried)
    assert not listed.is_error
    assert caught.value.error.code == -32003
    assert "intent profile 'summarise' does not need it" in caught.value.error.message
    opened, carried_on = grants(client)[-2:]  # a denied call has no grant, only its decision
    assert (opened["task"], opened["new_task"], opened["profile"]) == (task, True, "summarise")
    assert (carried_on["task"], carried_on["new_task"]) == (task, False)


async def test_a_purpose_header_opens_the_task_for_a_listing(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    async with connect(client, {**bearer(keys), "x-taskgate-purpose": SUMMARISE}) as mcp:
        listing = await mcp.list_tools()
    assert sorted(t.name for t in listing.tools) == ["files__read", "mail__list", "mail__read"]
    assert listing.meta is not None
    assert listing.meta[META_TASK] == grants(client, "tools/list")[-1]["task"]


async def test_the_purpose_picks_the_profile_a_cleanup_may_delete_old_mail(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    async with connect(client, bearer(keys)) as mcp:
        cleanup = meta(META_PURPOSE, "clean up my inbox")
        done = await mcp.call_tool("mail__delete", {"message_id": "42", "older_than_days": 90}, meta=cleanup)
        with pytest.raises(MCPError) as caught:  # the argument constraint still holds
            await mcp.call_tool("mail__delete", {"message_id": "42", "older_than_days": 1}, meta=cleanup)
    assert not done.is_error
    assert caught.value.error.data["rule"] == "c-old-mail-only"
    assert grants(client)[-1]["profile"] == "mail_cleanup"


async def test_without_a_purpose_or_a_token_the_call_is_not_granted(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    async with connect(client, bearer(keys)) as mcp:
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__read", {"folder": "inbox"})
    assert caught.value.error.code == -32003
    assert "mail__read" in caught.value.error.message
    denied = next(r for r in reversed(client.app[GATEWAY].evidence.records()) if r.get("model") == "tools/call")
    assert denied["error"]["code"] == "tool_denied"


async def test_a_task_opened_on_its_purpose_serves_an_mcp_client(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    opened = await client.post("/v1/tasks/open", json={"purpose": SUMMARISE}, headers=bearer(keys))
    assert opened.status == 200, await opened.text()
    body = await opened.json()
    assert body["profile"] == "summarise"
    assert body["token_type"] == "Bearer"
    assert 0 < body["expires_in"] <= 3600
    assert opened.headers["x-taskgate-task"] == body["task"]
    async with connect(client, {**bearer(keys), "x-taskgate-task-token": body["access_token"]}) as mcp:
        listing = await mcp.list_tools()
        with pytest.raises(MCPError) as caught:
            await mcp.call_tool("mail__send", {"to": "eve@example.org", "body": "hi"})
    assert sorted(t.name for t in listing.tools) == ["files__read", "mail__list", "mail__read"]
    assert caught.value.error.code == -32003
    assert {g["task"] for g in grants(client, "tools/list")} == {body["task"]}


async def test_opening_a_task_needs_a_caller_and_a_purpose(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    anonymous = await client.post("/v1/tasks/open", json={"purpose": SUMMARISE})
    assert anonymous.status == 401
    empty = await client.post("/v1/tasks/open", json={"purpose": "  "}, headers=bearer(keys))
    assert empty.status == 400
    assert (await empty.json())["error"]["param"] == "purpose"
    huge = await client.post("/v1/tasks/open", json={"purpose": "x" * 40_000}, headers=bearer(keys))
    assert (await huge.json())["error"]["code"] == "purpose_too_long"


async def test_without_a_tool_gateway_there_is_no_task_to_open_here(proxy: Any, keys: Keys, tmp_path: Path) -> None:
    client = await proxy(authz_config(keys, tmp_path, "http://127.0.0.1:9"))
    refused = await client.post("/v1/tasks/open", json={"purpose": SUMMARISE}, headers=bearer(keys))
    assert refused.status == 404
    assert (await refused.json())["error"]["code"] == "no_tool_gateway"


async def test_a_profile_pinned_by_the_callers_token_beats_the_classifier(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    pinned = {"Authorization": f"Bearer {keys.token(roles=[], scope='profile:summarise')}"}
    async with connect(client, pinned) as mcp:
        with pytest.raises(MCPError) as caught:  # "clean up" would pick mail_cleanup; the token says summarise
            await mcp.call_tool(
                "mail__delete",
                {"message_id": "42", "older_than_days": 90},
                meta=meta(META_PURPOSE, "clean up my inbox"),
            )
        read = await mcp.call_tool("mail__read", {"folder": "inbox"}, meta=meta(META_PURPOSE, "clean up my inbox"))
    assert caught.value.error.code == -32003
    assert "intent profile 'summarise' does not need it" in caught.value.error.message
    assert not read.is_error
    assert (grants(client)[-1]["profile"], grants(client)[-1]["profile_source"]) == ("summarise", "token")
    opened = await client.post("/v1/tasks/open", json={"purpose": "clean up my inbox"}, headers=bearer(keys))
    assert (await opened.json())["profile"] == "mail_cleanup"  # unpinned: the classifier decides
    record = client.app[GATEWAY].evidence.find(opened.headers["x-taskgate-request-id"])
    assert record["decisions"]["grant"]["profile_source"] == "classifier"


async def test_a_request_with_two_parts_gets_the_profiles_both_parts_need(gateway: tuple[Any, Keys]) -> None:
    client, keys = gateway
    both = "summarise my email from this week, then clean up my inbox"
    async with connect(client, bearer(keys)) as mcp:
        read = await mcp.call_tool("mail__read", {"folder": "inbox"}, meta=meta(META_PURPOSE, both))
        assert read.meta is not None
        carried = meta(META_TASK_TOKEN, read.meta[META_TASK_TOKEN])
        deleted = await mcp.call_tool("mail__delete", {"message_id": "42", "older_than_days": 90}, meta=carried)
    assert not deleted.is_error  # a task of the summary alone may not delete (the first test of this file)
    opened = grants(client)[0]
    assert set(opened["profile"].split("+")) == {"summarise", "mail_cleanup"}
    assert opened["profile_source"] == "classifier"


async def test_a_bare_listing_between_calls_is_in_the_session_s_task(gateway: tuple[Any, Keys]) -> None:
    """A handshake client lists tools on its own between calls, with no `_meta`: that listing belongs to the task
    the session's calls carried on, instead of opening a task of its own each time."""
    client, keys = gateway
    async with connect(client, bearer(keys), mode="legacy") as mcp:
        first = await mcp.call_tool("mail__read", {"folder": "inbox"}, meta=meta(META_PURPOSE, SUMMARISE))
        listing = await mcp.list_tools()
    assert first.meta is not None
    assert sorted(t.name for t in listing.tools) == ["files__read", "mail__list", "mail__read"]
    listed = grants(client, "tools/list")
    assert listed
    assert {g["task"] for g in listed} == {first.meta[META_TASK]}
    assert not any(g["new_task"] for g in listed)


async def test_a_modern_client_has_no_session_so_its_listing_carries_the_task_itself(
    gateway: tuple[Any, Keys],
) -> None:
    """2026-07-28 has no session to remember a task in: a bare listing is a task of its own (nothing granted
    before a purpose), and the listing that carries the task token the first call returned is in that task."""
    client, keys = gateway
    async with connect(client, bearer(keys), mode="2026-07-28") as mcp:
        first = await mcp.call_tool("mail__read", {"folder": "inbox"}, meta=meta(META_PURPOSE, SUMMARISE))
        assert first.meta is not None
        bare = await mcp.list_tools()
        carried = await mcp.list_tools(meta=meta(META_TASK_TOKEN, first.meta[META_TASK_TOKEN]))
    assert "mail__read" not in {t.name for t in bare.tools}
    assert sorted(t.name for t in carried.tools) == ["files__read", "mail__list", "mail__read"]
    assert grants(client, "tools/list")[-1]["task"] == first.meta[META_TASK]
