"""The output guard: redact personal data in model answers, streamed or whole.

A streamed answer arrives in pieces, and an email address can be split across
two of them. Per choice and per text field (content, reasoning, refusal, each
tool call's arguments), the guard holds back the text that could still be the
start of an entity (the word being written, trailing digit groups, an entity
it has already found that may continue) up to `window` characters, and lets
everything before it go. Ordinary prose waits at most for the end of its
current word; nothing is buffered beyond the window.

Nor does it wait on a slow engine: when the next chunk is later than
`flush_after_s`, the relay calls `flush()`, which releases the held text of
the shown fields (content, reasoning, refusal, completions text) judged as it
stands, as if the stream had ended there: an entity already complete in it is
redacted. What could still have grown is kept as context (at most `window`
characters, unredacted, never sent again): the text that follows is judged
together with it, so the rest of an entity whose start went out early is
redacted, though that start has gone. Tool call arguments are never released
early (a client runs a call once its arguments are complete).

It fails closed: text it cannot place in the answer's structure (an event
that is not JSON, a field it does not know) is still scanned and redacted,
without hold-back; per-token log probabilities, which would repeat redacted
text token by token, are withheld.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from taskgate.plugins import Surface, sse
from taskgate.plugins.sse import EventSplitter

from .body import replace_strings, strings, where
from .findings import Finding

Analyze = Callable[[str], tuple[Finding, ...]]
Redact = Callable[[str, tuple[Finding, ...]], str]
Found = Callable[[str, Finding], None]  # (where in the answer, finding)
Withheld = Callable[[str], None]  # (where in the answer)

_HELD_FIELDS = ("content", "reasoning_content", "reasoning", "refusal")
_WORD_EXTRA = frozenset("._%+-@():")
_SEPARATORS = frozenset("-./:\u2010\u2011\u2012\u2013\u2014\u2015")
_GROUP = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ()+")
_HEX = frozenset("0123456789abcdefABCDEF")


def hold_from(text: str, window: int) -> int:
    """Where the text that may still grow into an entity starts: the trailing word, and before it up to
    eight digit or capital groups joined by separators (cards, phone numbers, IBANs, IPv6), within `window`."""
    low = max(0, len(text) - window)
    i = len(text)
    while i > low and (text[i - 1].isalnum() or text[i - 1] in _WORD_EXTRA):
        i -= 1
    for _ in range(8):
        if i <= low or not (text[i - 1].isspace() or text[i - 1] in _SEPARATORS):
            break
        separator = text[i - 1]
        group = _HEX if separator == ":" else _GROUP
        k = i - 1
        while k > low and i - 1 - k < 8 and text[k - 1] in group:
            k -= 1
        if k == i - 1:
            break
        i = k
    return i


@dataclass
class _Slot:
    held: str = ""
    emitted: int = 0  # characters of this field's text already released
    sent: str = ""  # the end of what a flush released that could still grow: judged again with what follows
    reported: list[tuple[str, int, int]] = field(default_factory=list)  # findings reaching into `sent`, counted


@dataclass
class _Guard:
    analyze: Analyze
    redact: Redact
    found: Found
    withheld: Withheld

    dirty: bool = field(default=False, init=False)  # whether the current event or answer was changed

    def scrub(self, text: str, place: str) -> str:
        """Scan and redact a whole text at once (no hold-back)."""
        findings = self.analyze(text) if text else ()
        for f in findings:
            self.found(place, f)
        if not findings:
            return text
        self.dirty = True
        return self.redact(text, findings)

    def scrub_json(self, value: Any, skip: frozenset[str] = frozenset(), structural: bool = True) -> Any:
        """Every string under `value` scanned and redacted but for `skip` (and protocol keys if `structural`)."""
        mapping: dict[str, str] = {}
        for path, text in strings(value, structural=structural):
            if path and path[-1] in skip:
                continue
            clean = self.scrub(text, where(path))
            if clean != text:
                mapping[text] = clean
        return replace_strings(value, mapping)[0] if mapping else value


@dataclass
class StreamRedactor(_Guard):
    """A ResponseFilter for server-sent events of chat and text completions."""

    window: int = 128
    surface: str = Surface.CHAT
    flush_after_s: float | None = 0.05  # how long held text waits for the next chunk; None: until it comes
    _events: EventSplitter = field(default_factory=EventSplitter)
    _slots: dict[tuple[int, str | int], _Slot] = field(default_factory=dict)
    _envelope: dict[str, Any] = field(default_factory=dict)

    def whole(self, body: bytes) -> bytes:
        return body  # not a stream; WholeRedactor handles those

    def chunk(self, data: bytes) -> bytes:
        return sse.each_event(self._events, data, self._event)

    def end(self) -> bytes:
        rest = self._events.rest()
        last = self._event(rest + b"\n\n") if rest.strip() else b""
        return last + self._flush()

    def flush(self) -> bytes:
        """The next chunk is late: what the shown fields hold, released now as one extra event per choice.

        The held text is judged as if the stream ended there; what could still
        grow stays as context for the text that follows. An event cut in the
        middle stays unread until its end arrives; tool call arguments stay held.
        """
        names = ("text",) if self.surface != Surface.CHAT else _HELD_FIELDS
        events = []
        for index in sorted({choice for choice, _ in self._slots}):
            released: dict[str, str] = {}
            for name in names:
                slot = self._slots.get((index, name))
                if slot is not None and slot.held:
                    place = f"choices[{index}].text" if name == "text" else f"choices[{index}].delta.{name}"
                    released[name] = self._release(slot.held, slot, False, place, early=True)
            if not released:
                continue
            choice: dict[str, Any] = {"index": index, "finish_reason": None}
            if self.surface != Surface.CHAT:
                choice.update(released)
            else:
                choice["delta"] = released
            chunk = {**self._envelope, "choices": [choice]}
            events.append(b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n")
        return b"".join(events)

    def _event(self, event: bytes) -> bytes:
        self.dirty = False
        try:
            out = self._parse(event)
        except (ValueError, RecursionError):  # nested past any real event: scanned as text instead
            text = event.decode("utf-8", "replace")
            return self.scrub(text, "stream event").encode()
        return out if self.dirty else event

    def _parse(self, event: bytes) -> bytes:
        fields, payload = sse.parse(event)
        if payload is None:
            return self._other(event)
        if payload.strip() == b"[DONE]":
            flushed = self._flush()
            self.dirty = bool(flushed)
            return flushed + event
        try:
            chunk = json.loads(payload)
        except ValueError:
            text = payload.decode("utf-8", "replace")
            return sse.format_event(fields, self.scrub(text, "stream event").encode())
        if not isinstance(chunk, dict):
            return sse.format_event(fields, json.dumps(self.scrub_json(chunk)).encode())
        return sse.format_event(fields, json.dumps(self._chunk(chunk), separators=(",", ":")).encode())

    def _other(self, event: bytes) -> bytes:
        """An event with no data (comments, a lone id): its text is scanned too."""
        text = event.decode("utf-8", "replace")
        clean = self.scrub(text, "stream comment")
        return event if clean == text else clean.encode()

    def _chunk(self, chunk: dict[str, Any]) -> dict[str, Any]:
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return dict(self.scrub_json(chunk))
        self._envelope = {k: v for k, v in chunk.items() if k in ("id", "object", "created", "model")}
        out = dict(self.scrub_json({k: v for k, v in chunk.items() if k != "choices"}))
        out["choices"] = [self._choice(c) if isinstance(c, dict) else self.scrub_json(c) for c in choices]
        return out

    def _choice(self, choice: dict[str, Any]) -> dict[str, Any]:
        index = choice.get("index", 0)
        index = index if isinstance(index, int) else 0
        final = choice.get("finish_reason") is not None
        out = dict(choice)
        if out.get("logprobs") is not None:
            out["logprobs"] = None
            self.withheld(f"choices[{index}].logprobs")
            self.dirty = True
        if self.surface != Surface.CHAT:
            self._held_field(out, "text", (index, "text"), final, f"choices[{index}].text")
        else:
            delta = out.get("delta")
            if isinstance(delta, dict):
                out["delta"] = self._delta(index, dict(delta), final)
            elif final:
                out["delta"] = self._delta(index, {}, final)
        return self._scrub_rest(out, index)

    def _delta(self, index: int, delta: dict[str, Any], final: bool) -> dict[str, Any]:
        for name in _HELD_FIELDS:
            if name in delta or (final and self._pending((index, name))):
                self._held_field(delta, name, (index, name), final, f"choices[{index}].delta.{name}")
        calls = delta.get("tool_calls")
        calls = [dict(c) if isinstance(c, dict) else c for c in calls] if isinstance(calls, list) else []
        seen = set()
        for call in calls:
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                number = call.get("index", 0)
                seen.add(number)
                function = dict(call["function"])
                place = f"choices[{index}].delta.tool_calls[{number}].function.arguments"
                self._held_field(function, "arguments", (index, f"tool:{number}"), final, place)
                call["function"] = function
        if final:  # calls with held arguments but no piece in this event still get theirs
            for (choice, key), slot in self._slots.items():
                if choice == index and isinstance(key, str) and key.startswith("tool:") and slot.held:
                    number = int(key[5:])
                    if number not in seen:
                        rest: dict[str, Any] = {}
                        place = f"choices[{index}].delta.tool_calls[{number}].function.arguments"
                        self._held_field(rest, "arguments", (index, key), True, place)
                        calls.append({"index": number, "function": rest})
        if calls:
            delta["tool_calls"] = calls
        return delta

    def _pending(self, key: tuple[int, str | int]) -> bool:
        slot = self._slots.get(key)
        return slot is not None and bool(slot.held)

    def _held_field(
        self, holder: dict[str, Any], name: str, key: tuple[int, str | int], final: bool, place: str
    ) -> None:
        value = holder.get(name)
        if isinstance(value, list):  # content parts: no hold-back across events, scanned whole
            holder[name] = self.scrub_json(value)
            return
        if value is not None and not isinstance(value, str):
            return
        slot = self._slots.setdefault(key, _Slot())
        text = slot.held + (value or "")
        if not text and value is None:
            return
        released = self._release(text, slot, final, place)
        if released != value:
            self.dirty = True
        holder[name] = released

    def _release(self, text: str, slot: _Slot, final: bool, place: str, early: bool = False) -> str:
        """What of `text` (held and new) goes out now, redacted; the rest is held.

        After a flush (`early`), the end of what it sent that could still grow
        is judged again together with the text that follows (`slot.sent`):
        the part of an entity that arrives after its start went out is redacted.
        """
        base = len(slot.sent)
        whole = slot.sent + text
        findings = self.analyze(whole) if text else ()
        grows = len(whole)  # where the text that may still grow into an entity starts
        if not final:
            grows = hold_from(whole, self.window)
            for f in findings:
                if f.end >= grows:  # may still grow: hold the whole entity
                    grows = min(grows, f.start)
        cut = len(whole) if final or early else max(base, grows)
        origin = slot.emitted - base  # the field position of whole[0]
        pieces = []
        for f in findings:
            if f.end > cut or f.end <= base:  # still held, or all in what went out before
                continue
            if not any(e == f.entity and s < origin + f.end and origin + f.start < t for e, s, t in slot.reported):
                self.found(place, Finding(f.entity, origin + f.start, origin + f.end, f.score))
            pieces.append(Finding(f.entity, max(f.start, base) - base, f.end - base, f.score))
        slot.held = whole[cut:]
        slot.emitted += cut - base
        if early:
            grows = max(grows, len(whole) - self.window)
            slot.sent = whole[grows:]
            slot.reported = [
                (f.entity, origin + f.start, origin + f.end) for f in findings if f.end > grows and f.end > base
            ] + [r for r in slot.reported if r[2] > origin + grows]
        elif cut > base or final:
            slot.sent, slot.reported = "", []
        return self.redact(text[: cut - base], tuple(pieces))

    def _scrub_rest(self, choice: dict[str, Any], index: int) -> dict[str, Any]:
        """Strings of a choice the hold-back does not cover (new or unknown fields): scanned whole."""
        held = {"delta", "text", "logprobs"}
        rest = {k: v for k, v in choice.items() if k not in held}
        clean = self.scrub_json(rest)
        if clean is not rest:
            choice.update(clean)
        delta = choice.get("delta")
        if isinstance(delta, dict):
            others = {k: v for k, v in delta.items() if k not in (*_HELD_FIELDS, "tool_calls")}
            clean_delta = self.scrub_json(others)
            if clean_delta is not others:
                delta.update(clean_delta)
        return choice

    def _flush(self) -> bytes:
        """Release everything still held, as one extra event per choice."""
        events = []
        for index in sorted({choice for choice, _ in self._slots}):
            if not any(s.held for (c, _), s in self._slots.items() if c == index):
                continue
            choice: dict[str, Any] = {"index": index, "finish_reason": None}
            if self.surface != Surface.CHAT:
                self._held_field(choice, "text", (index, "text"), True, f"choices[{index}].text")
            else:
                choice["delta"] = self._delta(index, {}, True)
            chunk = {**self._envelope, "choices": [choice]}
            events.append(b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n")
        return b"".join(events)


@dataclass
class WholeRedactor(_Guard):
    """A ResponseFilter for complete answers: every string scanned and redacted; log probabilities withheld."""

    surface: str = Surface.CHAT

    def whole(self, body: bytes) -> bytes:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return _UNREADABLE
        self.dirty = False
        try:
            answer = json.loads(text)
        except (ValueError, RecursionError):
            clean = self.scrub(text, "answer")  # not JSON: scanned as text
            return clean.encode() if self.dirty else body
        try:
            # a tool's result is all content; a chat answer's ids, roles and model names are protocol
            clean_answer = self.scrub_json(self._withhold_logprobs(answer), structural=self.surface != Surface.MCP)
        except (ValueError, RecursionError):  # nested past any real answer: refused, not passed unread
            return _UNREADABLE
        return json.dumps(clean_answer).encode() if self.dirty else body

    def _withhold_logprobs(self, answer: Any) -> Any:
        choices = answer.get("choices") if isinstance(answer, dict) else None
        if not isinstance(choices, list):
            return answer
        kept = []
        for position, choice in enumerate(choices):
            if isinstance(choice, dict) and choice.get("logprobs") is not None:
                choice = {**choice, "logprobs": None}
                self.withheld(f"choices[{position}].logprobs")
                self.dirty = True
            kept.append(choice)
        return {**answer, "choices": kept}

    def chunk(self, data: bytes) -> bytes:
        return data

    def end(self) -> bytes:
        return b""


_UNREADABLE = json.dumps(
    {"error": {"message": "the answer could not be checked for personal data", "type": "api_error",
               "param": None, "code": "output_unscannable"}}
).encode()  # fmt: skip


def answer_contents(data: bytes, streamed: bool) -> list[str]:
    """Each choice's content as a client resends it in its next turn's messages: the text of a chat answer,
    whole or joined from a stream's deltas. Whatever cannot be read gives nothing."""
    parts: dict[int, list[str]] = {}

    def take(choices: Any, field_name: str) -> None:
        for position, choice in enumerate(choices if isinstance(choices, list) else ()):
            holder = choice.get(field_name) if isinstance(choice, dict) else None
            text = holder.get("content") if isinstance(holder, dict) else None
            if isinstance(text, str) and text:
                index = choice.get("index", position)
                parts.setdefault(index if isinstance(index, int) else position, []).append(text)

    try:
        if not streamed:
            answer = json.loads(data)
            take(answer.get("choices") if isinstance(answer, dict) else None, "message")
        else:
            splitter = EventSplitter()
            for event in [*splitter.feed(data), splitter.rest()]:
                payload = sse.parse(event)[1]
                if payload is not None and payload.startswith(b"{"):
                    chunk = json.loads(payload)
                    take(chunk.get("choices") if isinstance(chunk, dict) else None, "delta")
    except (ValueError, RecursionError):
        return []
    return ["".join(pieces) for pieces in parts.values()]
