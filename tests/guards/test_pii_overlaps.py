"""Which spans overlap a range, asked of an index instead of every span found: the same answers as asking each.

The table and record readers, the place readers and the step's overlap
resolution ask this once per candidate; a table of 200,000 characters holds
16,000 names, so asking every span found took 13 to 33 s.
"""

from __future__ import annotations

import random

from taskgate.guards.findings import Finding, Overlaps, resolve_overlaps


def _every(spans: list[tuple[str, int, int]], a: int, b: int) -> list[tuple[str, int, int]]:
    return sorted((s for s in spans if s[1] < b and a < s[2]), key=lambda s: s[1])


def test_an_index_answers_as_every_span_asked_in_turn_would() -> None:
    rng = random.Random(28)
    for _ in range(200):
        spans = [("X", a, a + rng.randint(0, 30)) for a in (rng.randint(0, 400) for _ in range(rng.randint(0, 40)))]
        index = Overlaps(spans[: len(spans) // 2])
        for span in spans[len(spans) // 2 :]:
            index.add(span)
        for _ in range(50):
            a = rng.randint(-5, 420)
            b = a + rng.randint(0, 40)
            assert sorted(index.over(a, b)) == sorted(_every(spans, a, b)), (spans, a, b)


def test_an_empty_index_and_ranges_that_touch_without_overlapping() -> None:
    assert Overlaps().over(0, 10) == []
    index = Overlaps([("PERSON", 5, 10), ("LOCATION", 12, 20)])
    assert index.over(10, 12) == []  # ends are exclusive: `Ada,Lisbon` touches both
    assert index.over(0, 5) == []
    assert index.over(9, 13) == [("PERSON", 5, 10), ("LOCATION", 12, 20)]
    assert index.over(14, 14) == [("LOCATION", 12, 20)]  # a point inside a span


def test_overlaps_resolved_as_before_most_confident_then_longest() -> None:
    rng = random.Random(5)

    def pairwise(found: list[Finding]) -> tuple[Finding, ...]:
        kept: list[Finding] = []
        for f in sorted(found, key=lambda f: (-f.score, f.start - f.end, f.start)):
            if all(f.end <= k.start or f.start >= k.end for k in kept):
                kept.append(f)
        return tuple(sorted(kept, key=lambda f: f.start))

    for _ in range(300):
        found = []
        for _ in range(rng.randint(0, 30)):
            a = rng.randint(0, 200)
            found.append(Finding("PERSON", a, a + rng.randint(1, 25), rng.choice((0.4, 0.6, 0.85, 1.0))))
        assert resolve_overlaps(found) == pairwise(found)
