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
    """Per endpoint, a bounded LRU set of block hashes placed there."""

    def __init__(self, max_blocks_per_endpoint: int):
        self.cap = max_blocks_per_endpoint
        self._blocks: dict[str, OrderedDict[str, None]] = {}

    def record(self, endpoint: str, hashes: list[str]) -> None:
        """Remember that `endpoint` now holds these blocks; evict the least recently used beyond the cap."""
        blocks = self._blocks.setdefault(endpoint, OrderedDict())
        for digest in hashes[-self.cap :]:
            blocks[digest] = None
            blocks.move_to_end(digest)
        while len(blocks) > self.cap:
            blocks.popitem(last=False)

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

    def size(self, endpoint: str) -> int:
        return len(self._blocks.get(endpoint, ()))
