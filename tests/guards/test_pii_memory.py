"""What NER learns from requests is freed: spaCy's string store stays bounded however many new words arrive."""

from __future__ import annotations

import random
import string
import threading

import pytest
from spacy.language import Language

from taskgate.guards.presidio import Backend, analyzer, zones
from taskgate.guards.scan import Scanner
from taskgate.guards.zones import ANALYSES_PER_ZONE, Zones


def noise(rng: random.Random) -> str:
    """A sentence of identifiers no vocabulary has: what ids, hashes and numbers look like to a tokenizer."""
    words = ("".join(rng.choices(string.ascii_letters + string.digits, k=rng.randint(4, 10))) for _ in range(30))
    return " ".join(words) + " and call Maria Gonzalez at maria@example.com"


@pytest.mark.parametrize("backend", ["ner", "patterns"])
def test_the_string_store_does_not_grow_with_every_new_word(backend: Backend) -> None:
    """Item 19: 30,000 fuzzed requests grew RSS by 38.8%; spaCy kept every string it had ever seen."""
    nlp: Language = analyzer(backend).nlp_engine.nlp["en"]  # type: ignore[attr-defined]
    scanner = Scanner(backend, ["EMAIL_ADDRESS", "PERSON"] if backend == "ner" else ["EMAIL_ADDRESS"], 0.4, 0)
    rng = random.Random(7)

    def until_a_zone_closes() -> int:
        """Analyse new text until the current zone closes; the size of the string store then."""
        renewed, analysed = zones(backend).renewed, 0
        while zones(backend).renewed == renewed:
            found = scanner.analyze(noise(rng))
            assert "EMAIL_ADDRESS" in {f.entity for f in found}
            analysed += 1
        assert analysed <= ANALYSES_PER_ZONE
        return len(nlp.vocab.strings)

    first = until_a_zone_closes()
    later = [until_a_zone_closes() for _ in range(2)]  # 1,000 texts more: about 150,000 strings without zones
    assert max(later) - first < 500


def test_analyses_on_many_threads_share_zones_that_renew_only_when_none_is_in_flight() -> None:
    nlp: Language = analyzer("ner").nlp_engine.nlp["en"]  # type: ignore[attr-defined]
    shared = Zones(nlp, every=7)
    engine = analyzer("ner")
    errors: list[BaseException] = []
    seen: list[set[str]] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(40):
                with shared.reading():
                    results = engine.analyze(noise(rng), language="en", entities=["EMAIL_ADDRESS", "PERSON"])
                seen.append({r.entity_type for r in results})
        except BaseException as exc:  # reported below, with the thread's failure
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(seen) == 160
    assert all("EMAIL_ADDRESS" in kinds for kinds in seen)
    assert shared.renewed >= 10
