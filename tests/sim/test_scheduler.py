"""Admission: FIFO waiting for seats and KV blocks."""

import asyncio

from taskgate.sim.kvcache import PrefixCache
from taskgate.sim.scheduler import Scheduler


async def test_waiters_are_admitted_in_arrival_order() -> None:
    scheduler = Scheduler(PrefixCache(16), max_num_seqs=1)
    first = await scheduler.admit([], 1)
    second = asyncio.create_task(scheduler.admit([], 1))
    third = asyncio.create_task(scheduler.admit([], 1))
    await asyncio.sleep(0)
    assert (scheduler.running, scheduler.waiting) == (1, 2)
    scheduler.finish(first)
    await asyncio.sleep(0)
    assert second.done()
    assert not third.done()
    scheduler.finish(await second)
    scheduler.finish(await third)
    assert (scheduler.running, scheduler.waiting) == (0, 0)


async def test_request_waits_for_kv_blocks_even_with_free_seats() -> None:
    scheduler = Scheduler(PrefixCache(4), max_num_seqs=8)
    big = await scheduler.admit([], 3)
    small = asyncio.create_task(scheduler.admit([], 2))
    await asyncio.sleep(0)
    assert scheduler.waiting == 1
    scheduler.finish(big)
    lease = await small
    assert lease.blocks == 2


async def test_cancelled_waiter_leaves_the_queue() -> None:
    scheduler = Scheduler(PrefixCache(4), max_num_seqs=1)
    first = await scheduler.admit([], 1)
    waiter = asyncio.create_task(scheduler.admit([], 1))
    await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert scheduler.waiting == 0
    scheduler.finish(first)
    assert (scheduler.running, scheduler.cache.used_blocks) == (0, 0)


async def test_waiter_cancelled_right_after_admission_gives_its_seat_back() -> None:
    scheduler = Scheduler(PrefixCache(4), max_num_seqs=1)
    first = await scheduler.admit([], 1)
    waiter = asyncio.create_task(scheduler.admit([], 1))
    await asyncio.sleep(0)
    scheduler.finish(first)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert (scheduler.running, scheduler.cache.used_blocks) == (0, 0)
