"""A client's request as a trace: the front door's server span, the plan and its steps, the model call with where
routing placed it, the engine reached with the call's `traceparent`; a client's trace continued; none when off."""

from __future__ import annotations

from typing import Any

import openai
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace import SpanKind, StatusCode

from taskgate.gateway.config import TracingConfig
from taskgate.gateway.dispatch import Dispatch
from taskgate.gateway.gateway import GATEWAY
from taskgate.gateway.tracing import Tracing
from taskgate.plugins import Registry, load_plugins
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.types import Endpoint, Placement

from ..conftest import closed_port
from ..proxy.test_fallback import Ordered
from .conftest import Seen, TracedProxy, Traces, attrs, parent_of, pool, sim_engine

ASK = {"model": "m", "messages": [{"role": "user", "content": "hello there"}], "max_tokens": 8}
CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_PARENT = "00f067aa0ba902b7"


def traceparent_of(span: Any) -> str:
    return f"00-{span.context.trace_id:032x}-{span.context.span_id:016x}"


async def whole(api: openai.AsyncOpenAI) -> str:
    answer = await api.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], max_tokens=8)
    return answer.choices[0].message.content or ""


async def streamed(api: openai.AsyncOpenAI) -> str:
    stream = await api.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], max_tokens=8, stream=True
    )
    return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])


def sdk(client: Any, **headers: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=str(client.make_url("/v1")), api_key="k", max_retries=0, timeout=30, default_headers=headers
    )


async def test_a_chat_request_is_a_server_span_over_its_plan_steps_and_its_model_call(
    traced: TracedProxy, traces: Traces, aiohttp_server: Any
) -> None:
    seen = Seen()
    engine = await aiohttp_server(sim_engine(seen))
    client = await traced(pool(str(engine.make_url("")).rstrip("/")))
    async with sdk(client) as api:
        assert await whole(api)
    root = traces.one("POST /v1/chat/completions")
    assert root.kind is SpanKind.SERVER
    assert root.parent is None
    assert attrs(root)["http.response.status_code"] == 200
    assert attrs(root)["taskgate.surface"] == "chat"
    assert root.status.status_code is StatusCode.UNSET
    plan, call = traces.children(root)
    assert plan.name == "plan chat"
    assert [s.name for s in traces.children(plan)] == ["step state", "step route"]
    assert {attrs(s)["taskgate.step.outcome"] for s in traces.children(plan)} == {"ok"}
    for step in traces.children(plan):  # made after the fact, inside the plan's time
        assert plan.start_time is not None
        assert plan.end_time is not None
        assert plan.start_time <= (step.start_time or 0) <= (step.end_time or 0) <= plan.end_time
    assert call.name == "chat m"
    assert call.kind is SpanKind.CLIENT
    found = attrs(call)
    assert found["gen_ai.operation.name"] == "chat"
    assert found["gen_ai.request.model"] == "m"
    assert found["gen_ai.response.model"] == "m"
    assert found["gen_ai.provider.name"] == "openai"
    assert found["server.address"] == "127.0.0.1"
    assert found["server.port"] == engine.port
    assert (found["taskgate.pool"], found["taskgate.endpoint"], found["taskgate.region"]) == ("p", "e1", "eu-west")
    assert found["taskgate.prefix_hit_tokens"] == 0
    assert found["taskgate.fallbacks"] == 0
    assert found["taskgate.request_class"] == "interactive"
    assert call.events == ()  # one attempt: the endpoint attributes say it all
    assert {s.context.trace_id for s in traces.spans()} == {root.context.trace_id}  # one trace
    (sent,) = seen.headers
    assert sent["traceparent"].startswith(traceparent_of(call))  # the engine can continue the model call's span


async def test_a_streamed_chat_request_times_its_first_chunk_and_ends_when_the_stream_does(
    traced: TracedProxy, traces: Traces, aiohttp_server: Any
) -> None:
    seen = Seen()
    engine = await aiohttp_server(sim_engine(seen))
    client = await traced(pool(str(engine.make_url("")).rstrip("/")))
    async with sdk(client) as api:
        assert await streamed(api)
    call = traces.one("chat m")
    root = traces.one("POST /v1/chat/completions")
    assert parent_of(call) == root.context.span_id
    first = attrs(call)["gen_ai.response.time_to_first_chunk"]
    assert 0 < first < (call.end_time or 0) - (call.start_time or 0)  # seconds, inside the call
    assert attrs(call)["taskgate.dispatch.outcome"] == "completed"
    assert (call.end_time or 0) <= (root.end_time or 0)
    assert seen.headers[0]["traceparent"].startswith(traceparent_of(call))


async def test_a_clients_traceparent_is_continued_to_the_engine(
    traced: TracedProxy, traces: Traces, aiohttp_server: Any
) -> None:
    seen = Seen()
    engine = await aiohttp_server(sim_engine(seen))
    client = await traced(pool(str(engine.make_url("")).rstrip("/")))
    parent = f"00-{CLIENT_TRACE}-{CLIENT_PARENT}-01"
    async with sdk(client, traceparent=parent, tracestate="vendor=opaque") as api:
        await whole(api)
    root = traces.one("POST /v1/chat/completions")
    assert f"{root.context.trace_id:032x}" == CLIENT_TRACE
    assert root.parent is not None
    assert root.parent.is_remote
    assert f"{root.parent.span_id:016x}" == CLIENT_PARENT
    assert root.context.trace_state.get("vendor") == "opaque"
    assert seen.headers[0]["traceparent"].startswith(f"00-{CLIENT_TRACE}-{traces.one('chat m').context.span_id:016x}")
    assert seen.headers[0]["tracestate"] == "vendor=opaque"


async def test_a_fallback_is_an_attribute_and_a_request_nobody_answers_is_an_error(
    traced: TracedProxy, traces: Traces, aiohttp_server: Any
) -> None:
    plugins = Registry()
    load_plugins(plugins)
    plugins.add_step(Ordered)  # places every request on its URLs in order: the closed port first
    engine = await aiohttp_server(sim_engine(Seen()))
    down = f"http://127.0.0.1:{closed_port()}"
    ordered = {"type": "test.ordered", "name": "route", "params": {"urls": [down, str(engine.make_url(""))]}}
    client = await traced({"steps": [ordered]}, plugins=plugins)
    resp = await client.post("/v1/chat/completions", json=ASK)
    assert resp.status == 200
    call = traces.one("chat m")
    assert attrs(call)["taskgate.fallbacks"] == 1
    assert attrs(call)["taskgate.endpoint"] == "e1"  # the endpoint that answered
    assert attrs(call)["taskgate.routing.candidates"] == ("e0", "e1")
    assert [(e.attributes or {}).get("endpoint") for e in call.events] == ["e0", "e1"]
    assert "error" in (call.events[0].attributes or {})

    traces.exporter.clear()
    alone = await traced({"steps": [{**ordered, "params": {"urls": [down]}}]}, plugins=plugins)
    resp = await alone.post("/v1/chat/completions", json=ASK)
    assert resp.status in (502, 503)
    code = (await resp.json())["error"]["code"]
    root, call = traces.one("POST /v1/chat/completions"), traces.one("chat m")
    for span in (root, call):
        assert span.status.status_code is StatusCode.ERROR
        assert attrs(span)["error.type"] == code  # the code the client got, from the evidence
    assert attrs(call)["taskgate.dispatch.outcome"] == "no_upstream_answered"


async def test_with_tracing_off_there_is_no_tracer_and_the_engine_gets_no_traceparent(
    traced: TracedProxy, aiohttp_server: Any
) -> None:
    seen = Seen()
    engine = await aiohttp_server(sim_engine(seen))
    client = await traced(pool(str(engine.make_url("")).rstrip("/")), provider=None)  # the config's: off
    assert client.server.app[GATEWAY].tracing is None
    parent = f"00-{CLIENT_TRACE}-{CLIENT_PARENT}-01"
    async with sdk(client, traceparent=parent) as api:
        assert await whole(api)
        assert await streamed(api)
    assert len(seen.headers) == 2
    assert not any("traceparent" in h for h in seen.headers)  # nothing traced, nothing propagated


async def test_an_unsampled_request_records_nothing_but_still_passes_its_context_on(
    traced: TracedProxy, aiohttp_server: Any
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ALWAYS_OFF)  # sample_ratio 0, as tracing.sample_ratio builds it
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    seen = Seen()
    engine = await aiohttp_server(sim_engine(seen))
    client = await traced(pool(str(engine.make_url("")).rstrip("/")), provider=provider)
    async with sdk(client) as api:
        assert await whole(api)
    assert exporter.get_finished_spans() == ()
    flags = int(seen.headers[0]["traceparent"].rsplit("-", 1)[1], 16)
    assert flags & 1 == 0  # the sampled bit is off: the engine knows not to record either
    provider.shutdown()


def test_the_records_token_usage_becomes_the_model_calls_gen_ai_usage() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing = Tracing(TracingConfig(provider_name="vllm"), provider)
    evidence = Evidence("r1", "/v1/chat/completions", surface="chat", model="alias")
    with tracing.model_turn(evidence, "alias"):
        log = Dispatch(endpoint="b", status=200, outcome="completed")
        log.attempts = [{"endpoint": "a", "ms": 1.0, "error": "refused"}, {"endpoint": "b", "ms": 2.0, "status": 200}]
        fallback = Endpoint("b", "https://b", "p2")
        placement = Placement(Endpoint("a", "http://a:8000", "p1"), "engine-name", "why", (fallback,))
        headers = tracing.dispatching(evidence, placement, {"X": "1"})
        evidence.dispatch = log
    assert headers["X"] == "1"
    assert headers["traceparent"]
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "cached_tokens": 8, "cost": None}
    setattr(evidence, "usage", usage)  # what token accounting puts on the record  # noqa: B010
    evidence.finish(200)
    evidence.finish(200)  # a record finished twice ends its spans once
    (span,) = exporter.get_finished_spans()
    found = dict(span.attributes or {})
    assert span.name == "chat alias"
    assert found["gen_ai.provider.name"] == "vllm"
    assert (found["gen_ai.usage.input_tokens"], found["gen_ai.usage.output_tokens"]) == (12, 3)
    assert found["gen_ai.usage.cache_read.input_tokens"] == 8
    assert (found["taskgate.pool"], found["taskgate.endpoint"], found["server.address"]) == ("p2", "b", "b")
    assert found["server.port"] == 443
    assert found["taskgate.prefix_hit_tokens"] == 0  # a fallback answered: the prefix prediction was another's
    assert found["taskgate.fallbacks"] == 1
    assert found["gen_ai.response.model"] == "engine-name"
    provider.shutdown()
