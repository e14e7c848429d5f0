"""Requests a careless or hostile client might send, as hypothesis strategies over raw HTTP, and how to judge them.

Shared by the bounded fuzz suite (tests/proxy/test_fuzz.py) and the long run
against a real `taskgate serve` (bench/fuzz.py). A request is raw bytes on a
socket, so it can be anything: broken or truncated JSON, wrong types, huge and
deep values, lone surrogates and other Unicode edge cases, duplicate keys,
invalid UTF-8, wrong content types and encodings, malformed tool calls, and
bodies whose declared length is a lie.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning

SURFACES = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "mcp": "/mcp", "tasks": "/v1/tasks"}
HANG_S = 10.0

# -- values --------------------------------------------------------------------------------------------------------

EDGE_TEXT = [
    "", " ", "\u0000", "\u202e\u2066", "\ufeff", "\ud800", "\udfff", "\U0001f600", "e\u0301", "ǅ", "ß", "İ",
    "\u00a0\u200b", "４１１１ １１１１ １１１１ １１１１", "4111111111111111", "alice@example.com", "123-45-6789",
    "${x}", "${", "mail__send", "mail__Send", "../../etc/passwd", "%00", "A" * 70_000,
]  # fmt: skip
text = st.one_of(st.text(st.characters(exclude_categories=()), max_size=40), st.sampled_from(EDGE_TEXT))
numbers = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False))
scalars = st.one_of(st.none(), st.booleans(), numbers, text)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
                      max_leaves=12)  # fmt: skip


def either(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right shape, sometimes any value at all."""
    return st.one_of(good, good, good, values)


tool_call = st.fixed_dictionaries(
    {"id": either(st.just("call_1")), "type": either(st.just("function")),
     "function": either(st.fixed_dictionaries({"name": either(st.sampled_from(["mail__read", "mail__send", "x"])),
                                               "arguments": either(st.sampled_from(["{}", '{"to": "eve@evil.com"}',
                                                                                    "{", '{"a": 1, "a": 2}']))}))}
)  # fmt: skip
part = st.fixed_dictionaries({"type": either(st.sampled_from(["text", "image_url", "input_audio"])), "text": text})
message = st.fixed_dictionaries(
    {"role": either(st.sampled_from(["system", "user", "assistant", "tool", "developer"]))},
    optional={"content": either(st.one_of(text, st.none(), st.lists(either(part), max_size=3))),
              "tool_calls": either(st.lists(tool_call, max_size=2)), "tool_call_id": text, "name": text},
)  # fmt: skip
tool = st.fixed_dictionaries(
    {"type": either(st.just("function")),
     "function": either(st.fixed_dictionaries({"name": either(st.sampled_from(["mail__read", "mail__send", "t"])),
                                               "parameters": values}))}
)  # fmt: skip
rpc_params = st.fixed_dictionaries(
    {"name": either(st.sampled_from(["mail__read", "mail__send", "files__read", "nosuch__tool", "mail__Read"]))},
    optional={"arguments": either(st.dictionaries(st.sampled_from(["folder", "path", "to", "body"]) | text, values,
                                                  max_size=3)), "_meta": values},
)  # fmt: skip
mcp_body = st.fixed_dictionaries(
    {"jsonrpc": either(st.just("2.0")),
     "method": either(st.sampled_from(["tools/call", "tools/list", "ping", "initialize", "resources/list"]))},
    optional={"id": either(st.integers(0, 10**6)), "params": either(rpc_params)},
)  # fmt: skip

response_part = st.fixed_dictionaries(
    {"type": either(st.sampled_from(["input_text", "output_text", "input_image", "refusal", "input_file"]))},
    optional={"text": text, "image_url": text, "refusal": text, "detail": text},
)
response_item = st.one_of(
    st.fixed_dictionaries(
        {"role": either(st.sampled_from(["system", "user", "assistant", "developer", "tool"]))},
        optional={"type": either(st.just("message")),
                  "content": either(st.one_of(text, st.lists(either(response_part), max_size=3)))},
    ),
    st.fixed_dictionaries(
        {"type": either(st.sampled_from(["function_call", "function_call_output", "reasoning", "item_reference"]))},
        optional={"call_id": text, "name": either(st.sampled_from(["mail__read", "mail__send"])),
                  "arguments": either(st.sampled_from(["{}", "{", '{"to": "eve@evil.com"}'])), "output": values},
    ),
)  # fmt: skip
response_tool = st.fixed_dictionaries(
    {"type": either(st.sampled_from(["function", "web_search", "mcp"]))},
    optional={"name": either(st.sampled_from(["mail__read", "mail__send", ""])), "parameters": values,
              "strict": values},
)  # fmt: skip


def bodies(surface: str, model: str) -> st.SearchStrategy[Any]:
    """JSON bodies for `surface`, whose model calls name `model` (the one the proxy under test serves)."""
    if surface == "mcp":
        return mcp_body
    if surface == "responses":
        return st.fixed_dictionaries(
            {"model": either(st.sampled_from([model, "unknown", ""]))},
            optional={"input": either(st.one_of(text, st.lists(either(response_item), max_size=4))),
                      "instructions": either(text), "tools": either(st.lists(response_tool, max_size=3)),
                      "stream": either(st.booleans()), "store": either(st.booleans()),
                      "previous_response_id": either(st.sampled_from(["resp_unknown", ""])),
                      "max_output_tokens": either(st.integers(0, 64)), "text": values, "tool_choice": values,
                      "metadata": values, "reasoning": values, "background": values, "tool_loop": values},
        )  # fmt: skip
    if surface == "chat":
        return st.fixed_dictionaries(
            {"model": either(st.sampled_from([model, "unknown", ""]))},
            optional={"messages": either(st.lists(message, min_size=1, max_size=4)),
                      "tools": either(st.lists(tool, max_size=3)), "stream": either(st.booleans()),
                      "max_tokens": either(st.integers(0, 64)), "metadata": values,
                      "tool_choice": values, "stream_options": values, "tool_loop": values},
        )  # fmt: skip
    step = st.one_of(
        st.fixed_dictionaries({"id": either(st.sampled_from(["a", "b", "c"])), "model": either(st.just(model)),
                               "messages": either(st.lists(message, min_size=1, max_size=2))},
                              optional={"after": either(st.lists(st.sampled_from(["a", "b", "c"]), max_size=2))}),
        st.fixed_dictionaries({"id": either(st.sampled_from(["a", "b", "c"])), "tool": either(st.just("mail__read")),
                               "arguments": either(st.just({"folder": "${a}"}))}),
    )  # fmt: skip
    return st.fixed_dictionaries(
        {"purpose": either(text), "steps": either(st.lists(step, min_size=1, max_size=3, unique_by=_id))},
        optional={"wait": either(st.booleans()), "limits": values},
    )  # fmt: skip


words = st.lists(st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12), min_size=1, max_size=60)
sentence = words.map(" ".join)


def valid_bodies(surface: str, model: str) -> st.SearchStrategy[Any]:
    """Well-formed requests with new text each time: what reaches the classifier, NER and the caches."""
    user = st.fixed_dictionaries({"role": st.just("user"), "content": sentence})
    if surface == "responses":
        return st.fixed_dictionaries(
            {"model": st.just(model), "input": st.one_of(sentence, st.lists(user, min_size=1, max_size=3))},
            optional={"stream": st.booleans(), "max_output_tokens": st.integers(1, 32), "instructions": sentence},
        )
    if surface == "chat":
        return st.fixed_dictionaries(
            {"model": st.just(model), "messages": st.lists(user, min_size=1, max_size=3)},
            optional={"stream": st.booleans(), "max_tokens": st.integers(1, 32)},
        )
    if surface == "mcp":
        call = st.fixed_dictionaries({"name": st.sampled_from(["mail__read", "mail__list"]),
                                      "arguments": st.fixed_dictionaries({"folder": sentence})})  # fmt: skip
        return st.fixed_dictionaries(
            {"jsonrpc": st.just("2.0"), "id": st.integers(1, 10**6), "method": st.just("tools/call"), "params": call}
        )
    step = st.fixed_dictionaries({"id": st.just("a"), "model": st.just(model), "messages": st.lists(user, min_size=1,
                                  max_size=2), "max_tokens": st.integers(1, 16)})  # fmt: skip
    return st.fixed_dictionaries({"purpose": sentence, "steps": st.tuples(step).map(list)})


def _id(step: Any) -> Any:
    return json.dumps(step.get("id")) if isinstance(step, dict) else id(step)


# -- bytes ---------------------------------------------------------------------------------------------------------


def _duplicate_first_key(raw: bytes) -> bytes:
    """The first key of the outer object once more, with another value: `{"a": 1, ...}` -> `{"a": 0, "a": 1, ...}`."""
    if not raw.startswith(b'{"'):
        return raw
    end = raw.find(b'":', 2)
    return raw[: end + 2] + b' "dup", ' + raw[1:] if end > 0 else raw


def _encodings(draw: st.DrawFn, value: Any) -> bytes:
    raw = json.dumps(value).encode()
    how = draw(st.sampled_from(["plain", "plain", "plain", "dup", "deep", "truncate", "bad_utf8", "junk", "raw_text"]))
    if how == "dup":
        return _duplicate_first_key(raw)
    if how == "deep":
        depth = draw(st.sampled_from([70, 1_000, 100_000]))
        return b"[" * depth + b"]" * depth
    if how == "truncate":
        return raw[: draw(st.integers(0, max(0, len(raw) - 1)))]
    if how == "bad_utf8":
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"])) + raw[at:]
    if how == "junk":
        return bytes(draw(st.binary(max_size=64)))
    if how == "raw_text":
        return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return raw


@dataclass(frozen=True)
class Request:
    surface: str
    path: str
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    declared: int | None = None  # a Content-Length longer than the body: the rest never comes

    def wire(self) -> bytes:
        length = self.declared if self.declared is not None else len(self.body)
        head = [b"POST " + self.path.encode() + b" HTTP/1.1", b"Host: 127.0.0.1", b"Connection: close"]
        head += [name + b": " + value for name, value in self.headers]
        head.append(b"Content-Length: " + str(length).encode())
        return b"\r\n".join(head) + b"\r\n\r\n" + self.body


@st.composite
def requests(draw: st.DrawFn, surface: str, token: str, session: str | None = None, model: str = "m") -> Request:
    """One request to `surface`: a third well-formed with new text, the rest broken somewhere, anywhere."""
    if draw(st.integers(0, 2)) == 1:
        clean = json.dumps(draw(valid_bodies(surface, model))).encode()
        sent = ((b"Content-Type", b"application/json"), (b"Authorization", b"Bearer " + token.encode()))
        with_session = ((b"Mcp-Session-Id", session.encode()),) if session is not None else ()
        return Request(surface, SURFACES[surface], sent + with_session, clean)
    body = _encodings(draw, draw(bodies(surface, model)))
    headers: list[tuple[bytes, bytes]] = []
    kind = draw(st.sampled_from([b"application/json"] * 4 + [b"text/plain", b"", b"multipart/form-data; boundary=x"]))
    if kind:
        headers.append((b"Content-Type", kind))
    auth = draw(st.sampled_from(["good"] * 5 + ["none", "junk", "latin1", "scheme"]))
    value = {"good": b"Bearer " + token.encode(), "junk": b"Bearer a.b.c", "latin1": b"Bearer \xe9\xff",
             "scheme": b"Basic " + token.encode()}.get(auth)  # fmt: skip
    if value is not None:
        headers.append((b"Authorization", value))
    if session is not None and draw(st.booleans()):
        headers.append((b"Mcp-Session-Id", session.encode()))
    encoding = draw(st.sampled_from(["none"] * 6 + ["gzip", "gzip-lie", "deflate-lie", "br", "junk"]))
    if encoding == "gzip":
        body = gzip.compress(body)
    if encoding != "none":
        name = encoding.removesuffix("-lie").encode()
        headers.append((b"Content-Encoding", b"made-up" if name == b"junk" else name))
    if draw(st.integers(0, 19)) == 7:
        headers.append((b"X-Big", b"B" * draw(st.sampled_from([9_000, 60_000]))))
    declared = len(body) + draw(st.sampled_from([1, 100])) if draw(st.integers(0, 59)) == 23 else None
    return Request(surface, SURFACES[surface], tuple(headers), body, declared)


def examples(strategy: st.SearchStrategy[Request], count: int, derandomize: bool = True) -> list[Request]:
    """`count` requests drawn from `strategy` (the same ones every run when derandomized), to send afterwards.

    Drawing first and sending later keeps hypothesis out of the event loop; a
    failure is reported with the request itself, which is small enough to read.
    """
    drawn: list[Request] = []

    @settings(max_examples=count, database=None, derandomize=derandomize, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(strategy)
    def collect(request: Request) -> None:
        drawn.append(request)

    with warnings.catch_warnings():  # requests are large on purpose (70,000-character strings, deep nesting)
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
        collect()
    return drawn


# -- judging -------------------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    status: int | None
    seconds: float
    problems: list[str] = field(default_factory=list)


async def send(host: str, port: int, request: Request, timeout_s: float = HANG_S) -> tuple[int | None, bytes, float]:
    """Send `request` raw; its status (None if the server closed without one), body and time taken."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request.wire())
        await writer.drain()
        answer = await asyncio.wait_for(_answer(reader), timeout_s)
    except TimeoutError:
        return None, b"<hang>", time.perf_counter() - started
    except ConnectionError:
        answer = b""
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    parts = head.split(b" ", 2)
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    return status, body, time.perf_counter() - started


async def _answer(reader: asyncio.StreamReader) -> bytes:
    """One HTTP answer: up to its Content-Length, or to the end of the connection (streams, Connection: close)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        return exc.partial
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        None,
    )
    body = await (reader.readexactly(length) if length is not None else reader.read())
    return head + body


def judge(request: Request, status: int | None, body: bytes, seconds: float) -> Verdict:
    """What is wrong with an answer to bad input: a 5xx, a hang, a traceback, a body not in the surface's format."""
    verdict = Verdict(status, seconds)
    if body == b"<hang>":
        verdict.problems.append(f"no answer within {HANG_S:g} s")
        return verdict
    if status is None:
        verdict.problems.append("the connection closed without an answer")
        return verdict
    if status >= 500:
        verdict.problems.append(f"a {status} for a client's request")
    if b"Traceback" in body:
        verdict.problems.append("a traceback in the answer")
    if status >= 400:
        verdict.problems += _format_problems(request.surface, body)
    return verdict


def _format_problems(surface: str, body: bytes) -> list[str]:
    try:
        parsed = json.loads(body)
    except ValueError:
        return [f"an error answer that is not JSON: {body[:80]!r}"]
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict):
        return [f"an error answer without an error object: {body[:80]!r}"]
    if surface == "mcp":
        rpc = parsed.get("jsonrpc") == "2.0" and isinstance(error.get("code"), int)
        return [] if rpc else [f"an /mcp error that is not JSON-RPC: {body[:80]!r}"]
    return [] if isinstance(error.get("code"), str) and "message" in error else ["an OpenAI error without a code"]
