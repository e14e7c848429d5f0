"""Bad input gets a clear OpenAI-style error and an evidence record; nothing hangs."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from aiohttp import web
from structlog.testing import capture_logs

from taskgate.gateway.gateway import GATEWAY

from ..conftest import ProxyFactory, closed_port, upstreams
from .upstream import Recorder, upstream_app


async def openai_error(resp: Any, status: int, code: str) -> dict[str, Any]:
    """Assert an OpenAI error body and an evidence record; return the error."""
    assert resp.status == status
    assert resp.content_type == "application/json"
    body = await resp.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["code"] == code
    assert "Traceback" not in body["error"]["message"]
    return dict(body["error"])


def evidence_for(client: Any, resp: Any) -> dict[str, Any]:
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None, "no evidence record for this request"
    return dict(record)


@pytest.fixture
async def client(aiohttp_server: Any, proxy: ProxyFactory) -> Any:
    server = await aiohttp_server(upstream_app(Recorder()))
    raw = upstreams(str(server.make_url("")).rstrip("/"), "m") | {"server": {"max_body_bytes": 1024}}
    return await proxy(raw)


async def test_malformed_json_is_a_400_with_evidence(client: Any) -> None:
    resp = await client.post("/v1/chat/completions", data=b'{"model": "m",')
    error = await openai_error(resp, 400, "invalid_json")
    assert "not valid JSON" in error["message"]
    assert evidence_for(client, resp)["error"]["code"] == "invalid_json"


async def test_json_that_is_not_an_object_is_a_400(client: Any) -> None:
    resp = await client.post("/v1/chat/completions", data=b"[1, 2]")
    await openai_error(resp, 400, "invalid_request")


async def test_missing_model_is_a_400_naming_the_param(client: Any) -> None:
    resp = await client.post("/v1/chat/completions", json={"messages": []})
    error = await openai_error(resp, 400, "missing_model")
    assert error["param"] == "model"


async def test_oversized_body_is_a_413_naming_the_setting(client: Any) -> None:
    resp = await client.post("/v1/chat/completions", data=b'{"model": "m", "pad": "' + b"x" * 4096 + b'"}')
    error = await openai_error(resp, 413, "body_too_large")
    assert "server.max_body_bytes" in error["message"]
    assert evidence_for(client, resp)["status"] == 413


async def test_unknown_route_is_a_404_with_evidence(client: Any) -> None:
    resp = await client.get("/v2/everything")
    await openai_error(resp, 404, "unknown_route")
    assert evidence_for(client, resp)["path"] == "/v2/everything"


async def test_unknown_model_is_a_404_from_the_route_step(client: Any) -> None:
    resp = await client.post("/v1/chat/completions", json={"model": "gpt-nope"})
    await openai_error(resp, 404, "model_not_found")
    record = evidence_for(client, resp)
    assert record["error"]["step"] == "route"
    assert [(s["step"], s["outcome"]) for s in record["steps"]] == [("state", "ok"), ("route", "halted")]


async def test_upstream_down_is_a_502_with_the_attempt_in_evidence(proxy: ProxyFactory) -> None:
    client = await proxy(upstreams(f"http://127.0.0.1:{closed_port()}", "m"))
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    await openai_error(resp, 502, "upstream_unavailable")
    record = evidence_for(client, resp)
    assert record["dispatch"]["attempts"][0]["endpoint"] == "up"
    assert "error" in record["dispatch"]["attempts"][0]


async def test_evidence_is_one_structured_log_line_per_request(client: Any) -> None:
    with capture_logs() as logs:
        resp = await client.post("/v1/chat/completions", json={"model": "m"})
        await resp.read()
    lines = [entry for entry in logs if entry["event"] == "evidence"]
    assert len(lines) == 1
    assert lines[0]["request_id"] == resp.headers["x-taskgate-request-id"]
    assert [s["step"] for s in lines[0]["steps"]] == ["state", "route"]


async def test_health_readiness_and_metrics(client: Any) -> None:
    assert (await client.get("/healthz")).status == 200
    assert (await (await client.get("/readyz")).json()) == {"status": "ready"}
    await client.post("/v1/chat/completions", json={"model": "m"})
    text = await (await client.get("/metrics")).text()
    assert 'taskgate_requests_total{status="200",surface="chat"} 1.0' in text
    assert 'taskgate_step_seconds_count{outcome="ok",step="route"} 1.0' in text


async def test_silent_upstream_is_a_504_after_the_read_timeout(aiohttp_server: Any, proxy: ProxyFactory) -> None:
    async def hang(request: web.Request) -> web.Response:
        await asyncio.sleep(30)
        return web.Response()

    app = web.Application()
    app.router.add_post("/v1/chat/completions", hang)
    server = await aiohttp_server(app)
    raw = upstreams(str(server.make_url("")).rstrip("/"), "m") | {
        "server": {"first_byte_timeout_s": {"interactive": 0.3}}
    }
    client = await proxy(raw)
    started = time.perf_counter()
    resp = await client.post("/v1/chat/completions", json={"model": "m"})
    assert time.perf_counter() - started < 2.0
    await openai_error(resp, 504, "upstream_timeout")
    assert evidence_for(client, resp)["dispatch"]["attempts"][0]["timeout"] is True


@pytest.mark.parametrize("model", ["x" * 257, 42, ["m"]])
async def test_a_model_that_is_not_a_short_string_is_a_400(client: Any, model: Any) -> None:
    resp = await client.post("/v1/chat/completions", json={"model": model})
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert error["param"] == "model"
    assert len(json.dumps(evidence_for(client, resp))) < 2000


async def test_wrong_method_is_a_405_with_allow_and_an_openai_body(client: Any) -> None:
    resp = await client.get("/v1/chat/completions")
    await openai_error(resp, 405, "http_405")
    assert resp.headers["Allow"] == "POST"
    resp = await client.post("/metrics")
    await openai_error(resp, 405, "http_405")
