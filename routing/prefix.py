"""The prefix index: which leading prompt blocks each endpoint most likely holds in its KV cache.

A prompt is serialised canonically (model, tools, then each message's role and
content) and cut into fixed-size blocks; each block's hash covers the previous
block's hash, so equal hashes mean equal prefixes. Engines cache by token
blocks; character blocks predict the same thing closely enough to rank endpoints.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any

SEP = "\x1e"  # record separator: no message content can fake a boundary with plain text


def canonical(body: dict[str, Any]) -> str:
    """The text an engine's prompt cache keys on, for chat and completion requests."""
    parts = [str(body.get("model", ""))]
    tools = body.get("tools")
    if tools:
        parts.append(json.dumps(tools, sort_keys=True, separators=(",", ":")))
    messages = body.get("messages")
    if isinstance(messages, list):
        parts.extend(_message(m) for m in messages)
    elif isinstance(body.get("prompt"), str):
        parts.append(body["prompt"])
    return SEP.join(parts)


def _message(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if not isinstance(content, str):
        content = json.dumps(content, sort_keys=True, separators=(",", ":"))
    extra = message.get("tool_calls")
    calls = json.dumps(extra, sort_keys=True, separators=(",", ":")) if extra else ""
    return f"{message.get('role', '')}:{content}{calls}"


def block_hashes(text: str, block_chars: int) -> list[str]:
    """Chained hashes of the full blocks of `text` (a partial last block is not cacheable)."""
    data = text.encode()
    hashes: list[str] = []
    previous = b""
    for start in range(0, len(data) - block_chars + 1, block_chars):
        digest = hashlib.blake2b(previous + data[start : start + block_chars], digest_size=8).digest()
        hashes.append(digest.hex())
        previous = digest
    return hashes


class PrefixIndex:
    """Per endpoint, a bounded LRU of block hashes placed there.

    Each endpoint's bound starts at `max_blocks_per_endpoint` (or what its
    pool's KV capacity holds, if smaller) and is learned downwards when the
    engine reports a cache miss the index did not predict: if a prefix was
    evicted after `distance` newer blocks, the engine holds about that many.
    Confirmed hits let the bound grow back, one block at a time.
    """

    def __init__(self, max_blocks_per_endpoint: int, caps: dict[str, int] | None = None):
        self.cap = max_blocks_per_endpoint
        self._caps = dict(caps or {})
        self._blocks: dict[str, OrderedDict[str, int]] = {}
        self._seq: dict[str, int] = {}

    def cap_of(self, endpoint: str) -> int:
        return min(self.cap, self._caps.get(endpoint, self.cap))

    def record(self, endpoint: str, hashes: list[str]) -> None:
        """Remember that `endpoint` now holds these blocks; evict the least recently used beyond its bound."""
        blocks = self._blocks.setdefault(endpoint, OrderedDict())
        seq = self._seq.get(endpoint, 0)
        for digest in hashes[: self.cap_of(endpoint)]:  # the leading blocks: a prefix is what an engine reuses
            seq += 1
            blocks[digest] = seq
            blocks.move_to_end(digest)
        self._seq[endpoint] = seq
        self._evict(endpoint)

    def hits(self, endpoint: str, hashes: list[str]) -> int:
        """How many leading blocks of the prompt the endpoint holds."""
        blocks = self._blocks.get(endpoint)
        if not blocks:
            return 0
        count = 0
        for digest in hashes:
            if digest not in blocks:
                break
            count += 1
        return count

    def distance(self, endpoint: str, hashes: list[str], hit: int) -> int | None:
        """Blocks recorded on the endpoint since the prompt's last cached block was used."""
        blocks = self._blocks.get(endpoint)
        if not hit or not blocks or hashes[hit - 1] not in blocks:
            return None
        return self._seq[endpoint] - blocks[hashes[hit - 1]]

    def learn(self, endpoint: str, capacity_blocks: int) -> None:
        """The engine evicted sooner than predicted: hold at most this many blocks for it."""
        self._caps[endpoint] = max(1, min(self.cap_of(endpoint), capacity_blocks))
        self._evict(endpoint)

    def grow(self, endpoint: str, blocks: int) -> None:
        """The engine served `blocks` from cache: it holds at least that much more than we may think."""
        if endpoint in self._caps:
            self._caps[endpoint] = min(self.cap, self._caps[endpoint] + max(1, blocks))

    def size(self, endpoint: str) -> int:
        return len(self._blocks.get(endpoint, ()))

    def _evict(self, endpoint: str) -> None:
        blocks = self._blocks.get(endpoint)
        cap = self.cap_of(endpoint)
        while blocks and len(blocks) > cap:
            blocks.popitem(last=False)
