"""The official openai SDK talks to the sim over a real socket."""

from collections.abc import AsyncIterator

import pytest
from openai import AsyncOpenAI, NotFoundError
from openai.types.chat import ChatCompletionUserMessageParam
from pytest_aiohttp import AiohttpServer

from taskgate.sim import create_app
from tests.sim.helpers import INSTANT


@pytest.fixture
async def openai(aiohttp_server: AiohttpServer) -> AsyncIterator[AsyncOpenAI]:
    server = await aiohttp_server(create_app(INSTANT, "sdk"))
    async with AsyncOpenAI(api_key="unused", base_url=str(server.make_url("/v1")), max_retries=0) as client:
        yield client


async def test_chat_content_is_the_same_streaming_and_not(openai: AsyncOpenAI) -> None:
    ask: ChatCompletionUserMessageParam = {"role": "user", "content": "Summarise prefix caching."}
    plain = await openai.chat.completions.create(model="sim-a", messages=[ask], max_tokens=12)
    stream = await openai.chat.completions.create(
        model="sim-a",
        messages=[ask],
        max_tokens=12,
        stream=True,
        stream_options={"include_usage": True},
    )
    pieces: list[str] = []
    usage = None
    async for chunk in stream:
        pieces.extend(choice.delta.content or "" for choice in chunk.choices)
        usage = chunk.usage or usage
    assert plain.choices[0].message.content == "".join(pieces)
    assert plain.usage is not None
    assert usage is not None
    assert usage.completion_tokens == plain.usage.completion_tokens == 12
    assert plain.usage.prompt_tokens_details is not None
    assert plain.usage.prompt_tokens_details.cached_tokens == 0


async def test_text_completion_is_the_same_streaming_and_not(openai: AsyncOpenAI) -> None:
    plain = await openai.completions.create(model="sim-b", prompt="The cache", max_tokens=9)
    stream = await openai.completions.create(model="sim-b", prompt="The cache", max_tokens=9, stream=True)
    text = "".join([chunk.choices[0].text async for chunk in stream])
    assert plain.choices[0].text == text
    assert plain.choices[0].finish_reason == "length"


async def test_sdk_decodes_base64_embeddings_and_lists_models(openai: AsyncOpenAI) -> None:
    result = await openai.embeddings.create(model="sim-a", input=["one", "two"])
    floats = await openai.embeddings.create(model="sim-a", input=["one", "two"], encoding_format="float")
    assert [len(item.embedding) for item in result.data] == [INSTANT.embedding_dim] * 2
    assert result.data[0].embedding == pytest.approx(floats.data[0].embedding, rel=1e-6)
    assert [model.id async for model in openai.models.list()] == ["sim-a", "sim-b"]


async def test_sdk_raises_not_found_for_an_unknown_model(openai: AsyncOpenAI) -> None:
    with pytest.raises(NotFoundError) as caught:
        await openai.completions.create(model="nope", prompt="x")
    assert caught.value.code == "model_not_found"
