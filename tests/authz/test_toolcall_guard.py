"""The tool-call guard on raw answers: legacy function calls, unreadable events, oversize events, log probabilities."""

from __future__ import annotations

import json
from typing import Any

import pytest

from taskgate.authz.grant import Decision
from taskgate.authz.toolcalls import ToolCallGuard
from taskgate.plugins import OutputRefused
from taskgate.plugins.sse import EventSplitter


def decide(name: str, arguments: Any) -> Decision:
    return Decision(name, name == "mail__list", "granted" if name == "mail__list" else "not granted")


def event(delta: dict[str, Any], finish: str | None = None, **choice: Any) -> bytes:
    body = {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def texts(out: bytes) -> tuple[str, list[dict[str, Any]], list[Any]]:
    content: str = ""
    calls: list[dict[str, Any]] = []
    finishes: list[Any] = []
    for block in out.split(b"\n\n"):
        if block.startswith(b"data: {"):
            choice = json.loads(block[6:])["choices"][0]
            delta = choice.get("delta", {})
            content += delta.get("content") or ""
            calls += delta.get("tool_calls") or []
            if delta.get("function_call"):
                calls.append(delta["function_call"])
            if choice.get("finish_reason"):
                finishes.append(choice["finish_reason"])
    return content, calls, finishes


def test_a_legacy_function_call_is_judged_whole_and_streamed() -> None:
    answer = {"choices": [{"index": 0, "finish_reason": "function_call",
                           "message": {"role": "assistant", "content": None,
                                       "function_call": {"name": "mail__delete", "arguments": "{}"}}}]}  # fmt: skip
    out = json.loads(ToolCallGuard(decide).whole(json.dumps(answer).encode()))
    message = out["choices"][0]["message"]
    assert "function_call" not in message
    assert "mail__delete" in message["content"]
    assert out["choices"][0]["finish_reason"] == "stop"
    guard = ToolCallGuard(decide)
    stream = (
        event({"function_call": {"name": "mail__", "arguments": ""}})
        + event({"function_call": {"name": "delete", "arguments": '{"id": 1}'}})
        + event({}, "function_call")
    )
    content, calls, finishes = texts(guard.chunk(stream) + guard.end())
    assert calls == []
    assert "mail__delete" in content
    assert finishes == ["stop"]


def test_an_allowed_legacy_call_is_released_whole() -> None:
    guard = ToolCallGuard(decide)
    stream = event({"function_call": {"name": "mail__list", "arguments": '{"a"'}}) + event(
        {"function_call": {"arguments": ": 1}"}}, "function_call"
    )
    _, calls, finishes = texts(guard.chunk(stream))
    assert calls == [{"name": "mail__list", "arguments": '{"a": 1}'}]
    assert finishes == ["function_call"]


def test_log_probabilities_of_a_held_call_are_withheld() -> None:
    guard = ToolCallGuard(decide)
    piece = {"tool_calls": [{"index": 0, "function": {"name": "mail__delete", "arguments": "{}"}}]}
    out = guard.chunk(event(piece, logprobs={"content": [{"token": "mail__delete"}]}))
    out += guard.chunk(event({}, "tool_calls"))
    assert b'logprobs":{' not in out
    assert "mail__delete" not in json.dumps(texts(out)[1])


def test_what_the_guard_cannot_read_is_refused_not_passed_on() -> None:
    with pytest.raises(OutputRefused):
        ToolCallGuard(decide).chunk(b'data: {"choices": [{"delta": {"tool_calls": [BROKEN\n\n')
    with pytest.raises(OutputRefused):
        ToolCallGuard(decide).whole(b'not json but "tool_calls": [...]')
    assert ToolCallGuard(decide).whole(b"plain text") == b"plain text"
    splitter = EventSplitter(max_bytes=1024)
    splitter.feed(b"data: " + b"x" * 1000)
    with pytest.raises(OutputRefused):
        splitter.feed(b"x" * 64)  # an event past the bound, still without its end


def test_feeding_an_event_in_small_pieces_is_linear() -> None:
    import time

    splitter = EventSplitter()
    data = b"data: " + b"x" * 400_000 + b"\n\n"
    started = time.perf_counter()
    events = [e for i in range(0, len(data), 64) for e in splitter.feed(data[i : i + 64])]
    assert len(events) == 1
    assert time.perf_counter() - started < 1.0
