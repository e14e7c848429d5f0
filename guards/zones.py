"""spaCy's memory zones, shared by concurrent analyses, so what NER learns from a request does not stay forever.

spaCy keeps every string it has ever tokenized: 1,500 texts of random
identifiers added 180,000 strings and 55 MB that were never given back, so a
long-running proxy reading ids, hashes and numbers grows without bound. A
memory zone (spaCy 3.8) frees everything learnt inside it when it closes, but
zones must not nest and nothing made inside may be used after. So every
analysis of one pipeline runs inside the same zone, and the zone is closed and
a new one opened only when no analysis is in flight: after `every` analyses,
new ones wait for those in flight to finish (at most `drain_s`; an analysis
stuck longer does not hold the others, the zone is renewed later instead).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import ExitStack

from spacy.language import Language

ANALYSES_PER_ZONE = 500
DRAIN_S = 0.5


class Zones:
    def __init__(self, nlp: Language, every: int = ANALYSES_PER_ZONE, drain_s: float = DRAIN_S):
        self.nlp = nlp
        self._nlp, self._every, self._drain_s = nlp, every, drain_s
        self._changed = threading.Condition()
        self._zone: ExitStack | None = None
        self._active = 0  # analyses inside the current zone now
        self._begun = 0  # analyses begun in the current zone
        self.renewed = 0  # zones closed so far

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Run one analysis (one call into the pipeline) inside the current zone."""
        self._enter()
        try:
            yield
        finally:
            self._leave()

    def _enter(self) -> None:
        with self._changed:
            if self._begun >= self._every:  # the zone is due: let it close before starting more in it
                self._changed.wait_for(lambda: self._begun < self._every, timeout=self._drain_s)
            if self._zone is None:
                self._zone = ExitStack()
                self._zone.enter_context(self._nlp.memory_zone())
            self._active += 1
            self._begun += 1

    def _leave(self) -> None:
        with self._changed:
            self._active -= 1
            if self._active == 0 and self._begun >= self._every and self._zone is not None:
                self._zone.close()  # nothing made in the zone is in use: every analysis in it has ended
                self._zone, self._begun = None, 0
                self.renewed += 1
                self._changed.notify_all()
