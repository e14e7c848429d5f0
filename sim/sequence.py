"""One generation request as the engine sees it."""

import time
from dataclasses import dataclass, field

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
    delay_s: float = 0.0  # a scripted extra wait before the prefill

    @property
    def tokens(self) -> list[str]:
        """Prompt followed by the output so far."""
        return self.prompt + self.output

    @property
    def text(self) -> str:
        """The output so far as text."""
        return "".join(self.output) if self.scripted is not None else detokenize(self.output)

    @property
    def total_tokens(self) -> int:
        """Tokens the sequence occupies once fully generated."""
        return len(self.prompt) + self.max_tokens
