"""Prefix KV cache of hashed token blocks with LRU eviction of idle blocks."""

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(eq=False)
class Lease:
    """Blocks held by one running sequence.

    ``pinned`` are hashed blocks shared through the cache, in chain order;
    ``anonymous`` counts blocks not yet published (being computed or partial).
    """

    pinned: list[int] = field(default_factory=list)
    anonymous: int = 0

    @property
    def blocks(self) -> int:
        """Total blocks held."""
        return len(self.pinned) + self.anonymous


class PrefixCache:
    """Block allocator with a content-addressed prefix cache.

    Blocks referenced by running sequences are pinned; released hashed blocks
    stay cached (idle) until evicted, least recently used first.
    """

    def __init__(self, capacity_blocks: int) -> None:
        self.capacity = capacity_blocks
        self._refs: dict[int, int] = {}
        self._idle: OrderedDict[int, None] = OrderedDict()
        self._anonymous = 0

    @property
    def used_blocks(self) -> int:
        """Blocks held by running sequences."""
        return len(self._refs) + self._anonymous

    @property
    def idle_blocks(self) -> int:
        """Cached blocks no running sequence holds; evictable."""
        return len(self._idle)

    @property
    def free_blocks(self) -> int:
        """Blocks holding nothing at all."""
        return self.capacity - self.used_blocks - self.idle_blocks

    def usage(self) -> float:
        """Fraction of blocks in use by running sequences (0..1)."""
        return self.used_blocks / self.capacity

    def contains(self, block_hash: int) -> bool:
        """Whether a block with this hash is cached (pinned or idle)."""
        return block_hash in self._refs or block_hash in self._idle

    def match(self, hashes: Sequence[int]) -> int:
        """Number of leading blocks of a hash chain that are cached."""
        count = 0
        for block_hash in hashes:
            if not self.contains(block_hash):
                break
            count += 1
        return count

    def acquire(self, hashes: Sequence[int], total_blocks: int) -> Lease | None:
        """Pin the cached prefix of ``hashes`` and allocate the rest.

        Returns None when ``total_blocks`` cannot fit even after evicting.
        """
        hits = list(hashes[: self.match(hashes)])
        fresh = max(total_blocks - len(hits), 0)
        idle_hits = sum(1 for block_hash in hits if block_hash in self._idle)
        if self.free_blocks + self.idle_blocks - idle_hits < fresh:
            return None
        for block_hash in hits:
            self._pin(block_hash)
        self._evict(fresh - self.free_blocks)
        self._anonymous += fresh
        return Lease(hits, fresh)

    def commit(self, lease: Lease, hashes: Sequence[int]) -> None:
        """Publish the computed full blocks ``hashes`` (a chain) of a lease."""
        for block_hash in hashes[len(lease.pinned) :]:
            if lease.anonymous == 0:
                return
            lease.anonymous -= 1
            self._anonymous -= 1
            self._pin(block_hash)
            lease.pinned.append(block_hash)

    def release(self, lease: Lease) -> None:
        """Return a lease's blocks; hashed ones stay cached as idle."""
        for block_hash in reversed(lease.pinned):
            self._unpin(block_hash)
        self._anonymous -= lease.anonymous
        lease.pinned.clear()
        lease.anonymous = 0

    def _pin(self, block_hash: int) -> None:
        self._idle.pop(block_hash, None)
        self._refs[block_hash] = self._refs.get(block_hash, 0) + 1

    def _unpin(self, block_hash: int) -> None:
        count = self._refs.pop(block_hash) - 1
        if count:
            self._refs[block_hash] = count
        else:
            self._idle[block_hash] = None

    def _evict(self, count: int) -> None:
        for _ in range(count):
            self._idle.popitem(last=False)
