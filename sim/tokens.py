"""Cheap deterministic tokeniser, chat template and block hashing."""

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence

_TOKEN = re.compile(r"<\|[a-z_]+\|>|\w+|[^\w\s]")
_SEPARATOR = "\x1f"  # whitespace, so never part of a token

Message = Mapping[str, object]


def tokenize(text: str) -> list[str]:
    """Split text into word, punctuation and role-marker tokens."""
    return _TOKEN.findall(text)


def detokenize(tokens: Iterable[str]) -> str:
    """Join tokens back into text, attaching punctuation to the previous word."""
    return "".join(piece(token, index) for index, token in enumerate(tokens))


def piece(token: str, index: int) -> str:
    """Text for the token at ``index`` of an output, including its leading space."""
    if index == 0 or not token[0].isalnum():
        return token
    return " " + token


def stable_hash(parts: Iterable[str], parent: int = 0) -> int:
    """A 64-bit hash that is the same in every process."""
    data = parent.to_bytes(8, "big") + _SEPARATOR.join(parts).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def block_hashes(tokens: Sequence[str], block_size: int) -> list[int]:
    """Chained hashes of the full blocks of ``tokens``."""
    hashes: list[int] = []
    parent = 0
    for start in range(0, len(tokens) - block_size + 1, block_size):
        parent = stable_hash(tokens[start : start + block_size], parent)
        hashes.append(parent)
    return hashes


def render_chat(messages: Iterable[Message], tools: object = None) -> str:
    """Render chat messages (and tools, if any) with a fixed template."""
    lines = []
    if tools:
        lines.append("<|tools|>\n" + json.dumps(tools, sort_keys=True))
    lines.extend(_render_message(message) for message in messages)
    lines.append("<|assistant|>\n")
    return "\n".join(lines)


def _render_message(message: Message) -> str:
    text = f"<|{message.get('role')}|>\n{message_text(message.get('content'))}"
    for key in ("tool_calls", "tool_call_id", "name"):
        if message.get(key) is not None:
            text += f"\n{key}: " + json.dumps(message[key], sort_keys=True)
    return text


def message_text(content: object) -> str:
    """The text of a message content: a string or a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_part_text(part) for part in content)
    return json.dumps(content, sort_keys=True)


def _part_text(part: object) -> str:
    if isinstance(part, Mapping) and isinstance(part.get("text"), str):
        return str(part["text"])
    return json.dumps(part, sort_keys=True)
