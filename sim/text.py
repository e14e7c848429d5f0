"""Deterministic output text: words drawn by a PRNG seeded from the request."""

import random
from collections.abc import Sequence

from taskgate.sim.tokens import stable_hash

_WORDS = (
    "the", "model", "answers", "with", "a", "plain", "sentence", "about", "tokens", "and",
    "cache", "while", "scheduler", "keeps", "every", "request", "in", "order", "so", "latency",
    "stays", "low", "under", "load", "each", "block", "of", "memory", "is", "reused", "when",
    "prefix", "repeats", "across", "many", "calls", "from", "agents", "tools", "users",
)  # fmt: skip
_SENTENCE_LENGTH = 9


def content_seed(model: str, prompt: Sequence[str], seed: int | None) -> int:
    """Seed for the output of one request: same inputs, same text."""
    return stable_hash([model, str(seed), *prompt])


def output_tokens(seed: int, count: int) -> list[str]:
    """``count`` output tokens; every ninth token ends a sentence."""
    rng = random.Random(seed)
    return [_next_token(rng, index) for index in range(count)]


def _next_token(rng: random.Random, index: int) -> str:
    if index % _SENTENCE_LENGTH == _SENTENCE_LENGTH - 1:
        return "."
    return rng.choice(_WORDS)
