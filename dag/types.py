"""The step contract the engine runs: a declaration and a runnable."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


class Failure(enum.StrEnum):
    """What a step's failure means for the rest of the plan."""

    CLOSED = "closed"  # the whole run fails; in-flight steps are cancelled
    OPEN = "open"  # the step's key takes the declared fallback value
    OPTIONAL = "optional"  # the step's key is absent; steps requiring it are skipped


class Outcome(enum.StrEnum):
    """How one step ended, as recorded in the evidence."""

    OK = "ok"
    SKIPPED = "skipped"
    FAILED = "failed"
    FAILED_OPEN = "failed_open"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    HALTED = "halted"


_OUTCOME = {o: o.value for o in Outcome}  # Enum.value is a descriptor call; records are written per request


class Inputs(dict[str, Any]):
    """The keys a step declared, as resolved for one run; fan-out adds `item`."""

    __slots__ = ("index", "item")

    def __init__(self, values: Mapping[str, Any], item: Any = None, index: int | None = None):
        super().__init__(values)
        self.item = item
        self.index = index


Condition = Callable[[Inputs], bool]
Derive = Callable[[Any], Any]
"""Projects a step's value onto another key; returning None leaves that key absent."""


@dataclass(frozen=True, slots=True)
class StepSpec:
    """What a step needs, what it gives, and how it may fail.

    `derives` maps further keys to projections of the step's value (an Intent
    gives its request class, a PII verdict its allowed regions), so one step
    can feed several consumers without them knowing its type. Among steps
    ready at once, those whose work runs off the loop (`cpu_bound`, or
    `offloads`: the step's own threads) start first, so the others' work on
    the loop overlaps theirs instead of delaying its start.
    """

    name: str
    requires: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    provides: str | None = None
    timeout: float | None = None
    failure: Failure = Failure.CLOSED
    fallback: Any = None
    cpu_bound: bool = False
    offloads: bool = False  # run() hands its work to threads of its own and waits: started before its peers
    fan_out: str | None = None
    when: Condition | None = field(default=None, compare=False)
    derives: Mapping[str, Derive] = field(default_factory=dict, compare=False)

    @property
    def inputs(self) -> tuple[str, ...]:
        """Every key the step waits for, required first."""
        return self.requires + self.optional + ((self.fan_out,) if self.fan_out else ())

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key the step settles: what it provides, then what it derives from that."""
        return ((self.provides,) if self.provides else ()) + tuple(self.derives)


class Runnable(Protocol):
    """A step instance: a spec plus the work itself.

    `run` is awaited on the event loop. A step whose spec says `cpu_bound`
    is called through `run_blocking` on a worker thread instead.
    """

    @property
    def spec(self) -> StepSpec: ...

    async def run(self, inputs: Inputs) -> Any: ...

    def run_blocking(self, inputs: Inputs) -> Any: ...


@dataclass(slots=True)
class StepRecord:
    """One step's start, end and outcome, in milliseconds from the run's start."""

    name: str
    outcome: Outcome
    start_ms: float
    end_ms: float
    detail: str | None = None
    instances: int | None = None

    @property
    def duration_ms(self) -> float:
        return self.end_ms - self.start_ms

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view for logs and evidence."""
        out: dict[str, Any] = {
            "step": self.name,
            "outcome": _OUTCOME[self.outcome],
            "start_ms": round(self.start_ms, 3),
            "duration_ms": round(self.duration_ms, 3),
        }
        if self.detail is not None:
            out["detail"] = self.detail
        if self.instances is not None:
            out["instances"] = self.instances
        return out
