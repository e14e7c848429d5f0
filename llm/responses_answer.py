"""A chat answer, already through the output guards, as a Response, whole or as Responses stream events.

The encoder is the last filter of the chain: the PII guard and the
tool-call guard see the chat answer the engine sent, and the client sees
only what they let through, translated. Content becomes a `message` item
with `output_text` (and `refusal`) parts; each tool call a `function_call`
item, whose arguments the tool-call guard has already judged (a streamed
call arrives here whole, once allowed). A stream runs
`response.created`, `response.in_progress`, then per item
`output_item.added`, its parts and deltas, `output_item.done`, and ends
with `response.completed` (or `response.incomplete` when the engine stopped
at `max_output_tokens` or a content filter), sequence-numbered, as the
OpenAI SDK reads them. A stream that breaks off ends with `response.failed`
and an `error` event that carries taskgate's stable code.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taskgate.gateway.errors import error_body
from taskgate.gateway.stream_errors import MESSAGE, stable_code
from taskgate.plugins import OutputRefused, sse
from taskgate.plugins.sse import EventSplitter

INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}  # chat finish -> Responses reason


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


@dataclass
class _Part:
    kind: str  # output_text or refusal
    pieces: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    def body(self) -> dict[str, Any]:
        if self.kind == "refusal":
            return {"type": "refusal", "refusal": self.text}
        return {"type": "output_text", "text": self.text, "annotations": [], "logprobs": []}


@dataclass
class _Item:
    """One output item as it is built: a message with parts, or a function call."""

    kind: str  # message or function_call
    index: int
    id: str
    status: str = "in_progress"
    parts: list[_Part] = field(default_factory=list)
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        if self.kind == "message":
            content = [part.body() for part in self.parts]
            return {"id": self.id, "type": "message", "role": "assistant", "status": self.status, "content": content}
        return {"id": self.id, "type": "function_call", "status": self.status, "call_id": self.call_id,
                "name": self.name, "arguments": "".join(self.arguments)}  # fmt: skip


class Encoder:
    """A ResponseFilter that speaks Responses: `head` holds the Response's fixed fields (id, model, echoes)."""

    def __init__(self, head: Mapping[str, Any], stream: bool):
        self.head, self.stream = dict(head), stream
        self.created_at = int(time.time())
        self.items: list[_Item] = []
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None  # an error the upstream reported mid-answer
        self._calls: dict[int, _Item] = {}
        self._splitter = EventSplitter()
        self._out: list[bytes] = []
        self._seq = 0
        self._started = False

    # the filter
    def whole(self, body: bytes) -> bytes:
        try:
            answer = json.loads(body)
        except (ValueError, RecursionError):
            answer = None
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list):
            raise OutputRefused("the upstream's answer is not a chat completion taskgate can translate")
        self._start()
        self._usage(answer)
        for choice in choices[:1]:
            message = choice.get("message") if isinstance(choice, dict) else None
            self._content(message if isinstance(message, dict) else {}, whole=True)
            self._finish(choice.get("finish_reason") if isinstance(choice, dict) else None)
        self._finish("stop")  # a whole answer is finished, whether or not it says why
        return self._flushed() + self.end()

    def chunk(self, data: bytes) -> bytes:
        for event in self._splitter.feed(data):
            self._event(event)
        return self._flushed()

    def end(self) -> bytes:
        rest = self._splitter.rest()
        if rest.strip():
            self._event(rest + b"\n\n")
        if self.error is None and self.finish is not None:
            self._close_all()
            status = "incomplete" if self.finish in INCOMPLETE else "completed"
            self._emit(f"response.{status}", response=self.response())
            if not self.stream:
                return json.dumps(self.response()).encode()
        return self._flushed()

    def failed(self, code: str, message: str) -> bytes:
        """The answer broke off (the relay's error event): the Response failed, and an `error` event says why."""
        if not self.stream:
            return error_body(502, code, message, "upstream_error")
        if self.error is None:
            self._fail(code, message)
        return self._flushed()

    # what the answer was
    @property
    def completed(self) -> bool:
        return self.error is None and self.finish is not None

    def response(self) -> dict[str, Any]:
        status = "failed" if self.error else "in_progress" if self.finish is None else "completed"
        incomplete = None
        if self.finish in INCOMPLETE and self.error is None:
            status, incomplete = "incomplete", {"reason": INCOMPLETE[self.finish]}
        out = {**self.head, "object": "response", "created_at": self.created_at, "status": status,
               "output": [item.body() for item in self.items], "usage": responses_usage(self.usage),
               "error": self.error, "incomplete_details": incomplete}  # fmt: skip
        if status in ("completed", "incomplete"):
            out["completed_at"] = int(time.time())
        return out

    def message(self) -> dict[str, Any]:
        """The answer as the chat message a follow-up sends back to the engine."""
        parts = [part for item in self.items for part in item.parts]
        text = "".join(p.text for p in parts if p.kind == "output_text")
        refusal = "".join(p.text for p in parts if p.kind == "refusal")
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = [item for item in self.items if item.kind == "function_call"]
        if calls:
            message["tool_calls"] = [
                {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": "".join(c.arguments)}}
                for c in calls
            ]
        if refusal:
            message["refusal"] = refusal
        return message

    # reading the chat answer
    def _event(self, event: bytes) -> None:
        payload = sse.parse(event)[1]
        if payload is None or payload.strip() == b"[DONE]" or self.error is not None:
            return
        try:
            chunk = json.loads(payload)
        except (ValueError, RecursionError):
            return  # not a chat chunk: nothing of it reaches the client
        if not isinstance(chunk, dict):
            return
        self._start()
        if "error" in chunk and not chunk.get("choices"):  # an engine's error event, its code made stable
            self._fail(stable_code(chunk["error"]), MESSAGE)
            return
        self._usage(chunk)
        choices = chunk.get("choices")
        for choice in choices[:1] if isinstance(choices, list) else ():
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                delta = choice.get("delta")
                self._content(delta if isinstance(delta, dict) else {}, whole=False)
                self._finish(choice.get("finish_reason"))

    def _usage(self, holder: dict[str, Any]) -> None:
        if isinstance(holder.get("usage"), dict):
            self.usage = holder["usage"]

    def _content(self, message: dict[str, Any], whole: bool) -> None:
        content = message.get("content")
        if isinstance(content, list):  # content parts: their text
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        if isinstance(content, str) and content:
            self._text("output_text", content)
        if isinstance(message.get("refusal"), str) and message["refusal"]:
            self._text("refusal", message["refusal"])
        calls = message.get("tool_calls")
        for position, piece in enumerate(calls if isinstance(calls, list) else ()):
            if isinstance(piece, dict):
                self._call(piece, position if whole else piece.get("index", 0))

    def _finish(self, reason: Any) -> None:
        if isinstance(reason, str) and self.finish is None:
            self.finish = reason
            self._close_all()

    # building the items
    def _text(self, kind: str, text: str) -> None:
        item = self.items[-1] if self.items and self.items[-1].kind == "message" else None
        if item is None or item.status != "in_progress":
            item = self._open("message", new_id("msg"))
        part = item.parts[-1] if item.parts else None
        if part is None or part.kind != kind:
            if part is not None:
                self._close_part(item, len(item.parts) - 1)
            part = _Part(kind)
            item.parts.append(part)
            self._emit("response.content_part.added", item_id=item.id, output_index=item.index,
                       content_index=len(item.parts) - 1, part=part.body())  # fmt: skip
        part.pieces.append(text)
        where = {"item_id": item.id, "output_index": item.index, "content_index": len(item.parts) - 1}
        if kind == "refusal":
            self._emit("response.refusal.delta", **where, delta=text)
        else:
            self._emit("response.output_text.delta", **where, delta=text, logprobs=[])

    def _call(self, piece: dict[str, Any], number: Any) -> None:
        number = number if isinstance(number, int) else 0
        given = piece.get("function")
        function: dict[str, Any] = given if isinstance(given, dict) else {}
        item = self._calls.get(number)
        if item is None:
            if self.items and self.items[-1].kind == "message":
                self._close(self.items[-1])
            item = self._calls[number] = _Item("function_call", len(self.items), new_id("fc"))
            item.call_id = str(piece.get("id") or new_id("call"))
            item.name = str(function.get("name") or "")
            self.items.append(item)
            self._emit("response.output_item.added", output_index=item.index, item=item.body())
        elif function.get("name"):
            item.name += str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            item.arguments.append(arguments)
            self._emit("response.function_call_arguments.delta", item_id=item.id, output_index=item.index,
                       delta=arguments)  # fmt: skip

    def _open(self, kind: str, item_id: str) -> _Item:
        item = _Item(kind, len(self.items), item_id)
        self.items.append(item)
        self._emit("response.output_item.added", output_index=item.index, item=item.body())
        return item

    def _close_part(self, item: _Item, position: int) -> None:
        part = item.parts[position]
        where = {"item_id": item.id, "output_index": item.index, "content_index": position}
        if part.kind == "refusal":
            self._emit("response.refusal.done", **where, refusal=part.text)
        else:
            self._emit("response.output_text.done", **where, text=part.text, logprobs=[])
        self._emit("response.content_part.done", **where, part=part.body())

    def _close(self, item: _Item) -> None:
        if item.status != "in_progress":
            return
        if item.kind == "message" and item.parts:
            self._close_part(item, len(item.parts) - 1)
        elif item.kind == "function_call":
            self._emit("response.function_call_arguments.done", item_id=item.id, output_index=item.index,
                       name=item.name, arguments="".join(item.arguments))  # fmt: skip
        item.status = "incomplete" if self.finish in INCOMPLETE else "completed"
        self._emit("response.output_item.done", output_index=item.index, item=item.body())

    def _close_all(self) -> None:
        for item in self.items:
            self._close(item)

    # events
    def _start(self) -> None:
        if not self._started:
            self._started = True
            self._emit("response.created", response=self.response())
            self._emit("response.in_progress", response=self.response())

    def _fail(self, code: str, message: str) -> None:
        self._start()
        self.error = {"code": "server_error", "message": message}  # the Response's error codes are OpenAI's own
        self._emit("response.failed", response=self.response())
        error = {"type": "upstream_error", "code": code, "message": message, "param": None}
        self._emit("error", code=code, message=message, param=None, error=error)

    def _emit(self, kind: str, **fields: Any) -> None:
        if not self.stream:
            return
        event = {"type": kind, "sequence_number": self._seq, **fields}
        self._seq += 1
        self._out.append(b"event: " + kind.encode() + b"\ndata: " + json.dumps(event).encode() + b"\n\n")

    def _flushed(self) -> bytes:
        out, self._out = b"".join(self._out), []
        return out


def responses_usage(usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Chat usage as the Responses API counts it."""
    if not usage:
        return None
    prompt, completion = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
    cached = _count(usage.get("prompt_tokens_details"), "cached_tokens")
    reasoning = _count(usage.get("completion_tokens_details"), "reasoning_tokens")
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": _count(usage, "total_tokens") or prompt + completion,
    }


def _count(holder: Any, key: str) -> int:
    value = holder.get(key) if isinstance(holder, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
