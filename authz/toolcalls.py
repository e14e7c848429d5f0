"""Enforcement point (b): tool calls a model emits, checked against the task's grant before the client sees them.

A streamed tool call arrives in pieces (its name first, its arguments over
many events); it can only be judged whole. The guard therefore holds each
tool call's deltas until its choice finishes, then releases the calls the
grant allows, complete, and replaces each denied one with a line of content
that says which tool was blocked and why. When no call is left, a
`tool_calls` finish becomes `stop`, so the client does not wait for results.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from taskgate.plugins import sse
from taskgate.plugins.sse import EventSplitter

from .grant import Decision

Decide = Callable[[str, Any], Decision]  # (tool name, parsed arguments or the raw string) -> decision


@dataclass
class _Call:
    index: int
    id: str | None = None
    type: str = "function"
    name: str = ""
    arguments: str = ""


def blocked_note(decision: Decision) -> str:
    return f"[taskgate] the tool call {decision.tool!r} was blocked: {decision.reason}."


def judge(decide: Decide, name: str, arguments: str) -> Decision:
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return Decision(name, False, "its arguments are not valid JSON")
    return decide(name, parsed)


@dataclass
class ToolCallGuard:
    """A ResponseFilter for chat answers, whole or streamed."""

    decide: Decide
    _events: EventSplitter = field(default_factory=EventSplitter)
    _calls: dict[int, dict[int, _Call]] = field(default_factory=dict)  # choice -> tool-call index -> call
    _envelope: dict[str, Any] = field(default_factory=dict)

    # whole answers
    def whole(self, body: bytes) -> bytes:
        try:
            answer = json.loads(body)
        except ValueError:
            return body
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list):
            return body
        changed = False
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            if not isinstance(message, dict) or not isinstance(message.get("tool_calls"), list):
                continue
            calls: list[Any] = message["tool_calls"]
            kept: list[Any] = []
            notes: list[str] = []
            for call in calls:
                function = call.get("function") if isinstance(call, dict) else None
                name = str(function.get("name", "")) if isinstance(function, dict) else ""
                arguments = function.get("arguments", "") if isinstance(function, dict) else ""
                decision = judge(self.decide, name, arguments if isinstance(arguments, str) else json.dumps(arguments))
                if decision.allowed:
                    kept.append(call)
                else:
                    notes.append(blocked_note(decision))
            if notes:
                changed = True
                message["content"] = "\n".join(filter(None, [message.get("content"), *notes]))
                if kept:
                    message["tool_calls"] = kept
                else:
                    message.pop("tool_calls", None)
                    if choice.get("finish_reason") == "tool_calls":
                        choice["finish_reason"] = "stop"
        return json.dumps(answer).encode() if changed else body

    # streams
    def chunk(self, data: bytes) -> bytes:
        return b"".join(self._event(event) for event in self._events.feed(data))

    def end(self) -> bytes:
        rest = self._events.rest()
        return (self._event(rest + b"\n\n") if rest.strip() else b"") + self._flush()

    def _event(self, event: bytes) -> bytes:
        fields, payload = sse.parse(event)
        if payload is None:
            return event
        if payload.strip() == b"[DONE]":
            return self._flush() + event
        try:
            chunk = json.loads(payload)
        except ValueError:
            return event
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        if not isinstance(choices, list) or not any(_has_calls(c) or _finished(c) for c in choices):
            return event
        self._envelope = {k: v for k, v in chunk.items() if k in ("id", "object", "created", "model")}
        for choice in choices:
            if isinstance(choice, dict):
                self._choice(choice)
        return sse.format_event(fields, json.dumps(chunk, separators=(",", ":")).encode())

    def _choice(self, choice: dict[str, Any]) -> None:
        index = choice.get("index", 0) if isinstance(choice.get("index", 0), int) else 0
        delta = choice.get("delta")
        if isinstance(delta, dict) and isinstance(delta.get("tool_calls"), list):
            held = self._calls.setdefault(index, {})
            for piece in delta.pop("tool_calls"):
                if not isinstance(piece, dict):
                    continue
                number = piece.get("index", 0) if isinstance(piece.get("index", 0), int) else 0
                call = held.setdefault(number, _Call(number))
                call.id = piece.get("id") or call.id
                call.type = piece.get("type") or call.type
                function: dict[str, Any] = piece["function"] if isinstance(piece.get("function"), dict) else {}
                call.name += str(function.get("name") or "")
                call.arguments += str(function.get("arguments") or "")
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
            decision = judge(self.decide, call.name, call.arguments)
            if decision.allowed:
                kept.append(
                    {"index": len(kept), "id": call.id, "type": call.type,
                     "function": {"name": call.name, "arguments": call.arguments}}
                )  # fmt: skip
            else:
                notes.append(blocked_note(decision))
        if kept:
            delta["tool_calls"] = kept
        if notes:
            delta["content"] = "\n".join(filter(None, [delta.get("content"), *notes]))
            if not kept and choice.get("finish_reason") == "tool_calls":
                choice["finish_reason"] = "stop"

    def _flush(self) -> bytes:
        """Calls still held when the stream ended without finishing their choice: judged now."""
        out = []
        for index in sorted(self._calls):
            choice: dict[str, Any] = {"index": index, "delta": {}, "finish_reason": None}
            self._release(index, choice, choice["delta"])
            out.append(b"data: " + json.dumps({**self._envelope, "choices": [choice]}).encode() + b"\n\n")
        return b"".join(out)


def _has_calls(choice: Any) -> bool:
    return isinstance(choice, dict) and isinstance(choice.get("delta"), dict) and "tool_calls" in choice["delta"]


def _finished(choice: Any) -> bool:
    return isinstance(choice, dict) and choice.get("finish_reason") is not None
