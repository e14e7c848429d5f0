"""Predicted admission: an engine whose KV cache long answers fill queues the next request until one ends."""

from __future__ import annotations

import asyncio

from taskgate.routing.predict import Lanes

from ..conftest import ProxyFactory
from .conftest import StartEngines, chat, pool, record_of, routing
from .test_cheapest_path import CHEAPEST


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_request_that_does_not_fit_beside_the_answers_held_waits_for_the_first_to_end() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    # two long answers of 4,000 tokens each on a cache of 10,000: 0.1 s of prefill each, then 5 s and 8 s of decode
    first = lanes.placed("cheap-0", 0.1, 4_000, 5.0, 10_000)
    lanes.placed("cheap-0", 0.1, 4_000, 8.0, 10_000)
    assert abs(lanes.wait_s("cheap-0", 1_500, 10_000) - 0.2) < 1e-9, "1,500 tokens fit: only the lane's backlog"
    assert abs(lanes.wait_s("cheap-0", 3_000, 10_000) - 5.1) < 1e-9, "3,000 do not: until the first answer ends"
    assert lanes.wait_s("cheap-0", 3_000) == lanes.backlog_s("cheap-0"), "a pool with no declared capacity: no wait"
    clock.now += 1.0
    lanes.done("cheap-0", first)  # it ended early: its room is free now
    assert abs(lanes.wait_s("cheap-0", 3_000, 10_000)) < 1e-9


def test_a_request_queued_behind_one_that_waits_for_room_is_admitted_after_it() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    lanes.placed("cheap-0", 0.1, 8_000, 5.0, 10_000)  # holds until 105.1
    waiting = lanes.placed("cheap-0", 0.1, 8_000, 5.0, 10_000)  # no room: admitted at 105.1, prefilled by 105.2
    assert abs(waiting.prefill_done - 105.2) < 1e-9
    # the engine admits in arrival order: a small request that would fit now still waits behind the big one
    assert abs(lanes.wait_s("cheap-0", 100, 10_000) - 5.2) < 1e-9


def test_an_answer_later_than_predicted_keeps_its_room_and_is_expected_as_late_again() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    late = lanes.placed("cheap-0", 0.0, 8_000, 2.0, 10_000)  # predicted to end at 102
    clock.now = 103.0  # a second past its predicted end, and not answered
    assert abs(lanes.wait_s("cheap-0", 4_000, 10_000) - 1.0) < 1e-9
    lanes.done("cheap-0", late)
    assert lanes.wait_s("cheap-0", 4_000, 10_000) == 0.0
    assert not lanes.holds, "nothing is held once every answer ended"


def test_a_fallback_that_failed_holds_no_room() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    tried = lanes.placed("cheap-1", 0.0, 9_000, 30.0, 10_000)
    lanes.release("cheap-1", tried)
    assert lanes.wait_s("cheap-1", 9_000, 10_000) == 0.0


def test_what_the_last_scrape_says_is_held_is_a_floor_under_this_replicas_own_holds() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    lanes.placed("cheap-0", 0.0, 2_000, 4.0, 10_000)  # this replica's only hold: room for 8,000 more
    assert lanes.wait_s("cheap-0", 5_000, 10_000) == 0.0
    # the engine says 9,000 are held (another replica's work): 5,000 fit only once this replica's answer ends
    assert abs(lanes.wait_s("cheap-0", 5_000, 10_000, in_use=9_000) - 4.0) < 1e-9
    assert lanes.wait_s("cheap-0", 500, 10_000, in_use=9_000) == 0.0


def test_a_prefix_still_being_prefilled_is_not_cached_yet() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    system = ["s1", "s2", "s3"]
    ticket = lanes.placed("cheap-0", 0.5, 3_000, 1.0, 10_000)
    lanes.bringing("cheap-0", [*system, "t1"], ticket.prefill_done)  # the first turn brings the system prompt
    assert lanes.computed("cheap-0", [*system, "t2"], 3) == 0, "the second turn, sent meanwhile, computes it again"
    assert lanes.computed("cheap-1", [*system, "t2"], 3) == 3, "another endpoint: what the index says"
    clock.now += 0.6  # the first turn's prefill is done: its blocks are in the cache
    assert lanes.computed("cheap-0", [*system, "t2"], 3) == 3
    lanes.bringing("cheap-0", ["x"], clock.now - 1.0)  # a prefill already done brings nothing pending
    assert not lanes.pending
    second = lanes.placed("cheap-0", 0.5, 3_000, 1.0, 10_000)
    lanes.bringing("cheap-0", ["d1", "d2"], second.prefill_done)
    lanes.done("cheap-0", second)  # answered before its predicted prefill end: the engine has computed them
    assert lanes.computed("cheap-0", ["d1", "d2", "q"], 2) == 2


def test_a_cached_prefix_counts_only_as_far_as_the_cache_can_hold_it_beside_the_running_answers() -> None:
    clock = Clock()
    lanes = Lanes(clock)
    assert lanes.resident("cheap-0", 8_000, 8_200, 100, 10_000) == 8_000, "an idle engine keeps the document"
    lanes.placed("cheap-0", 0.1, 4_000, 5.0, 10_000)
    lanes.placed("cheap-0", 0.1, 3_000, 5.0, 10_000)
    # 7,000 held, 300 of this request's own: at most 2,700 of the document can still be in the cache
    assert lanes.resident("cheap-0", 8_000, 8_200, 100, 10_000) == 2_700
    assert lanes.resident("cheap-0", 8_000, 8_200, 100, None) == 8_000, "no declared capacity: the index's word"


async def test_interactive_turns_leave_a_cheap_engine_whose_cache_long_answers_fill_and_return_when_they_end(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    premium = await engines("premium-0")
    # 400 blocks of 16: 6,400 tokens of KV; two reports (about 2,250 prompt and 800 answer tokens each) fill it
    # for 800 x 4 ms; a 1,200-token answer does not fit beside them, and the engine queues it until one ends
    cheap = await engines("cheap-0", time_scale=1.0, kv_capacity_blocks=400, prefill_tokens_per_s=100_000, tpot_s=0.004)
    cheap_pool = pool(
        "cheap",
        cheap,
        price={"input_per_mtok": 0.8, "output_per_mtok": 2.4, "cached_input_per_mtok": 0.08},
        prefill_tokens_per_s=100_000,
        kv_capacity_tokens=6_400,
        targets={"ttft_ms": 3_000, "tpot_ms": 4},
    )
    premium_pool = pool(
        "premium",
        premium,
        price={"input_per_mtok": 3.0, "output_per_mtok": 9.0, "cached_input_per_mtok": 0.3},
        prefill_tokens_per_s=20_000,
        targets={"ttft_ms": 300},
    )
    client = await proxy(routing(premium_pool, cheap_pool) | {"steps": CHEAPEST})
    reports = [
        asyncio.create_task(
            client.post(
                "/v1/chat/completions",
                json=chat(f"report {i}: " + "quarterly figures and remarks " * 300) | {"max_tokens": 800},
                headers={"x-taskgate-class": "batch"},
            )
        )
        for i in range(2)
    ]
    await asyncio.sleep(0.3)  # both placed on cheap-0, prefilled, and decoding
    question = chat("a short question") | {"max_tokens": 1_200}
    meanwhile = await client.post("/v1/chat/completions", json=question)
    assert meanwhile.status == 200
    assert meanwhile.headers["x-taskgate-pool"] == "premium"
    predicted = record_of(client, meanwhile)["decisions"]["placement"]["predicted_by_endpoint"]
    assert predicted["cheap-0"]["ttft_ms"] > 2_000, "admitted only once a report's answer ends, about 3 s on"
    for done in await asyncio.gather(*reports):
        assert done.status == 200
        assert done.headers["x-taskgate-pool"] == "cheap"
    later = await client.post("/v1/chat/completions", json=question)
    assert later.headers["x-taskgate-pool"] == "cheap", "the reports' answers ended: their room is free again"
