"""One generation request as the engine sees it."""

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from taskgate.sim.tokens import detokenize


@dataclass(eq=False)
class Sequence:
    """Prompt tokens in, output tokens out, plus what the engine observed."""

    prompt: list[str]
    max_tokens: int
    seed: int
    arrival: float = field(default_factory=time.monotonic)
    cached_tokens: int = 0
    output: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    scripted: list[str] | None = None  # a scripted reply's pieces, emitted verbatim instead of generated text
    kinds: list[Any] | None = None  # per scripted piece: content (None) or a tool call's Piece
    delay_s: float = 0.0  # a scripted extra wait before the prefill
    calls_key: str = field(default_factory=lambda: uuid.uuid4().hex[:12])  # tool call ids, unique as an engine's are
    remote: Any = None  # a decode's RemoteKv (sim/remote.py): its prompt's KV comes from a prefill engine
    transferred_tokens: int = 0  # of the prompt, what arrived from the prefill engine instead of being computed

    def call_id(self, index: int) -> str:
        """The id of this answer's tool call `index`: `call_<answer>_<index>`, never repeated across answers."""
        return f"call_{self.calls_key}_{index}"

    @property
    def tokens(self) -> list[str]:
        """Prompt followed by the output so far."""
        return self.prompt + self.output

    @property
    def text(self) -> str:
        """The output so far as text."""
        if self.scripted is None:
            return detokenize(self.output)
        if self.kinds is None:
            return "".join(self.output)
        return "".join(t for t, k in zip(self.output, self.kinds, strict=False) if k.call is None)

    def tool_calls(self) -> list[dict[str, Any]]:
        """The scripted tool calls emitted so far, whole (for a non-streamed answer)."""
        calls: dict[int, dict[str, Any]] = {}
        for text, kind in zip(self.output, self.kinds or [], strict=False):
            if kind.call is None:
                continue
            call = calls.setdefault(kind.call, {"id": self.call_id(kind.call), "type": "function",
                                                "function": {"name": "", "arguments": ""}})  # fmt: skip
            if kind.name:
                call["function"]["name"] = kind.name
            call["function"]["arguments"] += text
        return [calls[i] for i in sorted(calls)]

    @property
    def total_tokens(self) -> int:
        """Tokens the sequence occupies once fully generated."""
        return len(self.prompt) + self.max_tokens
