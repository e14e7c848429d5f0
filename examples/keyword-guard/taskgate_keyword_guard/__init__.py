"""An example taskgate plugin: one step type, registered through an entry point."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from taskgate.plugins import REQUEST, Inputs, Params, Registry, Reject, RequestContext, Step


class KeywordParams(Params):
    words: list[str] = Field(min_length=1)
    case_sensitive: bool = False


@dataclass(frozen=True)
class KeywordScan:
    """What the guard looked at; the evidence never repeats the words themselves."""

    chars_scanned: int
    terms: int

    def evidence(self) -> Mapping[str, Any]:
        return {"chars_scanned": self.chars_scanned, "terms": self.terms, "matched": False}


class KeywordBlock(Step[KeywordParams]):
    """Refuse a request whose prompt mentions any configured term, as a whole word."""

    type = "example.keyword_block"
    requires = (REQUEST,)
    provides = "keyword_scan"
    Params = KeywordParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        flags = 0 if self.params.case_sensitive else re.IGNORECASE
        alternatives = "|".join(re.escape(w) for w in self.params.words)
        # whole terms, also those that start or end with punctuation ("c++", ".env")
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", flags)

    async def run(self, inputs: Inputs) -> KeywordScan:
        request: RequestContext = inputs[REQUEST]
        scanned = 0
        for text in _texts(request.json()):
            scanned += len(text)
            if self._pattern.search(text):
                raise Reject(
                    403,
                    "blocked_term",
                    f"the request mentions a term that step {self.name!r} blocks",
                    "permission_error",
                )
        return KeywordScan(scanned, len(self.params.words))


def _texts(body: dict[str, Any]) -> Iterator[str]:
    """The prompt text of a chat, completion or embeddings request; other shapes are ignored."""
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        yield from _strings(content, "text")
    for key in ("prompt", "input"):
        yield from _strings(body.get(key))


def _strings(value: Any, field: str | None = None) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for part in value:
            text = part.get(field) if field and isinstance(part, dict) else part
            if isinstance(text, str):
                yield text


def register(registry: Registry) -> None:
    """The plugin's entry point."""
    registry.add_step(KeywordBlock)
