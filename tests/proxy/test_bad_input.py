"""Bad input on every surface is a 4xx in the surface's own error format, with evidence, and nothing is forwarded."""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any

import pytest

from ..conftest import ProxyFactory, upstreams
from .test_errors import evidence_for, openai_error
from .upstream import Recorder, upstream_app

CHAT = "/v1/chat/completions"
HELLO = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.fixture
async def served(aiohttp_server: Any, proxy: ProxyFactory) -> tuple[Any, Recorder]:
    recorder = Recorder()
    server = await aiohttp_server(upstream_app(recorder))
    client = await proxy(upstreams(str(server.make_url("")).rstrip("/"), "m") | {"server": {"max_body_bytes": 1 << 20}})
    return client, recorder


@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        # item 4: guards would judge the last key while the first may be what an engine reads
        (
            b'{"model": "m", "messages": [{"role": "user", "content": "4111", "content": "hi"}]}',
            "duplicate_key",
            "'content' appears twice",
        ),
        (b'{"model": "m", "model": "n", "messages": []}', "duplicate_key", "'model' appears twice"),
        # item 7: nesting that would exhaust the interpreter's stack, and nesting past the bound
        (DEEP, "too_deep", "more than 64 levels"),
        (b'{"model": "m", "metadata": ' + b'{"a": ' * 70 + b"1" + b"}" * 70 + b"}", "too_deep", "64 levels"),
        # item 10: a lone surrogate cannot be written as UTF-8, and steps that hash the text would fail on it
        (
            b'{"model": "m", "messages": [{"role": "user", "content": "hi \\ud800"}]}',
            "invalid_unicode",
            "messages[0].content",
        ),
        (
            b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "x\\udfff": 1}',
            "invalid_unicode",
            "a key of the body",
        ),
        (b'{"model": "m", "temperature": NaN}', "invalid_json", "NaN"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "caf\xe9"}]}', "invalid_json", "not UTF-8"),
    ],
)
async def test_a_body_taskgate_will_not_read_is_a_400_naming_why(
    served: tuple[Any, Recorder], body: bytes, code: str, says: str
) -> None:
    client, recorder = served
    resp = await client.post(CHAT, data=body, headers={"Content-Type": "application/json"})
    error = await openai_error(resp, 400, code)
    assert says in error["message"]
    assert evidence_for(client, resp)["error"]["code"] == code
    assert recorder.bodies == []


async def test_surrogate_pairs_are_characters_not_errors(served: tuple[Any, Recorder]) -> None:
    client, recorder = served
    body = b'{"model": "m", "messages": [{"role": "user", "content": "smile \\ud83d\\ude00"}]}'
    resp = await client.post(CHAT, data=body)
    assert resp.status == 200
    assert recorder.bodies == [body]


@pytest.mark.parametrize(
    ("messages", "where"),
    [
        (5, "messages"),
        ("hi", "messages"),
        ({"role": "user", "content": "hi"}, "messages"),
        ([], "messages"),
        (["hi"], "messages[0]"),
        ([{"content": "hi"}], "messages[0].role"),
        ([{"role": "user", "content": 5}], "messages[0].content"),
        ([{"role": "user", "content": {"text": "hi"}}], "messages[0].content"),
        ([{"role": "user", "content": [{"type": "text", "text": 5}]}], "messages[0].content[0].text"),
        ([{"role": "user", "content": [{"type": "text"}]}], "messages[0].content[0]"),
        ([{"role": "user", "content": ["hi"]}], "messages[0].content[0]"),
        ([{"role": "assistant", "tool_calls": {"id": "a"}}], "messages[0].tool_calls"),
        (
            [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": 5}}]}],
            "messages[0].tool_calls[0].function.name",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {}}}]}],
            "messages[0].tool_calls[0].function.arguments",
        ),
    ],
)
async def test_messages_of_the_wrong_shape_are_a_400_with_the_path(
    served: tuple[Any, Recorder], messages: Any, where: str
) -> None:
    """Item 11: `"messages": 5` was a 503 from a step; a string or an object was forwarded unchecked."""
    client, recorder = served
    resp = await client.post(CHAT, json={"model": "m", "messages": messages})
    error = await openai_error(resp, 400, "invalid_field")
    assert error["param"] == where
    assert error["message"].startswith(f"{where}: ")
    assert recorder.bodies == []


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ({"tools": "mail__send"}, "tools"),
        ({"tools": [{"type": "function"}]}, "tools[0]"),
        ({"tools": [{"type": "function", "function": {"name": ["x"]}}]}, "tools[0].function.name"),
        ({"tool_choice": "sometimes"}, "tool_choice"),
        ({"tool_choice": {"type": "function", "function": {}}}, "tool_choice.function.name"),
        ({"functions": [{"description": "no name"}]}, "functions[0].name"),
        ({"stream": "true"}, "stream"),
        ({"max_tokens": "8"}, "max_tokens"),
    ],
)
async def test_tools_and_other_fields_steps_read_are_checked(
    served: tuple[Any, Recorder], extra: dict[str, Any], where: str
) -> None:
    client, recorder = served
    resp = await client.post(CHAT, json={"model": "m", "messages": [{"role": "user", "content": "hi"}], **extra})
    error = await openai_error(resp, 400, "invalid_field")
    assert error["param"] == where
    assert recorder.bodies == []


async def test_fields_no_step_reads_pass_through_as_sent(served: tuple[Any, Recorder]) -> None:
    client, recorder = served
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}],
        "tools": [{"type": "custom", "custom": {"name": "grep"}}],
        "a_field_of_a_newer_api": {"nested": [1, 2]},
    }
    resp = await client.post(CHAT, json=body)
    assert resp.status == 200
    assert json.loads(recorder.bodies[0]) == body


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/v1/completions", {"model": "m", "prompt": {"text": "hi"}}, "prompt"),
        ("/v1/completions", {"model": "m", "prompt": [1, "a"]}, "prompt"),
        ("/v1/embeddings", {"model": "m", "input": 5}, "input"),
        ("/v1/embeddings", {"model": "m", "input": [["a"]]}, "input"),
    ],
)
async def test_prompts_and_inputs_of_the_wrong_shape_are_a_400(
    served: tuple[Any, Recorder], path: str, body: dict[str, Any], param: str
) -> None:
    client, recorder = served
    resp = await client.post(path, json=body)
    error = await openai_error(resp, 400, "invalid_field")
    assert error["param"].startswith(param)
    assert recorder.bodies == []


@pytest.mark.parametrize(
    ("encoding", "data", "status", "code"),
    [
        ("gzip", HELLO, 400, "invalid_encoding"),  # item 8: the header lies; the parser raised (a 500)
        ("deflate", HELLO, 400, "invalid_encoding"),
        ("gzip", gzip.compress(HELLO, mtime=0)[:-12], 400, "invalid_encoding"),  # cut short
        ("gzip", gzip.compress(HELLO, mtime=0) + b"trailing", 400, "invalid_encoding"),
        ("gzip", gzip.compress(b'{"model": "m", "pad": "' + b"x" * 4_000_000 + b'"}'), 413, "body_too_large"),  # a bomb
        ("br", HELLO, 415, "unsupported_encoding"),
        ("zstd", HELLO, 415, "unsupported_encoding"),
        ("made-up", HELLO, 415, "unsupported_encoding"),
    ],
)
async def test_a_content_encoding_that_does_not_fit_the_body_is_a_4xx(
    served: tuple[Any, Recorder], encoding: str, data: bytes, status: int, code: str
) -> None:
    client, recorder = served
    resp = await client.post(CHAT, data=data, headers={"Content-Encoding": encoding})
    await openai_error(resp, status, code)
    assert recorder.bodies == []


@pytest.mark.parametrize(
    ("encoding", "compress"), [("gzip", gzip.compress), ("deflate", zlib.compress), ("x-gzip", gzip.compress)]
)
async def test_a_compressed_body_is_decoded_and_forwarded_plain(
    served: tuple[Any, Recorder], encoding: str, compress: Any
) -> None:
    client, recorder = served
    resp = await client.post(CHAT, data=compress(HELLO), headers={"Content-Encoding": encoding})
    assert resp.status == 200
    assert recorder.bodies == [HELLO]
    assert "Content-Encoding" not in recorder.headers[0]


async def test_a_header_longer_than_the_limit_is_a_431_that_echoes_nothing(served: tuple[Any, Recorder]) -> None:
    """Item 13: aiohttp answered a plain-text 400 that quoted the header's first bytes."""
    client, recorder = served
    resp = await client.post(CHAT, data=HELLO, headers={"X-Note": "SECRET" * 2000})
    error = await openai_error(resp, 431, "header_too_large")
    assert "'X-Note'" in error["message"]
    assert "SECRET" not in await resp.text()
    assert evidence_for(client, resp)["error"]["code"] == "header_too_large"
    assert recorder.bodies == []
