"""Find personal data in text, once per distinct text: the analyzer, a content-hash cache, redaction."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .presidio import Backend, analyzer

Path = tuple[str | int, ...]
CHUNK_CHARS = 100_000  # spaCy refuses texts over 1,000,000 characters (E088); smaller chunks bound each call


@dataclass(frozen=True, slots=True)
class Finding:
    """One entity found in one text: its type, span and the analyzer's confidence."""

    entity: str
    start: int
    end: int
    score: float


class Scanner:
    """presidio behind a bounded LRU keyed by the text's hash.

    A conversation resends its earlier turns; each distinct text is analysed
    once, so a turn costs only its new text. `cached` runs on the event loop;
    `analyze` is the blocking call that belongs on a worker thread.
    """

    def __init__(self, backend: Backend, entities: Sequence[str], threshold: float, cache_entries: int):
        self.backend = backend
        self.entities = list(entities)
        self.threshold = threshold
        self._engine = analyzer(backend)
        self._cache: OrderedDict[bytes, tuple[Finding, ...]] = OrderedDict()
        self._limit = cache_entries
        self._lock = threading.Lock()

    def cached(self, text: str) -> tuple[Finding, ...] | None:
        key = _digest(text)
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
            return found

    def analyze(self, text: str) -> tuple[Finding, ...]:
        """Analyse `text` (split at whitespace into bounded chunks) and remember the result."""
        found: list[Finding] = []
        for offset, chunk in _chunks(text, CHUNK_CHARS):
            results = self._engine.analyze(chunk, language="en", entities=self.entities, score_threshold=self.threshold)
            found.extend(Finding(r.entity_type, r.start + offset, r.end + offset, float(r.score)) for r in results)
        findings = resolve_overlaps(found)
        if self._limit:
            key = _digest(text)
            with self._lock:
                self._cache[key] = findings
                self._cache.move_to_end(key)
                while len(self._cache) > self._limit:
                    self._cache.popitem(last=False)
        return findings


def resolve_overlaps(found: Sequence[Finding]) -> tuple[Finding, ...]:
    """Where findings overlap, keep the most confident (then the longest); in text order."""
    kept: list[Finding] = []
    for f in sorted(found, key=lambda f: (-f.score, f.start - f.end, f.start)):
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return tuple(sorted(kept, key=lambda f: f.start))


def redact(text: str, findings: Sequence[Finding], replacement: dict[str, str | None]) -> str:
    """`text` with each finding's span replaced; `replacement[entity]` None means mask with '*'."""
    parts: list[str] = []
    last = 0
    for f in findings:
        parts.append(text[last : f.start])
        placeholder = replacement.get(f.entity)
        parts.append(placeholder if placeholder is not None else "*" * (f.end - f.start))
        last = f.end
    parts.append(text[last:])
    return "".join(parts)


def request_texts(surface: str, body: dict[str, Any]) -> Iterator[tuple[Path, str, str]]:
    """Every text of a request a person's data could be in: (path, kind, text).

    Kinds: prompt (system, developer and user content), assistant (earlier
    model output), tool_call (arguments the model gave a tool), tool_result.
    """
    if surface == "chat":
        messages = body.get("messages")
        if isinstance(messages, list):
            yield from _message_texts(messages)
    elif surface == "completions":
        yield from _strings(("prompt",), body.get("prompt"), "prompt")
    elif surface == "embeddings":
        yield from _strings(("input",), body.get("input"), "prompt")


def _message_texts(messages: list[Any]) -> Iterator[tuple[Path, str, str]]:
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        kind = {"assistant": "assistant", "tool": "tool_result", "function": "tool_result"}.get(str(role), "prompt")
        yield from _content(("messages", i, "content"), message.get("content"), kind)
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            for j, call in enumerate(calls):
                function = call.get("function") if isinstance(call, dict) else None
                arguments = function.get("arguments") if isinstance(function, dict) else None
                if isinstance(arguments, str) and arguments:
                    yield ("messages", i, "tool_calls", j, "function", "arguments"), "tool_call", arguments


def _content(path: Path, content: Any, kind: str) -> Iterator[tuple[Path, str, str]]:
    if isinstance(content, str):
        if content:
            yield path, kind, content
    elif isinstance(content, list):  # content parts: only text parts carry text
        for k, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
                yield (*path, k, "text"), kind, part["text"]


def _strings(path: Path, value: Any, kind: str) -> Iterator[tuple[Path, str, str]]:
    if isinstance(value, str):
        if value:
            yield path, kind, value
    elif isinstance(value, list):
        for k, item in enumerate(value):
            if isinstance(item, str) and item:  # token-id inputs carry no text to scan
                yield (*path, k), kind, item


def put(container: Any, path: Path, value: Any) -> Any:
    """A copy of `container` with `value` at `path`; only the containers on the path are copied."""
    key = path[0]
    copy: Any = list(container) if isinstance(container, list) else dict(container)
    copy[key] = value if len(path) == 1 else put(container[key], path[1:], value)
    return copy


def where(path: Path) -> str:
    """messages[3].content, as the evidence spells a path."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _chunks(text: str, size: int) -> Iterator[tuple[int, str]]:
    start = 0
    while len(text) - start > size:
        cut = text.rfind(" ", start + size // 2, start + size)
        cut = cut if cut > start else start + size
        yield start, text[start:cut]
        start = cut
    yield start, text[start:]
