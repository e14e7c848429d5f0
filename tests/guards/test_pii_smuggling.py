"""PII written so presidio's patterns miss it: spacing, other scripts, splits, keys, encodings. Each must be refused.

Every case goes through the real proxy (chat) or the real MCP gateway with the
official SDK client, under rules that block cards, SSNs and IBANs. Ordinary
text that looks a little like them (timestamps, versions, ids, hashes, base64
of plain words) must pass untouched.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from taskgate.gateway.gateway import GATEWAY

from ..conftest import CARD, IBAN
from .conftest import PII_BLOCKING, McpGateway, Scripted, pii_config

DIGITS = CARD.replace(" ", "")
GROUPS = CARD.split()  # four groups of four digits
SSN = "536-22-1234"
RED_TEAM_SSN = "536-90-4399"  # the outside red-team pass's value; base64 NTM2LTkwLTQzOTk=


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


FULLWIDTH = {c: c + 0xFEE0 for c in range(0x21, 0x7F)}  # str.translate: ASCII to its fullwidth forms


def script(text: str, zero: str) -> str:
    """`text` with its ASCII digits written in the script whose zero is `zero`."""
    return "".join(chr(ord(zero) + int(c)) if c.isdigit() else c for c in text)


def mixed(text: str) -> str:
    """`text` with each digit in a script of its own, in turn: Devanagari, Arabic-Indic, fullwidth, ASCII."""
    zeros = "\u0966\u0660\uff100"
    out, n = "", 0
    for c in text:
        if c.isdigit():
            c, n = chr(ord(zeros[n % 4]) + int(c)), n + 1
        out += c
    return out


def user(*contents: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": c} for c in contents]}


def parts(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


def call(arguments: str) -> dict[str, Any]:
    """An earlier assistant turn that called a tool with `arguments` (a JSON string, as the API has it)."""
    function = {"name": "pay", "arguments": arguments}
    return {
        "model": "m",
        "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": function}]}],
    }


# name -> (request body, the entity type that must be named in the refusal)
CHAT_CASES: dict[str, tuple[dict[str, Any], str]] = {
    "nbsp between groups": (user("my number is " + "\u00a0".join(GROUPS)), "CREDIT_CARD"),
    "narrow nbsp and thin space": (user("card {}\u202f{}\u2009{}\u202f{}".format(*GROUPS)), "CREDIT_CARD"),
    "ideographic space": (user("card " + "\u3000".join(GROUPS)), "CREDIT_CARD"),
    "zero-width space between groups": (user("card " + "\u200b".join(GROUPS)), "CREDIT_CARD"),
    "zero-width joiner inside a group": (
        user(f"card {GROUPS[0][:2]}\u200d{GROUPS[0][2:]} {GROUPS[1]} {GROUPS[2][:2]}\u200c{GROUPS[2][2:]} {GROUPS[3]}"),
        "CREDIT_CARD",
    ),
    "soft hyphen and word joiner": (user("card {}\u00ad{}\u2060{}\ufeff{}".format(*GROUPS)), "CREDIT_CARD"),
    "spaced digits": (user("card " + " ".join(DIGITS)), "CREDIT_CARD"),
    "dotted groups": (user("card " + ".".join(GROUPS)), "CREDIT_CARD"),
    "slashed groups": (user("card " + "/".join(GROUPS)), "CREDIT_CARD"),
    "underscored groups": (user("card " + "_".join(GROUPS)), "CREDIT_CARD"),
    "spaced dashes": (user("card " + " - ".join(GROUPS)), "CREDIT_CARD"),
    "en dashes": (user("card " + "\u2013".join(GROUPS)), "CREDIT_CARD"),
    "minus signs": (user("card " + "\u2212".join(GROUPS)), "CREDIT_CARD"),
    "pairs of digits": (user("card " + " ".join(DIGITS[i : i + 2] for i in range(0, 16, 2))), "CREDIT_CARD"),
    "fullwidth digits": (user("card " + script(CARD, "\uff10")), "CREDIT_CARD"),
    "fullwidth digits, no spaces": (user("card " + script(DIGITS, "\uff10")), "CREDIT_CARD"),
    "arabic-indic digits": (user("card " + script(CARD, "\u0660")), "CREDIT_CARD"),
    "persian digits": (user("card " + script(DIGITS, "\u06f0")), "CREDIT_CARD"),
    "devanagari digits": (user("card " + script(CARD, "\u0966")), "CREDIT_CARD"),
    "bengali digits": (user("card " + script(DIGITS, "\u09e6")), "CREDIT_CARD"),
    "mathematical bold digits": (user("card " + script(DIGITS, "\U0001d7ce")), "CREDIT_CARD"),
    "mixed scripts": (user("card " + mixed(CARD)), "CREDIT_CARD"),
    "ssn, no separators, context after": (user("536221234 is my SSN"), "US_SSN"),
    "ssn, no separators, context words far before": (
        user("social security number (as you asked, for the new rental form): 536221234"),
        "US_SSN",
    ),
    "ssn in fullwidth": (user("ssn " + script(SSN, "\uff10")), "US_SSN"),
    # the four red-team encodings, none with a context word
    "ssn spaced out character by character": (user("for the form: " + " ".join(RED_TEAM_SSN)), "US_SSN"),
    "ssn joined with zero-width spaces": (user("for the form: " + "\u200b".join(RED_TEAM_SSN)), "US_SSN"),
    "ssn digits joined with zero-width joiners": (
        user("for the form: " + "\u200d".join(RED_TEAM_SSN.replace("-", ""))),
        "US_SSN",
    ),
    "ssn base64, no context word": (user("for the form: NTM2LTkwLTQzOTk="), "US_SSN"),
    "ssn hex, no context word": (user("for the form: " + RED_TEAM_SSN.encode().hex()), "US_SSN"),
    "ssn hex with 0x, no context word": (user("blob 0x" + RED_TEAM_SSN.encode().hex().upper()), "US_SSN"),
    "ssn with nbsp": (user("ssn 536\u00a022\u00a01234"), "US_SSN"),
    "lowercase iban": (user("pay to " + IBAN.replace(" ", "").lower()), "IBAN_CODE"),
    "lowercase iban in groups": (user("pay to " + IBAN.lower()), "IBAN_CODE"),
    "dotted iban": (user("pay to " + IBAN.replace(" ", ".")), "IBAN_CODE"),
    "iban with nbsp": (user("pay to " + IBAN.replace(" ", "\u00a0")), "IBAN_CODE"),
    "fullwidth iban": (user("pay to " + IBAN.replace(" ", "").translate(FULLWIDTH)), "IBAN_CODE"),
    "card split over two content parts": (
        user(parts("my card is {} {}".format(*GROUPS[:2]), " {} {} thanks".format(*GROUPS[2:]))),
        "CREDIT_CARD",
    ),
    "card split over four content parts": (user(parts(*GROUPS)), "CREDIT_CARD"),
    "card split over two messages": (
        user("my card is {} {}".format(*GROUPS[:2]), "{} {} thanks".format(*GROUPS[2:])),
        "CREDIT_CARD",
    ),
    "iban split over two messages": (user("pay " + IBAN[:14], IBAN[15:] + " today"), "IBAN_CODE"),
    "card as a metadata key": ({**user("hi"), "metadata": {CARD: "vip"}}, "CREDIT_CARD"),
    "card as a nested key": ({**user("hi"), "metadata": {"customer": {DIGITS: True}}}, "CREDIT_CARD"),
    "fullwidth card as a key": ({**user("hi"), "metadata": {script(DIGITS, "\uff10"): "x"}}, "CREDIT_CARD"),
    "base64": (user("decode this: " + b64(CARD)), "CREDIT_CARD"),
    "base64 without padding": (user("token " + b64("card " + DIGITS).rstrip("=")), "CREDIT_CARD"),
    "url-safe base64": (user("x " + base64.urlsafe_b64encode(f"~~~ {DIGITS} ~~~".encode()).decode()), "CREDIT_CARD"),
    "base64 of fullwidth digits": (user("blob " + b64(script(DIGITS, "\uff10"))), "CREDIT_CARD"),
    "base64 of dotted groups": (user("blob " + b64(".".join(GROUPS))), "CREDIT_CARD"),
    "base64 ssn with context": (user("my ssn, encoded: " + b64(SSN)), "US_SSN"),
    "base64 iban": (user("iban " + b64(IBAN.replace(" ", ""))), "IBAN_CODE"),
    "hex": (user("hex " + DIGITS.encode().hex()), "CREDIT_CARD"),
    "hex with 0x and capitals": (user("hex 0x" + CARD.encode().hex().upper()), "CREDIT_CARD"),
    "percent escapes": (user("q=" + "".join(f"%{b:02X}" for b in DIGITS.encode())), "CREDIT_CARD"),
    "backslash-x escapes": (user("s " + "".join(f"\\x{b:02x}" for b in DIGITS.encode())), "CREDIT_CARD"),
    "card in tool-call arguments, fullwidth and json-escaped": (
        call(json.dumps({"card": script(DIGITS, "\uff10")})),
        "CREDIT_CARD",
    ),
    "card in tool-call arguments, \\u-escaped ascii": (
        call('{"card": "' + "".join(f"\\u{ord(c):04x}" for c in DIGITS) + '"}'),
        "CREDIT_CARD",
    ),
    "card in a tool result, base64": (
        {"model": "m", "messages": [{"role": "tool", "tool_call_id": "c1", "content": b64(CARD)}]},
        "CREDIT_CARD",
    ),
    "card in `user`, nbsp": ({**user("hi"), "user": CARD.replace(" ", "\u00a0")}, "CREDIT_CARD"),
}


def texts_of(record: Any) -> list[str]:
    """Every string a record says, but its request id: a value could only leak as text (a timing such as
    0.2185 ms or an id with 2185 in it is not a leaked card number)."""
    if isinstance(record, dict):
        return [t for k, v in record.items() if k != "request_id" for t in (str(k), *texts_of(v))]
    if isinstance(record, list):
        return [t for v in record for t in texts_of(v)]
    return [record] if isinstance(record, str) else []


@pytest.mark.parametrize("backend", ["patterns", "ner"])
@pytest.mark.parametrize("case", list(CHAT_CASES))
async def test_an_encoded_or_split_value_is_refused_on_the_chat_surface(
    proxy: Any, scripted: tuple[Scripted, str], case: str, backend: str
) -> None:
    upstream, url = scripted
    body, entity = CHAT_CASES[case]
    client = await proxy(pii_config(url, {**PII_BLOCKING, "backend": backend}))
    resp = await client.post("/v1/chat/completions", json=body)
    text = await resp.text()
    assert resp.status == 400, text
    error = json.loads(text)["error"]
    assert error["code"] == "pii_blocked"
    assert entity in error["message"]
    assert upstream.bodies == []  # nothing was forwarded
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    said = " ".join([error["message"], *texts_of(record)])
    for value in (*GROUPS, *IBAN.split()[2:5], "22-1234", "536221234", "90-4399", "536904399", "NTM2LTkwLTQzOTk"):
        assert value not in said  # the refusal names types, never values


ORDINARY = [
    "Deployed at 2024-05-01T12:30:45.123Z (epoch 1714566645123); the next run is 2024-05-02 03:00:00.",
    "Upgrade python 3.11.4 to 3.12.1, numpy 1.26.4, and Windows build 10.0.19045.3693.",
    "Order #100045678 ships with reference 2023-000123-45 and invoice INV-20240501-0007.",
    "Fixed in a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 (short: a94a8fe), see PR 4821.",
    "Request 123e4567-e89b-12d3-a456-426614174000 and trace 550e8400e29b41d4a716446655440000 timed out.",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 is the empty digest.",
    "The payload was " + b64("hello world, this is a perfectly ordinary sentence about the weather."),
    "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsImlhdCI6MTUxNjIzOTAyMn0.SflKxwRJSMeKKF4fwpM",
    "Matrix rows: 1 0 0 1 0 1 1 0 and coordinates 52.5200, 13.4050; pi is 3.14159265358979.",
    "The lost numbers are 4 8 15 16 23 42; the sizes are 128 256 512 1024 2048.",
    "Paths like /usr/local/lib/python3.11/site-packages and words like internationalization are fine.",
    "Prices: 1.299,00 EUR, 2.499,50 EUR; totals 12,345,678 and 98 765 432.",
    "Weights in hex: 0x7f 0x80 0xff and the color #ff8800; mac 00:1A:2B:3C:4D:5E.",
    # nine digits spaced out, with no SSN context word and not in groups of 3, 2 and 4: a list of digits
    "The sudoku row reads 5 3 6 9 0 4 3 9 9 and the next one 1 0 0 1 0 1 1 0 1.",
    "Order 536 904 399 shipped; invoice 536.904.399 is paid.",
]


@pytest.mark.parametrize("backend", ["patterns", "ner"])
async def test_ordinary_text_that_looks_a_little_like_pii_passes_untouched(
    proxy: Any, scripted: tuple[Scripted, str], backend: str
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {**PII_BLOCKING, "backend": backend}))
    bodies: list[dict[str, Any]] = [user(text) for text in ORDINARY]
    bodies.append(user(*ORDINARY))  # every boundary between them, too
    bodies.append(user(parts("version 4.1", "1.1111 of the tool", "and build 1111")))
    bodies.append({**user("hi"), "metadata": {"2024-05-01": "release", "trace-id": "a94a8fe5cc", "v1.2.3": 1}})
    for body in bodies:
        resp = await client.post("/v1/chat/completions", json=body)
        assert resp.status == 200, (body, await resp.text())
        assert upstream.bodies[-1] == body  # forwarded as sent: nothing was redacted


MCP_CASES: dict[str, dict[str, str]] = {
    "fullwidth card": {"folder": script(CARD, "\uff10")},
    "base64 card": {"folder": b64(CARD)},
    "nbsp card": {"folder": CARD.replace(" ", "\u00a0")},
    "arabic-indic card": {"folder": script(DIGITS, "\u0660")},
    "hex card": {"folder": DIGITS.encode().hex()},
    "dotted card": {"folder": ".".join(GROUPS)},
    "card split over two arguments": {"folder": " ".join(GROUPS[:2]), "label": " ".join(GROUPS[2:])},
    "fullwidth card as an argument name": {script(DIGITS, "\uff10"): "inbox"},
    "lowercase iban": {"folder": IBAN.replace(" ", "").lower()},
}


@pytest.mark.parametrize("case", list(MCP_CASES))
async def test_an_encoded_or_split_value_is_refused_on_mcp_tool_arguments(mcp_gateway: McpGateway, case: str) -> None:
    async with mcp_gateway.session() as mcp:
        refused = await mcp.call_tool("mail__read", MCP_CASES[case])  # a result the model reads: isError
        assert refused.is_error
        assert refused.meta is not None
        assert refused.meta["io.taskgate/refusal"] == {"reason": "pii_blocked"}
        assert not any(g in refused.content[0].text for g in GROUPS)  # type: ignore[union-attr]
        ok = await mcp.call_tool("mail__read", {"folder": "inbox"})
    assert not ok.is_error
    assert mcp_gateway.mail.seen == [{"folder": "inbox", "label": ""}]  # only the clean call reached the tool
