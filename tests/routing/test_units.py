"""The routing room's parts on their own: prefix index, breakers, admission gate, metrics parsing."""

from __future__ import annotations

import asyncio
import time

import pytest

from taskgate.plugins import Reject
from taskgate.routing.admission import Gate
from taskgate.routing.breaker import CLOSED, HALF_OPEN, OPEN, Breakers
from taskgate.routing.cluster import ClusterState
from taskgate.routing.config import AdmissionConfig, RoutingConfig
from taskgate.routing.prefix import PrefixIndex, block_hashes, canonical
from taskgate.routing.scrape import parse
from taskgate.routing.tracker import Tracker


def test_growing_conversation_keeps_its_leading_block_hashes() -> None:
    first = {"model": "m", "messages": [{"role": "system", "content": "s" * 600}, {"role": "user", "content": "hi"}]}
    later = {**first, "messages": [*first["messages"], {"role": "assistant", "content": "x" * 400}]}
    a, b = block_hashes(canonical(first), 64), block_hashes(canonical(later), 64)
    assert len(b) > len(a) > 5
    assert b[: len(a) - 1] == a[: len(a) - 1]
    other = {**first, "model": "other"}
    assert block_hashes(canonical(other), 64)[0] != a[0]  # the model name is part of the prefix


def test_prefix_index_counts_leading_hits_only() -> None:
    index = PrefixIndex(100)
    index.record("e", ["a", "b", "c"])
    assert index.hits("e", ["a", "b", "c", "d"]) == 3
    assert index.hits("e", ["a", "x", "c"]) == 1
    assert index.hits("other", ["a"]) == 0


def test_prefix_index_memory_stays_bounded_over_a_long_run() -> None:
    index = PrefixIndex(max_blocks_per_endpoint=64)
    for turn in range(5_000):
        index.record(f"e{turn % 3}", [f"{turn}-{i}" for i in range(40)])
    assert [index.size(f"e{i}") for i in range(3)] == [64, 64, 64]
    latest = [f"4999-{i}" for i in range(40)]
    assert index.hits("e1", latest) == 40  # the newest blocks survive, the oldest were evicted
    assert index.hits("e1", ["0-0"]) == 0


def test_breaker_opens_after_consecutive_failures_and_one_probe_closes_it() -> None:
    breakers = Breakers(threshold=2, cooldown_s=0.05)
    breakers.failure("e")
    assert breakers.state("e") == CLOSED
    breakers.failure("e")
    assert breakers.state("e") == OPEN
    assert not breakers.available("e")
    time.sleep(0.06)
    assert breakers.available("e")
    assert breakers.state("e") == HALF_OPEN
    breakers.attempting("e")
    assert not breakers.available("e"), "only one probe at a time"
    breakers.success("e")
    assert breakers.state("e") == CLOSED


def test_a_failed_probe_reopens_the_breaker() -> None:
    breakers = Breakers(threshold=5, cooldown_s=0.01)
    for _ in range(5):
        breakers.failure("e")
    time.sleep(0.02)
    assert breakers.available("e")
    breakers.attempting("e")
    breakers.failure("e")
    assert breakers.state("e") == OPEN


def gate(watermark: int = 1, **kw: float) -> Gate:
    return Gate("p", watermark, AdmissionConfig(**kw))  # type: ignore[arg-type]


async def test_interactive_is_admitted_above_the_watermark_but_batch_waits() -> None:
    g = gate(1)
    assert await g.enter("batch") == 0.0
    assert await g.enter("interactive") == 0.0
    waiting = asyncio.create_task(g.enter("batch"))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    assert g.queued == 1
    g.leave()
    g.leave()
    assert await asyncio.wait_for(waiting, 1.0) >= 0.04


async def admitted_order(aging_s: float, head_start: float) -> list[str]:
    """Background queues first, batch `head_start` seconds later; the order slots are then granted in."""
    g = gate(1, aging_s=aging_s)
    await g.enter("batch")
    order: list[str] = []

    async def wait(cls: str) -> None:
        await g.enter(cls)
        order.append(cls)

    background = asyncio.create_task(wait("background"))
    await asyncio.sleep(head_start)
    batch = asyncio.create_task(wait("batch"))
    await asyncio.sleep(0.01)
    g.leave()
    await asyncio.sleep(0.01)
    g.leave()
    await asyncio.wait_for(asyncio.gather(background, batch), 1.0)
    return order


async def test_the_queue_serves_by_priority_and_aging_lets_old_work_overtake() -> None:
    # Without meaningful aging, the newer batch request goes before the older background one:
    # priority, not arrival order (a plain FIFO queue fails here).
    assert await admitted_order(aging_s=3600, head_start=0.05) == ["batch", "background"]
    # Background that waited four aging periods has climbed past a fresh batch request
    # (a plain priority queue fails here).
    assert await admitted_order(aging_s=0.05, head_start=0.2) == ["background", "batch"]


async def test_a_full_queue_answers_429_with_retry_after() -> None:
    g = gate(1, queue_limit=1, aging_s=3)
    await g.enter("batch")
    first = asyncio.create_task(g.enter("batch"))
    await asyncio.sleep(0.01)
    with pytest.raises(Reject) as info:
        await g.enter("batch")
    assert info.value.status == 429
    assert info.value.headers == {"Retry-After": "3"}
    first.cancel()


async def test_a_waiter_that_gives_up_leaks_no_slot() -> None:
    g = gate(1, max_wait_s=0.05)
    await g.enter("batch")
    with pytest.raises(Reject, match="waited"):
        await g.enter("batch")
    cancelled = asyncio.create_task(g.enter("batch"))
    await asyncio.sleep(0.01)
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    g.leave()
    assert g.inflight == 0
    assert g.queued == 0
    assert await g.enter("batch") == 0.0


VLLM = """# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="a"} 3.0
vllm:num_requests_waiting{model_name="b"} 1.0
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="a"} 2.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{model_name="a"} 0.25
"""
LLAMACPP = """# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 2
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.5
"""


@pytest.mark.parametrize(
    ("text", "want"), [(VLLM, (4.0, 2.0, 0.25)), (LLAMACPP, (2.0, 1.0, 0.5)), ("", (0.0, 0.0, 0.0))]
)
def test_engine_metrics_are_read_in_vllm_and_llamacpp_names(text: str, want: tuple[float, float, float]) -> None:
    assert parse(text) == want


def test_session_keys_are_bounded_whatever_the_client_sends() -> None:
    from taskgate.routing.cluster import session_key

    assert session_key(None) is None
    assert session_key("s-42") == "s-42"
    long = session_key("x" * 8000)
    assert long is not None
    assert len(long) == 34
    assert long == session_key("x" * 8000)
    assert long != session_key("x" * 7999)


def test_odd_engine_numbers_are_made_harmless() -> None:
    text = "vllm:num_requests_waiting -1\nvllm:num_requests_running NaN\nvllm:kv_cache_usage_perc 7\n"
    assert parse(text) == (0.0, 0.0, 1.0)


def test_one_odd_miss_cannot_shrink_the_index_to_nothing_and_hits_grow_it_back() -> None:
    index = PrefixIndex(max_blocks_per_endpoint=1000)
    prompt = [f"b{i}" for i in range(50)]
    index.record("e", prompt)
    assert index.distance("e", prompt, 50) == 0  # the very next turn: nothing placed in between
    index.learn("e", max(0, 50))  # what the tracker asks after a miss (an engine restart, say)
    assert index.cap_of("e") == 50
    assert index.hits("e", prompt) == 50, "the leading blocks are kept"
    index.grow("e", 40)
    assert index.cap_of("e") == 90
    long = [f"L{i}" for i in range(200)]
    index.record("e", long)
    assert index.hits("e", long) == 90, "a prompt longer than the bound keeps its prefix, not its tail"


def test_a_miss_never_trims_the_prompt_it_was_learned_from() -> None:
    """Turn 2 of a conversation (10 blocks the index predicted cached, 4 new) meets an engine that reports a
    miss: the bound learned from it must keep the 14 blocks just sent, leading block first."""
    endpoint = {"name": "e", "url": "http://127.0.0.1:9"}
    pool = {"name": "p", "endpoints": [endpoint], "models": [{"name": "m"}]}
    config = RoutingConfig.model_validate({"pools": [pool]})
    cluster = ClusterState(config)
    turn1 = [f"b{i}" for i in range(10)]
    cluster.store.placed("e", turn1, "s")
    turn2 = [*turn1, "b10", "b11", "b12", "b13"]
    predicted = cluster.store.index.hits("e", turn2)  # type: ignore[attr-defined]
    distance = cluster.store.distance("e", turn2, predicted)
    cluster.store.placed("e", turn2, "s")  # as route does: the distance first, then the placement
    tracker = Tracker(cluster, gate(4), "e", turn2, "s", predicted, distance)
    tracker.finished(cluster.topology.endpoints["e"], cached_tokens=0)  # the engine served nothing from cache
    index = cluster.store.index  # type: ignore[attr-defined]
    assert (predicted, distance) == (10, 0)
    assert index.cap_of("e") == 14, "the bound holds at least the prompt that taught it"
    assert index.hits("e", turn2) == 14, "the conversation the engine now holds is still found"


async def test_interactive_work_has_a_ceiling_of_twice_the_watermark() -> None:
    g = gate(2, max_wait_s=0.05)
    for _ in range(4):
        assert await g.enter("interactive") == 0.0
    with pytest.raises(Reject, match="waited"):
        await g.enter("interactive")
