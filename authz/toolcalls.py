"""Enforcement point (b): tool calls a model emits, checked against the task's grant before the client sees them.

A streamed tool call arrives in pieces (its name first, its arguments over
many events); it can only be judged whole. The guard therefore holds each
tool call's deltas (and a legacy `function_call`'s) until its choice
finishes, then releases the calls the grant allows, complete, and replaces
each denied one with a line of content that says which tool was blocked and
why. When no call is left, a `tool_calls` (or `function_call`) finish becomes
`stop`, so the client does not wait for results. An event or answer it cannot
read but that mentions a tool call is refused, never passed on unchecked.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from taskgate.plugins import OutputRefused, sse
from taskgate.plugins.sse import EventSplitter

from .grant import Decision

Decide = Callable[[str, Any], Decision]  # (tool name, parsed arguments) -> decision
LEGACY = -1  # the key of a choice's legacy function_call among its held calls
MAX_CALL_CHARS = 1 << 20
_CALL_MARKERS = (b"tool_calls", b"function_call")


@dataclass
class _Call:
    index: int
    id: str | None = None
    type: str = "function"
    name: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, name: Any, arguments: Any) -> None:
        for target, piece in ((self.name, name), (self.arguments, arguments)):
            if piece:
                text = str(piece)
                target.append(text)
                self.size += len(text)
        if self.size > MAX_CALL_CHARS:
            raise OutputRefused("a tool call in the answer is too large to check")


def minted_id() -> str:
    return f"call_{secrets.token_hex(12)}"


def blocked_note(decision: Decision) -> str:
    return f"[taskgate] the tool call {decision.tool!r} was blocked: {decision.reason}."


def judge(decide: Decide, name: str, arguments: str) -> Decision:
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return Decision(name, False, "its arguments are not valid JSON")
    return decide(name, parsed)


def refusal_text(decision: Decision) -> str:
    """What a model is told, as a blocked call's result, when it is asked again."""
    rule = f" (rule {decision.rule})" if decision.rule else ""
    return f"taskgate refused this tool call: {decision.reason}{rule}. Do not retry it; take another way or answer."


@dataclass
class Blocked:
    """A whole answer whose every tool call the guard blocked: the turn as the model emitted it, and why."""

    content: str | None
    calls: list[dict[str, Any]]
    decisions: list[Decision]

    def messages(self) -> list[dict[str, Any]]:
        """The model's turn and each call's refusal as its result: what the model reads when asked again."""
        turn = {"role": "assistant", "content": self.content, "tool_calls": self.calls}
        refusals = [
            {"role": "tool", "tool_call_id": c.get("id"), "content": refusal_text(d)}
            for c, d in zip(self.calls, self.decisions, strict=True)
        ]
        return [turn, *refusals]


@dataclass
class ToolCallGuard:
    """A ResponseFilter for chat answers, whole or streamed.

    `recording`: keep the first choice's message as it leaves the guard (its
    text and the calls released), for what the answer binds to its task; and
    give each call released an id of taskgate's own (random), so a runtime's
    conversation is told apart from another's even where an engine numbers its
    calls `call_0`, `call_1` in every answer.
    """

    decide: Decide
    recording: bool = False
    blocked: Blocked | None = None  # a whole answer of one choice whose every tool call was blocked
    _events: EventSplitter = field(default_factory=EventSplitter)
    _calls: dict[int, dict[int, _Call]] = field(default_factory=dict)  # choice -> call index (LEGACY) -> call
    _envelope: dict[str, Any] = field(default_factory=dict)
    _refused: list[Decision] = field(default_factory=list)  # of the whole answer's choice being judged
    _message: dict[str, Any] | None = None  # with `recording`, a whole answer's first choice as released
    _text: list[str] = field(default_factory=list)  # with `recording`, a stream's: its first choice's text
    _released: list[dict[str, Any]] = field(default_factory=list)  # and the calls released in it

    def answered(self) -> dict[str, Any] | None:
        """With `recording`: the first choice's message as the guard released it (None before an answer)."""
        if self._message is not None:
            return self._message
        if not self._text and not self._released:
            return None
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._text) or None}
        if self._released:
            message["tool_calls"] = self._released
        return message

    def checks_tool_calls(self) -> bool:
        """Where taskgate runs the calls itself (the tool loop), it decides each as it runs: leave this guard out."""
        return True

    # whole answers
    def whole(self, body: bytes) -> bytes:
        answer = _load(body, "the answer")
        if answer is _UNREADABLE:
            return body
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list):
            return body
        changed = False
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(message, dict):
                content, calls = message.get("content"), message.get("tool_calls")
                changed = self._whole_choice(choice, message) or changed
                if len(choices) == 1 and isinstance(calls, list) and calls and len(self._refused) == len(calls):
                    self.blocked = Blocked(content if isinstance(content, str) else None, calls, self._refused)
        if self.recording and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict):
            self._message = dict(choices[0]["message"])
        return json.dumps(answer).encode() if changed else body

    def _whole_choice(self, choice: dict[str, Any], message: dict[str, Any]) -> bool:
        notes: list[str] = []
        calls = message.get("tool_calls")
        self._refused = []
        if isinstance(calls, list) and calls:
            kept = []
            for call in calls:
                function = call.get("function") if isinstance(call, dict) else None
                decision = self._judge_function(function)
                if decision.allowed:
                    kept.append({**call, "id": minted_id()} if self.recording else call)
                else:
                    notes.append(blocked_note(decision))
                    self._refused.append(decision)
            if len(kept) != len(calls) or self.recording:
                if kept:
                    message["tool_calls"] = kept
                else:
                    message.pop("tool_calls", None)
        legacy = message.get("function_call")
        if legacy is not None:
            decision = self._judge_function(legacy)
            if not decision.allowed:
                message.pop("function_call", None)
                notes.append(blocked_note(decision))
        if not notes:
            return self.recording and bool(calls)
        message["content"] = "\n".join(filter(None, [message.get("content"), *notes]))
        calls_left = message.get("tool_calls") or message.get("function_call")
        if not calls_left and choice.get("finish_reason") in ("tool_calls", "function_call"):
            choice["finish_reason"] = "stop"
        if choice.get("logprobs") is not None:
            choice["logprobs"] = None  # they would spell out the blocked call token by token
        return True

    def _judge_function(self, function: Any) -> Decision:
        if not isinstance(function, dict):
            return Decision("?", False, "it is malformed")
        name = function.get("name")
        arguments = function.get("arguments", "")
        if not isinstance(name, str):
            return Decision("?", False, "it has no tool name")
        return judge(self.decide, name, arguments if isinstance(arguments, str) else json.dumps(arguments))

    # streams
    def chunk(self, data: bytes) -> bytes:
        return sse.each_event(self._events, data, self._event)

    def end(self) -> bytes:
        rest = self._events.rest()
        return (self._event(rest + b"\n\n") if rest.strip() else b"") + self._flush()

    def _event(self, event: bytes) -> bytes:
        fields, payload = sse.parse(event)
        if payload is None:
            return event
        if payload.strip() == b"[DONE]":
            return self._flush() + event
        chunk = _load(payload, "an event")
        if chunk is _UNREADABLE:
            return event
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        if not isinstance(choices, list) or not any(_has_calls(c) or _finished(c) for c in choices):
            if self.recording and isinstance(choices, list):
                self._record(choices)
            return event
        self._envelope = {k: v for k, v in chunk.items() if k in ("id", "object", "created", "model")}
        for choice in choices:
            if isinstance(choice, dict):
                self._choice(choice)
        if self.recording:
            self._record(choices)
        return sse.format_event(fields, json.dumps(chunk, separators=(",", ":")).encode())

    def _record(self, choices: list[Any]) -> None:
        """The first choice's text, as it leaves the guard (notes of blocked calls included)."""
        for choice in choices:
            delta = choice.get("delta") if isinstance(choice, dict) and choice.get("index", 0) == 0 else None
            if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                self._text.append(delta["content"])

    def _choice(self, choice: dict[str, Any]) -> None:
        index = choice.get("index", 0) if isinstance(choice.get("index", 0), int) else 0
        delta = choice.get("delta")
        if isinstance(delta, dict):
            held = self._calls.setdefault(index, {})
            pieces = delta.pop("tool_calls", None)
            for piece in pieces if isinstance(pieces, list) else []:
                if not isinstance(piece, dict):
                    continue
                number = piece.get("index", 0) if isinstance(piece.get("index", 0), int) else 0
                call = held.setdefault(number, _Call(number))
                call.id = piece.get("id") or call.id
                call.type = piece.get("type") or call.type
                function: dict[str, Any] = piece["function"] if isinstance(piece.get("function"), dict) else {}
                call.add(function.get("name"), function.get("arguments"))
            legacy = delta.pop("function_call", None)
            if isinstance(legacy, dict):
                held.setdefault(LEGACY, _Call(LEGACY)).add(legacy.get("name"), legacy.get("arguments"))
            if held and choice.get("logprobs") is not None:
                choice["logprobs"] = None  # they would spell out a held call token by token
        if _finished(choice):
            current = choice.get("delta")
            final: dict[str, Any] = current if isinstance(current, dict) else {}
            choice["delta"] = final
            self._release(index, choice, final)

    def _release(self, index: int, choice: dict[str, Any], delta: dict[str, Any]) -> None:
        calls = self._calls.pop(index, {})
        if not calls:
            return
        kept: list[dict[str, Any]] = []
        notes: list[str] = []
        for call in sorted(calls.values(), key=lambda c: c.index):
            name, arguments = "".join(call.name), "".join(call.arguments)
            decision = judge(self.decide, name, arguments)
            if not decision.allowed:
                notes.append(blocked_note(decision))
            elif call.index == LEGACY:
                delta["function_call"] = {"name": name, "arguments": arguments}
            else:
                kept.append(
                    {"index": len(kept), "id": minted_id() if self.recording else call.id, "type": call.type,
                     "function": {"name": name, "arguments": arguments}}
                )  # fmt: skip
        if kept:
            delta["tool_calls"] = kept
            if self.recording and index == 0:
                self._released += [{k: v for k, v in c.items() if k != "index"} for c in kept]
        if notes:
            delta["content"] = "\n".join(filter(None, [delta.get("content"), *notes]))
            if (
                not kept
                and "function_call" not in delta
                and choice.get("finish_reason")
                in (
                    "tool_calls",
                    "function_call",
                )
            ):
                choice["finish_reason"] = "stop"

    def _flush(self) -> bytes:
        """Calls still held when the stream ended without finishing their choice: judged now."""
        out = []
        for index in sorted(self._calls):
            choice: dict[str, Any] = {"index": index, "delta": {}, "finish_reason": None}
            self._release(index, choice, choice["delta"])
            out.append(b"data: " + json.dumps({**self._envelope, "choices": [choice]}).encode() + b"\n\n")
        self._calls.clear()
        return b"".join(out)


_UNREADABLE = object()


def _load(data: bytes, what: str) -> Any:
    """JSON, or _UNREADABLE; unreadable data that mentions a tool call is refused, never passed on unchecked."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        if any(marker in data for marker in _CALL_MARKERS):
            raise OutputRefused(f"{what} mentions a tool call but is not JSON the guard can read") from None
        return _UNREADABLE


def _has_calls(choice: Any) -> bool:
    if not isinstance(choice, dict) or not isinstance(choice.get("delta"), dict):
        return False
    delta = choice["delta"]
    return "tool_calls" in delta or "function_call" in delta


def _finished(choice: Any) -> bool:
    return isinstance(choice, dict) and choice.get("finish_reason") is not None
