"""The PII step through the proxy: redaction on the way up, on the way back, and refusals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml

from taskgate.gateway.gateway import GATEWAY

from ..conftest import CARD, EMAIL, PHONE
from .conftest import PII_PROMPT, Scripted, pii_config

RULES = {
    "EMAIL_ADDRESS": {"action": "redact"},
    "PHONE_NUMBER": {"action": "redact", "style": "mask"},
    "CREDIT_CARD": {"action": "redact"},
    "PERSON": {"action": "redact"},
}


def record(client: Any, request_id: str) -> dict[str, Any]:
    found = client.app[GATEWAY].evidence.find(request_id)
    assert found is not None
    return dict(found)


async def test_prompt_reaches_the_upstream_redacted_and_the_streamed_answer_is_redacted_across_chunks(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    # the address is split over three events: "...write to jane.d" | "oe@fast" | "mail.com, or ..."
    upstream.pieces = ["Sure. I will write to jane.d", "oe@fast", "mail.com, or ask", " Maria. Done."]
    client = await proxy(pii_config(url, {"entities": RULES}))
    sdk = openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="unused")
    stream = await sdk.chat.completions.create(
        model="m", messages=[{"role": "user", "content": PII_PROMPT}], stream=True
    )
    deltas = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
    await sdk.close()

    sent = upstream.bodies[-1]["messages"][0]["content"]
    assert EMAIL not in sent
    assert "<EMAIL_ADDRESS>" in sent
    assert PHONE not in sent
    assert "*" * len(PHONE) in sent
    assert CARD not in sent
    assert "<CREDIT_CARD>" in sent
    assert "Maria Gonzalez" not in sent
    assert "<PERSON>" in sent
    assert "renewal" in sent  # the rest of the text is untouched

    answer = "".join(deltas)
    assert answer == "Sure. I will write to <EMAIL_ADDRESS>, or ask Maria. Done."
    assert not any("@" in d for d in deltas)
    assert deltas[0] == "Sure. I will write to "  # prose before the address was not held back


async def test_the_evidence_has_types_counts_positions_and_actions_but_never_values(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    upstream.pieces = ["Reach me at bob@friendsmail.com."]
    client = await proxy(pii_config(url, {"entities": RULES}))
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": PII_PROMPT}]}
    )
    assert resp.status == 200
    answer = await resp.json()
    assert answer["choices"][0]["message"]["content"] == "Reach me at <EMAIL_ADDRESS>."
    rec = record(client, resp.headers["x-taskgate-request-id"])
    pii = rec["decisions"]["pii"]
    assert pii["counts"] == {"PERSON": 1, "EMAIL_ADDRESS": 1, "PHONE_NUMBER": 1, "CREDIT_CARD": 1}
    email = next(f for f in pii["findings"] if f["entity"] == "EMAIL_ADDRESS")
    assert email["where"] == "messages[0].content"
    assert email["kind"] == "prompt"
    assert email["action"] == "redact"
    assert PII_PROMPT[email["start"] : email["end"]] == EMAIL
    assert pii["output"]["counts"] == {"EMAIL_ADDRESS": 1}
    text = json.dumps(rec)
    for value in (EMAIL, PHONE, CARD, "Maria Gonzalez", "bob@friendsmail"):
        assert value not in text
    metrics = (await (await client.get("/metrics")).read()).decode()
    assert 'taskgate_pii_findings_total{action="redact",direction="input",entity="CREDIT_CARD"} 1.0' in metrics
    assert 'taskgate_pii_findings_total{action="redact",direction="output",entity="EMAIL_ADDRESS"} 1.0' in metrics


async def test_a_blocked_entity_is_refused_by_type_and_nothing_is_forwarded(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {"entities": {**RULES, "CREDIT_CARD": {"action": "block"}}}))
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": PII_PROMPT}]}
    )
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert error["code"] == "pii_blocked"
    assert "CREDIT_CARD" in error["message"]
    assert CARD[:4] not in error["message"]
    assert upstream.bodies == []
    rec = record(client, resp.headers["x-taskgate-request-id"])
    assert rec["error"]["step"] == "pii"
    assert rec["error"]["pii"]["counts"]["CREDIT_CARD"] == 1


async def test_tool_call_arguments_and_tool_results_are_scanned(proxy: Any, scripted: tuple[Scripted, str]) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {"entities": RULES}))
    call = {"id": "c1", "type": "function", "function": {"name": "send", "arguments": '{"to": "ann@corp.acme.io"}'}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Send the report."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": [{"type": "text", "text": "sent; reply from lee@corp.acme.io"}],
        },
    ]
    resp = await client.post("/v1/chat/completions", json={"model": "m", "messages": messages})
    assert resp.status == 200
    sent = upstream.bodies[-1]["messages"]
    assert json.loads(sent[1]["tool_calls"][0]["function"]["arguments"]) == {"to": "<EMAIL_ADDRESS>"}
    assert sent[2]["content"][0]["text"] == "sent; reply from <EMAIL_ADDRESS>"
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == '{"to": "ann@corp.acme.io"}'
    kinds = {f["kind"] for f in record(client, resp.headers["x-taskgate-request-id"])["decisions"]["pii"]["findings"]}
    assert kinds == {"tool_call", "tool_result"}


async def test_a_clean_request_is_forwarded_byte_for_byte(proxy: Any, scripted: tuple[Scripted, str]) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url))
    raw = b'{"model": "m",   "messages": [{"role": "user", "content": "What is a KV cache?"}]}'
    resp = await client.post("/v1/chat/completions", data=raw, headers={"Content-Type": "application/json"})
    assert resp.status == 200
    assert upstream.bodies[-1] == json.loads(raw)


@pytest.mark.parametrize("mode", ["block", "hold"])
async def test_an_analyzer_that_cannot_decide_blocks_the_request_with_evidence(
    proxy: Any, scripted: tuple[Scripted, str], mode: str
) -> None:
    upstream, url = scripted
    # a real analysis that cannot finish in its budget: 60 kB of text against 1 ms
    budget = {"timeout_s": 0.001, "timeout_per_kchar_s": 0, "max_timeout_s": 0.001}
    client = await proxy(pii_config(url, {**budget, "on_failure": mode}))
    long = "The quarterly report lists many figures and names. " * 1200
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": long}]}
    )
    assert resp.status == 503
    error = (await resp.json())["error"]
    assert error["code"] == ("pii_unavailable" if mode == "block" else "pii_held")
    assert resp.headers["Retry-After"] == "5"
    assert upstream.bodies == []
    rec = record(client, resp.headers["x-taskgate-request-id"])
    assert rec["error"]["step"] == "pii"
    assert "61,200 characters of new text need more than their 0.001 s analysis budget" in rec["error"]["reason"]


async def test_a_100000_character_prompt_passes_under_the_example_config(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    example = yaml.safe_load((Path(__file__).parents[2] / "examples" / "taskgate.yaml").read_text())
    step = next(s for s in example["steps"] if s["type"] == "guards.pii")
    client = await proxy(pii_config(url, step["params"], **{k: v for k, v in step.items() if k == "timeout"}))
    words = [
        "the",
        "cluster",
        "replica",
        "latency",
        "engine",
        "cache",
        "token",
        "prefix",
        "routing",
        "budget",
        "review",
        "results",
    ]
    sentences = [" ".join(words[(i + j) % len(words)] for j in range(12)).capitalize() + ". " for i in range(2000)]
    text = "".join(sentences)
    document = text[:50_000] + " Send it to jane.doe@acme.io today. " + text[:50_000]
    assert len(document) > 100_000
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": document}]}
    )
    assert resp.status == 200, await resp.text()
    sent = upstream.bodies[-1]["messages"][0]["content"]
    assert "jane.doe@acme.io" not in sent
    assert "<EMAIL_ADDRESS>" in sent


async def test_a_text_over_its_budget_is_refused_saying_why_and_a_retry_fares_the_same(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    budget = {"timeout_s": 0.1, "timeout_per_kchar_s": 0.002, "max_timeout_s": 5, "names": "ner"}  # NER everywhere
    client = await proxy(pii_config(url, budget))
    long = "The quarterly report lists many figures from Oslo. " * 1200  # 61,200 characters, about 3 s of NER
    body = {"model": "m", "messages": [{"role": "user", "content": long}]}
    first = await client.post("/v1/chat/completions", json=body)
    await asyncio.sleep(4)  # long enough for the first analysis to have finished, had it gone on in the background
    second = await client.post("/v1/chat/completions", json=body)
    for resp in (first, second):
        assert resp.status == 503, [first.status, second.status]
        assert resp.headers["Retry-After"] == "5"
        message = (await resp.json())["error"]["message"]
        assert "61,200 characters of new text need more than their 0.2224 s analysis budget" in message
        assert "raise the guards.pii step's timeout_per_kchar_s or max_timeout_s" in message
    assert upstream.bodies == []


async def test_an_analyzer_error_blocks_the_request(proxy: Any, scripted: tuple[Scripted, str]) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url))
    step = client.app[GATEWAY].plans["chat"].steps["pii"]

    def broken(text: str, *_: Any) -> Any:
        raise RuntimeError("model weights unreadable")

    step.scanner.analyze = broken  # the analyzer itself fails: no verdict is possible
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hello there"}]}
    )
    assert resp.status == 503
    assert (await resp.json())["error"]["code"] == "pii_unavailable"
    assert upstream.bodies == []
    rec = record(client, resp.headers["x-taskgate-request-id"])
    assert "model weights unreadable" in rec["error"]["reason"]
    assert [s["outcome"] for s in rec["steps"] if s["step"] == "pii"] == ["halted"]


async def test_terms_the_operator_allows_are_not_taken_for_people(proxy: Any, scripted: tuple[Scripted, str]) -> None:
    upstream, url = scripted
    prompt = "Restart Grafana and Django after the deploy, then ask Maria Garcia to check the dashboards."
    body = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    rules = {
        "PERSON": {"action": "redact"},
        "EMAIL_ADDRESS": {"action": "redact", "allow_patterns": [r"[^@]+@ourco\.com"]},
    }
    plain = await proxy(pii_config(url, {"entities": rules}))
    assert (await plain.post("/v1/chat/completions", json=body)).status == 200
    assert "<PERSON>" in upstream.bodies[-1]["messages"][0]["content"]  # Maria Garcia is a person
    assert "Grafana" in upstream.bodies[-1]["messages"][0]["content"]  # a product, even without the allow list
    tuned = await proxy(pii_config(url, {"entities": rules, "allow": ["grafana", "Django"]}))
    mail = {"role": "user", "content": "Write to maria@ourco.com and jane@elsewhere.com."}
    resp = await tuned.post("/v1/chat/completions", json={**body, "messages": [body["messages"][0], mail]})
    assert resp.status == 200
    sent = [m["content"] for m in upstream.bodies[-1]["messages"]]
    assert sent[0] == "Restart Grafana and Django after the deploy, then ask <PERSON> to check the dashboards."
    assert sent[1] == "Write to maria@ourco.com and <EMAIL_ADDRESS>."


ANSWER = (
    "The vendor confirmed the delivery window for next week. Dana Whitfield, their account manager, answers "
    "within a day; the invoice total matches the purchase order, so no change is needed before the audit."
)


async def learned_chars(client: Any) -> float:
    text = await (await client.get("/metrics")).text()
    series = 'taskgate_pii_scanned_chars_total{source="answers"}'
    line = next((x for x in text.splitlines() if x.startswith(series)), "")
    return float(line.split()[-1]) if line else 0.0


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("learn", [True, False])
async def test_a_sent_answer_is_analysed_ahead_so_the_turn_that_resends_it_pays_only_for_its_new_text(
    proxy: Any, scripted: tuple[Scripted, str], stream: bool, learn: bool
) -> None:
    upstream, url = scripted
    long = " ".join([ANSWER] * (1 if stream else 30))  # whole: long enough to be under analysis when turn 2 comes
    upstream.pieces = [long[:40], long[40:120], long[120:]]
    client = await proxy(pii_config(url, {"entities": RULES, "learn_answers": learn}))
    sdk = openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="unused")
    first: list[Any] = [{"role": "user", "content": "Where do we stand with the vendor?"}]
    if stream:
        chunks = await sdk.chat.completions.create(model="m", messages=first, stream=True)
        answer = "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
    else:
        whole = await sdk.chat.completions.create(model="m", messages=first)
        answer = whole.choices[0].message.content or ""
    assert answer == long  # no pattern entity in it: passed as sent
    if stream and learn:  # the other cases send the next turn at once: it meets the analysis under way, or none
        for _ in range(100):
            if await learned_chars(client) >= len(ANSWER):
                break
            await asyncio.sleep(0.05)
        assert await learned_chars(client) == len(ANSWER)
    follow = "Then ask them to send the signed copy."
    turn = [*first, {"role": "assistant", "content": answer}, {"role": "user", "content": follow}]
    resp = await sdk.chat.completions.with_raw_response.create(model="m", messages=turn)
    await sdk.close()
    pii = record(client, resp.headers["x-taskgate-request-id"])["decisions"]["pii"]
    assert pii["analysed_chars"] == len(follow) + (0 if learn else len(long))
    assert pii["cached_chars"] == len(first[0]["content"]) + (len(long) if learn else 0)
    assert pii["counts"] == {"PERSON": 1 if stream else 30}  # the names in the answer, as the analysis ahead found
    assert "<PERSON>" in upstream.bodies[-1]["messages"][1]["content"]
