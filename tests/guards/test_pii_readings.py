"""Normalised readings map back to the original: redaction replaces exactly what the client wrote."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from taskgate.gateway.gateway import GATEWAY
from taskgate.guards.normalize import normalize
from taskgate.guards.scan import Scanner
from taskgate.guards.views import Decoding, decoded

from ..conftest import CARD, IBAN
from .conftest import PII_BLOCKING, Scripted, pii_config
from .test_pii_smuggling import FULLWIDTH, GROUPS

REDACT = {
    "entities": {
        "CREDIT_CARD": {"action": "redact"},
        "EMAIL_ADDRESS": {"action": "redact"},
        "IBAN_CODE": {"action": "redact", "style": "mask"},
    }
}


def user(*contents: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": c} for c in contents]}


@pytest.mark.parametrize(
    ("sent", "forwarded"),
    [
        ("pay " + "\u00a0".join(GROUPS) + " now", "pay <CREDIT_CARD> now"),
        ("mail ja\u200bne@fast\u200dmail.com today", "mail <EMAIL_ADDRESS> today"),
        ("card " + CARD.translate(FULLWIDTH) + "!", "card <CREDIT_CARD>!"),
        ("dotted " + ".".join(GROUPS) + ".", "dotted <CREDIT_CARD>."),
        ("iban " + IBAN.translate(FULLWIDTH) + " ok", "iban " + "*" * len(IBAN) + " ok"),
        ("iban " + IBAN.lower().replace(" ", ".") + " ok", "iban " + "*" * len(IBAN) + " ok"),
        ('{"to": "\\u006a\\u0061ne@fastmail.com"}', '{"to": "<EMAIL_ADDRESS>"}'),
        ("caf\u00e9 \u00e0 " + "\u2013".join(GROUPS) + " merci", "caf\u00e9 \u00e0 <CREDIT_CARD> merci"),
    ],
)
async def test_a_redaction_replaces_exactly_the_characters_the_client_wrote(
    proxy: Any, scripted: tuple[Scripted, str], sent: str, forwarded: str
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {**REDACT, "backend": "patterns"}))
    resp = await client.post("/v1/chat/completions", json=user(sent))
    assert resp.status == 200, await resp.text()
    assert upstream.bodies[-1]["messages"][0]["content"] == forwarded


async def test_a_value_split_over_two_texts_is_redacted_piece_by_piece(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {**REDACT, "backend": "patterns"}))
    first, second = " ".join(GROUPS[:2]), " ".join(GROUPS[2:])
    parts = [{"type": "text", "text": f"my card is {first}"}, {"type": "text", "text": f" {second} thanks"}]
    resp = await client.post("/v1/chat/completions", json=user(parts, "write to jane.d", "oe@fastmail.com please"))
    assert resp.status == 200, await resp.text()
    sent = upstream.bodies[-1]["messages"]
    # the space between the groups belongs to the card, so it goes with the second piece
    assert [p["text"] for p in sent[0]["content"]] == ["my card is <CREDIT_CARD>", "<CREDIT_CARD> thanks"]
    assert [m["content"] for m in sent[1:]] == ["write to <EMAIL_ADDRESS>", "<EMAIL_ADDRESS> please"]
    pii = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])["decisions"]["pii"]
    assert pii["counts"] == {"CREDIT_CARD": 1, "EMAIL_ADDRESS": 1}  # one value each, in two pieces
    assert {f["via"] for f in pii["findings"]} == {"joined"}


async def test_a_key_carrying_personal_data_is_refused_and_never_printed(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {**REDACT, "backend": "patterns"}))
    body = {**user("hi"), "metadata": {"jane@fastmail.com": {"note": "call bob@friendsmail.com"}}}
    resp = await client.post("/v1/chat/completions", json=body)
    assert resp.status == 400  # a key cannot be redacted in place, so redact refuses it
    error = (await resp.json())["error"]
    assert error["code"] == "pii_blocked"
    assert "EMAIL_ADDRESS in metadata" in error["message"]
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    findings = record["error"]["pii"]["findings"]
    assert {(f["where"], f["kind"]) for f in findings} == {("metadata", "key"), ("metadata.<key>.note", "field")}
    assert "jane" not in json.dumps(record) + error["message"]
    assert upstream.bodies == []


async def test_decoding_can_be_turned_off_and_reads_only_for_blocked_types(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    card = base64.b64encode(CARD.encode()).decode()
    email = base64.b64encode(b"jane@fastmail.com").decode()
    off = await proxy(pii_config(url, {**PII_BLOCKING, "backend": "patterns", "decode": {"enabled": False}}))
    assert (await off.post("/v1/chat/completions", json=user(f"blob {card}"))).status == 200
    on = await proxy(pii_config(url, {**PII_BLOCKING, "backend": "patterns"}))
    assert (await on.post("/v1/chat/completions", json=user(f"blob {card}"))).status == 400
    resp = await on.post("/v1/chat/completions", json=user(f"blob {email}"))  # EMAIL_ADDRESS is redact
    assert resp.status == 200
    assert upstream.bodies[-1]["messages"][0]["content"] == f"blob {email}"


def test_plain_ascii_takes_the_fast_path_unmapped() -> None:
    text = "an ordinary ASCII sentence with 4111 1111 in it"
    plain = normalize(text)
    assert plain.text is text
    assert plain.starts is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x ４１１１\u00a0１１１１ y", "４１１１\u00a0１１１１"),
        ("x 41\u200b11\u200d1111 y", "41\u200b11\u200d1111"),
        ("x \ufb01ne 4\u0661\u0967\uff11 y", "4\u0661\u0967\uff11"),
        ("x \\u0034\\u0031\\u0031\\u0031 y", "\\u0034\\u0031\\u0031\\u0031"),
    ],
)
def test_a_span_in_the_normalised_text_maps_back_to_the_original_characters(text: str, value: str) -> None:
    plain = normalize(text)
    digits = plain.text.index("4")
    start, end = plain.span(digits, plain.text.index(" y"))
    assert text[start:end] == value


def test_decoding_stops_at_its_bounds() -> None:
    card = base64.b64encode(b"4111111111111111").decode()
    scanner = Scanner("patterns", ["CREDIT_CARD"], 0.4, 0, Decoding(("CREDIT_CARD",), 1, 1000))
    found = scanner.analyze(f"first {card} second {card}")
    assert [(f.start, f.via) for f in found] == [(6, "base64")]  # the second run is past max_runs
    huge = "QUJD" * 250_000  # a megabyte of base64 (of "ABC...")
    view = decoded(normalize(huge), Decoding(("CREDIT_CARD",), 32, 1000))
    assert view is not None
    assert len(view[0].text) == 750  # only max_chars of the run were decoded
