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
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import structlog
from prometheus_client import Counter as PromCounter

from taskgate.plugins import (
    ALLOWED_REGIONS,
    REQUEST,
    Derive,
    Failure,
    Inputs,
    Reject,
    RequestContext,
    ResponseFilter,
    Services,
    Step,
    StepSpec,
    Surface,
)

from .body import KEY_KINDS, Path, TooDeep, replace_strings, request_texts, where
from .entities import PATTERN_ENTITIES, entities_of
from .findings import Finding, redact, resolve_overlaps
from .lanes import Abandoned, Lane, LaneStalled, Ticket
from .output import StreamRedactor, WholeRedactor, answer_contents
from .pii_params import (
    DEFAULT_RULES,
    Action,
    DecodeParams,
    EntityRule,
    OutputParams,
    PiiParams,
    Precision,
    action_of,
)
from .seams import Split, Window, splits, windows

if TYPE_CHECKING:  # the analyzer (presidio, spaCy) loads when a step is built, not when taskgate.guards is imported
    from .scan import Scanner
    from .views import Decoding

__all__ = ["DEFAULT_RULES", "PII", "Action", "DecodeParams", "EntityRule", "OutputParams", "PiiParams", "PiiStep",
           "PiiVerdict"]  # fmt: skip

PII = "pii"
log = structlog.get_logger("taskgate.guards")
MAX_EVIDENCE_FINDINGS = 100
Known = dict[str, tuple[Finding, ...]]
Learn = Callable[[bytes, bool], None]  # (the answer as the client got it, streamed)
MAX_LEARN_BYTES = 1 << 20  # a longer answer is not analysed ahead
Text = tuple[Path, str, str]  # (path, kind, text)


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
    vouched: set[str] = field(default_factory=set)  # the request's: values a step vouches for, never redacted
    kept_vouched: int = 0  # texts that would have been redacted, kept because a step vouched for them

    def action(self, entity: str) -> str:
        return action_of(self.rules, self.default, entity)

    def edit_body(self, body: dict[str, Any]) -> bool:
        """Replace every scanned text that had something to redact, wherever it sits in the body now.

        Matching by content rather than by position keeps redaction right when
        another step's edit moved things (a system message prepended, say).
        """
        redactions = {t: r for t, r in self.redactions.items() if t not in self.vouched}
        self.kept_vouched = len(self.redactions) - len(redactions)
        if not redactions:
            return False
        changed = False
        for key, value in list(body.items()):
            new, did = replace_strings(value, redactions)
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
        if self.kept_vouched:
            out["kept_vouched"] = self.kept_vouched  # trusted values a granted tool's rule admitted
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
    offloads = True  # the analysis runs on its own lanes: started before the steps beside it
    Params = PiiParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        from .names import names_for
        from .presidio import warm
        from .scan import Scanner

        p = self.params
        warm(p.backend)  # loaded at start-up: the first request does not pay for the model
        warm("patterns")  # further readings and the boundaries between texts use the pattern analyzer
        names = names_for(p)
        # per-type floors and allow-lists, applied to what the analyzer found
        self.precision = Precision(p, names.mailbox_part if names is not None else None)
        low = self.precision.lowest
        self.scanner = Scanner(
            p.backend, entities_of(p.backend), low, p.cache_entries, self._decoding(), p.ner_scope, names
        )
        checked = [e for e in PATTERN_ENTITIES if self._action(e) != "allow"]  # values across texts: these types
        self.seam_scanner = Scanner("patterns", checked, low, p.cache_entries) if checked else None
        self.replacement: dict[str, str | None] = {
            e: (f"<{e}>" if r.style == "placeholder" else None) for e, r in p.entities.items()
        }
        out_entities = [e for e in PATTERN_ENTITIES if self._action(e) in ("redact", "block")]
        self.output_scanner = (
            Scanner("patterns", out_entities, p.threshold, 0) if p.output.enabled and out_entities else None
        )
        self.metrics = self.services.shared("guards.pii.metrics", lambda: PiiMetrics(self.services))
        # two lanes: a request with little new text never waits behind a large one's analysis
        self.pool = self._lane("large", p.threads, max(p.stall_s, p.max_timeout_s))
        self.small_pool = self._lane("small", 1, p.stall_s)
        self.services.lifespan(f"guards.pii.pool.{self.name}", self._pool_lifespan)
        self._learning: set[asyncio.Future[int]] = set()  # answers being analysed ahead
        if self.spec.failure is not Failure.CLOSED:
            log.warning(
                "pii_step_fails_open", step=self.name, on_error=self.spec.failure.value,
                effect="a request the analyzer cannot scan in time is forwarded unscanned, in any region",
            )  # fmt: skip

    def _decoding(self) -> Decoding | None:
        from .views import Decoding

        d = self.params.decode
        blocked = tuple(e for e in PATTERN_ENTITIES if self._action(e) == "block")
        return Decoding(blocked, d.max_runs, d.max_chars) if d.enabled and blocked else None

    def _lane(self, which: str, threads: int, stall_s: float) -> Lane:
        suffix = "" if which == "large" else f"-{which}"
        counter = self.metrics.set_aside.labels(which)
        name = f"taskgate-pii-{self.name}{suffix}"
        return Lane(name, threads, stall_s, self.params.max_stalled_threads, on_set_aside=counter.inc)

    def declare(self, spec: StepSpec) -> StepSpec:
        if self.options.timeout is None:  # the step's own budget answers first, with its own error
            return dataclasses.replace(spec, timeout=self.params.max_timeout_s + 1.0)
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
        texts = self._texts(context)
        verdict = PiiVerdict(
            self.params.entities, self.params.default_action, _output=self if self.output_scanner else None,
            vouched=context.vouched,
        )  # fmt: skip
        known = _from_cache(self.scanner, [t for _, _, t in texts])
        missing = list({t for _, _, t in texts if t not in known})
        if self._learning and any(kind == "assistant" and t not in known for _, kind, t in texts):
            # an earlier answer not analysed yet: it may be the one an answer's analysis is busy with
            await asyncio.wait(set(self._learning), timeout=self.params.budget_s(sum(len(t) for t in missing)))
            known.update(_from_cache(self.scanner, missing))
            missing = [t for t in missing if t not in known]
        verdict.cached_chars = sum(len(t) for _, _, t in texts if t in known)
        verdict.analysed_chars = sum(len(t) for t in missing)
        content = [i for i, (_, kind, _) in enumerate(texts) if kind not in KEY_KINDS]
        seams = windows([texts[i][2] for i in content]) if self.seam_scanner is not None else []
        joined = _from_cache(self.seam_scanner, [w.text for w in seams])
        unjoined = list({w.text for w in seams if w.text not in joined})
        if missing or unjoined:
            found, found_joined = await self._analyse(missing, unjoined)
            known.update(found)
            joined.update(found_joined)
        self.metrics.chars.labels("cache").inc(verdict.cached_chars)
        self.metrics.chars.labels("analysed").inc(verdict.analysed_chars)
        known, joined = self._kept(known), self._kept(joined)
        self._decide(verdict, texts, known, _splits(seams, joined, content))
        verdict.ms = (time.perf_counter() - started) * 1000.0
        return verdict

    def _texts(self, context: RequestContext) -> list[Text]:
        try:
            texts = list(request_texts(context.surface, context.json()))
        except TooDeep as exc:
            raise Reject(400, "pii_unscannable", f"the PII filter cannot scan this request: {exc}") from None
        total = sum(len(t) for _, _, t in texts)
        if total > self.params.max_chars:
            raise Reject(
                413,
                "pii_too_much_text",
                f"the request has {total} characters of text; the PII filter scans at most {self.params.max_chars}",
            )
        return texts

    async def _analyse(self, texts: list[str], seams: list[str]) -> tuple[Known, Known]:
        size = sum(len(t) for t in texts) + sum(len(w) for w in seams)
        lane = self.small_pool if size <= self.params.small_chars else self.pool
        budget = self.params.budget_s(size)
        deadline = time.monotonic() + budget
        job = functools.partial(self._analyse_blocking, texts, seams, deadline)
        try:
            async with asyncio.timeout(budget):
                result: tuple[Known, Known] = await lane.submit(job, deadline)
                return result
        except LaneStalled as exc:
            self._refuse("stalled", str(exc))
        except TimeoutError:
            p = self.params
            self._refuse(
                "timeout",
                f"{size:,} characters of new text need more than their {budget:g} s analysis budget (timeout_s "
                f"{p.timeout_s:g} + timeout_per_kchar_s {p.timeout_per_kchar_s:g} per 1,000, at most max_timeout_s "
                f"{p.max_timeout_s:g}); raise the guards.pii step's timeout_per_kchar_s or max_timeout_s, or send "
                "less text",
                public=True,
            )
        except Exception as exc:
            self._refuse("error", f"the analyzer failed: {type(exc).__name__}: {exc}"[:300])

    def _analyse_blocking(
        self, texts: list[str], seams: list[str], deadline: float, ticket: Ticket
    ) -> tuple[Known, Known]:
        def checkpoint() -> None:  # an analysis past its request's budget stops, and leaves nothing cached:
            ticket.checkpoint()  # a retry meets the same budget, not the result of the first attempt
            if time.monotonic() > deadline:
                raise Abandoned("past its request's analysis budget")

        found = {text: self.scanner.analyze(text, checkpoint) for text in texts}
        joined = self.seam_scanner
        return found, ({w: joined.analyze(w, checkpoint) for w in seams} if joined is not None else {})

    def _kept(self, known: Known) -> Known:
        """Findings without those the operator's floors and allow-lists say are not personal data."""
        return {text: self.precision.kept(text, found) for text, found in known.items()}

    def _refuse(self, reason: str, detail: str, public: bool = False) -> NoReturn:
        """503, never forwarded; `public` says the detail (sizes, budgets, keys: no content) to the client too."""
        self.metrics.failures.labels(reason).inc()
        details = {"reason": detail, "on_failure": self.params.on_failure}
        why = f": {detail}" if public else ""
        retry = {"Retry-After": str(self.params.retry_after_s)}
        if self.params.on_failure == "hold":
            raise Reject(
                503, "pii_held", f"the PII filter could not scan this request yet; it was held, not forwarded; "
                f"retry{why}", "api_error", headers=retry, details=details,
            )  # fmt: skip
        raise Reject(
            503, "pii_unavailable", f"the PII filter could not scan this request, so it was not forwarded{why}",
            "api_error", headers=retry, details=details,
        )  # fmt: skip

    def _decide(self, verdict: PiiVerdict, texts: list[Text], known: Known, split: list[Split]) -> None:
        pieces: defaultdict[int, list[Finding]] = defaultdict(list)
        for s in split:  # a value across texts counts once, and each text gets its piece
            verdict.counts[s.entity] += 1
            self.metrics.findings.labels(s.entity, verdict.action(s.entity), "input").inc()
            for index, piece in s.pieces():
                pieces[index].append(piece)
        blocked: list[str] = []
        regions: frozenset[str] | None = None
        to_redact: defaultdict[str, list[Finding]] = defaultdict(list)
        for index, (path, kind, text) in enumerate(texts):
            # a piece of a value across texts wins over the part of it this text holds alone (`oe@example.com`)
            here = resolve_overlaps([*pieces[index], *known[text]]) if index in pieces else known[text]
            for f in here:
                action = verdict.action(f.entity)
                self._record(verdict, f, path, kind, action)
                if action == "redact" and kind not in KEY_KINDS:
                    to_redact[text].append(f)
                elif action == "block" or (action == "redact" and kind in KEY_KINDS):  # a key cannot be masked
                    blocked.append(f"{f.entity} in {where(path)}")
                elif action == "restrict":
                    allowed = frozenset(self.params.entities[f.entity].regions or ())
                    regions = allowed if regions is None else regions & allowed
        for text, spans in to_redact.items():  # one text in several places: every piece found anywhere
            verdict.redactions[text] = redact(text, resolve_overlaps(spans), self.replacement)
        verdict.allowed_regions = regions
        if blocked:
            kinds = ", ".join(sorted({b.split(" ", 1)[0] for b in blocked}))
            raise Reject(
                400, "pii_blocked",
                f"the request contains personal data this gateway does not forward: {kinds} ({'; '.join(blocked[:5])})",
                details={"pii": verdict.evidence()},
            )  # fmt: skip

    def _record(self, verdict: PiiVerdict, f: Finding, path: Path, kind: str, action: str) -> None:
        if f.via != "joined":  # a piece of a value across texts was counted with its value
            verdict.counts[f.entity] += 1
            self.metrics.findings.labels(f.entity, action, "input").inc()
        entry = {"entity": f.entity, "where": where(path), "kind": kind, "start": f.start, "end": f.end,
                 "score": round(f.score, 2), "action": action}  # fmt: skip
        verdict.findings.append({**entry, "via": f.via} if f.via else entry)

    # the output guard
    def filter_for(self, verdict: PiiVerdict, surface: str) -> ResponseFilter | None:
        scanner = self.output_scanner
        if scanner is None or surface not in (Surface.CHAT, Surface.COMPLETIONS, Surface.MCP):
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

        def analyze(text: str) -> tuple[Finding, ...]:
            # what the operator's floors and allow-lists say is no one's (role mailboxes, published test values,
            # allow_patterns) is no one's in an answer either
            return self.precision.kept(text, scanner.analyze(text))

        window = self.params.output.window_chars
        whole = WholeRedactor(analyze, scrub, found, withheld, surface=surface)
        if surface == Surface.MCP:  # tool results: one JSON result per call
            return whole
        flush_after_s = self.params.output.flush_after_s
        stream = StreamRedactor(
            analyze, scrub, found, withheld, window=window, surface=surface, flush_after_s=flush_after_s
        )
        return _Either(stream, whole, self._learn if self.params.learn_answers and surface == Surface.CHAT else None)

    # answers analysed ahead of the turn that resends them
    def _learn(self, answer: bytes, streamed: bool) -> None:
        """The answer as the client got it: analysed on a worker once the relay has sent it, not before."""
        asyncio.get_running_loop().call_soon(self._start_learning, answer, streamed)

    def _start_learning(self, answer: bytes, streamed: bool) -> None:
        job = functools.partial(self._learn_blocking, answer, streamed)  # parsed on the worker, not the loop
        try:
            future = self.pool.submit(job, time.monotonic() + self.params.max_timeout_s)
        except LaneStalled:
            return  # the analyzer is stuck: the next turn finds the answer unanalysed and says so, as before
        self._learning.add(future)

        def done(f: asyncio.Future[int]) -> None:
            self._learning.discard(f)
            if not f.cancelled() and f.exception() is None:
                self.metrics.chars.labels("answers").inc(f.result())

        future.add_done_callback(done)

    def _learn_blocking(self, answer: bytes, streamed: bool, ticket: Ticket) -> int:
        """Analyse the answer's texts not analysed yet; the characters analysed."""
        texts = [t for t in answer_contents(answer, streamed) if self.scanner.cached(t) is None]
        for text in texts:
            self.scanner.analyze(text, ticket.checkpoint)
        return sum(len(t) for t in texts)


def _from_cache(scanner: Scanner | None, texts: list[str]) -> Known:
    """The texts the scanner has already analysed, with what it found."""
    known: Known = {}
    if scanner is None:
        return known
    for text in texts:
        cached = scanner.cached(text)
        if cached is not None:
            known[text] = cached
    return known


def _splits(seams: list[Window], joined: Known, content: list[int]) -> list[Split]:
    """Values across texts, once each, their pieces placed by index into the request's texts."""
    out: dict[tuple[str, tuple[tuple[int, int, int], ...]], Split] = {}
    for window in seams:
        for s in splits(window, joined[window.text]):
            parts = tuple((content[i], a, b) for i, a, b in s.parts)
            out.setdefault((s.entity, parts), Split(s.entity, s.score, parts))
    return list(out.values())


class _Either:
    """One filter for an answer that may turn out streamed or whole; `learn` hears the bytes the client got."""

    def __init__(self, stream: StreamRedactor, whole: WholeRedactor, learn: Learn | None = None):
        self._stream, self._whole, self._learn = stream, whole, learn
        self.flush_after_s = stream.flush_after_s
        self._sent: list[bytes] | None = [] if learn is not None else None
        self._size = 0

    def whole(self, body: bytes) -> bytes:
        out = self._whole.whole(body)
        if self._learn is not None and len(out) <= MAX_LEARN_BYTES:
            self._learn(out, False)
        return out

    def chunk(self, data: bytes) -> bytes:
        return self._keep(self._stream.chunk(data))

    def end(self) -> bytes:
        out = self._keep(self._stream.end())
        if self._learn is not None and self._sent is not None:
            self._learn(b"".join(self._sent), True)
        return out

    def flush(self) -> bytes:
        return self._keep(self._stream.flush())

    def _keep(self, out: bytes) -> bytes:
        if self._sent is not None and out:
            self._size += len(out)
            if self._size > MAX_LEARN_BYTES:
                self._sent = None  # too long to be worth analysing ahead: the next turn pays for it, as before
            else:
                self._sent.append(out)
        return out


if TYPE_CHECKING:  # the hooks the gateway reads from the step's value (plugins.hooks)
    from taskgate.plugins import BodyEdit, HasEvidence, OutputGuard

    _: tuple[type[BodyEdit], type[OutputGuard], type[HasEvidence]] = (PiiVerdict, PiiVerdict, PiiVerdict)
