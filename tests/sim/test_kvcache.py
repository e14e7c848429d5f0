"""The prefix cache: hit counting, LRU eviction and pinning."""

from taskgate.sim.kvcache import Lease, PrefixCache


def _run(cache: PrefixCache, chain: list[int], total: int) -> Lease:
    lease = cache.acquire(chain, total)
    assert lease is not None
    cache.commit(lease, chain)
    return lease


def test_cold_chain_misses_and_commit_makes_it_hit() -> None:
    cache = PrefixCache(8)
    lease = cache.acquire([1, 2, 3], 4)
    assert lease is not None
    assert (lease.pinned, lease.anonymous) == ([], 4)
    assert cache.match([1, 2, 3]) == 0
    cache.commit(lease, [1, 2, 3])
    assert cache.match([1, 2, 3, 4]) == 3


def test_hits_count_only_the_leading_run_of_cached_blocks() -> None:
    cache = PrefixCache(8)
    _run(cache, [1, 2, 3], 3)
    assert cache.match([1, 9, 3]) == 1
    assert cache.match([9, 2, 3]) == 0


def test_shared_prefix_is_pinned_not_copied() -> None:
    cache = PrefixCache(8)
    _run(cache, [1, 2, 3], 4)
    second = cache.acquire([1, 2, 3], 4)
    assert second is not None
    assert (second.pinned, second.anonymous) == ([1, 2, 3], 1)
    assert cache.used_blocks == 5


def test_released_blocks_stay_cached_as_idle() -> None:
    cache = PrefixCache(8)
    cache.release(_run(cache, [1, 2], 3))
    assert (cache.used_blocks, cache.idle_blocks, cache.free_blocks) == (0, 2, 6)
    assert cache.match([1, 2]) == 2


def test_lru_evicts_the_least_recently_released_chain_tail_first() -> None:
    cache = PrefixCache(4)
    cache.release(_run(cache, [1, 2], 2))
    cache.release(_run(cache, [3, 4], 2))
    assert cache.acquire([], 1) is not None
    assert cache.match([1, 2]) == 1
    assert cache.match([3, 4]) == 2


def test_a_prefix_hit_refreshes_recency() -> None:
    cache = PrefixCache(4)
    cache.release(_run(cache, [1, 2], 2))
    cache.release(_run(cache, [3, 4], 2))
    cache.release(_run(cache, [1, 2], 2))
    assert cache.acquire([], 2) is not None
    assert cache.match([1, 2]) == 2
    assert cache.match([3, 4]) == 0


def test_pinned_blocks_are_never_evicted() -> None:
    cache = PrefixCache(4)
    running = _run(cache, [1, 2], 4)
    assert cache.acquire([7], 1) is None
    assert cache.match([1, 2]) == 2
    cache.release(running)
    assert cache.acquire([7], 1) is not None


def test_hit_blocks_do_not_count_as_evictable_room() -> None:
    cache = PrefixCache(3)
    cache.release(_run(cache, [1, 2], 2))
    assert cache.acquire([1, 2], 4) is None
    lease = cache.acquire([1, 2], 3)
    assert lease is not None
    assert lease.pinned == [1, 2]


def test_usage_is_the_fraction_of_blocks_held_by_running_sequences() -> None:
    cache = PrefixCache(8)
    lease = _run(cache, [1], 2)
    assert cache.usage() == 0.25
    cache.release(lease)
    assert cache.usage() == 0.0


def test_a_block_computed_twice_is_kept_once() -> None:
    cache = PrefixCache(8)
    first, second = cache.acquire([], 2), cache.acquire([], 2)
    assert first is not None
    assert second is not None
    cache.commit(first, [1])
    cache.commit(second, [1])
    assert cache.used_blocks == 3
    cache.release(first)
    cache.release(second)
    assert (cache.idle_blocks, cache.free_blocks) == (1, 7)


def test_release_twice_is_harmless() -> None:
    cache = PrefixCache(4)
    lease = _run(cache, [1], 2)
    cache.release(lease)
    cache.release(lease)
    assert (cache.used_blocks, cache.idle_blocks) == (0, 1)
