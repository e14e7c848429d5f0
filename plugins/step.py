"""The Step contract plugin authors implement."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from taskgate.dag import Derive, Failure, Inputs, StepSpec

from .params import NoParams, Params
from .services import Services

P = TypeVar("P", bound=Params)


@dataclass(frozen=True, slots=True)
class StepOptions:
    """Per-instance engine options from config: timeout and failure policy."""

    timeout: float | None = None
    failure: Failure = Failure.CLOSED
    fallback: Any = None


class Step(Generic[P]):
    """A unit of work in a plan.

    Subclasses set `type` (the name config uses), the keys they `requires`
    and `provides` (plus `derives`: further keys projected from the value),
    a `Params` model, and implement `run` (or `run_blocking` with
    `cpu_bound = True` for work that must stay off the event loop).
    Parameters are validated once, when the instance is built; where they
    change what the instance declares, override `declare`.
    """

    type: ClassVar[str] = ""
    requires: ClassVar[tuple[str, ...]] = ()
    optional: ClassVar[tuple[str, ...]] = ()
    provides: ClassVar[str | None] = None
    derives: ClassVar[Mapping[str, Derive]] = {}
    fan_out: ClassVar[str | None] = None
    cpu_bound: ClassVar[bool] = False
    offloads: ClassVar[bool] = False  # run() hands its work to threads of its own: started before its peers
    default_timeout: ClassVar[float | None] = None
    Params: ClassVar[builtins.type[Params]] = NoParams

    def __init__(self, name: str, params: P, services: Services, options: StepOptions | None = None):
        self.name = name
        self.params = params
        self.services = services
        self.options = options or StepOptions()
        self._spec = self.declare(self._declared())

    @property
    def spec(self) -> StepSpec:
        return self._spec

    async def run(self, inputs: Inputs) -> Any:
        """Do the step's one job; return the value for `provides`."""
        raise NotImplementedError(f"step type {self.type!r} does not implement run()")

    def run_blocking(self, inputs: Inputs) -> Any:
        """Like `run`, for `cpu_bound` steps; called on a worker thread."""
        raise NotImplementedError(f"step type {self.type!r} does not implement run_blocking()")

    def when(self, inputs: Inputs) -> bool:
        """Override to skip the step for some requests; the default always runs."""
        return True

    def declare(self, spec: StepSpec) -> StepSpec:
        """What this instance declares, given what its class and config's options say; called once.

        Override it when the parameters decide what the step waits for or how long it
        may take, and return a changed copy (`dataclasses.replace(spec, ...)`). It runs
        inside `Step.__init__`: `name`, `params`, `services` and `options` are set, a
        subclass's own set-up is not done yet. The default keeps `spec` as it is.
        """
        return spec

    def _declared(self) -> StepSpec:
        cls, options = type(self), self.options
        overrides_when = cls.when is not Step.when
        return StepSpec(
            name=self.name,
            requires=cls.requires,
            optional=cls.optional,
            provides=cls.provides,
            timeout=options.timeout if options.timeout is not None else cls.default_timeout,
            failure=options.failure,
            fallback=options.fallback,
            cpu_bound=cls.cpu_bound,
            offloads=cls.offloads,
            fan_out=cls.fan_out,
            when=self.when if overrides_when else None,
            derives=dict(cls.derives),
        )
