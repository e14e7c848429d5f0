"""The `guards.classify` step: an Intent for every request, locally or by a model call.

Structure decides first (an embeddings call, a turn that carries a tool's
result, a prompt past the long-document size); otherwise the request's last
instruction is classified by the local model, or, in model mode, by a
constrained call to a configured OpenAI-compatible server, falling back to the
local model when that call fails, times out or answers out of bounds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import re
import time
from collections.abc import AsyncIterator, Mapping
from operator import attrgetter
from pathlib import Path
from typing import Any, ClassVar, Literal

import aiohttp
import structlog
from prometheus_client import Counter
from pydantic import Field, HttpUrl, model_validator

from taskgate.errors import TaskgateError
from taskgate.plugins import (
    REQUEST,
    REQUEST_CLASS,
    Derive,
    Inputs,
    Params,
    RequestContext,
    Services,
    Step,
    StepSpec,
    Surface,
    describe,
)

from .classifier import Example, LocalModel, read_examples
from .intent import CLASSES, INTENT, Intent
from .pii import PII

log = structlog.get_logger("taskgate.guards")
RequestClass = Literal["interactive", "batch", "background"]
# where a request's parts meet: sentences, semicolons, lines, commas, "then", "and then", "after that", "also"
PARTS = re.compile(
    r"(?i)\s*(?:[;\n]+|(?<=[.!?])\s+|,?\s+\b(?:and then|then|after that|afterwards|and also|also|and)\b[,:]?"
    r"|,\s+(?!\d))\s*"  # a comma, but not the one before an amount ("my pizza, 12.50, send it to him")
)
# the user's own words end where pasted or quoted text begins: parts are never read from what they quote
OWN_WORDS = re.compile(r":\s*\n|\n\s*\n|[\"\u201c\u00ab]|:\s+\S+@|```")
MAX_PARTS = 8
MIN_PART_WORDS = 2  # a part of a request is classified on its own from two words ("pay jonas") up
MAX_PART_CHARS = 2_000
STRUCTURAL = ("embedding", "agent_tool_step", "long_document")
ANSWERS_KEPT = 10_000


class TaskType(Params):
    """What a task type maps to: the routing class, the authz profile, the usual answer size."""

    request_class: RequestClass = "interactive"
    profile: str | None = None  # default: the task type's own name
    output_tokens: int = Field(default=256, ge=1)  # when the request sets no max_tokens
    caller_class: Literal["off", "lower", "any"] = "lower"  # may the class header change it? lower: less urgent only


DEFAULT_TYPES = {
    "chat": TaskType(request_class="interactive", output_tokens=256),
    "code": TaskType(request_class="interactive", output_tokens=512),
    "summarise": TaskType(request_class="batch", output_tokens=256),
    "extract": TaskType(request_class="batch", output_tokens=256),
    "long_document": TaskType(request_class="batch", output_tokens=512),
    "embedding": TaskType(request_class="batch", output_tokens=1),
    "agent_tool_step": TaskType(request_class="interactive", output_tokens=256),
}


class ModelMode(Params):
    """A model call that classifies: an OpenAI-compatible server (a routing pool or URLs) and a budget."""

    pool: str | None = None  # a pool of the routing section: its endpoints are tried in order
    urls: list[HttpUrl] = Field(default_factory=list)  # or base URLs of any OpenAI-compatible server
    model: str
    timeout_s: float = Field(default=0.5, gt=0)
    max_tokens: int = Field(default=8, ge=1, le=64)
    # redacted: wait for the pii step (if the plan has one) and send the redacted instruction;
    # raw: run beside pii and send the instruction as written (the server must be trusted with it)
    send: Literal["redacted", "raw"] = "redacted"

    @model_validator(mode="after")
    def _one_target(self) -> ModelMode:
        if (self.pool is None) == (not self.urls):
            raise ValueError("set exactly one of `pool` (a routing pool) and `urls`")
        return self


class ClassifyParams(Params):
    mode: Literal["local", "model"] = "local"
    model: ModelMode | None = None
    task_types: dict[str, TaskType] = Field(default_factory=dict)  # merged over the defaults
    examples: list[Path] = Field(default_factory=list)  # more labelled examples (JSON lines): new task types
    example_weight: float = Field(default=0.0, ge=0)  # one operator example counts as this many bundled; 0: auto
    heldout: list[Path] = Field(default_factory=list)  # labelled examples kept apart: accuracy logged at start-up
    parts: bool = True  # a request with several parts ("do A, then B"): each part's task type counts too
    part_confidence: float = Field(default=0.75, ge=0, le=1)  # a part's label counts from this confidence up
    min_confidence: float = Field(default=0.0, ge=0, le=1)  # below it the task gets `uncertain_profile`
    uncertain_profile: str = "default"  # the narrowest profile: what an unsure classification falls to
    long_document_tokens: int = Field(default=8_000, ge=1)
    chars_per_token: float = Field(default=4.0, gt=0)
    class_header: str = "x-taskgate-class"

    @model_validator(mode="after")
    def _model_settings(self) -> ClassifyParams:
        if self.mode == "model" and self.model is None:
            raise ValueError("mode 'model' needs a `model` section: pool or urls, model, timeout_s")
        return self


class ClassifyStep(Step[ClassifyParams]):
    """Provides `intent`, and derives `request_class` for routing."""

    type = "guards.classify"
    requires = (REQUEST,)
    provides = INTENT
    derives: ClassVar[Mapping[str, Derive]] = {REQUEST_CLASS: attrgetter("request_class")}
    Params = ClassifyParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        p = self.params
        extra = tuple(str(path) for path in p.examples)
        labels = tuple(sorted({*LocalModel.packaged().labels, *(e.label for x in extra for e in read_examples(x))}))
        self._fitted = fitting(extra, p.example_weight)  # fitted in a thread while the rest of the app starts
        if not self._fitted.done():
            self.services.lifespan(f"guards.classify.fit:{self.name}", self._ready)
        if p.heldout:
            kept_apart = [e for path in p.heldout for e in read_examples(path)]
            self._fitted.add_done_callback(lambda done: _log_accuracy(self.name, done, kept_apart))
        unknown = [label for label in p.task_types if label not in DEFAULT_TYPES and label not in labels]
        if unknown:
            raise TaskgateError(f"task_types {unknown} are neither built in nor labels of the examples")
        self.labels = labels
        self.types = {**DEFAULT_TYPES, **p.task_types}
        self.targets = _targets(p.model, self.services) if p.mode == "model" and p.model is not None else []
        self.prompt = _system_prompt(labels)
        self._answers: dict[bytes, str] = {}  # model answers by instruction digest, oldest first
        self._by = f"model:{p.model.model}" if p.model is not None else "local"
        self.metrics = self.services.shared("guards.classify.metrics", lambda: _metrics(self.services))

    @property
    def local(self) -> LocalModel:
        """The local model (waits for its fit, for callers outside the event loop)."""
        return self._fitted.result()

    @contextlib.asynccontextmanager
    async def _ready(self) -> AsyncIterator[None]:
        """Serve once the operator's examples are fitted (they fit while the app's other parts start)."""
        if not self._fitted.done():
            await asyncio.wrap_future(self._fitted)
        yield

    async def _model(self) -> LocalModel:
        """The local model; the first requests after start-up wait for the operator's examples to be fitted."""
        if not self._fitted.done():
            await asyncio.wrap_future(self._fitted)
        return self._fitted.result()

    def declare(self, spec: StepSpec) -> StepSpec:
        model = self.params.model
        if self.params.mode == "model" and model is not None and model.send == "redacted":
            return dataclasses.replace(spec, optional=(*spec.optional, PII))  # never send what pii would redact
        return spec

    async def run(self, inputs: Inputs) -> Intent:
        started = time.perf_counter()
        context: RequestContext = inputs[REQUEST]
        body = context.json()
        redactions = getattr(inputs.get(PII), "redactions", None)
        instruction, total_chars, tool_turn = _read(
            context.surface, body, redactions if isinstance(redactions, dict) else {}
        )
        stated = context.purpose() if context.surface == Surface.MCP else None
        if stated is not None:  # an MCP task states its purpose; the call itself is no instruction
            instruction, total_chars, tool_turn = stated, len(stated), False
        prompt_tokens = int(total_chars / self.params.chars_per_token) + 1
        fallback = None
        if context.surface == Surface.EMBEDDINGS:
            task, confidence, by = "embedding", 1.0, "rules"
        elif prompt_tokens > self.params.long_document_tokens:
            task, confidence, by = "long_document", 1.0, "rules"
        else:
            task, confidence, by, fallback = await self._instruction(instruction)
        model = await self._model() if by == "local" and self.params.parts and task not in STRUCTURAL else None
        kind = self.types.get(task, TaskType())
        if tool_turn and task not in STRUCTURAL:
            # a turn that returns a tool's result belongs to its task: it keeps the task's class and profile
            instruction_type, task = task, "agent_tool_step"
            kind = kind.model_copy(update={"output_tokens": self.types["agent_tool_step"].output_tokens})
            profile = kind.profile or instruction_type
        else:
            instruction_type, profile = None, kind.profile or task
        request_class, source = self._class(kind, context)
        output_tokens = _max_tokens(body) or kind.output_tokens
        self.metrics.labels(task, by.split(":", 1)[0], request_class).inc()
        profiles: tuple[str, ...] = ()
        uncertain = by == "local" and task not in STRUCTURAL and confidence < self.params.min_confidence
        if uncertain:
            profile = self.params.uncertain_profile
        elif model is not None:
            profiles = parts_of(model, self.types, instruction, profile, self.params.part_confidence)
        return Intent(
            task, request_class, profile, prompt_tokens, output_tokens, confidence, by,
            source, fallback, (time.perf_counter() - started) * 1000.0, instruction_type, profiles, uncertain,
        )  # fmt: skip

    async def _instruction(self, text: str) -> tuple[str, float, str, str | None]:
        """The task type of the conversation's instruction: (type, confidence, classifier, fallback reason)."""
        if not self.targets:
            label, confidence = (await self._model()).predict(text)
            return label, confidence, "local", None
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        known = self._answers.get(key)
        if known is not None:  # the same conversation asks again each turn: one model call per instruction
            return known, 1.0, self._by, None
        answer, fallback = await self._ask_model(text)
        if answer is None:
            label, confidence = (await self._model()).predict(text)
            return label, confidence, "local", fallback
        self._answers[key] = answer
        if len(self._answers) > ANSWERS_KEPT:
            self._answers.pop(next(iter(self._answers)))
        return answer, 1.0, self._by, None

    def _class(self, kind: TaskType, context: RequestContext) -> tuple[str, str]:
        claimed = context.headers.get(self.params.class_header)
        if claimed is None or claimed not in CLASSES or kind.caller_class == "off":
            return kind.request_class, "task_type"
        if kind.caller_class == "lower" and CLASSES.index(claimed) < CLASSES.index(kind.request_class):
            return kind.request_class, "task_type"  # a header may not buy more urgency
        return claimed, "header"

    async def _ask_model(self, instruction: str) -> tuple[str | None, str | None]:
        """The model's label, or None and why not (the caller falls back to the local model)."""
        assert self.params.model is not None
        mode = self.params.model
        payload = {
            "model": mode.model,
            "messages": [{"role": "system", "content": self.prompt}, {"role": "user", "content": instruction[:2000]}],
            "max_tokens": mode.max_tokens,
            "temperature": 0,
            "stream": False,
        }
        problems = []
        try:
            http = self.services.http
        except TaskgateError:
            return None, "no HTTP client (taskgate explain calls no model)"
        try:
            async with asyncio.timeout(mode.timeout_s):
                for url, headers in self.targets:
                    try:
                        async with http.post(f"{url}/v1/chat/completions", json=payload, headers=headers) as r:
                            if r.status != 200:
                                problems.append(f"{url} answered {r.status}")
                                continue
                            answer = _label(await r.read(), self.labels)
                    except aiohttp.ClientError as exc:
                        problems.append(f"{url}: {describe(exc)}")
                        continue
                    if answer is None:
                        return None, f"{url} gave an answer that is not one of the labels"
                    return answer, None
        except TimeoutError:
            return None, f"no answer within {mode.timeout_s} s"
        return None, "; ".join(problems) or "no target"


def _label(raw: bytes, labels: tuple[str, ...]) -> str | None:
    """Strict parsing: the answer's whole text, trimmed and lower-cased, must be one label."""
    try:
        content = json.loads(raw)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if not isinstance(content, str):
        return None
    answer = content.strip().lower().rstrip(".")
    return answer if answer in labels else None


def _system_prompt(labels: tuple[str, ...]) -> str:
    return (
        "You label requests sent to an AI gateway by the kind of task they ask for. "
        f"Answer with exactly one word from this list: {', '.join(labels)}. "
        "No punctuation, no explanation."
    )


def _targets(mode: ModelMode, services: Services) -> list[tuple[str, dict[str, str]]]:
    if mode.urls:
        return [(str(url).rstrip("/"), {}) for url in mode.urls]
    pools = getattr(services.sections.get("routing"), "pools", None) or []
    pool = next((p for p in pools if getattr(p, "name", None) == mode.pool), None)
    if pool is None:
        known = ", ".join(getattr(p, "name", "?") for p in pools) or "none"
        raise TaskgateError(f"model.pool {mode.pool!r} is not a pool of the routing section (pools: {known})")
    out = []
    for endpoint in pool.endpoints:
        key = os.environ.get(endpoint.api_key_env, "") if endpoint.api_key_env else ""
        out.append((str(endpoint.url).rstrip("/"), {"Authorization": f"Bearer {key}"} if key else {}))
    return out


def parts_of(
    model: LocalModel, types: Mapping[str, TaskType], instruction: str, whole: str, part_confidence: float
) -> tuple[str, ...]:
    """The profiles of a request with several parts ("check my mail, then pay the bill"): each part
    classified on its own, those the model is sure enough of; empty when one profile covers it all."""
    found = [whole]
    own = OWN_WORDS.split(instruction[:MAX_PART_CHARS], maxsplit=1)[0]
    parts = [p for p in PARTS.split(own) if len(p.split()) >= MIN_PART_WORDS]
    if len(parts) < 2:
        return ()
    for part in parts[:MAX_PARTS]:
        label, confidence = model.predict(part)
        if confidence >= part_confidence and label not in STRUCTURAL:
            kind = types.get(label, TaskType())
            found.append(kind.profile or label)
    unique = tuple(dict.fromkeys(found))
    return unique if len(unique) > 1 else ()


@functools.cache
def trained_model(extra: tuple[str, ...], weight: float = 0.0) -> LocalModel:
    """The bundled examples plus the operator's (which outweigh them), fitted once per process per set of files;
    without the operator's, the model packaged at build time."""
    examples: list[Example] = []
    for path in extra:
        examples.extend(read_examples(path))
    return LocalModel.with_operator(examples, weight)


_FITTER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="classifier-fit")
_FITS: dict[tuple[tuple[str, ...], float], concurrent.futures.Future[LocalModel]] = {}


def fitting(extra: tuple[str, ...], weight: float = 0.0) -> concurrent.futures.Future[LocalModel]:
    """The model for these example files, fitted in a thread of its own (once per process): start-up does not
    wait for it, the first requests that need it do. Without examples it is the packaged model, at once."""
    key = (extra, weight)
    found = _FITS.get(key)
    if found is None:
        if not extra:
            found = concurrent.futures.Future()
            found.set_result(trained_model(extra, weight))
        else:
            found = _FITTER.submit(trained_model, extra, weight)
        _FITS[key] = found
    return found


def _log_accuracy(step: str, done: concurrent.futures.Future[LocalModel], kept_apart: list[Example]) -> None:
    if done.exception() is None:
        log.info("classifier_accuracy", step=step, heldout=len(kept_apart),
                 accuracy=round(done.result().accuracy(kept_apart), 4))  # fmt: skip


def _read(surface: str, body: dict[str, Any], redactions: Mapping[str, str]) -> tuple[str, int, bool]:
    """The task's instruction (a conversation's first user message), the prompt's size in characters,
    and whether this turn returns a tool's result."""
    if surface == Surface.CHAT:
        raw = body.get("messages")
        messages = [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []
        texts = [_text(m.get("content"), redactions) for m in messages]
        first_user = next((t for m, t in zip(messages, texts, strict=True) if m.get("role") == "user"), "")
        tool_turn = bool(messages) and messages[-1].get("role") in ("tool", "function")
        return first_user, sum(len(t) for t in texts), tool_turn
    value = body.get("prompt" if surface == Surface.COMPLETIONS else "input")
    if isinstance(value, list):
        value = " ".join(redactions.get(v, v) for v in value if isinstance(v, str))
    text = redactions.get(value, value) if isinstance(value, str) else ""
    return text, len(text), False


def _text(content: Any, redactions: Mapping[str, str]) -> str:
    """A message's text, each piece as the pii step redacted it (when it ran first)."""
    if isinstance(content, str):
        return redactions.get(content, content)
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return " ".join(redactions.get(t, t) for t in parts)
    return ""


def _max_tokens(body: dict[str, Any]) -> int | None:
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _metrics(services: Services) -> Counter:
    return Counter(
        "taskgate_intents", "Classified requests by task type, classifier and request class",
        ["task_type", "classifier", "request_class"], registry=services.metrics,
    )  # fmt: skip
