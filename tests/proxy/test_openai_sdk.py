"""The official openai SDK gets the same answers through the proxy as directly from the engine."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest

from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim

from ..conftest import ProxyFactory, upstreams

MESSAGES: list[Any] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name three prime numbers and explain why they are prime."},
]


@pytest.fixture
async def clients(
    aiohttp_server: Any, proxy: ProxyFactory
) -> AsyncIterator[tuple[openai.AsyncOpenAI, openai.AsyncOpenAI]]:
    profile = dataclasses.replace(PROFILES["instant"], models=("sim-model",))
    engine = await aiohttp_server(create_sim(profile, name="sim-a"))
    engine_url = str(engine.make_url("")).rstrip("/")
    gateway = await proxy(upstreams(engine_url, "sim-model", name="sim-a"))
    proxy_url = str(gateway.make_url("")).rstrip("/")
    async with (
        openai.AsyncOpenAI(base_url=engine_url + "/v1", api_key="x", max_retries=0) as direct,
        openai.AsyncOpenAI(base_url=proxy_url + "/v1", api_key="x", max_retries=0) as via,
    ):
        yield direct, via


async def streamed_text(client: openai.AsyncOpenAI) -> tuple[str, int]:
    stream = await client.chat.completions.create(model="sim-model", messages=MESSAGES, max_tokens=20, stream=True)
    parts, chunks = [], 0
    async for chunk in stream:
        chunks += 1
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    return "".join(parts), chunks


async def test_non_streaming_chat_is_the_same_through_the_proxy(clients: Any) -> None:
    direct, via = clients
    want = await direct.chat.completions.create(model="sim-model", messages=MESSAGES, max_tokens=20)
    got = await via.chat.completions.with_raw_response.create(model="sim-model", messages=MESSAGES, max_tokens=20)
    assert got.headers["x-taskgate-endpoint"] == "sim-a"
    answer = got.parse()
    assert answer.choices[0].message.content
    assert answer.choices[0].message.content == want.choices[0].message.content
    assert answer.usage is not None
    assert want.usage is not None
    assert answer.usage.completion_tokens == want.usage.completion_tokens == 20


async def test_streaming_chat_is_the_same_through_the_proxy(clients: Any) -> None:
    direct, via = clients
    want, want_chunks = await streamed_text(direct)
    got, got_chunks = await streamed_text(via)
    assert got
    assert got == want
    assert got_chunks == want_chunks > 1


async def test_streamed_and_whole_answers_agree(clients: Any) -> None:
    _, via = clients
    whole = await via.chat.completions.create(model="sim-model", messages=MESSAGES, max_tokens=20)
    streamed, _ = await streamed_text(via)
    assert streamed == whole.choices[0].message.content


async def test_completions_and_embeddings_are_the_same_through_the_proxy(clients: Any) -> None:
    direct, via = clients
    want = await direct.completions.create(model="sim-model", prompt="Once upon a time", max_tokens=8)
    got = await via.completions.create(model="sim-model", prompt="Once upon a time", max_tokens=8)
    assert got.choices[0].text == want.choices[0].text
    e_want = await direct.embeddings.create(model="sim-model", input=["alpha", "beta"])
    e_got = await via.embeddings.create(model="sim-model", input=["alpha", "beta"])
    assert [d.embedding for d in e_got.data] == [d.embedding for d in e_want.data]


async def test_sdk_sees_openai_errors_as_typed_exceptions(clients: Any) -> None:
    _, via = clients
    with pytest.raises(openai.NotFoundError) as info:
        await via.chat.completions.create(model="no-such-model", messages=MESSAGES)
    assert info.value.code == "model_not_found"


async def test_sdk_lists_models_through_the_proxy(clients: Any) -> None:
    _, via = clients
    models = [m.id async for m in via.models.list()]
    assert models == ["sim-model"]


async def test_sdk_retrieves_a_served_model_and_gets_a_404_for_any_other(clients: Any) -> None:
    _, via = clients
    model = await via.models.retrieve("sim-model")
    assert (model.id, model.object) == ("sim-model", "model")
    assert model.owned_by == "taskgate-sim"  # what the engine reports for it
    for name in ("no-such-model", "org/no-such-model"):
        with pytest.raises(openai.NotFoundError) as info:
            await via.models.retrieve(name)
        assert info.value.code == "model_not_found"
        assert isinstance(info.value.body, dict)
        assert name in info.value.body["message"]


async def test_a_model_named_with_a_slash_is_retrieved_whole(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    profile = dataclasses.replace(PROFILES["instant"], models=("org/sim-model",))
    engine = await aiohttp_server(create_sim(profile, name="sim-a"))
    gateway = await proxy(upstreams(str(engine.make_url("")).rstrip("/"), "org/sim-model", name="sim-a"))
    async with openai.AsyncOpenAI(base_url=str(gateway.make_url("/v1")), api_key="x", max_retries=0) as via:
        assert (await via.models.retrieve("org/sim-model")).id == "org/sim-model"
