"""The `guards.pii` step: find personal data in a request and act on it per entity type.

Actions: allow (record only), redact (a typed placeholder or a mask), block
(a 400 that names the entity type, never the value) and restrict (the
entity limits the regions the request may run in; routing reads them under
`allowed_regions`). The step's value, a PiiVerdict, edits the body sent
upstream and guards the answer on its way back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections import Counter
from collections.abc import Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, ClassVar, Literal, NoReturn

import structlog
from prometheus_client import Counter as PromCounter
from pydantic import Field, model_validator

from taskgate.dag import Derive, Failure, StepSpec
from taskgate.plugins import (
    ALLOWED_REGIONS,
    REQUEST,
    Inputs,
    Params,
    Reject,
    RequestContext,
    ResponseFilter,
    Services,
    Step,
    StepOptions,
)

from .lanes import Lane, LaneStalled, Ticket
from .output import StreamRedactor, WholeRedactor
from .presidio import PATTERN_ENTITIES, Backend, entities_of, warm
from .scan import ARGUMENT_NAME, Finding, Path, Scanner, TooDeep, redact, replace_strings, request_texts, where

PII = "pii"
log = structlog.get_logger("taskgate.guards")
Action = Literal["allow", "redact", "block", "restrict"]
MAX_EVIDENCE_FINDINGS = 100


class EntityRule(Params):
    action: Action
    style: Literal["placeholder", "mask"] = "placeholder"  # <EMAIL_ADDRESS>, or one '*' per character
    regions: list[str] | None = None  # restrict: where a request carrying this entity may run

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
    entities: dict[str, EntityRule] = Field(default_factory=dict)  # omitted: the defaults this backend can find
    default_action: Literal["allow", "redact", "block"] = "allow"  # entity types not listed
    on_failure: Literal["block", "hold"] = "block"  # the analyzer errs or is too slow: refuse, or ask to retry
    retry_after_s: int = Field(default=5, ge=1)  # hold: the Retry-After the client is given
    timeout_s: float = Field(default=2.0, gt=0)  # budget for the analysis of one request's new text
    max_chars: int = Field(default=1_000_000, gt=0)  # more text than this is refused, not half-scanned
    threads: int = Field(default=2, ge=1, le=64)  # for texts over small_chars; smaller ones have a thread of their own
    small_chars: int = Field(
        default=8_000, ge=0
    )  # a request with no more new text than this never queues behind a large one
    cache_entries: int = Field(default=20_000, ge=0)
    stall_s: float = Field(
        default=1.0, gt=0
    )  # small lane: a call running this long while requests wait is set aside (large lane: timeout_s)
    max_stalled_threads: int = Field(default=4, ge=0, le=64)  # per lane: threads set aside at once
    output: OutputParams = Field(default_factory=OutputParams)

    @model_validator(mode="before")
    @classmethod
    def _default_entities(cls, data: Any) -> Any:
        """No `entities`: the default rules for the types this backend can find."""
        if isinstance(data, dict) and data.get("entities") is None:
            known = entities_of(data.get("backend", "ner")) if data.get("backend") in ("ner", "patterns", None) else ()
            return {**data, "entities": {n: r for n, r in DEFAULT_RULES.items() if n in known}}
        return data

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


def action_of(rules: Mapping[str, EntityRule], default: str, entity: str) -> str:
    """The action for an entity type: its rule's, or the default for types not listed."""
    rule = rules.get(entity)
    return rule.action if rule is not None else default


class PiiMetrics:
    def __init__(self, services: Services):
        self.findings = PromCounter(
            "taskgate_pii_findings", "PII findings by entity type, action and direction",
            ["entity", "action", "direction"], registry=services.metrics,
        )  # fmt: skip
        self.chars = PromCounter(
            "taskgate_pii_scanned_chars", "Characters checked, analysed or answered from the cache",
            ["source"], registry=services.metrics,
        )  # fmt: skip
        self.failures = PromCounter(
            "taskgate_pii_failures", "Scans that could not decide", ["reason"], registry=services.metrics
        )
        self.set_aside = PromCounter(
            "taskgate_pii_threads_set_aside", "Analyzer threads set aside because their call stalled",
            ["lane"], registry=services.metrics,
        )  # fmt: skip


@dataclass
class PiiVerdict:
    """What the scan found and did; edits the body, filters the answer, describes itself."""

    rules: Mapping[str, EntityRule]
    default: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    redactions: dict[str, str] = field(default_factory=dict)  # original text -> redacted text
    allowed_regions: frozenset[str] | None = None
    analysed_chars: int = 0
    cached_chars: int = 0
    ms: float = 0.0
    output_findings: list[dict[str, Any]] = field(default_factory=list)
    output_counts: Counter[str] = field(default_factory=Counter)
    output_withheld: list[str] = field(default_factory=list)  # fields of the answer withheld (log probabilities)
    _output: Any = None  # the step, when it guards answers

    def action(self, entity: str) -> str:
        return action_of(self.rules, self.default, entity)

    def edit_body(self, body: dict[str, Any]) -> bool:
        """Replace every scanned text that had something to redact, wherever it sits in the body now.

        Matching by content rather than by position keeps redaction right when
        another step's edit moved things (a system message prepended, say).
        """
        if not self.redactions:
            return False
        changed = False
        for key, value in list(body.items()):
            new, did = replace_strings(value, self.redactions)
            if did:
                body[key], changed = new, True
        return changed

    def response_filter(self, surface: str) -> ResponseFilter | None:
        return self._output.filter_for(self, surface) if self._output is not None else None

    def evidence(self) -> Mapping[str, Any]:
        out: dict[str, Any] = {
            "counts": dict(self.counts),
            "actions": {e: self.action(e) for e in self.counts},
            "findings": self.findings[:MAX_EVIDENCE_FINDINGS],
            "redacted_texts": len(self.redactions),
            "analysed_chars": self.analysed_chars,
            "cached_chars": self.cached_chars,
            "ms": round(self.ms, 3),
        }
        if len(self.findings) > MAX_EVIDENCE_FINDINGS:
            out["findings_truncated"] = len(self.findings) - MAX_EVIDENCE_FINDINGS
        if self.allowed_regions is not None:
            out["allowed_regions"] = sorted(self.allowed_regions)
        if self.output_counts or self.output_withheld:
            out["output"] = {
                "counts": dict(self.output_counts),
                "findings": self.output_findings[:MAX_EVIDENCE_FINDINGS],
            }
            if self.output_withheld:
                out["output"]["withheld"] = self.output_withheld
        return out


class PiiStep(Step[PiiParams]):
    """Scan a request's texts (prompts, tool-call arguments, tool results) for personal data."""

    type = "guards.pii"
    requires = (REQUEST,)
    provides = PII
    derives: ClassVar[Mapping[str, Derive]] = {ALLOWED_REGIONS: attrgetter("allowed_regions")}
    Params = PiiParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        p = self.params
        warm(p.backend)  # loaded at start-up: the first request does not pay for the model
        self.scanner = Scanner(p.backend, entities_of(p.backend), p.threshold, p.cache_entries)
        self.replacement: dict[str, str | None] = {
            e: (f"<{e}>" if r.style == "placeholder" else None) for e, r in p.entities.items()
        }
        out_entities = [e for e in PATTERN_ENTITIES if self._action(e) in ("redact", "block")]
        self.output_scanner = (
            Scanner("patterns", out_entities, p.threshold, 0) if p.output.enabled and out_entities else None
        )
        self.metrics = self.services.shared("guards.pii.metrics", lambda: PiiMetrics(self.services))
        # two lanes: a request with little new text never waits behind a large one's analysis
        self.pool = self._lane("large", p.threads, max(p.stall_s, p.timeout_s))
        self.small_pool = self._lane("small", 1, p.stall_s)
        self.services.lifespan(f"guards.pii.pool.{self.name}", self._pool_lifespan)
        if self.spec.failure is not Failure.CLOSED:
            log.warning(
                "pii_step_fails_open", step=self.name, on_error=self.spec.failure.value,
                effect="a request the analyzer cannot scan in time is forwarded unscanned, in any region",
            )  # fmt: skip

    def _lane(self, which: str, threads: int, stall_s: float) -> Lane:
        suffix = "" if which == "large" else f"-{which}"
        counter = self.metrics.set_aside.labels(which)
        name = f"taskgate-pii-{self.name}{suffix}"
        return Lane(name, threads, stall_s, self.params.max_stalled_threads, on_set_aside=counter.inc)

    def _make_spec(self, options: StepOptions) -> StepSpec:
        spec = super()._make_spec(options)
        if options.timeout is None:  # the step's own budget answers first, with its own error
            spec = dataclasses.replace(spec, timeout=self.params.timeout_s + 1.0)
        return spec

    @asynccontextmanager
    async def _pool_lifespan(self) -> Any:
        yield
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.small_pool.shutdown(wait=False, cancel_futures=True)

    def _action(self, entity: str) -> str:
        return action_of(self.params.entities, self.params.default_action, entity)

    async def run(self, inputs: Inputs) -> PiiVerdict:
        context: RequestContext = inputs[REQUEST]
        started = time.perf_counter()
        try:
            texts = list(request_texts(context.surface, context.json()))
        except TooDeep as exc:
            raise Reject(400, "pii_unscannable", f"the PII filter cannot scan this request: {exc}") from None
        verdict = PiiVerdict(
            self.params.entities, self.params.default_action, _output=self if self.output_scanner else None
        )
        total = sum(len(t) for _, _, t in texts)
        if total > self.params.max_chars:
            raise Reject(
                413,
                "pii_too_much_text",
                f"the request has {total} characters of text; the PII filter scans at most {self.params.max_chars}",
            )
        known: dict[str, tuple[Finding, ...]] = {}
        for _, _, text in texts:
            cached = self.scanner.cached(text)
            if cached is not None:
                known[text] = cached
        missing = list({t for _, _, t in texts if t not in known})
        verdict.cached_chars = sum(len(t) for _, _, t in texts if t in known)
        verdict.analysed_chars = sum(len(t) for t in missing)
        if missing:
            known.update(await self._analyse(missing))
        self.metrics.chars.labels("cache").inc(verdict.cached_chars)
        self.metrics.chars.labels("analysed").inc(verdict.analysed_chars)
        self._decide(verdict, texts, known)
        verdict.ms = (time.perf_counter() - started) * 1000.0
        return verdict

    async def _analyse(self, texts: list[str]) -> dict[str, tuple[Finding, ...]]:
        lane = self.small_pool if sum(len(t) for t in texts) <= self.params.small_chars else self.pool
        job = functools.partial(self._analyse_blocking, texts)
        try:
            async with asyncio.timeout(self.params.timeout_s):
                result: dict[str, tuple[Finding, ...]] = await lane.submit(
                    job, time.monotonic() + self.params.timeout_s
                )
                return result
        except LaneStalled as exc:
            self._refuse("stalled", str(exc))
        except TimeoutError:
            self._refuse("timeout", f"the analysis took longer than {self.params.timeout_s} s")
        except Exception as exc:
            self._refuse("error", f"the analyzer failed: {type(exc).__name__}: {exc}"[:300])

    def _analyse_blocking(self, texts: list[str], ticket: Ticket) -> dict[str, tuple[Finding, ...]]:
        return {text: self.scanner.analyze(text, ticket.checkpoint) for text in texts}

    def _refuse(self, reason: str, detail: str) -> NoReturn:
        self.metrics.failures.labels(reason).inc()
        details = {"reason": detail, "on_failure": self.params.on_failure}
        if self.params.on_failure == "hold":
            raise Reject(
                503, "pii_held", "the PII filter could not scan this request yet; it was held, not forwarded; retry",
                "api_error", headers={"Retry-After": str(self.params.retry_after_s)}, details=details,
            )  # fmt: skip
        raise Reject(
            503, "pii_unavailable", "the PII filter could not scan this request, so it was not forwarded",
            "api_error", details=details,
        )  # fmt: skip

    def _decide(
        self, verdict: PiiVerdict, texts: list[tuple[Path, str, str]], known: Mapping[str, tuple[Finding, ...]]
    ) -> None:
        blocked: list[str] = []
        regions: frozenset[str] | None = None
        for path, kind, text in texts:
            to_redact = []
            for f in known[text]:
                action = verdict.action(f.entity)
                verdict.counts[f.entity] += 1
                verdict.findings.append(
                    {"entity": f.entity, "where": where(path), "kind": kind, "start": f.start, "end": f.end,
                     "score": round(f.score, 2), "action": action}
                )  # fmt: skip
                self.metrics.findings.labels(f.entity, action, "input").inc()
                if action == "redact" and kind != ARGUMENT_NAME:
                    to_redact.append(f)
                elif action == "block" or (action == "redact" and kind == ARGUMENT_NAME):  # a key cannot be masked
                    blocked.append(f"{f.entity} in {where(path)}")
                elif action == "restrict":
                    allowed = frozenset(self.params.entities[f.entity].regions or ())
                    regions = allowed if regions is None else regions & allowed
            if to_redact:
                verdict.redactions[text] = redact(text, to_redact, self.replacement)
        verdict.allowed_regions = regions
        if blocked:
            kinds = ", ".join(sorted({b.split(" ", 1)[0] for b in blocked}))
            raise Reject(
                400, "pii_blocked",
                f"the request contains personal data this gateway does not forward: {kinds} ({'; '.join(blocked[:5])})",
                details={"pii": verdict.evidence()},
            )  # fmt: skip

    # the output guard
    def filter_for(self, verdict: PiiVerdict, surface: str) -> ResponseFilter | None:
        scanner = self.output_scanner
        if scanner is None or surface not in ("chat", "completions", "mcp"):
            return None

        def found(place: str, f: Finding) -> None:
            verdict.output_counts[f.entity] += 1
            verdict.output_findings.append(
                {"entity": f.entity, "where": place, "start": f.start, "end": f.end, "action": "redact"}
            )
            self.metrics.findings.labels(f.entity, "redact", "output").inc()

        def scrub(text: str, findings: tuple[Finding, ...]) -> str:
            return redact(text, findings, self.replacement)

        def withheld(place: str) -> None:
            if place not in verdict.output_withheld:
                verdict.output_withheld.append(place)

        window = self.params.output.window_chars
        whole = WholeRedactor(scanner.analyze, scrub, found, withheld, surface=surface)
        if surface == "mcp":  # tool results: one JSON result per call
            return whole
        stream = StreamRedactor(scanner.analyze, scrub, found, withheld, window=window, surface=surface)
        return _Either(stream, whole)


class _Either:
    """One filter for an answer that may turn out streamed or whole."""

    def __init__(self, stream: StreamRedactor, whole: WholeRedactor):
        self._stream, self._whole = stream, whole

    def whole(self, body: bytes) -> bytes:
        return self._whole.whole(body)

    def chunk(self, data: bytes) -> bytes:
        return self._stream.chunk(data)

    def end(self) -> bytes:
        return self._stream.end()
