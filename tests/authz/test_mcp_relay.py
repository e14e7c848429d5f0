"""What an upstream sends its client during a call reaches the client that made it, through the gateway:
progress and log messages as notifications, sampling and elicitation requests as requests whose answers go
back. The upstream is the conformance suite's everything server (our own, tests/conformance/everything.py);
the client is the official SDK's."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import CreateMessageResult, ElicitResult, LoggingMessageNotificationParams, TextContent

from taskgate.gateway.gateway import GATEWAY

from ..conformance.processes import everything_server
from .conftest import Keys
from .policy import authz_config, write_policy
from .test_mcp import summary_token
from .test_tasks import bearer
from .upstream import ToolCaller

POLICY = """\
p, role:mail-user, acme, *, call, r-all
p, profile:summarise, *, test_*, call, prof-summarise-tests
g, alice, role:mail-user, acme
"""


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with everything_server(tmp_path_factory.mktemp("everything")) as url:
        yield url


@pytest.fixture
async def gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path, everything: str) -> AsyncIterator[Any]:
    model = str((await aiohttp_server(ToolCaller().app())).make_url("")).rstrip("/")
    config = authz_config(keys, tmp_path, model)
    config["authz"]["policy"]["file"] = str(write_policy(tmp_path, POLICY))
    config["mcp"] = {"servers": [{"name": "everything", "url": everything, "prefix": False}]}
    config["pipelines"]["mcp"] = ["authn", "authorize"]
    client = await proxy(config)
    yield client
    await client.close()


@contextlib.asynccontextmanager
async def client(gateway: Any, keys: Keys, mode: Any = "legacy", **callbacks: Any) -> AsyncIterator[Client]:
    headers = {**bearer(keys), "x-taskgate-task-token": await summary_token(gateway, keys)}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(str(gateway.make_url("/mcp")), http_client=http), mode=mode, **callbacks) as mcp,
    ):
        yield mcp


def relayed(gateway: Any, tool: str) -> dict[str, int]:
    records = gateway.app[GATEWAY].evidence.records()
    return next(
        r["dispatch"].get("relayed", {}) for r in reversed(records) if r.get("dispatch", {}).get("tool") == tool
    )


def text_of(result: Any) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_progress_reaches_the_caller_as_it_happens(gateway: Any, keys: Keys, mode: str) -> None:
    seen: list[float] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with client(gateway, keys, mode) as mcp:
        result = await mcp.call_tool("test_tool_with_progress", {}, progress_callback=progress)
    assert not result.is_error
    assert seen == [0, 50, 100]
    assert relayed(gateway, "test_tool_with_progress") == {"notifications/progress": 3}


async def test_log_messages_reach_a_caller_that_set_a_level(gateway: Any, keys: Keys) -> None:
    messages: list[LoggingMessageNotificationParams] = []

    async def logged(params: LoggingMessageNotificationParams) -> None:
        messages.append(params)

    async with client(gateway, keys, logging_callback=logged) as mcp:
        await mcp.call_tool("test_simple_text", {})
        assert messages == []  # no level set: nothing relayed, the shared connection served it
        with pytest.warns(MCPDeprecationWarning):  # the SDK says so; older clients still send it
            await mcp.set_logging_level("debug")
        await mcp.call_tool("test_tool_with_logging", {})
    assert [m.data for m in messages] == ["Tool execution started", "Tool processing data", "Tool execution completed"]


async def test_a_sampling_request_is_answered_by_the_caller(gateway: Any, keys: Keys) -> None:
    asked: list[str] = []

    async def sample(_: Any, params: Any) -> CreateMessageResult:
        asked.append(params.messages[0].content.text)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="forty-two"), model="m")

    async with client(gateway, keys, sampling_callback=sample) as mcp:
        result = await mcp.call_tool("test_sampling", {"prompt": "the answer?"})
    assert asked == ["the answer?"]
    assert text_of(result) == "LLM response: forty-two"
    assert relayed(gateway, "test_sampling") == {"sampling/createMessage": 1}


async def test_an_elicitation_is_answered_by_the_caller(gateway: Any, keys: Keys) -> None:
    async def elicit(_: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"username": "alice", "email": "alice@example.org"})

    async with client(gateway, keys, elicitation_callback=elicit) as mcp:
        result = await mcp.call_tool("test_elicitation", {"message": "who are you?"})
    assert "action=accept" in text_of(result)
    assert '"username": "alice"' in text_of(result)


async def test_the_upstream_hears_of_no_capability_the_caller_did_not_declare(gateway: Any, keys: Keys) -> None:
    async with client(gateway, keys) as mcp:  # no sampling callback: the SDK declares no sampling
        result = await mcp.call_tool("test_sampling", {"prompt": "the answer?"})
    assert result.is_error
    assert text_of(result) == "The client does not support sampling"
