"""The Responses request as the chat body the plan runs, and the chat answer as Responses events, unit by unit."""

from __future__ import annotations

import json
from typing import Any

from openai import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter

from taskgate.llm.responses_answer import Encoder
from taskgate.llm.responses_request import parse, translate

EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def chat_of(raw: dict[str, Any], history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return translate(parse({"model": "m", **raw}), history or []).body


def test_items_become_messages_in_order_with_calls_joined_to_their_turn() -> None:
    body = chat_of({
        "instructions": "Be brief.",
        "input": [
            {"role": "developer", "content": "Answer in French."},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "weather?"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
            {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Paris"}'},
            {"type": "function_call", "call_id": "c2", "name": "weather", "arguments": '{"city": "Rome"}'},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            {"type": "function_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "rain"}]},
        ],
    })  # fmt: skip
    roles = [(m["role"], m.get("content")) for m in body["messages"]]
    assert roles == [("system", "Be brief."), ("system", "Answer in French."), ("user", "weather?"),
                     ("assistant", "Checking."), ("tool", "sunny"), ("tool", "rain")]  # fmt: skip
    calls = body["messages"][3]["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [("c1", "weather"), ("c2", "weather")]


def test_the_conversation_so_far_comes_after_the_instructions_and_before_the_input() -> None:
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    body = chat_of({"instructions": "New rules.", "input": "again"}, history)
    assert [m["content"] for m in body["messages"]] == ["New rules.", "hi", "hello", "again"]


def test_options_are_named_as_chat_names_them() -> None:
    body = chat_of({
        "input": "hi", "max_output_tokens": 64, "temperature": 0.2, "reasoning": {"effort": "low"},
        "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": True}],
        "tool_choice": {"type": "function", "name": "f"},
        "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}}},
        "stream": True, "include": ["message.output_text.logprobs"],
    })  # fmt: skip
    assert body["max_tokens"] == 64
    assert body["reasoning_effort"] == "low"
    assert body["tools"] == [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"},
                                                               "strict": True}}]  # fmt: skip
    assert body["tool_choice"] == {"type": "function", "function": {"name": "f"}}
    schema = {"name": "out", "schema": {"type": "object"}}
    assert body["response_format"] == {"type": "json_schema", "json_schema": schema}
    assert body["stream_options"] == {"include_usage": True}
    assert "include" not in body


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    event = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta,
             "finish_reason": finish}]}  # fmt: skip
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def test_text_then_streamed_calls_make_events_the_sdk_s_accumulator_accepts() -> None:
    encoder = Encoder({"id": "resp_1", "model": "m", "tools": [], "tool_choice": "auto",
                       "parallel_tool_calls": True}, stream=True)  # fmt: skip
    call = {"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": ""}}
    pieces = [
        chunk({"role": "assistant", "content": "Let me "}), chunk({"content": "look."}), chunk({"tool_calls": [call]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"q": '}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "g", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}), chunk({}, "tool_calls"),
        b'data: {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}\n\n',
        b"data: [DONE]\n\n",
    ]  # fmt: skip
    out = b"".join(encoder.chunk(piece[:9]) + encoder.chunk(piece[9:]) for piece in pieces) + encoder.end()
    events = [EVENTS.validate_json(block.split(b"data: ", 1)[1]) for block in out.split(b"\n\n") if block]
    state = ResponseStreamState(input_tools=[], text_format=omit)
    for event in events:
        state.handle_event(event)
    assert events[-1].type == "response.completed"
    final = events[-1].response
    assert [item.type for item in final.output] == ["message", "function_call", "function_call"]
    assert final.output_text == "Let me look."
    assert [(c.call_id, c.name, c.arguments) for c in final.output[1:]] == [("call_a", "f", '{"q": 1}'),
                                                                             ("call_b", "g", "{}")]  # fmt: skip
    assert final.usage is not None
    assert final.usage.total_tokens == 7
    assert encoder.message()["tool_calls"][0]["function"] == {"name": "f", "arguments": '{"q": 1}'}


def test_an_answer_cut_at_the_token_bound_is_incomplete() -> None:
    encoder = Encoder({"id": "resp_1", "model": "m"}, stream=False)
    answer = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Once upon"},
                           "finish_reason": "length"}]}  # fmt: skip
    response = json.loads(encoder.whole(json.dumps(answer).encode()))
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response["output"][0]["status"] == "incomplete"
