"""`POST /v1/responses`, as engines that serve the Responses API answer it: the same generation, other shapes.

An agent runtime whose model speaks Responses (openai-agents' default) can be
pointed at the engine directly. Input items become chat messages (a message,
a function call joining the assistant turn before it, a function call's
output); the chat answer becomes a response whose output items are a message
and function calls. Whole answers only: a streamed request is refused.
"""

import time
import uuid
from typing import Any

Body = dict[str, Any]


def as_chat(body: Body) -> Body:
    """A Responses request as the chat completions body the engine generates from."""
    messages: list[Body] = [{"role": "system", "content": body["instructions"]}] if body.get("instructions") else []
    given = body.get("input")
    for item in [{"role": "user", "content": given}] if isinstance(given, str) else given or []:
        kind = item.get("type", "message")
        if kind == "message":
            messages.append({"role": "system" if item["role"] == "developer" else item["role"],
                             "content": _text(item.get("content"))})  # fmt: skip
        elif kind == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}  # fmt: skip
            if messages and messages[-1]["role"] == "assistant":
                messages[-1].setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": _text(item.get("output"))})
    out: Body = {"model": body.get("model"), "messages": messages}
    if body.get("max_output_tokens") is not None:
        out["max_tokens"] = body["max_output_tokens"]
    return out


def as_response(chat: Body, asked: Body) -> Body:
    """A chat completion as a Response."""
    message = chat["choices"][0]["message"]
    output: list[Body] = []
    if message.get("content"):
        text = {"type": "output_text", "text": message["content"], "annotations": []}
        output.append({"type": "message", "id": _id("msg"), "status": "completed", "role": "assistant",
                       "content": [text]})  # fmt: skip
    for call in message.get("tool_calls") or ():
        output.append({"type": "function_call", "id": _id("fc"), "call_id": call["id"], "status": "completed",
                       "name": call["function"]["name"], "arguments": call["function"]["arguments"]})  # fmt: skip
    usage = chat.get("usage") or {}
    return {
        "id": _id("resp"), "object": "response", "created_at": int(time.time()), "status": "completed",
        "model": chat.get("model"), "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
        "tools": asked.get("tools") or [], "instructions": asked.get("instructions"),
        "usage": {"input_tokens": usage.get("prompt_tokens", 0), "output_tokens": usage.get("completion_tokens", 0),
                  "total_tokens": usage.get("total_tokens", 0), "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }  # fmt: skip


def _text(content: Any) -> Any:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content


def _id(kind: str) -> str:
    return f"{kind}_{uuid.uuid4().hex}"
