"""Where a request's texts are: every string (and key) of its JSON body that could carry a person's data."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from taskgate.plugins import Surface

Path = tuple[str | int, ...]

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
    (anything else), and for keys argument_name (MCP tool arguments) or key
    (any other object key that is not a plain field name, see `strings`).
    Keys come after all values.
    """
    if surface == Surface.MCP:  # a JSON-RPC message: a tool call's arguments are all content, keys included
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
    keys: list[tuple[Path, str]] = []
    for path, text in strings(body, keys=keys):
        yield path, _kind(body, path), text
    for path, key in keys:
        yield path, OBJECT_KEY, key


ARGUMENT_NAME = "argument_name"  # a key of a tool call's arguments: it cannot be redacted, only refused
OBJECT_KEY = "key"  # a key elsewhere in a body (`metadata`, say): refused too, keys are never rewritten
KEY_KINDS = frozenset({ARGUMENT_NAME, OBJECT_KEY})
# A field name as APIs spell them (`tool_calls`, `maxTokens`): no digit, no '@', nothing a pattern entity needs.
_PLAIN_KEY = re.compile(r"[a-z][A-Za-z_]*")


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


def strings(
    value: Any, path: Path = (), structural: bool = True, keys: list[tuple[Path, str]] | None = None
) -> Iterator[tuple[Path, str]]:
    """Every scannable string under `value`, with its path, depth-first in document order.

    With `structural` (request bodies), protocol keys and inline binary data are
    skipped; without it (a tool's arguments, an answer) every string counts.
    `keys`, if given, collects on the way every key of the objects walked that
    could be content rather than a field name (not `tool_calls`, `maxTokens`),
    with its object's path.
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
                if keys is not None and isinstance(key, str) and key and not _PLAIN_KEY.fullmatch(key):
                    keys.append((where_, key))
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
    """messages[3].content, as the evidence spells a path; a key that may be data is written <key>."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            name = key if _PLAIN_KEY.fullmatch(key) else "<key>"
            out += f".{name}" if out else name
    return out
