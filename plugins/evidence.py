"""The per-request evidence record: steps with timings, decisions, dispatch; one record per request or task.

Every surface fills one in as a request proceeds, and the calls taskgate
makes for a task (a model turn, a tool call, a workflow step) each fill a
child record that becomes one entry of the task's trace.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from taskgate.dag import StepRecord
from taskgate.logs import dumps, loads

from .hooks import HasEvidence, hooks_of


@dataclass
class Evidence:
    """Filled in as the request proceeds; written once, as one log line."""

    request_id: str
    path: str
    surface: str | None = None
    model: str | None = None
    status: int | None = None
    steps: list[StepRecord] = field(default_factory=list)
    decisions: dict[str, HasEvidence] = field(default_factory=dict)  # described when the record is written
    dispatch: HasEvidence | None = None  # the live dispatch log; read when the record is written
    error: dict[str, Any] | None = None
    task: dict[str, Any] | None = None  # a task taskgate ran itself: its summary and trace of calls
    usage: dict[str, Any] | None = None  # tokens (and cost) of the answer; a task's: the sum over its calls
    batch: dict[str, Any] | None = None  # a batch job's item: its job and custom_id; a job's own record: its counts
    started: float = field(default_factory=time.perf_counter)
    started_at: float = field(default_factory=time.time)  # wall clock, for readers that show when it happened
    duration_ms: float = 0.0
    quiet: bool = False  # a request the gateway answered about itself (the dashboard's polls): it is kept nowhere
    trace: Any = field(default=None, repr=False, compare=False)
    """Where tracing records this request or call (the proxy sets it when tracing is on): its `finish(evidence)`
    runs once, when the record is finished, so the spans end with the record's status, error and usage."""

    def add_decisions(self, values: Mapping[str, Any]) -> None:
        """Take the self-describing step outputs (Placement, Intent, PII verdict, ...).

        They are described when the record is written, so what an output guard
        did to the answer is part of it.
        """
        for key, value in values.items():
            if HasEvidence in hooks_of(type(value)):
                self.decisions[key] = value

    def fail(self, code: str, message: str, step: str | None = None, details: Mapping[str, Any] | None = None) -> None:
        self.error = {"code": code, "message": message} | ({"step": step} if step else {}) | dict(details or {})

    def finish(self, status: int) -> None:
        self.status = status
        self.duration_ms = (time.perf_counter() - self.started) * 1000.0
        if self.trace is not None:
            trace, self.trace = self.trace, None
            trace.finish(self)

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request_id": self.request_id,
            "started_at": round(self.started_at, 3),
            "path": self.path,
            "surface": self.surface,
            "model": self.model,
            "status": self.status,
            "duration_ms": round(self.duration_ms, 3),
            "steps": [r.as_dict() for r in self.steps],
        }
        if self.decisions:
            out["decisions"] = {key: dict(value.evidence()) for key, value in self.decisions.items()}
        if self.dispatch is not None:
            out["dispatch"] = dict(self.dispatch.evidence())
        if self.error:
            out["error"] = self.error
        if self.usage is not None:
            out["usage"] = self.usage
        if self.task is not None:
            out["task"] = self.task
        if self.batch is not None:
            out["batch"] = self.batch
        return out

    def child(self, suffix: str) -> Evidence:
        """The record of one call made for this request's task (a model turn, a tool call)."""
        return Evidence(f"{self.request_id}.{suffix}", self.path)

    def trace_entry(self, child: Evidence, started: float, status: int, extra: Mapping[str, Any]) -> dict[str, Any]:
        """`child`'s record, finished with `status`, as one entry of this request's task trace."""
        child.finish(status)
        if child.usage is not None:
            self.usage = _summed(self.usage, child.usage)
        record = child.record()
        record.pop("path", None)
        record.pop("started_at", None)  # its offset in the task (started_ms) says when
        return {**extra, "started_ms": self.offset_ms(started), **record}

    def offset_ms(self, at: float) -> float:
        """`at` (a perf_counter time) as milliseconds since this request started."""
        return round((at - self.started) * 1000.0, 3)


def _summed(total: dict[str, Any] | None, more: Mapping[str, Any]) -> dict[str, Any]:
    """Two evidence `usage` records as one: counts added, a cost known only if both are."""
    if total is None:
        return dict(more)
    out = {key: total.get(key, 0) + more.get(key, 0) for key in ("prompt_tokens", "completion_tokens", "cached_tokens")}
    if "cost" in total and "cost" in more:
        out["cost"] = round(total["cost"] + more["cost"], 8)
    return out


class EvidenceLog:
    """The most recent records, kept in memory for inspection (the dashboard, the demo, `taskgate.testing`, a test's
    assertions).

    A finished `Evidence` is kept as it is until it is rendered (the gateway's flush, right after the answer went
    out, or a reader before that), then as the JSON bytes of its record: the log line is the same bytes, and an
    old record leaves the ring as one object, not a tree of them.
    """

    def __init__(self, size: int):
        self._records: deque[Kept] = deque(maxlen=size)
        self.added = 0
        """Records ever added: a reader's cursor for `since`."""

    def add(self, record: dict[str, Any] | Evidence) -> Kept:
        kept = Kept(record)
        self._records.append(kept)
        self.added += 1
        return kept

    def since(self, cursor: int) -> list[dict[str, Any]]:
        """The records added after `cursor` (an earlier `added`) that are still kept, oldest first.

        A cursor from before the oldest kept record gets every kept one; one this log never reached
        (the reader saw another process) gets every kept one too.
        """
        kept = len(self._records)
        new = kept if not 0 <= cursor <= self.added else min(self.added - cursor, kept)
        return [k.record() for k in islice(self._records, kept - new, None)]

    def find(self, request_id: str) -> dict[str, Any] | None:
        return next((r for k in reversed(self._records) if (r := k.record())["request_id"] == request_id), None)

    def records(self) -> list[dict[str, Any]]:
        return [k.record() for k in self._records]


class Kept:
    """One kept record: an Evidence until it is rendered, then its record's JSON bytes."""

    __slots__ = ("_kept",)

    def __init__(self, kept: dict[str, Any] | Evidence):
        self._kept: dict[str, Any] | Evidence | bytes = kept

    def rendered(self) -> bytes:
        """The record as JSON bytes, rendered once."""
        kept = self._kept
        if isinstance(kept, bytes):
            return kept
        rendered = dumps(kept.record() if isinstance(kept, Evidence) else kept)
        if isinstance(kept, Evidence):
            self._kept = rendered
        return rendered

    def record(self) -> dict[str, Any]:
        kept = self._kept
        if isinstance(kept, dict):
            return kept
        record: dict[str, Any] = loads(self.rendered())
        return record
