"""Find personal data in text, once per distinct text: the analyzer, a content-hash cache, redaction."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from presidio_analyzer import RecognizerResult

from .presidio import Backend, analyzer

Path = tuple[str | int, ...]
CHUNK_CHARS = 100_000  # spaCy refuses texts over 1,000,000 characters (E088); smaller chunks bound each call
OVERLAP_CHARS = 512  # consecutive chunks share this much, so an entity across a cut is whole in one of them
Checkpoint = Callable[[], None]


@dataclass(frozen=True, slots=True)
class Finding:
    """One entity found in one text: its type, span and the analyzer's confidence."""

    entity: str
    start: int
    end: int
    score: float


class Analyzer(Protocol):
    def analyze(
        self, text: str, language: str, *, entities: list[str] | None = ..., score_threshold: float | None = ...
    ) -> list[RecognizerResult]: ...


def _no_checkpoint() -> None:
    return None


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
        self.engine: Analyzer = analyzer(backend)
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

    def analyze(self, text: str, checkpoint: Checkpoint = _no_checkpoint) -> tuple[Finding, ...]:
        """Analyse `text` (split at whitespace into bounded chunks) and remember the result.

        `checkpoint` is called before each analyzer call; it may raise to stop.
        """
        found: list[Finding] = []
        for offset, chunk in _chunks(text, CHUNK_CHARS):
            checkpoint()
            results = self.engine.analyze(chunk, language="en", entities=self.entities, score_threshold=self.threshold)
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
    """`text` with each finding's span replaced: `replacement[entity]`, None to mask with '*', absent: <ENTITY>."""
    parts: list[str] = []
    last = 0
    for f in findings:
        parts.append(text[last : f.start])
        placeholder = replacement.get(f.entity, f"<{f.entity}>")
        parts.append(placeholder if placeholder is not None else "*" * (f.end - f.start))
        last = f.end
    parts.append(text[last:])
    return "".join(parts)


# Keys whose strings are protocol, not content: never scanned (a model name is not personal data).
STRUCTURAL_KEYS = frozenset(
    {"model", "role", "type", "id", "tool_call_id", "object", "encoding_format", "finish_reason", "service_tier",
     "reasoning_effort", "system_fingerprint", "detail", "modalities", "voice", "format"}
)  # fmt: skip
MAX_DEPTH = 64


class TooDeep(ValueError):
    """A body nested deeper than any real request; it is refused rather than half-scanned."""


def request_texts(surface: str, body: dict[str, Any]) -> Iterator[tuple[Path, str, str]]:
    """Every string of a request that could carry a person's data: (path, kind, text).

    The whole body is walked, not a list of known fields: a field taskgate does
    not know (a message's `name`, `user`, `metadata`, a new API field) is still
    scanned. Skipped: protocol keys (STRUCTURAL_KEYS) and inline binary data
    (`data:` URLs, audio `data`). Kinds: prompt (system, developer and user
    content; completions prompts; embeddings inputs), assistant (earlier model
    output), tool_call (arguments the model gave a tool), tool_result, field
    (anything else).
    """
    if surface == "mcp":  # a JSON-RPC message: a tool call's arguments are all content, keys included
        params = body.get("params")
        arguments = params.get("arguments") if isinstance(params, dict) else None
        base: Path = ("params", "arguments")
        for path, text in strings(arguments, base, structural=False):
            yield path, "tool_call", text
        for path, key in argument_names(arguments, base):
            yield path, ARGUMENT_NAME, key
        rest = {k: v for k, v in params.items() if k != "arguments"} if isinstance(params, dict) else {}
        for path, text in strings(rest, ("params",)):
            yield path, "field", text
        return
    for path, text in strings(body):
        yield path, _kind(body, path), text


ARGUMENT_NAME = "argument_name"  # a key of a tool call's arguments: it cannot be redacted, only refused


def argument_names(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    """Every key of every object under `value`, with the path of the object it names a member of."""
    stack: list[tuple[Path, Any]] = [(path, value)]
    while stack:
        where_, item = stack.pop()
        if len(where_) > MAX_DEPTH:
            raise TooDeep(f"the body is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and key:
                    yield where_, key
                stack.append(((*where_, key), child))
        elif isinstance(item, list):
            stack.extend(((*where_, i), child) for i, child in enumerate(item))


def strings(value: Any, path: Path = (), structural: bool = True) -> Iterator[tuple[Path, str]]:
    """Every scannable string under `value`, with its path, depth-first in document order.

    With `structural` (request bodies), protocol keys and inline binary data are
    skipped; without it (a tool's arguments, an answer) every string counts.
    """
    stack: list[tuple[Path, Any]] = [(path, value)]
    while stack:
        where_, item = stack.pop()
        if isinstance(item, str):
            if item:
                yield where_, item
        elif isinstance(item, dict):
            if len(where_) > MAX_DEPTH:
                raise TooDeep(f"the body is nested more than {MAX_DEPTH} levels deep")
            children = []
            for key, child in item.items():
                if structural and (key in STRUCTURAL_KEYS or (key == "data" and isinstance(child, str))):
                    continue
                if structural and key == "url" and isinstance(child, str) and child.startswith("data:"):
                    continue
                children.append(((*where_, key), child))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            if len(where_) > MAX_DEPTH:
                raise TooDeep(f"the body is nested more than {MAX_DEPTH} levels deep")
            stack.extend(reversed([((*where_, i), child) for i, child in enumerate(item)]))


def replace_strings(value: Any, mapping: dict[str, str], depth: int = 0) -> tuple[Any, bool]:
    """`value` with every string found in `mapping` replaced; containers copied only where something changed."""
    if isinstance(value, str):
        new = mapping.get(value)
        return (new, True) if new is not None else (value, False)
    if depth > MAX_DEPTH + 1 or not isinstance(value, dict | list):
        return value, False
    if isinstance(value, dict):
        changed = {}
        for key, child in value.items():
            new_child, did = replace_strings(child, mapping, depth + 1)
            if did:
                changed[key] = new_child
        return ({**value, **changed}, True) if changed else (value, False)
    out: list[Any] | None = None
    for i, child in enumerate(value):
        new_child, did = replace_strings(child, mapping, depth + 1)
        if did:
            out = out if out is not None else list(value)
            out[i] = new_child
    return (out, True) if out is not None else (value, False)


def _kind(body: dict[str, Any], path: Path) -> str:
    head = path[0] if path else None
    if head in ("prompt", "input", "suffix"):
        return "prompt"
    if head == "messages" and len(path) > 1 and isinstance(path[1], int):
        if "tool_calls" in path or "function_call" in path:
            return "tool_call"
        message = body["messages"][path[1]]
        role = message.get("role") if isinstance(message, dict) else None
        return {"assistant": "assistant", "tool": "tool_result", "function": "tool_result"}.get(str(role), "prompt")
    return "field"


def where(path: Path) -> str:
    """messages[3].content, as the evidence spells a path."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _chunks(text: str, size: int) -> Iterator[tuple[int, str]]:
    """Overlapping chunks cut at spaces; findings in an overlap are found twice and merged by resolve_overlaps."""
    start = 0
    while len(text) - start > size:
        cut = text.rfind(" ", start + size // 2, start + size)
        cut = cut if cut > start else start + size
        yield start, text[start:cut]
        back = text.find(" ", cut - OVERLAP_CHARS, cut)
        start = back + 1 if back != -1 else cut - OVERLAP_CHARS
    yield start, text[start:]
