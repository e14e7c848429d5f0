"""Request bodies parsed one strict way, so what the guards judge is what the upstream receives.

The stdlib parser is lenient where a proxy must not be: with a key twice in
one object it keeps the last, while the raw bytes go upstream and an engine
may keep the first; it accepts `NaN`, lone surrogate escapes that no UTF-8
encoder can write, and nesting deep enough to exhaust the interpreter's
stack. Every surface parses through `loads`, and each failure is a
`BodyError` with a stable code that the surface renders in its own format.
"""

from __future__ import annotations

import json
import re
from typing import Any

from taskgate.errors import TaskgateError

MAX_DEPTH = 64  # objects and arrays inside one another; real requests stay far below it
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class BodyError(TaskgateError, ValueError):
    """A body taskgate will not read: `code` is stable, the message says what is wrong and where."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        key = _named(_repeated(pairs))
        raise BodyError("duplicate_key", f"the key {key} appears twice in one object; send it once")
    return value


def _repeated(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return ""


def _named(key: str) -> str:
    """A key as an error may quote it: a field name, never a client's data used as a key (an address, a number)."""
    return repr(key) if _FIELD.fullmatch(key) else "(a key that is not a field name)"


def _constant(name: str) -> Any:
    raise BodyError("invalid_json", f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant)


def loads(raw: bytes | str) -> Any:
    """Parse a request body: UTF-8 JSON, no duplicate keys, no NaN, no lone surrogates, at most MAX_DEPTH deep."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise BodyError("invalid_json", f"the body is not UTF-8: byte {exc.start} cannot be decoded") from None
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise _too_deep() from None
    except BodyError:
        raise
    except ValueError as exc:  # JSONDecodeError, and integers longer than Python converts
        raise BodyError("invalid_json", f"the body is not valid JSON: {exc}") from None
    data = raw if isinstance(raw, bytes) else b""
    if (not data or data.count(b"[") + data.count(b"{") > MAX_DEPTH) and _deeper_than(value, MAX_DEPTH):
        raise _too_deep()
    if (_SURROGATE_ESCAPE.search(data) if data else _SURROGATE.search(text)) and (bad := _lone_surrogate(value)):
        raise BodyError("invalid_unicode", f"{bad} holds a lone UTF-16 surrogate escape, which is not a character")
    return value


def _too_deep() -> BodyError:
    return BodyError("too_deep", f"the body nests objects and arrays more than {MAX_DEPTH} levels deep")


def _deeper_than(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _lone_surrogate(value: Any) -> str | None:
    """The path of the first string (or key) holding a lone surrogate; None if there is none."""
    stack: list[tuple[Any, str]] = [(value, "the body")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                if _SURROGATE.search(key):
                    return f"a key of {path}"
                name = key if _FIELD.fullmatch(key) else "*"
                stack.append((child, name if path == "the body" else f"{path}.{name}"))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))
    return None
