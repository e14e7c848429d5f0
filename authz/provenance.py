"""What a task has seen, gathered for one decision: instructions, signed claims, and tool results by label.

Sources, on every surface:

- the task's purpose (stored when it started) and, on the chat surface, every
  user turn of the conversation; on MCP, a later call's stated purpose
  (`_meta` `io.taskgate/purpose`) is a new user turn: label `instruction`;
- the caller's identity-provider claims named in `authz.jwt.claims.labelled`:
  label `claims`;
- tool results: those the MCP gateway forwarded (its own tool loop's calls go
  through it too), kept in the task store; on the chat surface, the
  `role: tool` messages the client sends back, each labelled by the tool the
  assistant's call named. Their labels come from the policy's p3 rows.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import yaml

from .labels import CLAIMS, INSTRUCTION, MIN_CHARS, UNTRUSTED, Seen, Where
from .tasks import MAX_RECORD_CHARS
from .trust import TrustMap, key_leaves, result_leaves


def result_record(
    tool: str, call: str | None, result: Mapping[str, Any], arguments: Any = None,
    keys: frozenset[str] = frozenset(), kept: Callable[[str], bool] | None = None,
) -> str | None:  # fmt: skip
    """An MCP tools/call result as the task store keeps it: its leaves (and the keys of the maps at `keys`, and
    a YAML reading of a text result), cut to MAX_RECORD_CHARS; None for an error result (a trusted tool's
    "no contact named eve@evil.example" vouches for nothing). `kept` says which fields keep a value that
    repeats the call's arguments (a searching reference's declared fields); by default none does."""
    if result.get("isError"):
        return None
    data = result_data(result)
    record: dict[str, Any] = {"tool": tool, "call": call}
    text = _only_text(result)
    if text is not None:
        record["format"] = "text"  # the answer is text, not JSON (whatever structure an SDK wrapped it in)
    size = 0
    for name, values in (("leaves", [*result_leaves(data), *key_leaves(data, keys)]), ("yaml", _yaml(text, keys))):
        if values is None:
            continue
        pairs: list[list[Any]] = []
        for path, value in unechoed(values, arguments, kept):
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                size += len(path) + len(str(value)) + 8
                if size > MAX_RECORD_CHARS:
                    break
                pairs.append([path, value])
        record[name] = pairs
    return json.dumps(record, separators=(",", ":"))


def _only_text(result: Mapping[str, Any]) -> str | None:
    """The text of a result whose one text item is not JSON (plain text, YAML), else None."""
    items = [i for i in result.get("content") or () if isinstance(i, Mapping) and i.get("type") == "text"]
    if len(items) != 1 or not isinstance(items[0].get("text"), str):
        return None
    text: str = items[0]["text"]
    return text if isinstance(_maybe_json(text), str) else None


def _yaml(data: str | None, keys: frozenset[str]) -> list[tuple[str, Any]] | None:
    """The leaves of a text result read as YAML, when it is a YAML map or list (None otherwise)."""
    if data is None or len(data) > MAX_RECORD_CHARS:
        return None
    try:
        parsed = yaml.safe_load(data)
    except yaml.YAMLError:
        return None
    if not isinstance(parsed, dict | list):
        return None
    parsed = json.loads(json.dumps(parsed, default=str))  # dates and other YAML types as their text
    return [*result_leaves(parsed), *key_leaves(parsed, keys)]


REFERENCE_CALL = "taskgate:reference"  # the call id of a result authorize read from a reference source itself
REFERENCE_SEARCH = "taskgate:reference-search:"  # then the digest of the search's tool and arguments


def searched(records: Iterable[str]) -> set[str]:
    """The digests of the searches taskgate made of the task's searching references."""
    found = set()
    for record in records:
        if REFERENCE_SEARCH in record:
            try:
                parsed = json.loads(record)
            except ValueError:
                continue
            call = parsed.get("call") if isinstance(parsed, dict) else None
            if isinstance(call, str) and call.startswith(REFERENCE_SEARCH):
                found.add(call.removeprefix(REFERENCE_SEARCH))
    return found


def consulted(records: Iterable[str]) -> set[str]:
    """The reference sources a task's records show read already."""
    tools = set()
    for record in records:
        if REFERENCE_CALL in record:
            try:
                parsed = json.loads(record)
            except ValueError:
                continue
            if isinstance(parsed, dict) and parsed.get("call") == REFERENCE_CALL:
                tools.add(str(parsed.get("tool")))
    return tools


def unechoed(
    pairs: Iterable[tuple[str, Any]], arguments: Any, kept: Callable[[str], bool] | None = None
) -> list[tuple[str, Any]]:
    """A result's values without those that repeat the call's own arguments: a trusted tool that echoes its
    query (`{"query": "eve@evil.example", "results": []}`) must not launder it into a trusted value. A value
    at a path `kept` accepts stays when it is exactly an argument (a searching reference's declared field)."""
    given = [v.strip() for _, v in result_leaves(arguments) if isinstance(v, str) and len(v.strip()) >= MIN_CHARS]
    if not given:
        return list(pairs)
    codes = [g for g in given if _IDENTIFIER.fullmatch(g)]  # an address, IBAN, URL: also not inside a value

    def echo(value: Any) -> bool:
        if not isinstance(value, str):
            return False
        text = value.strip()
        return text in given or any(code in text for code in codes)

    return [(p, v) for p, v in pairs if not echo(v) or (kept is not None and kept(p) and v.strip() in given)]


_IDENTIFIER = re.compile(r"(?=\S*[\d@./:])\S{6,}")  # no spaces, and a digit, @, dot, slash or colon


def turn_record(text: str) -> str:
    return json.dumps({"turn": text[:MAX_RECORD_CHARS]}, separators=(",", ":"))


def result_data(result: Mapping[str, Any]) -> Any:
    """A result's data: its structured content, else its text items (JSON where they parse)."""
    structured = result.get("structuredContent")
    if structured is not None:
        return structured
    items: list[Any] = []
    for item in result.get("content") or ():
        if isinstance(item, Mapping) and item.get("type") == "text" and isinstance(item.get("text"), str):
            items.append(_maybe_json(item["text"]))
    return items[0] if len(items) == 1 else items


def gather(
    trust: TrustMap,
    purpose: str | None,
    records: Iterable[str],
    claims: Iterable[tuple[str, str]],
    body: Any = None,
    labels: tuple[str, ...] = (),
) -> Seen:
    """Everything the task has seen for this decision; `body` is a chat request's (its turns and tool results)."""
    seen = Seen()
    if purpose:
        seen.add_text(purpose, Where(INSTRUCTION, "instruction"))
    for name, value in claims:
        seen.add_value(value, Where(CLAIMS, f"claim {name}"))
    add_records(seen, trust, records)
    if isinstance(body, Mapping):
        _chat(seen, trust, body, purpose)
    if labels:
        seen.restrict(labels)
    return seen


def add_records(seen: Seen, trust: TrustMap, records: Iterable[str]) -> None:
    """The task store's records (tool results, user turns) into `seen`."""
    for raw in records:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("turn"), str):
            seen.add_text(record["turn"], Where(INSTRUCTION, "user turn"))
        elif isinstance(record, dict) and isinstance(record.get("tool"), str):
            trust.label_record(seen, record)


class SeenCache:
    """What each recent task has seen, kept between its calls and extended by the records added since.

    The store's records only grow at the end (until the oldest are trimmed,
    which starts that task's entry again); an entry belongs to one task, policy
    generation, purpose, claims and label restriction.
    """

    def __init__(self, limit: int = 1024, max_chars: int = 16 << 20):
        self._entries: OrderedDict[tuple[Any, ...], tuple[Seen, int, str | None, int]] = OrderedDict()
        self._limit, self._max_chars = limit, max_chars  # entries, and characters of records they were built of
        self._chars = 0

    def get(
        self, key: tuple[Any, ...], trust: TrustMap, purpose: str | None, records: tuple[str, ...],
        claims: tuple[tuple[str, str], ...], labels: tuple[str, ...],
    ) -> Seen:  # fmt: skip
        found = self._entries.pop(key, None)
        first = records[0] if records else None
        size = sum(len(r) for r in records) + len(purpose or "")
        if found is not None:
            self._chars -= found[3]
        if found is not None and found[1] <= len(records) and (found[1] == 0 or found[2] == first):
            seen, count, _, _ = found
            add_records(seen, trust, records[count:])
        else:
            seen = gather(trust, purpose, records, claims, None, labels)
        self._entries[key] = (seen, len(records), first, size)
        self._chars += size
        while self._entries and (len(self._entries) > self._limit or self._chars > self._max_chars):
            self._chars -= self._entries.popitem(last=False)[1][3]
        return seen


def _chat(seen: Seen, trust: TrustMap, body: Mapping[str, Any], purpose: str | None) -> None:
    """A chat request's user turns (instruction) and tool messages (labelled by the tool their call named)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return
    called: dict[str, tuple[str, Any]] = {}  # call id -> (tool, its arguments)
    for number, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        if role == "user":
            text = message_text(message.get("content"))
            if text and text != purpose:
                seen.add_text(text, Where(INSTRUCTION, f"user turn (message {number})"))
        elif role == "assistant":
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                function = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(function, Mapping) and isinstance(call.get("id"), str):
                    arguments = function.get("arguments")
                    parsed = _maybe_json(arguments) if isinstance(arguments, str) else arguments
                    called[call["id"]] = (str(function.get("name")), parsed)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            found = called.get(call_id) if isinstance(call_id, str) else None
            text = message_text(message.get("content"))
            if text and found is not None:
                tool, arguments = found
                record = result_record(tool, str(call_id), {"content": [{"type": "text", "text": text}]},
                                       arguments, trust.for_tool(tool).key_fields)  # fmt: skip
                if record is not None:
                    trust.label_record(seen, json.loads(record))
            elif text:  # a result of no call the conversation shows: nobody vouches for it
                seen.add_json(_maybe_json(text), Where(UNTRUSTED, "tool message without a call"))


def message_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    return None


def _maybe_json(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except (ValueError, RecursionError):
            return text
    return text
