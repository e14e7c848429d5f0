"""The `tracing` section: validated with file, key and reason; enabled, it exports over OTLP/HTTP to a collector
(here a real HTTP server on 127.0.0.1 that decodes what it gets), what is still queued flushed at shutdown."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import web
from multidict import CIMultiDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from taskgate.gateway.config import parse_config
from taskgate.gateway.errors import ConfigError
from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import Registry

from .conftest import Seen, TracedProxy, pool, sim_engine


@pytest.mark.parametrize(
    ("section", "key", "reason"),
    [
        ({"sample_ratio": 1.5}, "tracing.sample_ratio", "less than or equal to 1"),
        ({"exporter": "zipkin"}, "tracing.exporter", "otlp_http"),
        ({"endpoint": "not a url"}, "tracing.endpoint", "URL"),
        ({"headers_env": {"authorization": "TASKGATE_NO_SUCH_VARIABLE"}}, "tracing.headers_env", "is not set"),
        ({"sampling": 0.5}, "tracing.sampling", "unknown key"),
    ],
)
def test_a_bad_tracing_section_names_the_key(
    registry: Registry, section: dict[str, Any], key: str, reason: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config({"tracing": section}, "taskgate.yaml", registry)
    assert str(refused.value).startswith(f"taskgate.yaml: {key}: ")
    assert reason in str(refused.value)


async def test_enabled_tracing_exports_over_otlp_http_with_its_headers_and_flushes_at_shutdown(
    traced: TracedProxy, aiohttp_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[tuple[CIMultiDict[str], bytes]] = []

    async def traces(request: web.Request) -> web.Response:
        received.append((request.headers.copy(), await request.read()))
        return web.Response(content_type="application/x-protobuf")  # an empty ExportTraceServiceResponse

    collector = web.Application()
    collector.router.add_post("/v1/traces", traces)
    sink = await aiohttp_server(collector)
    engine = await aiohttp_server(sim_engine(Seen()))
    monkeypatch.setenv("TASKGATE_TEST_OTLP_TOKEN", "Bearer collector-secret")
    config = pool(str(engine.make_url("")).rstrip("/")) | {
        "tracing": {
            "enabled": True,
            "endpoint": str(sink.make_url("/v1/traces")),
            "headers_env": {"authorization": "TASKGATE_TEST_OTLP_TOKEN"},
            "service_name": "taskgate-test",
        }
    }
    client = await traced(config, provider=None)
    assert client.server.app[GATEWAY].tracing is not None
    ask = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    resp = await client.post("/v1/chat/completions", json=ask)
    assert resp.status == 200
    await client.close()  # the app's cleanup flushes the batch processor
    assert received
    headers, body = received[0]
    assert headers["authorization"] == "Bearer collector-secret"
    assert headers["Content-Type"] == "application/x-protobuf"
    export = ExportTraceServiceRequest.FromString(body)
    (resource,) = export.resource_spans
    service = {a.key: a.value.string_value for a in resource.resource.attributes}["service.name"]
    assert service == "taskgate-test"
    names = {span.name for scope in resource.scope_spans for span in scope.spans}
    assert {"POST /v1/chat/completions", "plan chat", "step route", "chat m"} <= names
