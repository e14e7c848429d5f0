"""The output guard: redact personal data in model answers, streamed or whole.

A streamed answer arrives in pieces, and an email address can be split across
two of them. Per choice, the guard holds back the text that could still be the
start of an entity (the trailing word, digit groups, an entity it has already
found but that may continue) up to `window` characters, and lets everything
before it go. Ordinary prose therefore waits at most for the end of its
current word; nothing is buffered beyond the window.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .scan import Finding

Analyze = Callable[[str], tuple[Finding, ...]]
Redact = Callable[[str, tuple[Finding, ...]], str]
Found = Callable[[str, Finding], None]  # (where in the answer, finding)

# The trailing text that may still grow into an entity: digit or capital groups joined by
# separators (cards, phone numbers, IBANs), then the word being written (emails, addresses).
_MAY_CONTINUE = re.compile(r"(?:[0-9A-Z()+]{1,8}[ .\-/]){0,8}[\w.@%+\-()]*\Z")
_EVENT_END = re.compile(rb"\r?\n\r?\n")


@dataclass
class _Choice:
    index: int
    held: str = ""
    emitted: int = 0  # characters of this choice's text already sent


@dataclass
class StreamRedactor:
    """A ResponseFilter for server-sent events of chat and text completions."""

    analyze: Analyze
    redact: Redact
    found: Found
    window: int
    surface: str
    _buffer: bytes = b""
    _choices: dict[int, _Choice] = field(default_factory=dict)
    _envelope: dict[str, Any] | None = None

    def whole(self, body: bytes) -> bytes:
        return body  # not a stream; WholeRedactor handles those

    def chunk(self, data: bytes) -> bytes:
        self._buffer += data
        out: list[bytes] = []
        while (end := _EVENT_END.search(self._buffer)) is not None:
            event, self._buffer = self._buffer[: end.end()], self._buffer[end.end() :]
            out.append(self._event(event))
        return b"".join(out)

    def end(self) -> bytes:
        rest, self._buffer = self._buffer, b""
        return self._flush_all() + rest

    def _event(self, event: bytes) -> bytes:
        data = _data(event)
        if data is None:
            return event
        if data.strip() == b"[DONE]":
            return self._flush_all() + event
        try:
            chunk = json.loads(data)
        except ValueError:
            return event
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        if not isinstance(choices, list) or not choices:
            return self._flush_all() + event if isinstance(chunk, dict) and chunk.get("usage") else event
        self._envelope = {k: v for k, v in chunk.items() if k not in ("choices", "usage")}
        changed = False
        for choice in choices:
            if isinstance(choice, dict):
                changed = self._choice(choice) or changed
        return _sse(chunk) if changed else event

    def _choice(self, choice: dict[str, Any]) -> bool:
        index = choice.get("index", 0)
        index = index if isinstance(index, int) else 0
        state = self._choices.get(index) or self._choices.setdefault(index, _Choice(index))
        holder, key = _text_slot(choice, self.surface)
        new = holder.get(key) if holder is not None else None
        final = choice.get("finish_reason") is not None
        if not isinstance(new, str) and not (final and state.held):
            return False
        text = state.held + (new if isinstance(new, str) else "")
        release = self._release(text, state, final)
        if holder is None:  # a final chunk without a text slot: give it one for what was held
            holder, key = _make_slot(choice, self.surface)
        holder[key] = release
        return release != new

    def _release(self, text: str, state: _Choice, final: bool) -> str:
        findings = self.analyze(text) if text else ()
        cut = len(text)
        if not final:
            tail = text[-self.window :] if self.window else ""
            may = _MAY_CONTINUE.search(tail)
            hold_from = len(text) - len(tail) + (may.start() if may else len(tail))
            cut = max(hold_from, len(text) - self.window)
            for f in findings:
                if f.end >= cut:  # may still grow: hold the whole entity
                    cut = min(cut, f.start)
        done = tuple(f for f in findings if f.end <= cut)
        place = f"choices[{state.index}].{'delta.content' if self.surface == 'chat' else 'text'}"
        for f in done:  # positions in the whole answer's text, not in this window
            self.found(place, Finding(f.entity, f.start + state.emitted, f.end + state.emitted, f.score))
        state.held = text[cut:]
        state.emitted += cut
        return self.redact(text[:cut], done)

    def _flush_all(self) -> bytes:
        out = []
        for index, state in self._choices.items():
            if state.held:
                text = self._release(state.held, state, final=True)
                choice = {"index": index, "finish_reason": None}
                holder, key = _make_slot(choice, self.surface)
                holder[key] = text
                out.append(_sse({**(self._envelope or {}), "choices": [choice]}))
        return b"".join(out)


@dataclass
class WholeRedactor:
    """A ResponseFilter for complete JSON answers: each choice's text, scanned and redacted."""

    analyze: Analyze
    redact: Redact
    found: Found
    surface: str

    def whole(self, body: bytes) -> bytes:
        try:
            answer = json.loads(body)
        except ValueError:
            return body
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list):
            return body
        changed = False
        for position, choice in enumerate(choices):
            if not isinstance(choice, dict):
                continue
            holder, key = _text_slot(choice, self.surface, stream=False)
            text = holder.get(key) if holder is not None else None
            if holder is None or not isinstance(text, str) or not text:
                continue
            findings = self.analyze(text)
            if findings:
                place = f"choices[{position}].{'message.content' if self.surface == 'chat' else 'text'}"
                for f in findings:
                    self.found(place, f)
                holder[key] = self.redact(text, findings)
                changed = True
        return json.dumps(answer).encode() if changed else body

    def chunk(self, data: bytes) -> bytes:
        return data

    def end(self) -> bytes:
        return b""


def _text_slot(choice: dict[str, Any], surface: str, stream: bool = True) -> tuple[dict[str, Any] | None, str]:
    if surface != "chat":
        return choice, "text"
    holder = choice.get("delta" if stream else "message")
    return (holder, "content") if isinstance(holder, dict) else (None, "content")


def _make_slot(choice: dict[str, Any], surface: str) -> tuple[dict[str, Any], str]:
    if surface != "chat":
        return choice, "text"
    delta = choice.setdefault("delta", {})
    return delta, "content"


def _data(event: bytes) -> bytes | None:
    """The data of a one-line `data:` event; None for comments, other fields or multi-line data."""
    lines = [line for line in event.splitlines() if line]
    if len(lines) != 1 or not lines[0].startswith(b"data:"):
        return None
    return lines[0][5:].lstrip(b" ")


def _sse(chunk: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n"
