"""The request side of the PII step: every field is scanned, edits survive other edits, long texts, lanes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from taskgate.gateway.gateway import GATEWAY
from taskgate.guards.body import request_texts
from taskgate.guards.presidio import entities_of
from taskgate.guards.scan import CHUNK_CHARS, Scanner, name_parts

from ..conftest import EMAIL
from .conftest import Scripted, pii_config

CALL = {"name": "s", "arguments": json.dumps({"cc": EMAIL})}  # arguments are a JSON string, as the API has them
Upstream = tuple[Scripted, str]


def ask(text: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}]}


async def test_fields_outside_message_content_are_scanned_and_redacted(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {"backend": "patterns"}))
    body = {
        "model": "m",
        "user": EMAIL,
        "metadata": {"customer": f"contact {EMAIL}"},
        "messages": [
            {"role": "user", "name": EMAIL, "content": "hello"},
            {"role": "assistant", "function_call": {"name": "send", "arguments": f'{{"to": "{EMAIL}"}}'}},
            {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": CALL}]},
            {"role": "assistant", "content": "ok", "reasoning_content": f"the user is {EMAIL}"},
        ],
        "tools": [{"type": "function", "function": {"name": "send", "description": f"mails {EMAIL}"}}],
    }  # fmt: skip
    resp = await client.post("/v1/chat/completions", json=body)
    assert resp.status == 200
    forwarded = json.dumps(upstream.bodies[-1])
    assert EMAIL not in forwarded
    assert forwarded.count("<EMAIL_ADDRESS>") == 7
    assert upstream.bodies[-1]["model"] == "m"


def test_protocol_fields_and_inline_binary_data_are_not_scanned() -> None:
    body = {
        "model": "maria@example.com",
        "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
            {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}}]},
        ],
    }
    assert list(request_texts("chat", body)) == []
    assert [p for p, _, _ in request_texts("completions", {"prompt": ["a", 5], "suffix": "b"})] == [
        ("prompt", 0),
        ("suffix",),
    ]


async def test_redaction_follows_the_text_when_another_edit_moved_it(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    _upstream, url = scripted
    client = await proxy(pii_config(url, {"backend": "patterns"}))
    step = client.app[GATEWAY].plans["chat"].steps["pii"]
    original = {"model": "m", "messages": [{"role": "user", "content": f"mail {EMAIL}"}]}
    from taskgate.dag import Inputs
    from taskgate.plugins import REQUEST, RequestContext

    context = RequestContext("1", "chat", "/v1/chat/completions", {}, json.dumps(original).encode())
    verdict = await step.run(Inputs({REQUEST: context}))
    body = dict(context.json())
    body["messages"] = [{"role": "system", "content": "be brief"}, *body["messages"]]  # an earlier edit
    assert verdict.edit_body(body)
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "mail <EMAIL_ADDRESS>"},
    ]
    assert context.json()["messages"][0]["content"] == f"mail {EMAIL}"  # the client's parsed body is untouched


def test_an_entity_across_a_chunk_cut_of_a_very_long_text_is_found() -> None:
    scanner = Scanner("patterns", ["CREDIT_CARD"], 0.4, 0)
    filler = "word " * ((CHUNK_CHARS - 12) // 5)
    text = filler + "4111 1111 1111 1111 " + "tail " * 100
    found = scanner.analyze(text)
    assert [text[f.start : f.end] for f in found] == ["4111 1111 1111 1111"]


async def test_a_small_request_does_not_wait_behind_a_large_analysis(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    _upstream, url = scripted
    budget = {"timeout_s": 1.0, "timeout_per_kchar_s": 0}  # a fixed 1 s, whatever the size
    client = await proxy(pii_config(url, {"backend": "ner", **budget, "threads": 1, "cache_entries": 0}))
    large = "The committee reviewed the proposal from the Oslo office in detail. " * 5600  # ~3 s of analysis
    big = asyncio.ensure_future(client.post("/v1/chat/completions", json=ask(large)))
    await asyncio.sleep(0.2)
    small = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    )
    assert small.status == 200  # its own lane: not queued behind the large analysis
    assert (await big).status == 503  # the large one ran out of its budget and was not forwarded


def test_ner_reads_the_runs_of_sentences_that_could_hold_a_name() -> None:
    text = "the replica went up. It is fine. Ask Priya about it. Then Dr. Raman. it works.\nok 北京 office"
    parts = [text[a:b] for a, b in name_parts(text)]
    # "It" and "The" are stop words; "Ask", "Dr", "Then"... are not; neighbours are read as one stretch
    assert parts == ["Ask Priya about it. Then Dr. Raman. ", "ok 北京 office"]
    assert name_parts("all lower case, no names here. none.") == []
    assert name_parts("") == []


def test_capitalised_scope_skips_sentences_without_a_capitalised_word_and_all_reads_them() -> None:
    text = (
        "restart the replica and tell grafana to reload. ping maria at maria@example.com. "
        "The report from Priya Raman is due."
    )

    def found(scope: str) -> list[tuple[str, str]]:
        scanner = Scanner("ner", entities_of("ner"), 0.4, 0, ner_scope=scope)  # type: ignore[arg-type]
        return [(f.entity, text[f.start : f.end]) for f in scanner.analyze(text)]

    capitalised, every = found("capitalised"), found("all")
    assert capitalised == [("EMAIL_ADDRESS", "maria@example.com"), ("PERSON", "Priya Raman")]  # patterns: every word
    assert ("PERSON", "grafana") in every  # NER's false name in a lower-case sentence, gone above
    assert any(e == "PERSON" and "maria" in v for e, v in every)  # and the price: a lower-case name, found only here
