"""The classifier on request phrasings kept apart: how often a request gets the profile it needs.

`phrasings_heldout3.jsonl` holds the requests written apart from the
classifier's examples, each labelled with the coarse profiles (provenance
policy) it needs: `read`, `communicate`, `documents`, `payments`, several for
a request with several parts. Nothing is tuned on them; bench/injection.py
reports the accuracy per profile once per run. `phrasings_heldout.jsonl` (183,
held aside in the third round) and `phrasings_heldout2.jsonl` (200, held aside in the fourth) are tuning
data now (`TUNING`).

A request is classified as the gateway does it (the whole request, then each
part of a request with several); its profiles are the write profiles found
(`read` when none). Right: exactly the profiles it needs. Enough: at least
those (an over-grant, which argument rules still judge). Short: a needed one
missing (the task's write is refused).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from taskgate.guards.classify import DEFAULT_TYPES, TaskType, parts_of, trained_model

from .replay import PART_CONFIDENCE, POLICIES

TUNING = (
    Path(__file__).with_name("phrasings_heldout.jsonl"),  # held aside in the third round
    Path(__file__).with_name("phrasings_heldout2.jsonl"),  # held aside in the fourth; both tuned on since
)
HELD_ASIDE = Path(__file__).with_name("phrasings_heldout3.jsonl")  # written apart, measured in the fifth round
READ = "read"


def load(path: Path = HELD_ASIDE) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def profiles_for(text: str, task_types: dict[str, Any], part_confidence: float = PART_CONFIDENCE) -> set[str]:
    """The coarse profiles the gateway's classifier gives `text` (its parts too), `read` dropped beside a write."""
    examples = tuple(sorted(str(p) for p in (POLICIES / "examples").glob("*.jsonl")))
    model = trained_model(examples)
    types = {**DEFAULT_TYPES, **{k: TaskType(**v) for k, v in task_types.items()}}
    label, _ = model.predict(text)
    whole = types.get(label, TaskType()).profile or label
    found = set(parts_of(model, types, text, whole, part_confidence)) or {whole}
    return found - {READ} or {READ}


def accuracy(
    task_types: dict[str, Any], path: Path = HELD_ASIDE, part_confidence: float = PART_CONFIDENCE
) -> dict[str, Any]:
    """Per needed profile: right, enough and short counts over the phrasings in `path` (the held-aside ones)."""
    by: dict[str, Counter[str]] = {}
    misses = []
    for row in load(path):
        needed, got = set(row["profiles"]), profiles_for(row["text"], task_types, part_confidence)
        # a read-only request given a write profile is an over-grant (enough), never short of anything
        outcome = "right" if got == needed else "enough" if needed <= got or needed == {READ} else "short"
        for profile in needed:
            by.setdefault(profile, Counter())[outcome] += 1
        by.setdefault("all", Counter())[outcome] += 1
        if outcome == "short":
            misses.append({"text": row["text"], "needed": sorted(needed), "got": sorted(got)})
    return {"profiles": {k: dict(v) for k, v in by.items()}, "short": misses}
