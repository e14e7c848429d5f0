"""What an outside pass found at the front door: a client's mistake is a 4xx with its record, never a 5xx; an engine
that answers what cannot be read is the engine's failure, never a 200 passed on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp import web

from taskgate.logs import dumps

from ..conftest import ProxyFactory, upstreams
from ..routing.conftest import cluster_of
from .test_cli import post, served
from .test_cli import sim as sim  # the fixture the served gateway runs in front of
from .test_errors import evidence_for, openai_error
from .upstream import Recorder, upstream_app

BIG = 18446744073709551617  # past 64 bits
HELLO = [{"role": "user", "content": "hi"}]


def test_a_body_with_an_integer_past_64_bits_gets_a_400_and_its_evidence_line(sim: str, tmp_path: Path) -> None:
    with served(sim, tmp_path) as (url, lines):
        status, _, body = post(url, {"model": "cli-model", "max_tokens": BIG, "messages": HELLO})
        assert status == 400
        assert body["error"]["code"] == "context_length_exceeded"
        ok, _, _ = post(url, {"model": "cli-model", "max_tokens": 4, "messages": HELLO, "metadata": {"n": BIG}})
        assert ok == 200
    evidence = [line for line in lines if line["event"] == "evidence"]
    assert [e["status"] for e in evidence] == [400, 200]  # every answered request has its record
    assert evidence[0]["error"]["code"] == "context_length_exceeded"


def test_a_record_holding_an_integer_past_64_bits_is_still_written() -> None:
    assert dumps({"max_tokens": BIG, "nested": [{"n": -BIG}]}) == b'{"max_tokens":%d,"nested":[{"n":%d}]}' % (BIG, -BIG)


async def test_a_prompt_longer_than_every_pool_s_context_is_the_client_s_to_shorten(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    recorder = Recorder()
    server = await aiohttp_server(upstream_app(recorder))
    raw = upstreams(str(server.make_url("")).rstrip("/"), "m")
    raw["routing"]["pools"][0]["max_context"] = 64
    client = await proxy(raw)
    long = [{"role": "user", "content": "word " * 400}]
    for body in (
        {"model": "m", "messages": long},
        {"model": "m", "messages": HELLO, "max_tokens": 2**63},
        {"model": "m", "messages": HELLO, "max_completion_tokens": 65},
    ):
        resp = await client.post("/v1/chat/completions", json=body)
        error = await openai_error(resp, 400, "context_length_exceeded")
        assert error["param"] == "messages"
        assert error["type"] == "invalid_request_error"
        assert "maximum context length is 64 tokens" in error["message"]
        assert evidence_for(client, resp)["error"]["code"] == "context_length_exceeded"
    assert recorder.bodies == []
    fits = await client.post("/v1/chat/completions", json={"model": "m", "messages": HELLO, "max_tokens": 8})
    assert fits.status == 200


async def test_an_engine_s_200_that_is_not_json_is_a_502_recorded_and_counted_against_it(
    aiohttp_server: Any, proxy: ProxyFactory
) -> None:
    async def broken(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(text="<html>upstream says hello</html>", content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", broken)
    server = await aiohttp_server(app)
    raw = upstreams(str(server.make_url("")).rstrip("/"), "m")
    raw["routing"]["breaker"] = {"failures": 1, "cooldown_s": 60}
    client = await proxy(raw)
    resp = await client.post("/v1/chat/completions", json={"model": "m", "messages": HELLO})
    error = await openai_error(resp, 502, "upstream_malformed")
    assert "upstream says hello" not in error["message"]
    record = evidence_for(client, resp)
    assert record["error"]["code"] == "upstream_malformed"
    assert record["dispatch"]["outcome"].startswith("upstream_malformed")
    assert cluster_of(client).breakers.state("up") == "open"
