"""The entity types the PII step knows, per backend: plain names, importable without loading the analyzer."""

from __future__ import annotations

from typing import Literal

Backend = Literal["ner", "patterns"]
PATTERN_ENTITIES = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "US_SSN")
NER_ENTITIES = ("PERSON", "LOCATION", "NRP")


def entities_of(backend: Backend) -> tuple[str, ...]:
    """The entity types an analyzer of this backend can find."""
    return PATTERN_ENTITIES + (NER_ENTITIES if backend == "ner" else ())
