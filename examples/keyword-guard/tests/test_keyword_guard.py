"""The example plugin is found through its entry point and runs in a request.

It imports nothing of taskgate but the SDK and its test helpers: a plugin's own
tests can be written the same way.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from taskgate import testing
from taskgate.plugins import Inputs, Reject, RequestContext, Services, StepOptions


@asynccontextmanager
async def guarded_proxy() -> AsyncIterator[tuple[testing.Client, testing.Upstream]]:
    async with testing.upstream("m") as engine:
        raw = engine.config() | {
            "steps": [{"name": "no-secrets", "type": "example.keyword_block", "params": {"words": ["password"]}}],
            "pipelines": {"chat": ["no-secrets", "state", "route"]},
        }
        async with testing.gateway(raw) as client:
            yield client, engine


def test_example_plugin_is_discovered_through_its_entry_point() -> None:
    registry = testing.registry()
    assert "example.keyword_block" in registry.steps
    assert registry.origin("example.keyword_block") == "keyword_guard"
    assert registry.origin("routing.route") == "routing"


async def test_example_step_refuses_a_request_and_nothing_is_forwarded() -> None:
    async with guarded_proxy() as (client, rec):
        body = {"model": "m", "messages": [{"role": "user", "content": "my Password is hunter2"}]}
        with testing.capture_evidence() as records:
            resp = await client.post("/v1/chat/completions", json=body)
        assert resp.status == 403
        error = (await resp.json())["error"]
        assert error["code"] == "blocked_term"
        assert "hunter2" not in error["message"]
        assert "password" not in error["message"].lower()
        assert rec.bodies == []
        [record] = records
        assert record["request_id"] == resp.headers["x-taskgate-request-id"]
        assert record["error"]["step"] == "no-secrets"


async def test_example_step_lets_a_clean_request_through_and_leaves_evidence() -> None:
    async with guarded_proxy() as (client, rec):
        with testing.capture_evidence() as records:
            resp = await client.post(
                "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hello"}]}
            )
        assert resp.status == 200
        assert len(rec.bodies) == 1
        [record] = records
        assert record["request_id"] == resp.headers["x-taskgate-request-id"]
        assert [s["step"] for s in record["steps"]] == ["no-secrets", "state", "route"]
        assert record["decisions"]["keyword_scan"] == {"chars_scanned": 5, "terms": 1, "matched": False}


async def test_example_step_matches_terms_that_start_or_end_with_punctuation() -> None:
    registry = testing.registry()
    step = registry.build("g", "example.keyword_block", {"words": ["c++", ".env"]}, Services(), StepOptions())

    def ask(body: bytes) -> Inputs:
        return Inputs({"request": RequestContext("id", "chat", "/", {}, body)})

    for text in ("I write c++ daily", "cat .env please"):
        with pytest.raises(Reject):
            await step.run(ask(json.dumps({"messages": [{"role": "user", "content": text}]}).encode()))
    assert (await step.run(ask(b'{"prompt": "plain c and env"}'))).terms == 2
    assert (await step.run(ask(b'{"prompt": 5, "messages": "odd"}'))).chars_scanned == 0
