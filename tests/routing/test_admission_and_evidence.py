"""Admission through the proxy, and what the evidence says about stale state and scores."""

from __future__ import annotations

import asyncio
from typing import Any

from ..conftest import ProxyFactory
from .conftest import StartEngines, chat, pool, record_of, routing


async def test_batch_above_the_watermark_with_a_full_queue_gets_429_with_retry_after(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("slow", profile="h100", tpot_s=0.1, time_scale=1.0)
    raw = routing(pool("p", sims, max_inflight=1), admission={"queue_limit": 0, "aging_s": 2})
    client = await proxy(raw)
    batch = {"x-taskgate-class": "batch"}
    running = asyncio.create_task(
        client.post("/v1/chat/completions", json={**chat("long job"), "max_tokens": 10}, headers=batch)
    )
    await asyncio.sleep(0.2)
    refused = await client.post("/v1/chat/completions", json=chat("another job"), headers=batch)
    assert refused.status == 429
    assert refused.headers["Retry-After"] == "2"
    assert (await refused.json())["error"]["code"] == "pool_busy"
    interactive = await client.post("/v1/chat/completions", json=chat("a user is waiting"))
    assert interactive.status == 200, "interactive work is never queued behind batch"
    assert (await running).status == 200


async def test_queued_batch_work_runs_when_a_slot_frees_and_its_wait_is_evidence(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("slow", profile="h100", tpot_s=0.05, time_scale=1.0)
    client = await proxy(routing(pool("p", sims, max_inflight=1)))
    batch = {"x-taskgate-class": "batch"}
    first = asyncio.create_task(
        client.post("/v1/chat/completions", json={**chat("job 1"), "max_tokens": 6}, headers=batch)
    )
    await asyncio.sleep(0.1)
    second = await client.post("/v1/chat/completions", json={**chat("job 2"), "max_tokens": 2}, headers=batch)
    assert second.status == 200
    assert record_of(client, second)["decisions"]["placement"]["queue_wait_ms"] > 50
    assert (await first).status == 200


async def test_evidence_marks_stale_engine_data_and_lists_every_candidate_score(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0", "e1")
    client = await proxy(routing(pool("p", sims), state={"scrape_interval_s": 30, "stale_after_s": 0.05}))
    await asyncio.sleep(0.15)  # one scrape at start-up, then nothing for 30 s: the data goes stale
    resp = await client.post("/v1/chat/completions", json=chat("hello"))
    record: dict[str, Any] = record_of(client, resp)
    engines_seen = record["decisions"]["cluster"]["engines"]
    assert all(e["healthy"] and e["age_s"] > 0.05 for e in engines_seen.values()), "scraped once, then aged"
    assert record["decisions"]["cluster"]["stale"] == ["e0", "e1"]
    candidates = record["decisions"]["placement"]["candidates"]
    assert set(candidates) == {"e0", "e1"}
    assert set(candidates["e0"]) == {"prefix", "session", "inflight", "queue", "kv", "total"}
    assert resp.headers["x-taskgate-model"] == "m"
    assert resp.headers["x-taskgate-fallbacks"] == "0"


async def test_an_alias_is_rewritten_to_the_name_the_engine_knows(proxy: ProxyFactory, engines: StartEngines) -> None:
    sims = await engines("e0")
    aliased = pool("p", sims) | {"models": [{"name": "m", "aliases": ["mini", "team-default"]}]}
    client = await proxy(routing(aliased))
    resp = await client.post("/v1/chat/completions", json={**chat("hi"), "model": "team-default"})
    assert resp.status == 200, await resp.text()  # the engine only knows "m"
    assert resp.headers["x-taskgate-model"] == "m"
    assert (await resp.json())["model"] == "m"
    listed = await (await client.get("/v1/models")).json()
    assert {m["id"] for m in listed["data"]} == {"m", "mini", "team-default"}


async def test_a_caller_header_can_lower_urgency_but_not_buy_interactive(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    sims = await engines("e0")
    batch_default = routing(pool("p", sims), classes={"default": "batch"})
    client = await proxy(batch_default)
    claimed = await client.post(
        "/v1/chat/completions", json=chat("urgent!"), headers={"x-taskgate-class": "interactive"}
    )
    assert record_of(client, claimed)["decisions"]["placement"]["class"] == "batch"
    lowered = await client.post(
        "/v1/chat/completions", json=chat("whenever"), headers={"x-taskgate-class": "background"}
    )
    assert record_of(client, lowered)["decisions"]["placement"]["class"] == "background"
