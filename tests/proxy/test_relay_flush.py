"""Held text does not wait on a slow engine: the output guard's hold-back is flushed once the next chunk is late.

A real upstream on 127.0.0.1 streams scripted pieces with pauses; the client
times each piece's arrival on its own clock against when the upstream wrote it.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import openai
import pytest
from aiohttp import web

from taskgate.plugins.sse import EventSplitter
from tests.authz.conftest import Keys

from .agents import SUMMARISE

SOON_S = 0.3  # a held piece reaches the client within this of being sent (the default flush is 0.05 s)
PAUSE_S = 1.5  # the engine's silence after it


@dataclass
class Slow:
    """Streams `script`, (seconds to wait first, content) pairs, as chat events between a role event and a finish,
    a usage event and [DONE]; `sent` is when each piece was written."""

    script: list[tuple[float, str]]
    sent: list[float] = field(default_factory=list)

    def app(self) -> web.Application:
        async def chat(request: web.Request) -> web.StreamResponse:
            await request.read()
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            await response.write(event({"role": "assistant", "content": ""}))
            for wait, piece in self.script:
                await asyncio.sleep(wait)
                await response.write(event({"content": piece}))
                self.sent.append(time.perf_counter())
            await response.write(event({}, "stop") + USAGE + b"data: [DONE]\n\n")
            return response

        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        return app


def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


USAGE = b'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9}}\n\n'


def config(url: str, output: dict[str, Any] | None = None) -> dict[str, Any]:
    """The pii step (patterns) guarding chat answers in front of `url`."""
    pool = {"name": "default", "endpoints": [{"name": "up", "url": url}], "models": [{"name": "m"}]}
    params = {"backend": "patterns", **({"output": output} if output else {})}
    return {
        "routing": {"pools": [pool]},
        "steps": [{"name": "pii", "type": "guards.pii", "params": params}],
        "pipelines": {"chat": ["pii", "state", "route"]},
        "logging": {"evidence": False},
    }


@dataclass
class Received:
    events: list[tuple[float, bytes]]  # each event, when the client read it

    def text(self) -> str:
        return "".join(content(e) for _, e in self.events)

    def when(self, piece: str) -> float:
        """When the client's text first held `piece`."""
        text = ""
        for at, e in self.events:
            text += content(e)
            if piece in text:
                return at
        raise AssertionError(f"{piece!r} never arrived; the client got {text!r}")


def content(e: bytes) -> str:
    if not e.startswith(b"data: {"):
        return ""
    choices = json.loads(e[6:]).get("choices") or [{}]
    return str(choices[0].get("delta", {}).get("content") or "")


async def stream(client: Any) -> Received:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "say hello"}]}
    body["stream_options"] = {"include_usage": True}  # the engine's usage event reaches a client that asks
    resp = await client.post("/v1/chat/completions", json=body)
    assert resp.status == 200, await resp.text()
    splitter, events = EventSplitter(), list[tuple[float, bytes]]()
    while data := await resp.content.readany():
        now = time.perf_counter()
        events.extend((now, e) for e in splitter.feed(data))
    return Received(events)


async def serve(proxy: Any, aiohttp_server: Any, upstream: Slow, output: dict[str, Any] | None = None) -> Any:
    server = await aiohttp_server(upstream.app())
    return await proxy(config(str(server.make_url("")).rstrip("/"), output))


async def test_a_first_token_followed_by_a_long_pause_reaches_the_client_at_once(
    proxy: Any, aiohttp_server: Any
) -> None:
    upstream = Slow([(0.0, "Hello"), (PAUSE_S, " world.")])
    got = await stream(await serve(proxy, aiohttp_server, upstream))
    assert got.text() == "Hello world."
    assert got.when("Hello") - upstream.sent[0] < SOON_S  # not held until " world." came, 1.5 s later
    assert upstream.sent[1] - got.when("Hello") > PAUSE_S - SOON_S


async def test_an_address_split_by_a_gap_shorter_than_the_deadline_is_still_redacted(
    proxy: Any, aiohttp_server: Any
) -> None:
    # after a flush (the pause behind "Hello"), held text still waits out a short gap: the address is judged whole
    upstream = Slow([(0.0, "Hello"), (PAUSE_S, " write to bob@pos"), (0.02, "teo.de now.")])
    got = await stream(await serve(proxy, aiohttp_server, upstream, {"flush_after_s": 0.5}))
    assert got.text() == "Hello write to <EMAIL_ADDRESS> now."
    assert not any(b"@" in e or b"bob" in e for _, e in got.events)
    assert got.when("Hello") - upstream.sent[0] < 0.5 + SOON_S


async def test_a_complete_address_held_at_the_end_of_a_chunk_is_redacted_when_flushed(
    proxy: Any, aiohttp_server: Any
) -> None:
    upstream = Slow([(0.0, "Hello, write to bob@posteo.de"), (PAUSE_S, " today.")])
    got = await stream(await serve(proxy, aiohttp_server, upstream))
    assert got.text() == "Hello, write to <EMAIL_ADDRESS> today."
    assert not any(b"bob" in e or b"posteo.de" in e for _, e in got.events)
    assert got.when("<EMAIL_ADDRESS>") - upstream.sent[0] < SOON_S  # flushed, redacted, before the pause ended


GAP_S = 0.3  # the engine's pauses in the longer answer; the default flush deadline is 0.05 s
# pauses (before the piece) only where what is held is not part of an entity: the words "Ma", "ca", "Ca", "th", "Than"
SCRIPT = [
    (0.0, "Hi! Ma"), (GAP_S, "il tomas.ode@pos"), (0.0, "teo.de or ca"), (GAP_S, "ll 212-484-"), (0.0, "7316. Ca"),
    (GAP_S, "rd 4539 0690 "), (0.0, "0679 2185 ends th"), (GAP_S, "e note. Than"), (GAP_S, "ks, bye!"),
]  # fmt: skip
ENTITIES = {
    "tomas.ode@posteo.de": "<EMAIL_ADDRESS>",
    "212-484-7316": "<PHONE_NUMBER>",
    "4539 0690 0679 2185": "<CREDIT_CARD>",
}


def redacted(text: str) -> str:
    for value, placeholder in ENTITIES.items():
        text = text.replace(value, placeholder)
    return text


async def test_flushes_lose_and_repeat_nothing_the_stream_is_the_same_but_for_redactions(
    proxy: Any, aiohttp_server: Any
) -> None:
    upstream = Slow(list(SCRIPT))
    got = await stream(await serve(proxy, aiohttp_server, upstream))
    whole = "".join(piece for _, piece in SCRIPT)
    assert got.text() == redacted(whole)  # every character once, in order, entities redacted
    everything = b"".join(e for _, e in got.events)
    assert not any(value.encode() in everything for value in ENTITIES)
    assert b"tomas.ode@" not in everything
    rest = [e for _, e in got.events if not content(e)]  # events without text pass through as the engine sent them
    assert rest[0] == event({"role": "assistant", "content": ""})
    assert rest[-3:] == [event({}, "stop"), USAGE, b"data: [DONE]\n\n"]
    # what came before each pause was on the client's screen before the engine sent the next piece
    for i, (wait, _) in enumerate(SCRIPT):
        if wait:
            shown = redacted("".join(piece for _, piece in SCRIPT[:i]))
            assert got.when(shown) < upstream.sent[i], (shown, got.when(shown) - upstream.sent[i - 1])


async def test_the_tool_loop_forwards_a_first_token_without_waiting_for_the_next(start: Any, keys: Keys) -> None:
    upstream = Slow([(0.0, "Hello"), (PAUSE_S, " world.")])

    def guarded(config: dict[str, Any]) -> None:
        config["pipelines"]["chat"] = ["authn", "classify", "authorize", "pii", "state", "route"]

    client = await start(upstream.app(), guarded)
    loop = {"tool_loop": {"servers": ["mail"]}}
    async with openai.AsyncOpenAI(
        base_url=str(client.make_url("/v1")), api_key=keys.token(roles=[]), max_retries=0, timeout=30
    ) as api:
        chunks = await api.chat.completions.create(
            model="m", messages=[{"role": "user", "content": SUMMARISE}], stream=True, extra_body=loop
        )
        seen: list[tuple[float, str]] = []
        async for chunk in chunks:
            if chunk.choices and chunk.choices[0].delta.content:
                seen.append((time.perf_counter(), chunk.choices[0].delta.content))
    assert "".join(text for _, text in seen) == "Hello world."
    hello = next(at for at, text in seen if "Hello" in text)
    assert hello - upstream.sent[0] < SOON_S


@pytest.mark.parametrize("personal", [False, True])
async def test_an_answers_test_values_and_role_mailboxes_are_left_as_the_step_leaves_them_in_a_request(
    proxy: Any, aiohttp_server: Any, personal: bool
) -> None:
    # the output guard applies the step's own judgement of what is no one's: a published test card and a
    # support mailbox stay (unless the operator says test values are personal data); a person's address never does
    answer = "Use 4242 4242 4242 4242 in test mode, then mail support@acme.io or tomas.ode@posteo.de."
    server = await aiohttp_server(Slow([(0.0, answer)]).app())
    cfg = config(str(server.make_url("")).rstrip("/"))
    if personal:
        cfg["steps"][0]["params"]["allow_test_values"] = False
    got = await stream(await proxy(cfg))
    card = "<CREDIT_CARD>" if personal else "4242 4242 4242 4242"
    assert got.text() == f"Use {card} in test mode, then mail support@acme.io or <EMAIL_ADDRESS>."
