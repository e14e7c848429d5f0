"""taskgate.testing builds the real parts: registry, steps, plans, a gateway and an engine."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from taskgate import testing
from taskgate.plugins import REQUEST, Inputs, NoParams, ParamsError, Placement, Registry, Reject, RequestContext, Step


class Counted:
    """A step value that describes itself in the evidence."""

    def __init__(self, words: int):
        self.words = words

    def evidence(self) -> dict[str, Any]:
        return {"words": self.words}


class CountWords(Step[NoParams]):
    type = "test.count_words"
    requires = (REQUEST,)
    provides = "counted"

    async def run(self, inputs: Inputs) -> Counted:
        context: RequestContext = inputs[REQUEST]
        return Counted(len(str(context.json().get("prompt", "")).split()))


class RefuseLong(Step[NoParams]):
    type = "test.refuse_long"
    requires: ClassVar[tuple[str, ...]] = ("counted", "limit")
    provides = "short"

    async def run(self, inputs: Inputs) -> bool:
        if inputs["counted"].words > inputs["limit"]:
            raise Reject(400, "too_long", "the prompt has too many words")
        return True


def plugins() -> Registry:
    found = testing.registry()
    with found.loading("tests"):
        found.add_step(CountWords)
        found.add_step(RefuseLong)
    return found


POOLS = {
    "pools": [{"name": "default", "endpoints": [{"name": "a", "url": "http://127.0.0.1:9"}], "models": [{"name": "m"}]}]
}


def test_request_is_the_context_a_surface_builds() -> None:
    context = testing.request(
        {"model": "m", "prompt": "hi"}, surface="completions", headers={"Authorization": "Bearer t"}
    )
    assert context.path == "/v1/completions"
    assert context.model == "m"
    assert context.headers["authorization"] == "Bearer t"
    assert json.loads(context.body) == {"model": "m", "prompt": "hi"}


def test_step_validates_params_as_config_does() -> None:
    with pytest.raises(ParamsError) as info:
        testing.step("example.keyword_block", {"words": ["x"], "wrods": 1})
    assert info.value.path == "params.wrods"


async def test_run_steps_runs_the_real_routing_steps_on_one_services() -> None:
    shared = testing.services({"routing": POOLS})
    state = testing.step("routing.cluster_state", name="state", services=shared)
    route = testing.step("routing.route", name="route", services=shared)
    outputs = await testing.run_steps([state, route], testing.request({"model": "m", "prompt": "hello"}))
    placement = outputs["placement"]
    assert isinstance(placement, Placement)
    assert placement.endpoint.name == "a"
    assert set(outputs) == {"cluster", "placement"}
    assert placement.observer is not None
    placement.observer.finished(None, None)  # nothing is dispatched: release what placing reserved


async def test_seeds_stand_in_for_steps_left_out_and_a_missing_one_is_the_start_up_error() -> None:
    found = plugins()
    refuse = testing.step("test.refuse_long", plugins=found)
    outputs = await testing.run_steps(refuse, testing.request({}), seeds={"counted": Counted(2), "limit": 3})
    assert outputs == {"short": True}
    with pytest.raises(testing.PlanError, match="requires 'limit', but no step provides it"):
        await testing.run_steps(refuse, testing.request({}), seeds={"counted": Counted(2)})


async def test_capture_evidence_keeps_the_record_of_a_refused_run() -> None:
    found = plugins()
    steps = [testing.step(t, plugins=found) for t in ("test.count_words", "test.refuse_long")]
    with testing.capture_evidence() as records, pytest.raises(Reject):
        await testing.run_steps(steps, testing.request({"prompt": "one two three"}), seeds={"limit": 2})
    await testing.run_steps(steps, testing.request({"prompt": "one"}), seeds={"limit": 2})
    [record] = records
    assert [(s["step"], s["outcome"]) for s in record["steps"]] == [
        ("test.count_words", "ok"),
        ("test.refuse_long", "halted"),
    ]
    assert record["decisions"] == {"counted": {"words": 3}}
    assert (record["request_id"], record["surface"]) == ("test", "chat")


def test_cluster_rates_each_candidate_against_its_own_pool() -> None:
    scorers = testing.registry().scorers
    view = testing.cluster(
        testing.Engine("a", prefix_blocks=6, inflight=2),
        testing.Engine("b", running=5),
        testing.Engine("c", pool="big", waiting=1, running=3),
        prompt_blocks=8,
    )
    assert [c.endpoint.name for c in view.pools["default"]] == ["a", "b"]
    assert view["c"].load == 4.0
    assert view.score(scorers["prefix"]()) == {"a": 0.75, "b": 0.0, "c": 0.0}
    assert view.score(scorers["inflight"]()) == {"a": 1.0, "b": 0.25, "c": 1.0}
    with pytest.raises(ValueError, match="two engines are named 'a'"):
        testing.cluster(testing.Engine("a"), testing.Engine("a", pool="big"))


async def test_gateway_serves_a_request_to_the_upstream_and_its_record_is_captured() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    async with testing.upstream("m") as engine, testing.gateway(engine.config()) as client:
        with testing.capture_evidence() as records:
            resp = await client.post("/v1/chat/completions", json=body)
        assert resp.status == 200
        assert (await resp.json())["object"] == "chat.completion"
    assert [json.loads(body)["model"] for body in engine.bodies] == ["m"]
    [record] = records
    assert record["request_id"] == resp.headers["x-taskgate-request-id"]
    assert (record["status"], record["dispatch"]["endpoint"]) == (200, "up")
    assert [s["step"] for s in record["steps"]] == ["state", "route"]


async def test_gateway_traces_every_request_to_a_provider_the_test_hands_it() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    async with testing.upstream("m") as engine, testing.gateway(engine.config(), tracer_provider=provider) as client:
        resp = await client.post("/v1/chat/completions", json=body)
    assert resp.status == 200
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["step state", "step route", "plan chat", "chat m", "POST /v1/chat/completions"]
    provider.shutdown()
