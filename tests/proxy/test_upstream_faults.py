"""An upstream that errs, cuts a stream short or goes silent: the client gets a clean error, the evidence says why."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import openai
import pytest
from aiohttp import web

from taskgate.gateway.gateway import GATEWAY
from taskgate.routing.breaker import OPEN

from ..conftest import ProxyFactory, upstreams
from ..routing.conftest import cluster_of
from .test_errors import evidence_for, openai_error

CHAT = "/v1/chat/completions"
ASK = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
TRACEBACK = "Traceback (most recent call last):\n  File \"/srv/engine/api.py\", line 88, in chat\nKeyError: 'secret'\n"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def engine(handler: Handler) -> web.Application:
    app = web.Application()
    app.router.add_post(CHAT, handler)
    return app


async def proxied(aiohttp_server: Any, proxy: ProxyFactory, handler: Handler, **server: Any) -> Any:
    upstream = await aiohttp_server(engine(handler))
    raw = upstreams(str(upstream.make_url("")).rstrip("/"), "m") | {"server": server}
    raw["routing"]["breaker"] = {"failures": 2, "cooldown_s": 60}
    return await proxy(raw)


def chunk(content: str | None, finish: str | None = None) -> bytes:
    delta = {"content": content} if content is not None else {}
    event = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta,
             "finish_reason": finish}]}  # fmt: skip
    return b"data: " + json.dumps(event).encode() + b"\n\n"


async def stream_of(request: web.Request, *pieces: bytes, pause: float = 0.0) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    for piece in pieces:
        await response.write(piece)
        await asyncio.sleep(pause)
    return response


async def test_an_upstream_traceback_never_reaches_the_client(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    """Item 15: a 500 whose body was a Python traceback was relayed verbatim, with no error in the evidence."""

    async def crash(request: web.Request) -> web.Response:
        return web.Response(status=500, text=TRACEBACK)

    client = await proxied(aiohttp_server, proxy, crash)
    resp = await client.post(CHAT, json=ASK)
    error = await openai_error(resp, 500, "upstream_error")
    assert "secret" not in json.dumps(error)
    assert "api.py" not in json.dumps(error)
    record = evidence_for(client, resp)
    assert record["error"]["code"] == "upstream_error"
    assert "KeyError: 'secret'" in record["dispatch"]["upstream_error"]["body"]


@pytest.mark.parametrize(
    ("status", "body", "code", "message"),
    [
        # vLLM's error shape: its message is about the request, so it is kept; its numeric code is not a code
        (
            400,
            {
                "object": "error",
                "message": "maximum context length is 4096 tokens",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            "upstream_bad_request",
            "maximum context length is 4096 tokens",
        ),
        (
            400,
            {"error": {"message": "too long", "type": "invalid_request_error", "code": "context_length_exceeded"}},
            "context_length_exceeded",
            "too long",
        ),
        (
            404,
            {"error": {"message": "The model `m` does not exist.", "code": None}},
            "upstream_not_found",
            "The model `m` does not exist.",
        ),
        (422, "<html>unprocessable</html>", "upstream_bad_request", "the upstream refused the request (422)"),
        (429, {"error": {"message": "slow down"}}, "upstream_rate_limited", "slow down"),
        (400, {"error": {"message": TRACEBACK}}, "upstream_bad_request", "the upstream refused the request (400)"),
    ],
)
async def test_an_upstream_4xx_gets_a_stable_code_for_the_openai_sdk(
    aiohttp_server: Any, proxy: ProxyFactory, status: int, body: Any, code: str, message: str
) -> None:
    """Item 15: 4xx pass-throughs reached the client with `code: null`."""

    async def refuse(request: web.Request) -> web.Response:
        if isinstance(body, str):
            return web.Response(status=status, text=body, content_type="text/html")
        return web.json_response(body, status=status, headers={"Retry-After": "3"})

    client = await proxied(aiohttp_server, proxy, refuse)
    async with openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0) as sdk:
        with pytest.raises(openai.APIStatusError) as caught:
            await sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == status
    assert caught.value.code == code
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["message"] == message
    if not isinstance(body, str):
        assert caught.value.response.headers["Retry-After"] == "3"


async def test_a_stream_the_engine_ends_unfinished_ends_with_an_error_event(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    """Item 16: no finish_reason and no [DONE], yet the evidence said `completed` and the client saw no error."""

    async def cut_short(request: web.Request) -> web.StreamResponse:
        return await stream_of(request, chunk("Hel"), chunk("lo"))

    client = await proxied(aiohttp_server, proxy, cut_short)
    resp = await client.post(CHAT, json={**ASK, "stream": True})
    assert resp.status == 200
    text = await resp.text()
    assert text.startswith(chunk("Hel").decode() + chunk("lo").decode())
    assert '"code": "upstream_truncated"' in text
    record = evidence_for(client, resp)
    assert record["error"]["code"] == "upstream_truncated"
    assert record["dispatch"]["outcome"] == "upstream_truncated"


@pytest.mark.parametrize("ending", [chunk("!", "stop"), chunk("!", "stop") + b"data: [DONE]\n\n", b"data: [DONE]\n\n"])
async def test_a_stream_that_says_it_is_finished_is_completed(
    aiohttp_server: Any, proxy: ProxyFactory, ending: bytes
) -> None:
    async def whole(request: web.Request) -> web.StreamResponse:
        return await stream_of(request, chunk("Hi"), ending)

    client = await proxied(aiohttp_server, proxy, whole)
    resp = await client.post(CHAT, json={**ASK, "stream": True})
    assert "error" not in await resp.text()
    record = evidence_for(client, resp)
    assert record["dispatch"]["outcome"] == "completed"
    assert "error" not in record


async def test_the_first_byte_budget_follows_the_request_class(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    """Item 17: one 600 s read timeout for everything; now the first byte has a budget per class."""

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(1.0)
        return web.json_response({"object": "chat.completion", "choices": []})

    budgets = {"interactive": 0.3, "batch": 5.0, "background": 5.0}
    client = await proxied(aiohttp_server, proxy, slow, first_byte_timeout_s=budgets)
    started = time.perf_counter()
    resp = await client.post(CHAT, json=ASK)
    await openai_error(resp, 504, "upstream_timeout")
    assert time.perf_counter() - started < 0.9
    attempt = evidence_for(client, resp)["dispatch"]["attempts"][0]
    assert attempt["timeout"] is True
    assert "0.3 s" in attempt["error"]
    batch = await client.post(CHAT, json=ASK, headers={"x-taskgate-class": "batch"})  # a class may only be lowered
    assert batch.status == 200


async def test_a_stream_that_stalls_ends_with_an_error_event_and_counts_against_the_endpoint(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    async def stall(request: web.Request) -> web.StreamResponse:
        return await stream_of(request, chunk("Hel"), chunk("lo", "stop"), pause=5.0)

    client = await proxied(aiohttp_server, proxy, stall, read_timeout_s=0.3)
    for attempt in range(2):
        started = time.perf_counter()
        resp = await client.post(CHAT, json={**ASK, "stream": True})
        text = await resp.text()
        assert time.perf_counter() - started < 2.0, attempt
        assert text.startswith(chunk("Hel").decode())
        assert '"code": "upstream_stalled"' in text
        record = evidence_for(client, resp)
        assert record["error"]["code"] == "upstream_stalled"
        assert record["dispatch"]["outcome"].startswith("upstream_stalled: the upstream sent nothing for 0.3 s")
    assert cluster_of(client).breakers.state("up") == OPEN  # two stalls: the endpoint is ejected


async def test_a_stream_whose_first_chunk_never_comes_is_cut_at_the_first_byte_budget(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    async def headers_only(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await asyncio.sleep(5.0)
        return response

    client = await proxied(aiohttp_server, proxy, headers_only, first_byte_timeout_s={"interactive": 0.4})
    started = time.perf_counter()
    resp = await client.post(CHAT, json={**ASK, "stream": True})
    assert '"code": "upstream_stalled"' in await resp.text()
    assert 0.35 < time.perf_counter() - started < 2.0


async def test_a_body_that_never_arrives_is_a_408_and_the_connection_closes(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    """Item 17: 200 connections that declared a body and sent nothing were all still open after 40 s."""

    async def ok(request: web.Request) -> web.Response:
        return web.json_response({})

    client = await proxied(aiohttp_server, proxy, ok, body_timeout_s=0.5)
    host, port = client.server.host, client.server.port

    async def silent_sender() -> bytes:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"model\"")  # fmt: skip
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 5.0)  # read() returns only when the server closes
        writer.close()
        return answer

    started = time.perf_counter()
    answers = await asyncio.gather(*(silent_sender() for _ in range(50)))
    assert time.perf_counter() - started < 3.0
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b'"code": "body_timeout"' in answer


async def drain(stream: Any, into: list[Any]) -> None:
    async for part in stream:
        into.append(part)


def engine_error(code: Any) -> bytes:
    """The error event vLLM ends a failing stream with: its code a number, its message the engine's own."""
    error = {"object": "error", "message": TRACEBACK, "type": "InternalServerError", "param": None, "code": code}
    return b"data: " + json.dumps({"error": error}).encode() + b"\n\n"


@pytest.mark.parametrize(("own", "code"), [(500, "upstream_error"), (None, "upstream_error"),
                                           ("engine_overloaded", "engine_overloaded")])  # fmt: skip
async def test_an_engine_s_error_event_mid_stream_reaches_the_sdk_with_a_stable_code(
    aiohttp_server: Any, proxy: ProxyFactory, own: Any, code: str
) -> None:
    async def fail_midway(request: web.Request) -> web.StreamResponse:
        return await stream_of(
            request, chunk("Hel"), engine_error(own)[:30], engine_error(own)[30:], b"data: [DONE]\n\n"
        )

    client = await proxied(aiohttp_server, proxy, fail_midway)
    async with openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0) as sdk:
        stream = await sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        seen: list[Any] = []
        with pytest.raises(openai.APIError) as chat:
            await drain(stream, seen)
        assert [part.choices[0].delta.content for part in seen] == ["Hel"]
        responses = await sdk.responses.create(model="m", input="hi", stream=True)
        with pytest.raises(openai.APIError) as translated:
            await drain(responses, seen)
    for caught in (chat.value, translated.value):
        assert caught.code == code
        assert "secret" not in json.dumps(caught.body)
    record = client.app[GATEWAY].evidence.records()[-1]
    assert record["error"]["code"] == code
    assert "KeyError: 'secret'" in record["dispatch"]["upstream_error"]["body"]
