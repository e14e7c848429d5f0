"""The output guard on raw server-sent events: any chunking gives the same, redacted text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from taskgate.gateway.filters import FilterChain
from taskgate.guards.output import StreamRedactor, WholeRedactor
from taskgate.guards.pii_params import PiiParams
from taskgate.guards.scan import Finding, Scanner, redact

SCANNER = Scanner("patterns", ["EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD"], 0.4, 0)
PLACEHOLDERS: dict[str, str | None] = {
    "EMAIL_ADDRESS": "<EMAIL_ADDRESS>",
    "PHONE_NUMBER": None,
    "CREDIT_CARD": "<CARD>",
}
TEXT = "Hi! Mail ops@example.com or call 212-555-0147. Card 4111 1111 1111 1111 ends the note."
EXPECTED = "Hi! Mail <EMAIL_ADDRESS> or call ************. Card <CARD> ends the note."


def redactor(found: list[tuple[str, Finding]], surface: str = "chat", window: int = 64) -> StreamRedactor:
    return StreamRedactor(
        SCANNER.analyze,
        lambda t, f: redact(t, f, PLACEHOLDERS),
        lambda w, f: found.append((w, f)),
        lambda w: None,
        window=window,
        surface=surface,
    )


def events(pieces: list[str], surface: str = "chat", choices: int = 1) -> bytes:
    out = b""
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        for c in range(choices):
            slot: dict[str, Any] = {"index": c, "finish_reason": "stop" if last else None}
            if surface == "chat":
                slot["delta"] = {"content": piece}
            else:
                slot["text"] = piece
            out += b"data: " + json.dumps({"id": "x", "choices": [slot]}).encode() + b"\n\n"
    return out + b"data: [DONE]\n\n"


def text_of(stream: bytes, surface: str = "chat", choice: int = 0) -> str:
    text = ""
    for block in stream.split(b"\n\n"):
        if not block.startswith(b"data: {"):
            continue
        for slot in json.loads(block[6:])["choices"]:
            if slot["index"] == choice:
                text += (slot.get("delta", {}).get("content") if surface == "chat" else slot.get("text")) or ""
    return text


def delta(text: str) -> bytes:
    """One unfinished chat event carrying `text`."""
    slot = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    return b"data: " + json.dumps({"id": "x", "choices": [slot]}).encode() + b"\n\n"


def run(stream: bytes, cuts: list[int], guard: StreamRedactor) -> bytes:
    out, last = b"", 0
    for cut in [*cuts, len(stream)]:
        out += guard.chunk(stream[last:cut])
        last = cut
    return out + guard.end()


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 13])
def test_any_split_of_the_text_into_tokens_gives_the_same_redacted_answer(size: int) -> None:
    pieces = [TEXT[i : i + size] for i in range(0, len(TEXT), size)]
    found: list[tuple[str, Finding]] = []
    out = run(events(pieces), [], redactor(found))
    assert text_of(out) == EXPECTED
    assert sorted(f.entity for _, f in found) == ["CREDIT_CARD", "EMAIL_ADDRESS", "PHONE_NUMBER"]
    email = next(f for _, f in found if f.entity == "EMAIL_ADDRESS")
    assert TEXT[email.start : email.end] == "ops@example.com"  # positions are in the whole answer


def test_events_split_at_every_byte_still_parse_and_redact() -> None:
    stream = events([TEXT[i : i + 5] for i in range(0, len(TEXT), 5)])
    for step in (1, 17, 64):
        assert text_of(run(stream, list(range(step, len(stream), step)), redactor([]))) == EXPECTED


def test_completions_and_several_choices_are_guarded_each_on_their_own() -> None:
    pieces = [TEXT[i : i + 6] for i in range(0, len(TEXT), 6)]
    out = run(events(pieces, "completions", choices=2), [], redactor([], "completions"))
    assert text_of(out, "completions", 0) == EXPECTED
    assert text_of(out, "completions", 1) == EXPECTED


def test_prose_is_held_only_to_the_end_of_its_word_and_never_past_the_window() -> None:
    guard = redactor([], window=16)
    first = guard.chunk(events(["The answer is forty"])[: -len(b"data: [DONE]\n\n")])
    assert text_of(first) == "The answer is forty"  # a final chunk releases everything
    guard = redactor([], window=16)
    head = (
        b'data: {"id":"x","choices":[{"index":0,"delta":{"content":"The answer is forty"},"finish_reason":null}]}\n\n'
    )
    assert text_of(guard.chunk(head)) == "The answer is "
    long_word = (
        b'data: {"id":"x","choices":[{"index":0,"delta":{"content":"' + b"a" * 40 + b'"},"finish_reason":null}]}\n\n'
    )
    assert len(text_of(guard.chunk(long_word))) >= len("forty") + 40 - 16  # bounded hold-back


def test_what_is_held_when_the_stream_ends_without_a_finish_is_flushed_redacted() -> None:
    guard = redactor([])
    out = guard.chunk(delta("write to ops@exam")) + guard.chunk(delta("ple.com")) + guard.end()
    assert text_of(out) == "write to <EMAIL_ADDRESS>"


def test_other_events_pass_through_untouched() -> None:
    guard = redactor([])
    passthrough = b": keep-alive\n\n" + b'data: {"id":"x","choices":[],"usage":{"prompt_tokens":3}}\n\n'
    assert guard.chunk(passthrough) == passthrough
    assert guard.chunk(b"data: not json\n\n") == b"data: not json\n\n"


def test_whole_answers_are_redacted_and_unchanged_answers_keep_their_bytes() -> None:
    found: list[tuple[str, Finding]] = []
    whole = WholeRedactor(
        SCANNER.analyze, lambda t, f: redact(t, f, PLACEHOLDERS), lambda w, f: found.append((w, f)), lambda w: None
    )
    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": TEXT}}]}).encode()
    assert json.loads(whole.whole(body))["choices"][0]["message"]["content"] == EXPECTED
    assert found[0][0] == "choices[0].message.content"
    clean = b'{"choices": [{"index": 0, "message": {"content": "nothing here"}}]}'
    assert whole.whole(clean) is clean


def raw_event(choice: dict[str, Any], prefix: bytes = b"") -> bytes:
    return prefix + b"data: " + json.dumps({"id": "x", "choices": [choice]}).encode() + b"\n\n"


def test_streamed_tool_call_arguments_reasoning_and_refusals_are_redacted_across_events() -> None:
    guard = redactor([])
    parts = [
        {"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "send"}}]}},
        {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"to": "ops@ex'}}]}},
        {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'ample.com"}'}}]}},
        {"index": 0, "delta": {"reasoning_content": "they wrote from ann@exa"}},
        {"index": 0, "delta": {"reasoning_content": "mple.org yesterday", "refusal": "no: 212-555-0147"}},
        {"index": 0, "delta": {}, "finish_reason": "tool_calls"},
    ]  # fmt: skip
    out = b"".join(guard.chunk(raw_event(p)) for p in parts) + guard.end()
    arguments = reasoning = refusal = ""
    for block in out.split(b"\n\n"):
        if block.startswith(b"data: {"):
            delta = json.loads(block[6:])["choices"][0].get("delta", {})
            for call in delta.get("tool_calls", []):
                arguments += call["function"].get("arguments") or ""
            reasoning += delta.get("reasoning_content") or ""
            refusal += delta.get("refusal") or ""
    assert json.loads(arguments) == {"to": "<EMAIL_ADDRESS>"}
    assert reasoning == "they wrote from <EMAIL_ADDRESS> yesterday"
    assert refusal == "no: ************"
    assert b"@ex" not in out


def test_log_probabilities_are_withheld_because_they_repeat_the_text_token_by_token() -> None:
    withheld: list[str] = []
    guard = StreamRedactor(SCANNER.analyze, lambda t, f: redact(t, f, PLACEHOLDERS), lambda w, f: None, withheld.append)
    choice = {"index": 0, "delta": {"content": "hi "}, "logprobs": {"content": [{"token": "ops@example.com"}]}}
    out = guard.chunk(raw_event(choice))
    assert b"ops@example.com" not in out
    assert withheld == ["choices[0].logprobs"]


@pytest.mark.parametrize(
    "framing",
    [
        b"id: 7\nevent: message\ndata: %s\n\n",  # extra fields
        b"data: %s\r\n\r\n",  # CRLF
        b"data: %s\r\r",  # bare CR
        b"\xef\xbb\xbfdata: %s\n\n",  # a byte-order mark
        b"data: %s",  # the last event without its blank line
    ],
)
def test_unusual_framing_is_still_parsed_and_redacted(framing: bytes) -> None:
    chunk = json.dumps({"id": "x", "choices": [{"index": 0, "delta": {"content": TEXT}, "finish_reason": "stop"}]})
    guard = redactor([])
    out = guard.chunk(framing % chunk.encode()) + guard.end()
    assert b"ops@example.com" not in out
    assert b"<EMAIL_ADDRESS>" in out


def test_data_that_is_not_json_or_spans_lines_is_scanned_as_text() -> None:
    guard = redactor([])
    assert guard.chunk(b"data: write to ops@example.com\n\n") == b"data: write to <EMAIL_ADDRESS>\n\n"
    split = (
        b'data: {"id":"x","choices":[{"index":0,\n'
        b'data: "delta":{"content":"ops@example.com"},"finish_reason":"stop"}]}\n\n'
    )
    assert b"ops@example.com" not in guard.chunk(split)


@pytest.mark.parametrize(
    "number",
    ["212\u2013555\u20130147", "212\u00a0555\u00a00147", "+44 20 7946 0958", "4111-1111-1111-1111"],
)
def test_numbers_written_with_unicode_separators_are_held_whole_at_every_split(number: str) -> None:
    text = f"call {number} now"
    entity = SCANNER.analyze(text)
    assert entity, number
    for cut in range(1, len(text)):
        out = run(events([text[:cut], text[cut:]]), [], redactor([]))
        assert number not in text_of(out), (number, cut)
        assert number[:7] not in text_of(out), (number, cut)


def test_a_whole_answer_that_is_not_json_is_scanned_as_text_and_tool_arguments_are_redacted() -> None:
    found: list[tuple[str, Finding]] = []
    whole = WholeRedactor(
        SCANNER.analyze, lambda t, f: redact(t, f, PLACEHOLDERS), lambda w, f: found.append((w, f)), lambda w: None
    )
    assert whole.whole(b"data: mail ops@example.com\n\n") == b"data: mail <EMAIL_ADDRESS>\n\n"
    call = {"id": "c", "type": "function", "function": {"name": "send", "arguments": '{"to": "ops@example.com"}'}}
    message = {"role": "assistant", "content": None, "tool_calls": [call], "refusal": "not 212-555-0147"}
    answer = json.loads(whole.whole(json.dumps({"choices": [{"index": 0, "message": message}]}).encode()))
    got = answer["choices"][0]["message"]
    assert json.loads(got["tool_calls"][0]["function"]["arguments"]) == {"to": "<EMAIL_ADDRESS>"}
    assert got["refusal"] == "not ************"
    assert whole.whole(b"\xff\xfe") != b"\xff\xfe"  # unreadable: refused, not passed unread


def spans() -> list[tuple[int, int]]:
    return [(f.start, f.end) for f in SCANNER.analyze(TEXT)]


@pytest.mark.parametrize(("surface", "tail"), [("chat", False), ("chat", True), ("completions", False)])
def test_a_flush_between_any_two_pieces_never_lets_a_value_through_whole(surface: str, tail: bool) -> None:
    entities = spans()
    assert len(entities) == 3
    for cut in range(1, len(TEXT)):
        found: list[tuple[str, Finding]] = []
        guard = redactor(found, surface)
        stream = events([TEXT[:cut], TEXT[cut:], *([""] if tail else [])], surface)  # tail: the rest is not final
        first = stream.index(b"\n\n") + 2
        out = guard.chunk(stream[:first]) + guard.flush() + guard.chunk(stream[first:]) + guard.end()
        text = text_of(out, surface)
        for start, end in entities:
            assert TEXT[start:end] not in text, (cut, text)  # whole before the flush, after it, or across it
        if not any(start < cut < end for start, end in entities):
            assert text == EXPECTED, (cut, text)  # nothing lost or repeated
        assert {f.entity for _, f in found} == {"CREDIT_CARD", "EMAIL_ADDRESS", "PHONE_NUMBER"}, cut


def test_a_flush_releases_held_prose_and_complete_values_redacted_and_judges_the_rest_with_what_follows() -> None:
    found: list[tuple[str, Finding]] = []
    guard = redactor(found)
    assert text_of(guard.chunk(delta("Hello"))) == ""  # the word being written is held
    assert text_of(guard.flush()) == "Hello"  # the next chunk is late: it goes out as it stands
    assert guard.flush() == b""  # nothing held, nothing sent
    assert text_of(guard.chunk(delta(" mail ops@example.com"))) == " mail "
    assert text_of(guard.flush()) == "<EMAIL_ADDRESS>"  # complete in what was held: redacted
    assert text_of(guard.chunk(delta(", call 212-555-"))) == ", call "
    assert text_of(guard.flush()) == "212-555-"  # not a number yet: it went out
    out = guard.chunk(delta("0147 now")) + guard.end()
    assert text_of(out) == "**** now"  # the rest of the number, judged with its start, is redacted
    assert [f.entity for _, f in found] == ["EMAIL_ADDRESS", "PHONE_NUMBER"]
    text = "Hello mail ops@example.com, call 212-555-0147 now"
    assert [text[f.start : f.end] for _, f in found] == ["ops@example.com", "212-555-0147"]


def test_a_value_that_grows_after_its_flush_is_redacted_again_but_counted_once() -> None:
    found: list[tuple[str, Finding]] = []
    guard = redactor(found)
    out = guard.chunk(delta("write to ops@example.co")) + guard.flush() + guard.chunk(delta("m today")) + guard.end()
    assert text_of(out) == "write to <EMAIL_ADDRESS><EMAIL_ADDRESS> today"
    assert [f.entity for _, f in found] == ["EMAIL_ADDRESS"]


def test_tool_call_arguments_are_not_flushed_early() -> None:
    guard = redactor([])
    piece = {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"to": "ops@ex'}}]}}
    guard.chunk(raw_event(piece))
    assert guard.flush() == b""  # a client runs the call once its arguments are whole: they wait for the rest
    rest = {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'ample.com"}'}}]}}
    out = guard.chunk(raw_event({**rest, "finish_reason": "tool_calls"})) + guard.end()
    assert b"ops@ex" not in out
    assert b"<EMAIL_ADDRESS>" in out


class Upper:
    """A third-party filter with no flush: it upper-cases what passes and holds nothing."""

    def whole(self, body: bytes) -> bytes:
        return body.upper()

    def chunk(self, data: bytes) -> bytes:
        return data.upper()

    def end(self) -> bytes:
        return b""


def test_the_chain_flushes_filters_that_can_and_leaves_the_others_as_they_were() -> None:
    assert FilterChain([Upper()]).flush_after_s is None  # nothing to flush: the relay waits as before
    chain = FilterChain([redactor([]), Upper()])
    assert chain.flush_after_s == 0.05
    assert chain.chunk(delta("Hello")) != b""
    assert b'"CONTENT":"HELLO"' in chain.flush()  # what the guard releases passes the filters after it
    assert chain.flush() == b""
    patient = redactor([])
    patient.flush_after_s = None  # its operator chose to hold until the next chunk
    assert FilterChain([patient]).flush_after_s is None


def test_the_flush_deadline_is_short_or_off() -> None:
    assert PiiParams.model_validate({"backend": "patterns"}).output.flush_after_s == 0.05
    assert (
        PiiParams.model_validate({"backend": "patterns", "output": {"flush_after_s": None}}).output.flush_after_s
        is None
    )
    for bad in (0, -1, 1.5):
        with pytest.raises(ValidationError):
            PiiParams.model_validate({"backend": "patterns", "output": {"flush_after_s": bad}})
