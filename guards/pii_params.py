"""The parameters of `guards.pii`: an action per entity type, the analyzer's budget and lanes, decoding, output."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from taskgate.plugins import Params

from .entities import Backend, entities_of
from .findings import Finding
from .mailboxes import is_role
from .testvalues import example_people, published, warm_examples

Action = Literal["allow", "redact", "block", "restrict"]


class EntityRule(Params):
    action: Action
    style: Literal["placeholder", "mask"] = "placeholder"  # <EMAIL_ADDRESS>, or one '*' per character
    regions: list[str] | None = None  # restrict: where a request carrying this entity may run
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)  # this type's score floor (default: the step's)
    allow: list[str] = Field(default_factory=list, max_length=10_000)  # terms never taken for this type
    allow_patterns: list[str] = Field(default_factory=list, max_length=1_000)  # regexes (fullmatch), the same

    @field_validator("allow_patterns")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"allow_patterns: {pattern!r} is not a regular expression: {exc}") from None
        return patterns

    @model_validator(mode="after")
    def _regions_for_restrict(self) -> EntityRule:
        if self.action == "restrict" and not self.regions:
            raise ValueError("action 'restrict' needs `regions`: the regions a request carrying this entity may use")
        if self.action != "restrict" and self.regions is not None:
            raise ValueError(f"`regions` applies to action 'restrict', not {self.action!r}")
        return self


class OutputParams(Params):
    enabled: bool = True  # redact the answer too (pattern entities whose action is redact or block)
    window_chars: int = Field(
        default=128, ge=16, le=4096
    )  # most a stream holds back per field; longer entities leak their start
    flush_after_s: float | None = Field(
        default=0.05, gt=0, le=1.0
    )  # held text waits this long for the next chunk, then goes out as it stands; null: until the chunk comes


class DecodeParams(Params):
    enabled: bool = True  # read base64, hex and %41 and \x41 escapes, for the entity types whose action is block
    max_runs: int = Field(default=32, ge=1, le=1024)  # runs decoded in one text; later ones are not read
    max_chars: int = Field(
        default=65_536, ge=16, le=1_000_000
    )  # encoded characters decoded in one text; the rest is not read


DEFAULT_RULES = {
    "EMAIL_ADDRESS": EntityRule(action="redact"),
    "PHONE_NUMBER": EntityRule(action="redact"),
    "CREDIT_CARD": EntityRule(action="redact"),
    "IBAN_CODE": EntityRule(action="redact"),
    "US_SSN": EntityRule(action="block"),
    "PERSON": EntityRule(action="redact"),
}


class PiiParams(Params):
    backend: Backend = "ner"  # ner: names too (~40 ms per 200 words); patterns: structured data only (~3 ms)
    threshold: float = Field(default=0.4, ge=0.0, le=1.0)  # presidio's score; US phone numbers score 0.4
    allow: list[str] = Field(default_factory=list, max_length=10_000)  # terms never taken for any type
    entities: dict[str, EntityRule] = Field(default_factory=dict)  # omitted: the defaults this backend can find
    default_action: Literal["allow", "redact", "block"] = "allow"  # entity types not listed
    on_failure: Literal["block", "hold"] = "block"  # the analyzer errs or is too slow: refuse, or ask to retry
    retry_after_s: int = Field(default=5, ge=1)  # hold: the Retry-After the client is given
    # the budget for the analysis of one request's new text: timeout_s, and timeout_per_kchar_s more for each
    # 1,000 characters of it, up to max_timeout_s (NER reads about 20,000 characters a second per core)
    timeout_s: float = Field(default=2.0, gt=0)
    timeout_per_kchar_s: float = Field(default=0.08, ge=0)
    max_timeout_s: float = Field(default=30.0, gt=0)
    max_chars: int = Field(default=1_000_000, gt=0)  # more text than this is refused, not half-scanned
    threads: int = Field(default=2, ge=1, le=64)  # for texts over small_chars; smaller ones have a thread of their own
    small_chars: int = Field(
        default=8_000, ge=0
    )  # a request with no more new text than this never queues behind a large one
    cache_entries: int = Field(default=20_000, ge=0)
    # capitalised: NER (backend ner) reads only the sentences with a capitalised word that is not a stop word, or
    # a letter of a script without case (the pattern types: every sentence); all: every sentence
    ner_scope: Literal["capitalised", "all"] = "capitalised"
    # lexicon: names (PERSON, LOCATION) are decided by lexicons of given names, places, products and English
    # words and the words around them; the NER model reads only what they leave open (guards/names.py).
    # ner: the NER model's names as it finds them, in the sentences ner_scope says
    names: Literal["lexicon", "ner"] = "lexicon"
    # with names: lexicon, a second look at each name found, by a model fitted where the rules erred
    # (guards/vetting.py): it drops names it scores under the threshold (unset: the ones fitted with it, per type:
    # PERSON 0.8, LOCATION 0.5; set: this one for both).
    # false: every name the rules find stands
    vetter: bool = True
    vetter_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    # role and service mailboxes (noreply@, alerts@, support@, git@: the local part names a function, not a
    # person; guards/mailboxes.py) are not personal data; false: every address is an EMAIL_ADDRESS
    role_addresses: bool = True
    # values published for testing or reserved for fiction (test cards, the IBAN registry's examples, voided SSNs,
    # 555-01xx and Ofcom's drama numbers, addresses at example domains and a fixture's people beside them;
    # guards/testvalues.py) are not personal data; false: they are personal data like any other value
    allow_test_values: bool = True
    stall_s: float = Field(
        default=1.0, gt=0
    )  # small lane: a call running this long while requests wait is set aside (large lane: timeout_s)
    max_stalled_threads: int = Field(default=4, ge=0, le=64)  # per lane: threads set aside at once
    decode: DecodeParams = Field(default_factory=DecodeParams)
    output: OutputParams = Field(default_factory=OutputParams)
    # with the output guard on: analyse each chat answer once it is sent, so the next turn, which resends it,
    # finds it analysed and pays only for its own new text
    learn_answers: bool = True

    @model_validator(mode="before")
    @classmethod
    def _default_entities(cls, data: Any) -> Any:
        """No `entities`: the default rules for the types this backend can find."""
        if isinstance(data, dict) and data.get("entities") is None:
            known = entities_of(data.get("backend", "ner")) if data.get("backend") in ("ner", "patterns", None) else ()
            return {**data, "entities": {n: r for n, r in DEFAULT_RULES.items() if n in known}}
        return data

    def budget_s(self, chars: int) -> float:
        """The analysis budget for `chars` characters of new text."""
        return min(self.max_timeout_s, self.timeout_s + chars / 1000 * self.timeout_per_kchar_s)

    @model_validator(mode="after")
    def _budget(self) -> PiiParams:
        if self.max_timeout_s < self.timeout_s:
            raise ValueError(f"max_timeout_s ({self.max_timeout_s:g}) is below timeout_s ({self.timeout_s:g})")
        return self

    @model_validator(mode="after")
    def _known_entities(self) -> PiiParams:
        known = entities_of(self.backend)
        for name in self.entities:
            if name not in known:
                hint = " (names need backend: ner)" if name in entities_of("ner") else ""
                raise ValueError(
                    f"unknown entity type {name!r} for backend {self.backend!r}{hint}; known: {', '.join(known)}"
                )
        return self


class Precision:
    """What the operator says is not personal data: a score floor per type, terms and patterns never taken for
    one, role mailboxes (`role_addresses`). Compiled once; applied to findings after the analysis (its cache
    does not depend on these).

    A finding that contains an allowed term as a whole word (case-insensitive) is dropped: NER's span around a
    product name often takes the word before it ("Restart Grafana"). A pattern must match the whole finding.
    """

    def __init__(self, params: PiiParams, program: Callable[[str], bool | None] | None = None):
        self.floor = params.threshold
        self._program = program  # what a mailbox's part says (Kinds.mailbox_part): `grafana-alerts@` is a program's
        self._floors = {e: r.threshold for e, r in params.entities.items() if r.threshold is not None}
        self._common = _words(params.allow)
        self._terms = {e: _words([*params.allow, *r.allow]) for e, r in params.entities.items() if r.allow}
        self._patterns = {
            e: re.compile("|".join(f"(?:{p})" for p in r.allow_patterns)) for e, r in params.entities.items()
            if r.allow_patterns
        }  # fmt: skip
        self.lowest = min([self.floor, *self._floors.values()])  # what the analyzer is asked for
        self.role_addresses = params.role_addresses
        self.test_values = params.allow_test_values
        if self.test_values:
            warm_examples()  # libphonenumber's example numbers, listed when the step is built, not on a request

    def kept(self, text: str, found: Sequence[Finding]) -> tuple[Finding, ...]:
        """`found` in `text` less what keeps() drops, and with test values allowed, a fixture's people: a name
        that an example's address beside it spells, and the places of its row (testvalues.example_people)."""
        out = tuple(f for f in found if self.keeps(f.entity, text[f.start : f.end], f.score))
        if self.test_values and "@" in text and any(f.entity == "PERSON" for f in out):
            names = {(f.entity, f.start, f.end) for f in out if f.entity in ("PERSON", "LOCATION")}
            real = set(example_people(text, sorted(names, key=lambda s: s[1])))
            out = tuple(f for f in out if (f.entity, f.start, f.end) not in names - real)
        return out

    def keeps(self, entity: str, value: str, score: float) -> bool:
        if score < self._floors.get(entity, self.floor):
            return False
        if entity == "EMAIL_ADDRESS" and self.role_addresses and is_role(value, self._program):
            return False
        if self.test_values and published(entity, value):
            return False
        terms = self._terms.get(entity, self._common)
        if terms is not None and terms.search(value):
            return False
        pattern = self._patterns.get(entity)
        return pattern is None or pattern.fullmatch(value) is None


def _words(terms: list[str]) -> re.Pattern[str] | None:
    """One pattern finding any of `terms` as a whole word, in any case and spacing."""
    cleaned = sorted({" ".join(t.split()) for t in terms if t.strip()}, key=len, reverse=True)
    if not cleaned:
        return None
    alternatives = "|".join(r"\s+".join(re.escape(w) for w in term.split()) for term in cleaned)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def action_of(rules: Mapping[str, EntityRule], default: str, entity: str) -> str:
    """The action for an entity type: its rule's, or the default for types not listed."""
    rule = rules.get(entity)
    return rule.action if rule is not None else default
