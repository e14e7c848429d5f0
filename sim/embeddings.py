"""Deterministic embedding vectors derived from the input's tokens."""

import math
import random
from collections.abc import Sequence

from taskgate.sim.tokens import stable_hash


def embed(model: str, tokens: Sequence[str], dim: int) -> list[float]:
    """A unit-length vector of ``dim`` floats; equal inputs give equal vectors."""
    rng = random.Random(stable_hash([model, *tokens]))
    vector = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]
